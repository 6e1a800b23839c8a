"""Figure and axes creation without pyplot (no display needed), and shared input helpers."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect.base import LocalSelectorMixin, is_selector, local_support, relevance_scope
from localselect.regimes import column_names


def new_axes(ax: Any = None, *, figsize: tuple[float, float] = (6.4, 4.0)) -> tuple[Any, Any]:
    """``(figure, axes)``: the given axes and its figure, or a new display-free figure."""
    if ax is not None:
        return ax.figure, ax
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:  # pragma: no cover - matplotlib is in the test extras
        raise ImportError(
            "localselect.plotting needs matplotlib: pip install matplotlib "
            "(or pip install 'localselect[plot]')"
        ) from exc
    fig = Figure(figsize=figsize, layout="constrained")
    return fig, fig.add_subplot()


def feature_names_for(
    source: Any, n_features: int, feature_names: Any = None, X: Any = None
) -> list[str]:
    """Names given, else ``feature_names_in_`` or a frame's columns, else ``x0``, ``x1`` and so on.

    The rule of :func:`localselect.regimes.column_names` (0-based, as
    scikit-learn's ``get_feature_names_out``), so a figure names a column as
    every other answer does.
    """
    return column_names(source, n_features, feature_names, X)


def encoded_names(source: Any, n_columns: int) -> list[str] | None:
    """Names of the encoded columns an estimator was fitted on, or None if it was not.

    An estimator fitted on a table with nominal columns by a numeric distance
    keeps some attributes (IMMIGRATE's ``weights_``) on its encoding
    (``encoding_``): a numeric column keeps its name, a nominal column ``c``
    gives one column per level, ``c=level``.
    """
    encoding = getattr(source, "encoding_", None)
    columns = getattr(source, "input_columns_", None)
    if encoding is None or columns is None or len(encoding.source) != n_columns:
        return None
    names = column_names(source, len(encoding.starts))
    out = []
    for k, j in enumerate(encoding.source):
        levels, at = columns.levels[j], k - encoding.starts[j]
        known = levels is not None and at < len(levels)
        out.append(f"{names[j]}={levels[at]}" if known else names[j])
    return out


def is_local(source: Any) -> bool:
    """Whether ``source`` is a fitted selector whose rows may get different subsets."""
    return is_selector(source) and relevance_scope(source) == "local"


def local_masks(source: Any, X: Any = None) -> np.ndarray:
    """Boolean (n_samples, n_features) masks from a selector or an array.

    A selector's masks are :func:`localselect.base.local_support` (``X=None``:
    a local selector's training rows, by the same rule as new rows; a global
    selector's one subset).
    """
    if not is_selector(source):
        mask = source
    elif X is None and not isinstance(source, LocalSelectorMixin):
        mask = source.get_support()  # a global selector keeps no rows
    else:
        mask = local_support(source, X)
    mask = np.asarray(mask)
    if mask.ndim == 1:
        mask = mask[None, :]
    if mask.ndim != 2:
        raise ValueError(f"Expected a mask of shape (n_samples, n_features); got {mask.shape}.")
    return mask.astype(bool)
