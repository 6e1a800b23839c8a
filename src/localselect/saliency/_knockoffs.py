"""Model-X knockoffs and the knockoff filter: the null behind the feature screen.

Candès, Fan, Janson and Lv (2018), *Panning for gold: model-X knockoffs for
high dimensional controlled variable selection*, JRSS-B 80(3): second-order
(Gaussian) knockoffs with the equicorrelated construction (sec. 3.2) and the
knockoff(+) threshold (Barber and Candès 2015, eq. 1.8-1.9). Kernels only: no
input validation, no estimators.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["gaussian_knockoffs", "knockoff_threshold", "second_order_statistic"]


def gaussian_knockoffs(
    X: NDArray[np.float64], cov: NDArray[np.float64], rng: np.random.RandomState
) -> NDArray[np.float64]:
    """Equicorrelated second-order knockoffs of centred rows ``X``.

    With ``Sigma = cov`` scaled to a correlation matrix and ``s = min(1, 2
    lambda_min) * 0.999`` (equicorrelated choice, ``D = s I`` on the
    correlation scale), ``X~ = X - X Sigma^{-1} D + Z L^T`` with ``L L^T =
    2 D - D Sigma^{-1} D`` (Candès et al. 2018, eq. 3.2), so that ``[X, X~]``
    has the covariance ``[[Sigma, Sigma - D], [Sigma - D, Sigma]]``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Centred rows.
    cov : ndarray of shape (n_features, n_features)
        Positive definite covariance of the rows.
    rng : RandomState
        Source of the Gaussian draw ``Z``.

    Returns
    -------
    knockoffs : ndarray of shape (n_samples, n_features)
    """
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    lam = float(np.linalg.eigvalsh(corr)[0])
    s = min(1.0, 2.0 * lam) * 0.999
    D = s * np.eye(len(sd))
    inv_D = np.linalg.solve(corr, D)  # Sigma^{-1} D
    Xc = X / sd
    mean = Xc - Xc @ inv_D
    V = 2.0 * D - D @ inv_D
    V = (V + V.T) / 2.0
    w, U = np.linalg.eigh(V)
    L = U * np.sqrt(np.clip(w, 0.0, None))
    Z = rng.standard_normal(X.shape)
    return (mean + Z @ L.T) * sd


def knockoff_threshold(W: NDArray[np.float64], fdr: float, *, offset: int = 0) -> float:
    """Smallest ``t`` with ``(offset + #{W <= -t}) / max(1, #{W >= t}) <= fdr``.

    Barber and Candès (2015), eq. (1.8) (``offset=0``, knockoff) and (1.9)
    (``offset=1``, knockoff+). ``t`` ranges over the non-zero ``|W_j|``.

    Parameters
    ----------
    W : ndarray of shape (n_features,)
        Antisymmetric statistics: swapping a feature with its knockoff flips
        the sign of its ``W_j``.
    fdr : float
        Target false discovery rate ``q``.
    offset : {0, 1}, default=0
        0 for the knockoff threshold, 1 for knockoff+.

    Returns
    -------
    t : float
        The threshold; ``inf`` when no ``t`` qualifies (nothing selected).
    """
    cand = np.sort(np.abs(W[W != 0]))
    if cand.size == 0:
        return np.inf
    neg = W.size - np.searchsorted(np.sort(-W), cand, side="left")  # #{W <= -t}
    pos = W.size - np.searchsorted(np.sort(W), cand, side="left")  # #{W >= t}
    ok = (offset + neg) / np.maximum(pos, 1) <= fdr
    return float(cand[np.argmax(ok)]) if ok.any() else np.inf


def second_order_statistic(
    X: NDArray[np.float64], K: NDArray[np.float64], Y: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Knockoff statistic of each feature's strongest first- or second-order association.

    On the standardised columns ``z`` of ``[X, K]`` and centred class
    indicators ``Y``, feature ``j``'s score is the largest of ``|cov(y_c,
    z_j)|`` (main effect), ``|cov(y_c, z_j^2)|`` (quadratic) and ``|cov(y_c,
    z_j z_k)|`` (pairwise product) over classes ``c`` and the other columns
    ``k`` except ``j``'s own knockoff pair; ``W_j = T_j - T~_j``. Swapping
    ``x_j`` and its knockoff swaps ``T_j`` and ``T~_j``, so ``W_j`` is
    antisymmetric as the knockoff filter requires.

    Parameters
    ----------
    X, K : ndarray of shape (n_samples, n_features)
        Features and their knockoffs.
    Y : ndarray of shape (n_samples, n_classes)
        Class indicators (one column per class).

    Returns
    -------
    W : ndarray of shape (n_features,)
    """
    d = X.shape[1]
    Z = np.hstack([X, K])
    sd = Z.std(axis=0)
    Z = (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    Yc = Y - Y.mean(axis=0)
    n = Z.shape[0]
    T = np.abs(Z.T @ Yc / n).max(axis=1)
    pair = np.arange(2 * d)
    partner = (pair + d) % (2 * d)
    for c in range(Yc.shape[1]):
        C = np.abs((Z * Yc[:, [c]]).T @ Z / n)
        C[pair, partner] = 0.0
        T = np.maximum(T, C.max(axis=1))
    return T[:d] - T[d:]
