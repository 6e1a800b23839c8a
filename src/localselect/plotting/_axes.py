"""Figure and axes creation without pyplot (no display needed), and shared input helpers."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect.base import LocalSelectorMixin, is_selector, local_support, relevance_scope


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


def feature_names_for(source: Any, n_features: int, feature_names: Any = None) -> list[str]:
    """Names given, else the estimator's ``feature_names_in_``, else ``x1 .. xM`` (1-based)."""
    if feature_names is None:
        feature_names = getattr(source, "feature_names_in_", None)
    if feature_names is None:
        return [f"x{j + 1}" for j in range(n_features)]
    names = [str(n) for n in feature_names]
    if len(names) != n_features:
        raise ValueError(f"Got {len(names)} feature names for {n_features} features.")
    return names


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
