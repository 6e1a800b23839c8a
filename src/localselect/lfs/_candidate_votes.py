"""Compiled votes of the nearest-candidate method at prediction (eq. (11)).

A region ``i`` (representative ``x_i`` of class ``c_i``, subset ``f_i``,
radius ``r_i``) takes part in a query's decision when the query lies in its
hypersphere, ``||x - x_i||_{f_i} <= r_i``, and votes for ``c_i`` when its
neighbour rule does: among the query's candidate pool (its nearest training
points, :meth:`localselect.lfs._record.Regions.pools`), the points at the
minimum squared distance in ``f_i`` are strictly more often of class ``c_i``
than not (:func:`localselect.lfs._select.pool_wins`, the numpy reference of
these kernels). Regions sharing a subset share that rule, so it is computed
once per (query, subset) and only for subsets with a sphere holding the
query, or for every subset when none of the query's spheres votes (the
fallback of :meth:`LocalFeatureSelection._similarities`). With every training
point as each query's pool they are the exact method's rule.

Distances are sums of squared coordinate differences, feature after feature
in increasing feature order, exactly as
the numpy references in the tests sum them, so the
sphere tests and ties are bit-identical to the numpy code. One query at a time
(no Python loop over queries or regions); memory O(pool + classes) per query
beyond the outputs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from localselect._runtime import register_kernel
from localselect._typing import IntArray

__all__ = [
    "PREDICT_KERNEL",
    "candidate_ratio_votes",
    "candidate_sphere_votes",
    "query_block",
    "subset_groups",
]

#: Pool entries per block of queries (int64): 32 MiB.
_POOL_BLOCK = 1 << 22


def query_block(pool_width: int) -> int:
    """Queries per kernel call: at most 1,024, and pools of at most ``_POOL_BLOCK`` entries."""
    return max(1, min(1024, _POOL_BLOCK // max(1, pool_width)))


def subset_groups(
    support: np.ndarray,
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """Regions with a non-empty subset, grouped by identical subsets, as flat arrays.

    Returns
    -------
    group_ptr, reps : ndarray of int
        Group ``g`` holds the training indices ``reps[group_ptr[g]:group_ptr[g + 1]]``
        (increasing), groups in the order of :func:`numpy.unique` over the rows.
    feat_ptr, feats : ndarray of int
        Group ``g``'s features ``feats[feat_ptr[g]:feat_ptr[g + 1]]`` (increasing).
    """
    active = np.flatnonzero(support.any(axis=1))
    if active.size == 0:
        empty = np.zeros(1, dtype=np.int64)
        return empty, np.zeros(0, dtype=np.int64), empty, np.zeros(0, dtype=np.int64)
    uniq, inverse = np.unique(support[active], axis=0, return_inverse=True)
    inverse = inverse.ravel()
    order = np.argsort(inverse, kind="stable")
    reps = active[order].astype(np.int64)
    group_ptr = np.concatenate([[0], np.cumsum(np.bincount(inverse, minlength=len(uniq)))])
    g_idx, f_idx = np.nonzero(uniq)
    feat_ptr = np.concatenate([[0], np.cumsum(np.bincount(g_idx, minlength=len(uniq)))])
    return group_ptr.astype(np.int64), reps, feat_ptr.astype(np.int64), f_idx.astype(np.int64)


@njit(cache=True, error_model="numpy")
def _wins(q, Q, X_fit, y_fit, pool, feats, n_classes, sq, counts, out):  # pragma: no cover
    """``out[c]``: class ``c`` wins the neighbour rule of query ``q`` in subset ``feats``."""
    n_pool = pool.shape[1]
    best = np.inf
    for j in range(n_pool):
        p = pool[q, j]
        s = 0.0
        for f in feats:
            d = Q[q, f] - X_fit[p, f]
            s += d * d
        sq[j] = s
        if s < best:
            best = s
    counts[:] = 0
    total = 0
    for j in range(n_pool):
        if sq[j] <= best:
            counts[y_fit[pool[q, j]]] += 1
            total += 1
    for c in range(n_classes):
        out[c] = counts[c] > total - counts[c]


@njit(cache=True, error_model="numpy")
def _distance(q, Q, X_fit, r, feats):  # pragma: no cover
    """``||Q[q] - X_fit[r]||`` in the subset ``feats``."""
    s = 0.0
    for f in feats:
        d = Q[q, f] - X_fit[r, f]
        s += d * d
    return np.sqrt(s)


@njit(cache=True, error_model="numpy")
def _rule_votes(
    q, Q, X_fit, y_fit, pool, group_ptr, reps, feat_ptr, feats, n_classes, sq, counts, wins, out
):  # pragma: no cover
    """The fallback: ``out[t]``, region ``reps[t]``'s neighbour rule votes for its class."""
    for g in range(group_ptr.size - 1):
        fg = feats[feat_ptr[g] : feat_ptr[g + 1]]
        _wins(q, Q, X_fit, y_fit, pool, fg, n_classes, sq, counts, wins)
        for t in range(group_ptr[g], group_ptr[g + 1]):
            out[t] = wins[y_fit[reps[t]]]


@njit(cache=True, error_model="numpy")
def candidate_sphere_votes(
    Q, X_fit, y_fit, pool, radii, group_ptr, reps, feat_ptr, feats, n_classes
):  # pragma: no cover
    """Votes ``V[q, c]``: regions of class ``c`` holding query ``q`` whose rule votes ``c``.

    When no region holding ``q`` votes (or none holds it), every region votes
    by its neighbour rule alone: ``V[q, c]`` is then the number of regions of
    class ``c`` whose rule picks ``c``. ``S_c`` of eq. (11) is ``V / eta``.
    """
    n_q = Q.shape[0]
    n_groups = group_ptr.size - 1
    V = np.zeros((n_q, n_classes))
    n_reps = reps.size
    region_votes = np.zeros(n_reps, dtype=np.bool_)
    sq = np.empty(pool.shape[1])
    counts = np.zeros(n_classes, dtype=np.int64)
    wins = np.zeros(n_classes, dtype=np.bool_)
    for q in range(n_q):
        for g in range(n_groups):
            fg = feats[feat_ptr[g] : feat_ptr[g + 1]]
            known = False
            for t in range(group_ptr[g], group_ptr[g + 1]):
                r = reps[t]
                if _distance(q, Q, X_fit, r, fg) <= radii[r]:
                    if not known:
                        _wins(q, Q, X_fit, y_fit, pool, fg, n_classes, sq, counts, wins)
                        known = True
                    c = y_fit[r]
                    if wins[c]:
                        V[q, c] += 1.0
        voted = False
        for c in range(n_classes):
            if V[q, c] != 0.0:
                voted = True
        if not voted:
            _rule_votes(q, Q, X_fit, y_fit, pool, group_ptr, reps, feat_ptr, feats, n_classes,
                        sq, counts, wins, region_votes)  # fmt: skip
            for t in range(n_reps):
                if region_votes[t]:
                    V[q, y_fit[reps[t]]] += 1.0
    return V


@njit(cache=True, error_model="numpy")
def candidate_ratio_votes(
    Q, X_fit, y_fit, pool, radii, group_ptr, reps, feat_ptr, feats, n_classes
):  # pragma: no cover
    """``ratio[q, t] = d_r(q) / r_r`` and ``votes[q, t]`` for region ``r = reps[t]``.

    ``votes`` is the region's neighbour-rule vote for its own class, computed
    for the subsets with a sphere holding ``q``, and for every subset when no
    region holding ``q`` votes (else False), as :func:`localselect.lfs._decide`
    uses them.
    """
    n_q = Q.shape[0]
    n_groups = group_ptr.size - 1
    n_reps = reps.size
    ratio = np.empty((n_q, n_reps))
    votes = np.zeros((n_q, n_reps), dtype=np.bool_)
    sq = np.empty(pool.shape[1])
    counts = np.zeros(n_classes, dtype=np.int64)
    wins = np.zeros(n_classes, dtype=np.bool_)
    for q in range(n_q):
        decided = False
        for g in range(n_groups):
            fg = feats[feat_ptr[g] : feat_ptr[g + 1]]
            inside = False
            for t in range(group_ptr[g], group_ptr[g + 1]):
                r = reps[t]
                ratio[q, t] = _distance(q, Q, X_fit, r, fg) / radii[r]
                if ratio[q, t] <= 1.0:
                    inside = True
            if inside:
                _wins(q, Q, X_fit, y_fit, pool, fg, n_classes, sq, counts, wins)
                for t in range(group_ptr[g], group_ptr[g + 1]):
                    votes[q, t] = wins[y_fit[reps[t]]]
                    if votes[q, t] and ratio[q, t] <= 1.0:
                        decided = True
        if not decided:
            _rule_votes(q, Q, X_fit, y_fit, pool, group_ptr, reps, feat_ptr, feats, n_classes,
                        sq, counts, wins, votes[q])  # fmt: skip
    return ratio, votes


#: What a prediction reports while numba compiles the vote kernels (first use).
COMPILE_MESSAGE = "compiling the LFS prediction kernels once (about 20 s; cached afterwards)"


def _warm_up() -> None:
    """Both kernels on two regions and one query, with the argument types of real calls."""
    X = np.array([[0.0, 1.0], [2.0, 0.5]])
    y = np.array([0, 1], dtype=np.int64)
    Q = np.array([[0.5, 0.5]])
    pool = np.array([[0, 1]], dtype=np.int64)
    groups = subset_groups(np.array([[True, False], [True, True]]))
    args = (Q, X, y, pool, np.ones(2), *groups, 2)
    candidate_sphere_votes(*args)
    candidate_ratio_votes(*args)


#: The compiled LFS prediction, as the runtime's kernel registry knows it.
PREDICT_KERNEL = register_kernel(
    "LFS prediction", (candidate_sphere_votes, candidate_ratio_votes), _warm_up, COMPILE_MESSAGE
)
