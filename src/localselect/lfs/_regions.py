"""Regions of LFS: sphere radii (impurity level gamma), the leave-one-out score, votes."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from localselect.lfs._weights import subspace_sq_distances

__all__ = ["local_score", "nn_votes", "sphere_radius"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]
IntArray = NDArray[np.intp]

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


def local_score(
    X: FloatArray, i: int, feats: IntArray, same: BoolArray, gamma: float
) -> tuple[float, float]:
    """Radius and leave-one-out score of the subset ``feats`` for representative ``i``.

    Every training point inside the sphere is classified by its nearest other
    training points in the subspace (ties: strict majority for ``i``'s class
    versus the rest). ``DR`` counts points of ``i``'s class classified as that
    class, ``FAR`` points of other classes classified as ``i``'s class; the score
    is ``DR / N_same - FAR / N_other`` (sec. 3.2, the authors' code).

    Returns
    -------
    radius, score : float
    """
    Z = X[:, feats]
    dist = np.sqrt(subspace_sq_distances(Z[i : i + 1], Z)[0])
    r = sphere_radius(dist, same, gamma)
    inside = np.flatnonzero(dist <= r)
    sq = subspace_sq_distances(Z[inside], Z)
    sq[np.arange(inside.size), inside] = np.inf  # leave the point itself out
    classified = nn_votes(sq, same)
    n_same = int(same.sum())
    dr = int(np.count_nonzero(classified & same[inside]))
    far = int(np.count_nonzero(classified & ~same[inside]))
    return r, dr / n_same - far / (same.size - n_same)
