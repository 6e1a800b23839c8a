"""Regions of LFS: sphere radii (impurity level gamma), the leave-one-out score, votes."""

from __future__ import annotations

import numpy as np

from localselect._pairwise import row_chunks
from localselect._typing import BoolArray, FloatArray, IntArray
from localselect.lfs._weights import _block_memory, subspace_sq_distances

__all__ = ["local_score", "nearest_votes", "nn_votes", "sphere_radius"]


#: Radius used when the impurity test already fails at distance 0 (the authors
#: use 1e-6 on z-scored data); capped below half the next distance.
_TINY_RADIUS = 1e-6


def sphere_radius(dist: FloatArray, same: BoolArray, gamma: float) -> float:
    """Radius of the region around a representative (sec. 3.2).

    Parameters
    ----------
    dist : ndarray of shape (n_samples,)
        Distances, in the representative's subspace, from the representative
        to every training point (itself included, at 0).
    same : ndarray of shape (n_samples,), dtype=bool
        Training points of the representative's class.
    gamma : float
        Impurity level.

    Returns
    -------
    radius : float
        With ``u_1 = 0 < u_2 < ...`` the distinct distances, the first ``k``
        with ``gamma * (n_same(<= u_k) - 1) / (N_same - 1) < n_opp(<= u_k) /
        N_opp`` gives ``r = (u_{k-1} + u_k) / 2`` (``r = u_1`` when ``k = 1``;
        a zero radius becomes ``min(1e-6, u_2 / 2)``). When no ``k`` passes
        (possible only for ``gamma = 1``) the sphere holds every point.
    """
    u, inv = np.unique(dist, return_inverse=True)
    n_same_total = int(same.sum())
    n_opp_total = same.size - n_same_total
    cum_same = np.cumsum(np.bincount(inv, weights=same, minlength=u.size))
    cum_opp = np.cumsum(np.bincount(inv, weights=~same, minlength=u.size))
    passes = gamma * (cum_same - 1) / (n_same_total - 1) < cum_opp / n_opp_total
    hits = np.flatnonzero(passes)
    if hits.size == 0:
        return float(u[-1])
    k = int(hits[0])
    r = float(u[0]) if k == 0 else 0.5 * float(u[k - 1] + u[k])
    if r == 0.0:
        r = _TINY_RADIUS if u.size == 1 else min(_TINY_RADIUS, 0.5 * float(u[1]))
    return r


def nn_votes(sq: FloatArray, same: BoolArray) -> BoolArray:
    """Whether each row's nearest neighbours are mostly of the representative's class.

    ``sq`` holds squared distances from query rows to the training points (an
    excluded pair is ``inf``). All training points at the minimum distance are
    the neighbours; the row votes for the representative's class when
    strictly more of them are of that class (``same``) than not.
    """
    dmin = sq.min(axis=1, keepdims=True)
    tied = sq <= dmin
    n_same = (tied & same[None, :]).sum(axis=1)
    return n_same > tied.sum(axis=1) - n_same


#: Below this many features the direct differences are as fast as the Gram route.
_GRAM_MIN_FEATURES = 4


def nearest_votes(
    A: FloatArray, B: FloatArray, same: BoolArray, exclude: IntArray | None = None
) -> BoolArray:
    """:func:`nn_votes` of the rows of ``A`` against the points ``B``, exactly, via BLAS.

    Squared distances are first estimated by the Gram expansion
    ``|a|^2 + |b|^2 - 2 a.b`` (one matrix product). Its rounding error is at
    most ``(2k + 10) u (|a|^2 + |b|^2)`` for ``k`` features and unit roundoff
    ``u``, so every point that can be a nearest neighbour lies within twice
    that bound (times a safety factor 4) of the estimated row minimum. Only
    those candidates are recomputed exactly, as sums of squared differences
    in the order of :func:`~localselect.lfs._weights.subspace_sq_distances`,
    and the ties and votes are taken on the exact values: the result is that
    of ``nn_votes(subspace_sq_distances(A, B), same)``.

    Parameters
    ----------
    A : ndarray of shape (n_rows, k)
    B : ndarray of shape (n_points, k)
    same : ndarray of shape (n_points,), dtype=bool
        Points of the representative's class.
    exclude : ndarray of shape (n_rows,), dtype=int, optional
        For each row, a column of ``B`` left out (the row's own point).
    """
    n_a, k = A.shape
    if k < _GRAM_MIN_FEATURES or n_a == 0:
        sq = subspace_sq_distances(A, B)
        if exclude is not None:
            sq[np.arange(n_a), exclude] = np.inf
        return nn_votes(sq, same)
    out = np.empty(n_a, dtype=bool)
    norm_b = np.einsum("ij,ij->i", B, B)
    for rows in row_chunks(n_a, 16 * B.shape[0], _block_memory()):
        out[rows] = _gram_votes(
            A[rows], B, norm_b, same, None if exclude is None else exclude[rows]
        )
    return out


def _gram_votes(
    A: FloatArray,
    B: FloatArray,
    norm_b: FloatArray,
    same: BoolArray,
    exclude: IntArray | None,
) -> BoolArray:
    n_a, k = A.shape
    norm_a = np.einsum("ij,ij->i", A, A)
    approx = A @ B.T
    approx *= -2.0
    approx += norm_a[:, None]
    approx += norm_b[None, :]
    if exclude is not None:
        approx[np.arange(n_a), exclude] = np.inf
    tol = 4.0 * (2 * k + 10) * np.finfo(np.float64).eps * (norm_a + norm_b.max())
    rows, cols = np.nonzero(approx <= (approx.min(axis=1) + 2.0 * tol)[:, None])
    exact = np.zeros(rows.size)
    for col_a, col_b in zip(A.T, B.T):
        diff = col_a[rows] - col_b[cols]
        exact += diff * diff
    row_min = np.full(n_a, np.inf)
    np.minimum.at(row_min, rows, exact)
    tied = exact <= row_min[rows]
    n_tied = np.bincount(rows, weights=tied, minlength=n_a)
    n_same = np.bincount(rows, weights=tied & same[cols], minlength=n_a)
    return n_same > n_tied - n_same


def local_score(
    X: FloatArray, i: int, feats: IntArray, same: BoolArray, gamma: float
) -> tuple[float, float]:
    """Radius and leave-one-out score of the subset ``feats`` for representative ``i``.

    Every training point inside the sphere is classified by its nearest other
    training points in the subspace (ties: strict majority for ``i``'s class
    versus the rest). ``DR`` counts points of ``i``'s class classified as that
    class, ``FAR`` points of other classes classified as ``i``'s class; the score
    is ``DR / N_same - FAR / N_other`` (sec. 3.2, the authors' code).

    Only training points within ``2 r`` of ``x_i`` are searched for the
    neighbours of the other points inside the sphere: a point ``p`` at
    ``d(p, x_i) <= r`` has its nearest neighbours no farther than ``x_i``, so
    within ``d(p, x_i) + r <= 2 r`` of ``x_i`` (triangle inequality; a relative
    1e-9 margin covers rounding). ``x_i``'s own neighbours come from the
    distances already computed.

    Returns
    -------
    radius, score : float
    """
    Z = X[:, feats]
    sq_i = subspace_sq_distances(Z[i : i + 1], Z)[0]
    dist = np.sqrt(sq_i)
    r = sphere_radius(dist, same, gamma)
    inside = np.flatnonzero(dist <= r)
    others = inside[inside != i]
    cols = np.flatnonzero(dist <= 2.0 * r * (1.0 + 1e-9))
    row_i = sq_i.copy()
    row_i[i] = np.inf
    classified = np.empty(inside.size, dtype=bool)
    classified[inside != i] = nearest_votes(
        Z[others], Z[cols], same[cols], exclude=np.searchsorted(cols, others)
    )
    classified[inside == i] = nn_votes(row_i[None, :], same)
    n_same = int(same.sum())
    dr = int(np.count_nonzero(classified & same[inside]))
    far = int(np.count_nonzero(classified & ~same[inside]))
    return r, dr / n_same - far / (same.size - n_same)
