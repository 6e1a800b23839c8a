"""Conditional saliency of a fitted classifier: how much each feature moves a row's prediction."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = ["quantile_grid", "saliency"]

#: Rows x replacement values predicted at once (bounds memory).
_BLOCK = 200_000


def quantile_grid(X: NDArray[np.float64], n_quantiles: int) -> NDArray[np.float64]:
    """The ``(r + 1/2) / n_quantiles`` quantiles of each column, ``r = 0 .. n_quantiles - 1``.

    Returns
    -------
    grid : ndarray of shape (n_quantiles, n_features)
    """
    levels = (np.arange(n_quantiles) + 0.5) / n_quantiles
    return np.quantile(X, levels, axis=0)


def saliency(
    predict_proba: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    X: NDArray[np.float64],
    grid: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Mean total-variation change of the class probabilities when one feature is replaced.

    ``S[i, j] = mean_r 0.5 * sum_c |p_c(x_i) - p_c(x_i with x_ij = grid[r, j])|``.

    Parameters
    ----------
    predict_proba : callable
        Maps rows to class probabilities.
    X : ndarray of shape (n_samples, n_features)
        Rows.
    grid : ndarray of shape (n_values, n_features)
        Replacement values of each feature.

    Returns
    -------
    S : ndarray of shape (n_samples, n_features)
        In [0, 1].
    """
    n, d = X.shape
    m = grid.shape[0]
    S = np.zeros((n, d))
    if n == 0:
        return S
    step = max(1, _BLOCK // m)
    for lo in range(0, n, step):
        block = X[lo : lo + step]
        b = block.shape[0]
        p = predict_proba(block)
        Xr = np.repeat(block[None], m, axis=0)  # (m, b, d): m copies of the block
        for j in range(d):
            # Column j takes the grid values, then gets its own values back: the
            # same inputs as m fresh copies, without copying (m, b, d) per feature.
            Xr[:, :, j] = grid[:, j][:, None]
            q = predict_proba(Xr.reshape(m * b, d)).reshape(m, b, -1)
            Xr[:, :, j] = block[None, :, j]
            S[lo : lo + b, j] = 0.5 * np.abs(q - p[None]).sum(axis=2).mean(axis=0)
    return S
