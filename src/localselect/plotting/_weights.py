"""The IMMIGRATE weight matrix W as a heat map with feature names (the paper's Fig. B1)."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect._docstrings import fill_doc
from localselect.plotting._axes import encoded_names, feature_names_for, new_axes

__all__ = ["plot_weight_matrix"]


@fill_doc
def plot_weight_matrix(
    source: Any,
    *,
    feature_names: Any = None,
    top: int | None = None,
    annotate: bool | None = None,
    cmap: str = "viridis",
    ax: Any = None,
    title: str | None = None,
):
    """Heat map of a square feature-interaction weight matrix.

    Parameters
    ----------
    source : estimator or array-like of shape (n_features, n_features)
        A fitted estimator with ``weights_`` (IMMIGRATE's W) or
        ``interaction_importances_``, or the matrix itself.
    feature_names : sequence of str, default=None
        Axis labels; default the estimator's ``feature_names_in_``, else
        ``x0``, ``x1``, ... (:func:`localselect.regimes.column_names`). An
        estimator fitted on a table with nominal columns holds ``W`` over its
        encoding: a nominal column ``c`` then labels one row per level,
        ``c=level``.
    top : int, default=None
        Keep the ``top`` features with the largest diagonal weight (stable ties),
        in their original order; for wide data. ``None`` keeps all.
    annotate : bool, default=None
        Write the values in the cells; default when at most 12 features show.
    cmap : str, default="viridis"
        Matplotlib colour map.
    %(plot_ax_title_returns)s

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.plotting import plot_weight_matrix
    >>> W = np.array([[0.8, 0.3], [0.3, 0.4]])
    >>> fig = plot_weight_matrix(W, feature_names=["MDVP:Fo", "RPDE"])
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['MDVP:Fo', 'RPDE']
    """
    matrix = getattr(source, "weights_", None)
    if matrix is None:
        matrix = getattr(source, "interaction_importances_", source)
    W = np.asarray(matrix, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"Expected a square weight matrix; got shape {W.shape}.")
    names = None if feature_names is not None else encoded_names(source, W.shape[0])
    if names is None:
        names = feature_names_for(source, W.shape[0], feature_names)
    keep = np.arange(W.shape[0])
    if top is not None and top < W.shape[0]:
        keep = np.sort(np.argsort(-np.diag(W), kind="stable")[: max(int(top), 1)])
    W = W[np.ix_(keep, keep)]
    shown = [names[j] for j in keep]
    side = min(12.0, max(3.5, 0.4 * keep.size + 2))
    fig, ax = new_axes(ax, figsize=(side + 1.0, side))
    image = ax.imshow(W, cmap=cmap, interpolation="nearest")
    fig.colorbar(image, ax=ax, label="weight")
    if keep.size <= 60:
        ax.set_xticks(np.arange(keep.size), shown, rotation=90)
        ax.set_yticks(np.arange(keep.size), shown)
    if annotate is None:
        annotate = keep.size <= 12
    if annotate:
        middle = (np.nanmax(W) + np.nanmin(W)) / 2 if W.size else 0.0
        for (i, j), value in np.ndenumerate(W):
            color = "black" if value > middle else "white"
            ax.text(j, i, f"{value:.2f}", ha="center", va="center", color=color, fontsize=8)
    ax.set_title(title or "Feature weight matrix W")
    return fig
