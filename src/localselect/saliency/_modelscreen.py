"""The model screen: columns a first model needs, tested on rows it did not see.

Before the per-row model is fitted on many columns, a first model of the same
kind is fitted on part of the model's own rows; each column's loss change when
it is replaced by a model-X knockoff draw (Candès et al. 2018;
:mod:`localselect.saliency._losschange`) is averaged over the remaining rows,
and a one-sided z-test of that mean with Benjamini-Hochberg across the columns
decides which columns the per-row model gets. Rows held out for the per-row
test are never read, so its p-values stay valid whatever this keeps. Kernel
only: no input validation, no estimators.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.stats import norm

from localselect.saliency._knockoffs import (
    gaussian_knockoffs,
    knockoff_threshold,
    second_order_statistic,
    shrunk_covariance,
    target_columns,
)
from localselect.saliency._losschange import knockoff_loss_changes, row_loss
from localselect.saliency._mixed import ConditionalNullSampler
from localselect.saliency._perrow import bh_rows

__all__ = [
    "MODEL_SCREEN_COLUMNS",
    "MODEL_SCREEN_LEVEL",
    "ModelScreenResult",
    "model_screen",
    "model_screen_runs",
]

#: ``model_screen="auto"`` screens the columns on more than this many columns, and keeps
#: those passing Benjamini-Hochberg at this level across the columns.
MODEL_SCREEN_COLUMNS = 20
MODEL_SCREEN_LEVEL = 0.1


class ModelScreenResult(NamedTuple):
    """What :func:`model_screen` keeps, and each column's p-value."""

    kept: NDArray[np.intp]
    pvalues: NDArray[np.float64]


def model_screen(
    X: NDArray[np.float64],
    target: NDArray,
    make_model: Callable[[int], Any],
    rng: np.random.RandomState,
    *,
    level: float,
    regression: bool,
    test_fraction: float = 0.25,
    n_draws: int = 1,
    pairs: bool = True,
    nominal: NDArray[np.bool_] | None = None,
) -> ModelScreenResult:
    """Columns whose knockoff swap raises a first model's loss on unseen rows (BH at ``level``).

    A model from ``make_model(n_fit)`` is fitted on ``1 - test_fraction`` of the
    rows. On the other rows, column ``j``'s loss change ``D_ij`` is the loss with
    ``x_j`` replaced by a Gaussian knockoff draw (Ledoit-Wolf covariance of the
    fitted rows) minus the loss as is, averaged over ``n_draws`` draws. Its
    p-value is the one-sided z-test ``1 - Phi(mean / (sd / sqrt(m)))`` (1 when
    ``sd`` is 0): under ``x_j`` independent of the target given the other
    columns, the swap leaves the loss's distribution unchanged, so the mean
    change is 0 whatever the model. Benjamini-Hochberg at ``level`` across the
    columns keeps the result.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Standardised columns.
    target : ndarray of shape (n_samples,)
        Class codes, or the continuous target when ``regression``.
    make_model : callable
        ``make_model(n_rows)`` returns an unfitted model (``predict_proba`` for
        a classification).
    rng : RandomState
        The split and the knockoff draws.
    level : float
        Benjamini-Hochberg level across the columns.
    regression : bool
        Continuous ``target``.
    test_fraction : float, default=0.25
        Rows that score the first model.
    n_draws : int, default=1
        Knockoff draws per scored row.
    pairs : bool, default=True
        Also keep the columns whose second-order knockoff statistic passes
        the knockoff threshold at ``level``.
    nominal : ndarray of shape (n_features,) of bool or None, default=None
        For a table with nominal columns or missing values, which columns hold
        level codes: the swaps draw from
        :class:`~localselect.saliency._mixed.ConditionalNullSampler` (fitted on
        the model's rows), and the second-order statistic reads the numeric,
        complete columns only. The held-out rows of the per-row test are never
        read, so its p-values stay valid whatever this keeps.

    Returns
    -------
    result : ModelScreenResult
        ``kept`` (sorted column indices, possibly empty) and ``pvalues``.
    """
    n, d = X.shape
    perm = rng.permutation(n)
    m = max(2, round(test_fraction * n))
    test, fit = perm[:m], perm[m:]
    model = make_model(fit.size).fit(X[fit], target[fit])
    null = (
        shrunk_covariance(X[fit])
        if nominal is None
        else ConditionalNullSampler(nominal).fit(X[fit])
    )
    D = knockoff_loss_changes(
        X[test], row_loss(model, target[test], regression), null, rng, n_draws
    )
    sd = D.std(axis=0, ddof=1)
    z = np.divide(D.mean(axis=0) * np.sqrt(m), sd, out=np.full(d, -np.inf), where=sd > 0)
    p = norm.sf(z)
    keep = bh_rows(p[None, :], level)[0]
    if pairs and nominal is None:
        Y = target_columns(target, regression)
        W = second_order_statistic(X, gaussian_knockoffs(X, shrunk_covariance(X), rng), Y)
        keep |= knockoff_threshold(W, level) <= W
    elif pairs and nominal is not None:
        numeric = np.flatnonzero(~nominal & ~np.isnan(X).any(axis=0))
        if numeric.size:
            Y = target_columns(target, regression)
            Xn = X[:, numeric]
            W = second_order_statistic(Xn, gaussian_knockoffs(Xn, shrunk_covariance(Xn), rng), Y)
            keep[numeric] |= knockoff_threshold(W, level) <= W
    return ModelScreenResult(np.flatnonzero(keep), p)


def model_screen_runs(setting: str | bool, n_columns: int) -> bool:
    """Whether the model screen runs: ``setting`` True, or ``"auto"`` on more than
    :data:`MODEL_SCREEN_COLUMNS` columns.

    Parameters
    ----------
    setting : "auto" or bool
        The estimator's ``model_screen``.
    n_columns : int
        Columns the model would get without it.

    Returns
    -------
    runs : bool
    """
    if setting == "auto":
        return n_columns > MODEL_SCREEN_COLUMNS
    return bool(setting)
