"""The canonical layout of a GP fit: rows and columns in a data-determined order, standardised.

Rows are sorted by their sorted values (then label), columns by their values
in that row order. Everything the fit computes runs on this layout, so
permuting the samples or the features of the input permutes the results
exactly; :func:`to_input_layout` and :func:`to_input_columns` undo it.
Continuous features are z-scores on the training set (a constant feature
keeps scale 1); discrete ones are left as they are.

Nothing here validates user input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

__all__ = ["Layout", "canonical_layout", "standardise", "to_input_columns", "to_input_layout"]

Float = NDArray[np.float64]


class Layout(NamedTuple):
    """Result of :func:`canonical_layout`.

    ``rows`` and ``cols`` index the input in canonical order; ``center`` and
    ``scale`` standardise its columns (canonical order); ``X`` is the
    standardised training data and ``y`` its class codes, both in canonical
    order; ``discrete`` marks the discrete columns; ``abs_corr`` holds the
    absolute (Pearson) correlations of the columns of ``X``, 0 for a constant
    one.
    """

    rows: NDArray[np.intp]
    cols: NDArray[np.intp]
    center: Float
    scale: Float
    X: Float
    y: NDArray[np.intp]
    discrete: NDArray[np.bool_]
    abs_corr: Float


def canonical_layout(X: Float, y: NDArray[np.intp], discrete: NDArray[np.bool_]) -> Layout:
    """The canonical layout of training data ``X`` with class codes ``y``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data, input order.
    y : ndarray of shape (n_samples,)
        Class codes.
    discrete : ndarray of shape (n_features,) of bool
        Discrete features (not standardised).

    Returns
    -------
    Layout
    """
    rows = np.lexsort(np.column_stack([np.sort(X, axis=1), y]).T[::-1])
    cols = np.lexsort(np.vstack([X[rows][::-1], discrete[None, :]]))
    X, y, discrete = X[np.ix_(rows, cols)], y[rows], discrete[cols]
    center = np.where(discrete, 0.0, X.mean(axis=0))
    scale = np.where(discrete, 1.0, X.std(axis=0))
    scale[~(scale > 1e-12 * np.maximum(np.abs(center), 1.0))] = 1.0
    Xs = (X - center) / scale
    return Layout(
        rows, cols, center, scale, Xs, y.astype(np.intp), discrete, _abs_correlations(Xs)
    )


def _abs_correlations(Xs: Float) -> Float:
    """Absolute correlations between the columns; 0 for (and with) a constant column."""
    n_features = Xs.shape[1]
    stds = Xs.std(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = np.corrcoef(Xs, rowvar=False) if n_features > 1 else np.ones((1, 1))
    corr = np.atleast_2d(corr)
    corr[~np.isfinite(corr)] = 0.0
    corr[:, stds <= 1e-12] = 0.0
    corr[stds <= 1e-12, :] = 0.0
    return np.abs(corr)


def standardise(X: Float, cols: NDArray[np.intp], center: Float, scale: Float) -> Float:
    """Queries ``X`` (input column order) in the canonical column order, standardised."""
    return (X[:, cols] - center) / scale


def to_input_layout(A: NDArray, rows: NDArray[np.intp], cols: NDArray[np.intp]) -> NDArray:
    """Undo the canonical row and column order of a (n_samples, n_features) array."""
    out = np.empty_like(A)
    out[np.ix_(rows, cols)] = A
    return out


def to_input_columns(A: NDArray, cols: NDArray[np.intp]) -> NDArray:
    """Undo the canonical column order of a (n_queries, n_features) array."""
    out = np.empty_like(A)
    out[:, cols] = A
    return out
