"""Stability indices of a collection of selected subsets, and the MB bound."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["kuncheva_index", "meinshausen_buhlmann_bound", "nogueira_stability"]


def _as_subsets(Z: ArrayLike) -> NDArray[np.float64]:
    Z = np.asarray(Z)
    if Z.ndim != 2 or Z.shape[0] < 2:
        raise ValueError(
            "need a (n_subsets, n_features) 0/1 matrix with at least 2 subsets; "
            f"got shape {Z.shape}."
        )
    return Z.astype(bool).astype(np.float64)


def nogueira_stability(Z: ArrayLike) -> float:
    """Measure the stability of ``M`` subsets (Nogueira, Sechidis and Brown, JMLR 2018, eq. 4).

    .. math:: \\hat\\Phi = 1 - \\frac{\\frac1p \\sum_f s_f^2}
              {\\frac{\\bar k}{p}\\left(1 - \\frac{\\bar k}{p}\\right)}

    with ``s_f^2 = M/(M-1) * p_f (1 - p_f)`` the unbiased variance of feature
    ``f``'s selection indicator and ``k_bar`` the mean subset size. 1 for
    identical subsets; about 0 for random subsets of the same sizes. NaN when
    every subset is empty or full (the index is undefined there).

    Parameters
    ----------
    Z : array-like of shape (n_subsets, n_features)
        One selected subset per row (bool or 0/1).

    Returns
    -------
    phi : float
        The stability index (at most 1).
    """
    Z = _as_subsets(Z)
    m, p = Z.shape
    freq = Z.mean(axis=0)
    s2 = m / (m - 1) * freq * (1 - freq)
    kbar = Z.sum(axis=1).mean()
    denom = kbar / p * (1 - kbar / p)
    if denom <= 0:
        return float("nan")
    return float(1 - s2.mean() / denom)


def kuncheva_index(Z: ArrayLike) -> float:
    """Average Kuncheva's consistency index over all pairs of subsets (Kuncheva 2007).

    For two subsets of the same size ``k`` sharing ``r`` features,
    ``(r p - k^2) / (k (p - k))``. Defined only when every subset has the same
    size ``0 < k < p``; NaN otherwise (use :func:`nogueira_stability`).

    Parameters
    ----------
    Z : array-like of shape (n_subsets, n_features)
        One selected subset per row.

    Returns
    -------
    index : float
        The mean pairwise index (at most 1), or NaN.
    """
    Z = _as_subsets(Z)
    m, p = Z.shape
    sizes = Z.sum(axis=1)
    k = sizes[0]
    if not np.all(sizes == k) or k == 0 or k == p:
        return float("nan")
    overlap = Z @ Z.T
    r = overlap[np.triu_indices(m, 1)]
    return float(np.mean((r * p - k * k) / (k * (p - k))))


def meinshausen_buhlmann_bound(mean_selected: float, n_features: int, threshold: float) -> float:
    """Upper bound on the expected number of falsely selected features (MB 2010, Thm. 1).

    .. math:: E[V] \\le \\frac{q^2}{(2\\pi_{thr} - 1)\\,p}

    for a threshold ``pi_thr`` in (0.5, 1] on the selection probabilities,
    ``q`` the mean number of features a subsample fit selects and ``p`` the
    number of features; assumes exchangeable noise features and a selector no
    worse than random guessing.

    Parameters
    ----------
    mean_selected : float
        ``q``, the mean number of features selected per subsample fit.
    n_features : int
        ``p``, the number of features.
    threshold : float
        ``pi_thr``, the selection-probability threshold.

    Returns
    -------
    bound : float
        The bound on ``E[V]``; ``inf`` for ``pi_thr <= 0.5``.
    """
    if threshold <= 0.5:
        return float("inf")
    return float(mean_selected**2 / ((2 * threshold - 1) * n_features))
