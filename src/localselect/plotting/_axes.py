"""Figure and axes creation without pyplot (no display needed), and shared input helpers."""

from __future__ import annotations

from typing import Any

import numpy as np


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
    return getattr(source, "relevance_scope", None) == "local" or (
        hasattr(source, "local_support_") and not hasattr(source, "get_local_support")
    )


def local_masks(source: Any, X: Any = None) -> np.ndarray:
    """Boolean (n_samples, n_features) masks from a selector or an array.

    A selector gives ``get_local_support(X)`` (``X=None``: its training rows,
    by the same rule as new rows; see :mod:`localselect.base`).
    """
    if hasattr(source, "get_local_support") and (X is not None or is_local(source)):
        mask = source.get_local_support(X)
    elif hasattr(source, "local_support_"):
        mask = source.local_support_
    elif hasattr(source, "get_support"):
        mask = source.get_support()
    else:
        mask = source
    mask = np.asarray(mask)
    if mask.ndim == 1:
        mask = mask[None, :]
    if mask.ndim != 2:
        raise ValueError(f"Expected a mask of shape (n_samples, n_features); got {mask.shape}.")
    return mask.astype(bool)
