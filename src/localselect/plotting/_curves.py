"""Error rate and selected-set size against alpha (LFS paper, Figs. 6 and 7)."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect._docstrings import fill_doc
from localselect.plotting._axes import new_axes

__all__ = ["plot_cardinality_vs_alpha", "plot_error_vs_alpha"]


def _series(
    alpha: Any, values: Any, std: Any, by: str | None, value_column: str
) -> list[tuple[str | None, np.ndarray, np.ndarray, np.ndarray | None]]:
    """[(label, alpha, values, std)] from arrays or a long DataFrame."""
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is a core dependency
        pd = None
    if pd is not None and isinstance(alpha, pd.DataFrame):
        frame = alpha
        column = values if isinstance(values, str) else value_column
        missing = {"alpha", column} - set(frame.columns)
        if missing:
            raise ValueError(
                f"The DataFrame needs columns alpha and {column!r}; missing {sorted(missing)}."
            )
        groups = frame.groupby(by, sort=False) if by else [(None, frame)]
        out = []
        for label, part in groups:
            part = part.sort_values("alpha", kind="stable")
            spread = part["std"].to_numpy(float) if "std" in part else None
            out.append(
                (
                    None if label is None else str(label),
                    part["alpha"].to_numpy(float),
                    part[column].to_numpy(float),
                    spread,
                )
            )
        return out
    a = np.asarray(alpha, dtype=float)
    v = np.asarray(values, dtype=float)
    if v.ndim == 1:
        v = v[None, :]
    s = None if std is None else np.asarray(std, dtype=float).reshape(v.shape)
    if a.ndim != 1 or v.shape[1] != a.size:
        raise ValueError(f"alpha has {a.size} values but the curves have {v.shape[1]} points.")
    labels = by if isinstance(by, (list, tuple)) else [None] * v.shape[0]
    if len(labels) != v.shape[0]:
        raise ValueError(f"Got {len(labels)} labels for {v.shape[0]} curves.")
    return [(labels[i], a, v[i], None if s is None else s[i]) for i in range(v.shape[0])]


def _plot(alpha, values, std, by, column, ylabel, title, ax, published):
    series = _series(alpha, values, std, by, column)
    fig, ax = new_axes(ax)
    for label, a, v, s in series:
        (line,) = ax.plot(a, v, marker="o", markersize=3, label=label)
        if s is not None:
            ax.fill_between(a, v - s, v + s, color=line.get_color(), alpha=0.2)
    if published is not None:
        ax.axhline(float(published), color="grey", linestyle="--", label="published")
    ax.set_xlabel("alpha (maximum features per region)")
    ax.set_ylabel(ylabel)
    if published is not None or any(label is not None for label, *_ in series):
        ax.legend(loc="best")
    ax.set_title(title)
    return fig


@fill_doc
def plot_error_vs_alpha(
    alpha: Any,
    error: Any = None,
    *,
    std: Any = None,
    by: Any = None,
    published: float | None = None,
    ax: Any = None,
    title: str | None = None,
):
    """Classification error against LFS's alpha (the paper's Fig. 6).

    Parameters
    ----------
    alpha : array-like of shape (n_points,) or DataFrame
        The alpha values, or a long DataFrame with columns ``alpha``, ``error``
        (or the column named by ``error``), optionally ``std`` and a grouping
        column named by ``by``.
    error : array-like of shape (n_points,) or (n_curves, n_points), or str
        Mean error per alpha (one row per curve), or the value column's name.
    std : array-like, default=None
        Standard deviation, drawn as a band.
    by : str or list of str, default=None
        The DataFrame's grouping column, or one label per curve for arrays.
    published : float, default=None
        A published reference level, drawn as a dashed line.
    %(plot_ax_title_returns)s

    Examples
    --------
    >>> from localselect.plotting import plot_error_vs_alpha
    >>> fig = plot_error_vs_alpha([1, 2, 3], [0.3, 0.2, 0.25], std=[0.02, 0.01, 0.02])
    >>> fig.axes[0].lines[0].get_ydata().tolist()
    [0.3, 0.2, 0.25]
    """
    return _plot(
        alpha, error, std, by, "error", "error rate", title or "Error against alpha", ax, published
    )


@fill_doc
def plot_cardinality_vs_alpha(
    alpha: Any,
    cardinality: Any = None,
    *,
    std: Any = None,
    by: Any = None,
    ax: Any = None,
    title: str | None = None,
):
    """Mean size of the selected feature sets against alpha (the paper's Fig. 7).

    Parameters
    ----------
    alpha : array-like of shape (n_points,) or DataFrame
        The alpha values, or a long DataFrame with columns ``alpha`` and
        ``cardinality`` (or the column named by ``cardinality``), optionally
        ``std`` and a grouping column named by ``by``.
    cardinality : array-like of shape (n_points,) or (n_curves, n_points), or str
        Mean number of selected features per region, or the value column's name.
    std : array-like, default=None
        Standard deviation, drawn as a band.
    by : str or list of str, default=None
        The DataFrame's grouping column, or one label per curve for arrays.
    %(plot_ax_title_returns)s
    """
    return _plot(
        alpha,
        cardinality,
        std,
        by,
        "cardinality",
        "selected features per region",
        title or "Cardinality against alpha",
        ax,
        None,
    )
