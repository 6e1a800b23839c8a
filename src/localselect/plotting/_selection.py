"""Selection frequency of each feature across regions (LFS paper, Figs. 5 and 9)."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect._docstrings import fill_doc
from localselect.base import LocalSelectorMixin
from localselect.plotting._axes import feature_names_for, local_masks, new_axes

__all__ = ["plot_selection_frequency"]


def _frequencies(source: Any) -> tuple[np.ndarray, str]:
    if isinstance(source, LocalSelectorMixin):  # per-row subsets of the training rows
        return local_masks(source).mean(axis=0), "fraction of training rows"
    if hasattr(source, "feature_importances_"):
        return np.asarray(source.feature_importances_, dtype=float), "feature importance"
    arr = np.asarray(source)
    if arr.ndim == 2:
        return arr.astype(bool).mean(axis=0), "fraction of regions"
    if arr.ndim == 1:
        return arr.astype(float), "value"
    raise ValueError(
        "Expected a local selector, an estimator with "
        f"feature_importances_, a 2-D mask or a 1-D array; got shape {arr.shape}."
    )


def _drawable(values: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Finite bar heights for ``values`` and a label for each non-finite one."""
    finite = np.isfinite(values)
    high = float(values[finite].max()) if finite.any() else 0.0
    low = float(values[finite].min()) if finite.any() else 0.0
    span = max(high - min(low, 0.0), abs(high), 1e-300) if finite.any() else 1.0
    heights = np.where(finite, values, 0.0)
    heights[np.isposinf(values)] = max(high, 0.0) + 0.1 * span if finite.any() else 1.0
    heights[np.isneginf(values)] = min(low, 0.0) - 0.1 * span if finite.any() else -1.0
    labels = [
        "" if f else ("nan" if np.isnan(v) else ("inf" if v > 0 else "-inf"))
        for v, f in zip(values, finite)
    ]
    return heights, labels


@fill_doc
def plot_selection_frequency(
    source: Any,
    *,
    feature_names: Any = None,
    top: int | None = None,
    highlight: Any = None,
    ax: Any = None,
    title: str | None = None,
):
    """Bar chart of how often each feature is selected across the local regions.

    The LFS paper's Figs. 5 and 9 show, per feature, how many of the N
    regions (one per training sample) select it; here as a fraction of the
    regions, so methods and data sets of different sizes compare.

    Parameters
    ----------
    source : estimator or array-like
        A fitted local selector (``local_support_`` or ``get_local_support()``),
        a fitted estimator with ``feature_importances_`` (plotted as they are),
        a boolean mask of shape (n_regions, n_features), or per-feature values.
    feature_names : sequence of str, default=None
        Bar labels; default the estimator's ``feature_names_in_``, else
        ``x0``, ``x1``, ... (:func:`localselect.regimes.column_names`).
    top : int, default=None
        Show only the ``top`` largest, sorted (stable: ties keep feature order).
        ``None`` shows every feature in its original order, as the paper does.
    highlight : array-like of bool or int, default=None
        Features to colour differently (for example the truly relevant ones).
    %(plot_ax_title_returns)s

    Notes
    -----
    Infinite values (a Fisher score of ``inf`` for a feature that separates
    the classes perfectly) rank first and are drawn as hatched bars a tenth
    above the largest finite value (1 when none is finite), labelled
    ``inf``; ``-inf`` likewise below the smallest. NaN is drawn as an empty
    slot labelled ``nan``.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.plotting import plot_selection_frequency
    >>> masks = np.array([[1, 0, 1], [1, 1, 0]], dtype=bool)
    >>> fig = plot_selection_frequency(masks)
    >>> [float(p.get_height()) for p in fig.axes[0].patches]
    [1.0, 0.5, 0.5]
    """
    values, ylabel = _frequencies(source)
    names = feature_names_for(source, values.size, feature_names)
    order = np.arange(values.size)
    if top is not None:
        order = np.argsort(-values, kind="stable")[: max(int(top), 1)]
    marked = np.zeros(values.size, dtype=bool)
    if highlight is not None:
        hl = np.asarray(highlight)
        marked[hl if hl.dtype != bool else np.flatnonzero(hl)] = True
    fig, ax = new_axes(ax, figsize=(max(4.0, 0.25 * order.size + 2), 3.6))
    colors = np.where(marked[order], "tab:red", "tab:blue")
    shown, special = _drawable(values[order])
    bars = ax.bar(np.arange(order.size), shown, color=list(colors))
    for bar, label in zip(bars, special):
        if label:
            bar.set_hatch("//")
            top = bar.get_y() + bar.get_height() if bar.get_height() >= 0 else bar.get_y()
            ax.annotate(
                label,
                (bar.get_x() + bar.get_width() / 2, top),
                ha="center",
                va="bottom",
                fontsize=7,
            )
    if order.size <= 60:
        ax.set_xticks(np.arange(order.size), [names[j] for j in order], rotation=90)
    ax.set_xlabel("feature")
    ax.set_ylabel(ylabel)
    if highlight is not None:
        from matplotlib.patches import Patch

        ax.legend(
            handles=[Patch(color="tab:red", label="highlighted"), Patch(color="tab:blue")],
            labels=["highlighted", "other"],
            loc="best",
        )
    ax.set_title(title or "Selection frequency per feature")
    return fig
