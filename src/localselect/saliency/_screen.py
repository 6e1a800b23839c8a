"""The knockoff screen: features with signal anywhere, at a bounded false discovery rate.

Two knockoff+ filters (Barber and Candès 2015, eq. 1.9, offset 1) on model-X
knockoffs (Candès et al. 2018), each at level ``fdr / 2``, and their union:
``FDR(A or B) <= FDR(A) + FDR(B) <= fdr`` (the expected FDP of a union is at
most the sum of the two selections' FDRs, since each false discovery of the
union is one of A's or one of B's and the union is at least as large as
either). Kernel only: no input validation, no estimators.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor

from localselect.saliency._knockoffs import (
    knockoff_threshold,
    second_order_statistic,
    target_columns,
)
from localselect.saliency._saliency import quantile_grid, saliency

__all__ = ["ScreenResult", "knockoff_screen"]

#: Rows, and replacement values per column, of the mean saliency behind the screen's
#: model-based knockoff statistic (its cost: rows x values x 2 d predictions).
_SCREEN_ROWS = 500
_SCREEN_QUANTILES = 4


class ScreenResult(NamedTuple):
    """What :func:`knockoff_screen` keeps, and its two statistics."""

    kept: NDArray[np.intp]
    second_order: NDArray[np.float64]
    model: NDArray[np.float64]


def knockoff_screen(
    X: NDArray[np.float64],
    K: NDArray[np.float64],
    target: NDArray,
    fdr: float,
    rng: np.random.RandomState,
    *,
    regression: bool = False,
) -> ScreenResult:
    """Union of two knockoff+ filters at ``fdr / 2`` each (FDR at most ``fdr``).

    Statistics: (a) :func:`second_order_statistic` on the class indicators (the
    standardised target for a regression), each feature's strongest main,
    quadratic or pairwise-product association; (b) ``W_j = s_j - s~_j``, the
    mean marginal-replacement saliency of a histogram gradient-boosted model
    fitted to ``[X, K]`` over 500 random rows. Both flip sign when a feature
    is swapped with its knockoff. Knockoff+ keeps nothing unless at least
    ``2 / fdr`` features pass a filter, so with few relevant features (7 of
    Syn4's 11 at ``fdr=0.2``) the screen keeps nothing: an empty answer, never
    a fallback to every feature.

    Parameters
    ----------
    X, K : ndarray of shape (n_samples, n_features)
        Standardised features and their model-X knockoffs.
    target : ndarray of shape (n_samples,)
        Class codes, or the continuous target when ``regression``.
    fdr : float
        Target FDR of the union.
    rng : RandomState
        Rows of the saliency average and the boosted model's seed.
    regression : bool, default=False
        Continuous ``target``.

    Returns
    -------
    result : ScreenResult
        ``kept`` (sorted column indices, possibly empty) and the two statistics.
    """
    n, d = X.shape
    Y = target_columns(target, regression)
    if regression:
        model = HistGradientBoostingRegressor(
            early_stopping=False, random_state=rng.randint(2**31 - 1)
        ).fit(np.hstack([X, K]), target)

        def predict(Z):
            return model.predict(Z)[:, None]
    else:
        model = HistGradientBoostingClassifier(
            early_stopping=False, random_state=rng.randint(2**31 - 1)
        ).fit(np.hstack([X, K]), target)
        predict = model.predict_proba
    w2 = second_order_statistic(X, K, Y)
    Z = np.hstack([X, K])
    rows = Z[rng.permutation(n)[:_SCREEN_ROWS]]
    s = saliency(predict, rows, quantile_grid(Z, _SCREEN_QUANTILES)).mean(axis=0)
    wm = s[:d] - s[d:]
    half = fdr / 2.0
    keep = (w2 >= knockoff_threshold(w2, half, offset=1)) | (
        wm >= knockoff_threshold(wm, half, offset=1)
    )
    return ScreenResult(np.flatnonzero(keep), w2, wm)
