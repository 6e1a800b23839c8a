"""Loss changes under a knockoff swap: how much a fitted model's loss rises without a column.

For labelled rows the model did not see, the loss with one column replaced
by a model-X knockoff draw (Candès, Fan, Janson and Lv 2018) minus the loss
on the row as it is. When the column is independent of the target given the
other columns, the swap leaves the law of the row unchanged, so the mean
change is zero however the model was fitted (the conditional randomization
argument of Candès et al. 2018, sec. 4). Both the per-row held-out test
(:mod:`localselect.saliency._heldout`) and the model screen
(:mod:`localselect.saliency._modelscreen`) read these changes. Kernel only: no
input validation, no estimators.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from localselect.saliency._knockoffs import gaussian_knockoffs
from localselect.saliency._mixed import ConditionalNullSampler

__all__ = ["knockoff_loss_changes", "row_loss"]


def row_loss(model, y: NDArray, regression: bool) -> Callable[[NDArray], NDArray]:
    """Per-row loss of ``model`` against ``y``: squared error, or log-loss of the true class.

    Parameters
    ----------
    model : fitted estimator
        A regressor, or a classifier with ``predict_proba`` fitted on class codes.
    y : ndarray of shape (n_rows,)
        Targets (class codes for a classifier).
    regression : bool
        Which loss.

    Returns
    -------
    loss : callable
        ``loss(Z)``: the loss of each row of ``Z`` (same rows as ``y``).
    """
    if regression:
        return lambda Z: (model.predict(Z) - y) ** 2
    col = np.minimum(np.searchsorted(model.classes_, y), len(model.classes_) - 1)
    rows = np.arange(len(y))
    return lambda Z: -np.log(np.clip(model.predict_proba(Z)[rows, col], 1e-12, 1.0))


def knockoff_loss_changes(
    X: NDArray[np.float64],
    loss: Callable[[NDArray], NDArray],
    cov: NDArray[np.float64] | ConditionalNullSampler,
    rng: np.random.RandomState,
    n_draws: int,
) -> NDArray[np.float64]:
    """Each row's loss change when each column alone is replaced by a Gaussian knockoff draw.

    ``D_ij = mean_k loss(x with x_j := x~_j^(k))_i - loss(x)_i`` over ``n_draws``
    draws of model-X knockoffs ``x~`` with covariance ``cov`` (Candès et al.
    2018, eq. 3.2), one draw of the whole table per ``k``.

    Parameters
    ----------
    X : ndarray of shape (n_rows, n_features)
    loss : callable
        Per-row loss of a table shaped like ``X`` (:func:`row_loss`).
    cov : ndarray of shape (n_features, n_features) or ConditionalNullSampler
        The covariance of the Gaussian knockoffs, or for a table with nominal
        columns or missing values the fitted
        :class:`~localselect.saliency._mixed.ConditionalNullSampler` whose
        conditional draws replace them.
    rng : RandomState
    n_draws : int

    Returns
    -------
    D : ndarray of shape (n_rows, n_features)

    Notes
    -----
    ``n_draws * n_features`` loss evaluations of ``n_rows`` rows; memory two
    copies of ``X``.
    """
    base = loss(X)
    D = np.zeros(X.shape)
    draw = (
        cov.for_rows(X)
        if isinstance(cov, ConditionalNullSampler)
        else (lambda r: gaussian_knockoffs(X, cov, r))
    )
    for _ in range(n_draws):
        K = draw(rng)
        Xr = X.copy()
        for j in range(X.shape[1]):
            Xr[:, j] = K[:, j]
            D[:, j] += loss(Xr) - base
            Xr[:, j] = X[:, j]
    return D / n_draws
