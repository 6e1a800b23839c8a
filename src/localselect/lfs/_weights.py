"""Neighbour weights of eq. (10) and the distance vectors a, b of eq. (5)."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn import get_config

from localselect._pairwise import DEFAULT_BLOCK_MEMORY, row_chunks
from localselect._parallel import Parallel, delayed
from localselect._typing import BoolArray, FloatArray

__all__ = ["class_distances", "lfs_weights", "local_weights", "subspace_sq_distances"]


def _block_memory() -> float:
    """MiB of one pairwise block: the smaller of our cache-friendly default and
    scikit-learn's ``working_memory`` setting."""
    return float(min(DEFAULT_BLOCK_MEMORY, get_config()["working_memory"]))


def subspace_sq_distances(A: FloatArray, B: FloatArray) -> FloatArray:
    """Squared Euclidean distances between the rows of ``A`` and ``B``, by differences.

    Computed as sums of squared coordinate differences, feature after feature
    (not the Gram expansion), so equal pairs of points give exactly equal
    distances (nearest-neighbour ties on discrete data stay ties) and the
    summation order is that of ``sum((a_m - b_m) ** 2 for m in features)``.
    Temporaries are bounded by row blocks of :func:`~localselect._pairwise.row_chunks`.
    """
    n_a, n_b = A.shape[0], B.shape[0]
    out = np.zeros((n_a, n_b))
    if n_a == 0 or n_b == 0 or A.shape[1] == 0:
        return out
    BT = np.ascontiguousarray(B.T)
    for rows in row_chunks(n_a, 8 * n_b, _block_memory()):
        acc = out[rows]
        tmp = np.empty_like(acc)
        for col_a, col_b in zip(A[rows].T, BT):
            np.subtract(col_a[:, None], col_b[None, :], out=tmp)
            np.multiply(tmp, tmp, out=tmp)
            acc += tmp
    return out


def _partial_weights(
    X: FloatArray,
    same: BoolArray,
    subsets: list[NDArray[np.intp]],
    counts: list[int],
    sigma: float,
) -> FloatArray:
    """Sum over the given subspaces of ``count * exp(-(d - d_min)^2 / sigma)``.

    Rows are processed in blocks whose temporaries (about six ``rows x N``
    arrays) fit scikit-learn's ``working_memory``.
    """
    X, same = np.asarray(X), np.asarray(same)  # plain views of joblib's memmaps
    n = X.shape[0]
    total = np.zeros((n, n))
    chunks = row_chunks(n, 6 * 8 * n, float(get_config()["working_memory"]))
    for feats, count in zip(subsets, counts):
        if feats.size == 0:
            total += count  # every distance is 0: weight exp(0) = 1
            continue
        Z = X[:, feats]
        norms = np.einsum("ij,ij->i", Z, Z)
        for rows in chunks:
            idx = np.arange(rows.start, rows.stop)
            sq = Z[rows] @ Z.T
            d = np.sqrt(np.maximum(norms[rows, None] + norms[None, :] - 2.0 * sq, 0.0))
            d[np.arange(idx.size), idx] = 0.0
            own = np.zeros(d.shape, dtype=bool)
            own[np.arange(idx.size), idx] = True
            same_r = same[rows]
            # Minimum over the representative's own class (itself excluded) and over the rest.
            d_same = np.where(same_r & ~own, d, np.inf).min(axis=1, keepdims=True)
            d_opp = np.where(~same_r, d, np.inf).min(axis=1, keepdims=True)
            dmin = np.where(same_r, d_same, d_opp)
            with np.errstate(invalid="ignore"):
                e = np.exp(-((d - dmin) ** 2) / sigma)
            total[rows] += count * np.nan_to_num(e, nan=0.0)
    return total


def lfs_weights(
    X: FloatArray,
    same: BoolArray,
    support: BoolArray,
    *,
    sigma: float,
    n_jobs: int | None = None,
) -> FloatArray:
    """Weights ``w_j^(i)`` of eq. (10) from the previous iteration's subsets.

    For representative ``i`` and every training subspace ``f_p``,
    ``d_p(j) = ||f_p * (x_i - x_j)||``; the weight of ``j`` is the average over
    ``p`` of ``exp(-(d_p(j) - min_v d_p(v))^2 / sigma)``, the minimum taken over
    ``j``'s side (``i``'s class without ``i``, or the other classes). Weights are
    then normalised to sum to 1 on each side.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data.
    same : ndarray of shape (n_samples, n_samples), dtype=bool
        ``same[i, j]``: ``j`` has ``i``'s class.
    support : ndarray of shape (n_samples, n_features), dtype=bool
        Previous subsets ``f_p`` (all False in the first iteration: uniform weights).
    sigma : float
        Width of the exponential (``sigma`` of the authors' code; 1 in eq. (10)).
    n_jobs : int or None
        Parallel jobs over blocks of distinct subspaces.

    Returns
    -------
    W : ndarray of shape (n_samples, n_samples)
        ``W[i, j]``; ``W[i, i] = 0``; each row sums to 1 over ``same[i] & (j != i)``
        and to 1 over ``~same[i]``.

    Notes
    -----
    Distinct subspaces are computed once and weighted by their multiplicity.
    Time O(U N^2 k) for U distinct subspaces of up to k features (Gram
    products), memory O(N^2) per job.
    """
    n = X.shape[0]
    uniq, inverse = np.unique(support, axis=0, return_inverse=True)
    counts = np.bincount(inverse.ravel(), minlength=uniq.shape[0])
    subsets = [np.flatnonzero(row) for row in uniq]
    n_blocks = 1 if n_jobs in (None, 1) else max(1, min(len(subsets), 4 * abs(int(n_jobs))))
    chunks = np.array_split(np.arange(len(subsets)), n_blocks)
    parts = Parallel(n_jobs=n_jobs if n_blocks > 1 else None)(
        delayed(_partial_weights)(
            X, same, [subsets[k] for k in ch], [int(counts[k]) for k in ch], sigma
        )
        for ch in chunks
        if ch.size
    )
    W = np.sum(parts, axis=0) / n
    W[np.eye(n, dtype=bool)] = 0.0
    for side in (same, ~same):
        Ws = np.where(side, W, 0.0)
        sums = Ws.sum(axis=1, keepdims=True)
        sums[sums == 0] = 1.0
        W = np.where(side, Ws / sums, W)
    return W


def class_distances(
    X: FloatArray, i: int, same_row: BoolArray, w_row: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The vectors ``a`` and ``b`` of eq. (5) for representative ``i``.

    ``a = sum_{j same, j != i} w_j (x_i - x_j)^2 / (N_same - 1)`` and
    ``b = sum_{j other} w_j (x_i - x_j)^2 / N_other`` (elementwise squares;
    the normalisations of the authors' code).
    """
    diff2 = (X - X[i]) ** 2
    n_same = int(same_row.sum())
    n_opp = same_row.size - n_same
    same_idx = np.flatnonzero(same_row)
    same_idx = same_idx[same_idx != i]
    opp_idx = np.flatnonzero(~same_row)
    a = w_row[same_idx] @ diff2[same_idx] / (n_same - 1)
    b = w_row[opp_idx] @ diff2[opp_idx] / n_opp
    return a, b


def local_weights(
    X_local: FloatArray,
    i: int,
    same_row: BoolArray,
    support_local: BoolArray,
    *,
    sigma: float,
) -> FloatArray:
    """Eq. (10) weights of one representative over its own candidate points.

    The nearest-candidate form of :func:`lfs_weights`: the representative
    ``X_local[i]``, its candidates (the other rows of ``X_local``) and the
    previous subsets of all of them (``support_local``). For every row ``p``,
    ``d_p(j) = ||f_p * (x_i - x_j)||`` over the candidates ``j``; the weight of
    ``j`` averages ``exp(-(d_p(j) - min_v d_p(v))^2 / sigma)`` over ``p``, the
    minimum taken over ``j``'s side, and is normalised to sum 1 on each side.
    With every training point a candidate this is :func:`lfs_weights`' row
    ``i`` (up to rounding: differences here, Gram products there).

    Parameters
    ----------
    X_local : ndarray of shape (n_local, n_features)
    i : int
        Row of the representative in ``X_local``.
    same_row : ndarray of shape (n_local,), dtype=bool
        Rows of the representative's class (itself included).
    support_local : ndarray of shape (n_local, n_features), dtype=bool
        Previous subsets of the rows.
    sigma : float

    Returns
    -------
    w : ndarray of shape (n_local,)
        ``w[i] = 0``. Time O(n_local^2 k) for subsets of at most ``k`` features.
    """
    n, m = X_local.shape
    sizes = support_local.sum(axis=1)
    k = int(sizes.max()) if n else 0
    if k == 0:
        e_mean = np.ones(n)
    else:
        rows, cols = np.nonzero(support_local)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        pad = np.full((n, k), m)
        pad[rows, np.arange(rows.size) - starts[rows]] = cols
        diff2 = np.zeros((n, m + 1))
        diff2[:, :m] = (X_local - X_local[i]) ** 2
        d = np.sqrt(diff2[:, pad].sum(axis=2))  # d[j, p]
        others = np.arange(n) != i
        same_side = same_row & others
        d_same = np.where(same_side[:, None], d, np.inf).min(axis=0)
        d_opp = np.where(~same_row[:, None], d, np.inf).min(axis=0)
        dmin = np.where(same_row[:, None], d_same[None, :], d_opp[None, :])
        with np.errstate(invalid="ignore"):
            e = np.exp(-((d - dmin) ** 2) / sigma)
        e_mean = np.nan_to_num(e, nan=0.0).mean(axis=1)
    w = e_mean.copy()
    w[i] = 0.0
    for side in (same_row, ~same_row):
        total = w[side].sum()
        if total > 0:
            w[side] /= total
    return w
