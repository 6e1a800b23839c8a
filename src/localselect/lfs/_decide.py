"""How LFS regions become per-query subsets: the regions that decide a query.

Eq. (11) of Armanfard et al. (2016) classifies a query by votes: region
``i`` votes for its class ``y_i`` when the query lies in its sphere
(``d_i(x) <= r_i``, distance in the region's subspace ``f_i``) and the
query's nearest training points in ``f_i`` are mostly of class ``y_i``;
``S_c`` is the number of votes for ``c`` over the number ``eta_c`` of
class-``c`` regions with a non-empty subset, and the predicted class is the
largest ``S_c``. When no region votes, the spheres are ignored and every
region votes by its neighbour rule alone.

The **deciding regions** of a query are the regions whose votes make up the
predicted class's ``S_c``. Its subset (:func:`query_subsets`, rule
``"decisive"``) is that of the deciding region nearest relative to its
radius (smallest ``d_i(x) / r_i``; ties to the lower training index); its
relevance is the fraction of its deciding regions that use each feature. A
query no region votes for at all (every ``S_c`` is 0) falls back to the
region relatively nearest over all regions (rule ``"nearest"`` for every
query: the comparison of docs/index.md).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._runtime import Reporter, ensure_compiled
from localselect.lfs._candidate_votes import (
    PREDICT_KERNEL,
    candidate_ratio_votes,
    candidate_sphere_votes,
    query_block,
)
from localselect.lfs._record import Regions, regions_of

__all__ = ["QuerySubsets", "prediction_regions", "query_subsets", "region_subsets", "similarities"]

FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]

#: Query rows per block (bounds memory at a few block x n_train arrays).
_QUERY_BLOCK = 1024


class QuerySubsets(NamedTuple):
    """Per-query output of :func:`query_subsets`.

    Attributes
    ----------
    support : ndarray of shape (n_queries, n_features) of bool
        Subset of the region chosen for each query.
    relevance : ndarray of shape (n_queries, n_features)
        Fraction of the deciding regions that select each feature.
    region : ndarray of shape (n_queries,)
        Training index of the chosen region.
    n_deciding : ndarray of shape (n_queries,)
        Number of deciding regions (0: the fallback rule decided).
    winner : ndarray of shape (n_queries,)
        Predicted class code.
    """

    support: BoolArray  # (n_queries, n_features): subset of the chosen region
    relevance: FloatArray  # (n_queries, n_features): fraction of deciding regions
    region: NDArray[np.intp]  # (n_queries,): training index of the chosen region
    n_deciding: NDArray[np.intp]  # (n_queries,): number of deciding regions (0: fallback)
    winner: NDArray[np.intp]  # (n_queries,): predicted class code


def prediction_regions(est: Any) -> Regions:
    """The fitted estimator's :class:`Regions`, with the vote kernels compiled (or loaded)."""
    ensure_compiled(PREDICT_KERNEL, Reporter.for_estimator(est))
    return regions_of(est)


def similarities(regions: Regions, X: FloatArray) -> FloatArray:
    """``S_c`` of eq. (11) for validated ``X``: shape (n_queries, n_classes).

    Compiled in :func:`~localselect.lfs._candidate_votes.candidate_sphere_votes`
    over each query's pool (:meth:`Regions.pools`: every training point for
    the exact method), in blocks of queries whose pools fit in memory.
    """
    eta = np.bincount(
        regions.y_fit[regions.support.any(axis=1)], minlength=regions.n_classes
    ).astype(np.float64)
    eta[eta == 0] = np.inf  # a class without active regions gets similarity 0
    S = np.empty((X.shape[0], regions.n_classes))
    step = query_block(regions.pool_width)
    for start in range(0, X.shape[0], step):
        Q = X[start : start + step]
        S[start : start + Q.shape[0]] = candidate_sphere_votes(*regions.kernel_args(Q)) / eta
    return S


def _block_votes(regions: Regions, Q: FloatArray) -> tuple[FloatArray, BoolArray]:
    """Ratio ``d_i(x) / r_i`` and neighbour-rule votes of every region.

    The neighbours of a query are searched among its pool
    (:meth:`Regions.pools`: every training point for the exact method, its
    nearest candidates otherwise). Votes are computed where they count: for
    the queries inside some sphere of a group of regions, and for every region
    when none of a query's spheres votes (the fallback); compiled in
    :func:`localselect.lfs._candidate_votes.candidate_ratio_votes`.
    """
    n_train = regions.X_fit.shape[0]
    ratio_t, votes_t = candidate_ratio_votes(*regions.kernel_args(Q))
    reps = regions.groups[1]
    ratio = np.full((Q.shape[0], n_train), np.inf)
    votes = np.zeros(ratio.shape, dtype=bool)
    ratio[:, reps] = ratio_t
    votes[:, reps] = votes_t
    return ratio, votes


def query_subsets(est: Any, X: FloatArray, rule: str = "decisive") -> QuerySubsets:
    """Find the subsets and relevance of queries ``X`` for a fitted ``LocalFeatureSelection``.

    Parameters
    ----------
    est : LocalFeatureSelection
        Fitted estimator.
    X : ndarray of shape (n_queries, n_features)
        Validated queries.
    rule : {"decisive", "nearest"}, default="decisive"
        ``"decisive"``: the subset of the deciding region nearest relative to
        its radius. ``"nearest"``: the subset of the region nearest relative
        to its radius, deciding or not. The relevance is the fraction of the
        deciding regions using each feature under both rules.

    Returns
    -------
    QuerySubsets
        ``support`` and ``relevance`` of shape (n_queries, n_features), the
        chosen ``region``, ``n_deciding`` and the ``winner`` class code (that
        of :meth:`LocalFeatureSelection.predict`).
    """
    if rule not in ("decisive", "nearest"):
        raise ValueError(f"rule must be 'decisive' or 'nearest', got {rule!r}.")
    return region_subsets(prediction_regions(est), X, rule)


def region_subsets(regions: Regions, X: FloatArray, rule: str = "decisive") -> QuerySubsets:
    """:func:`query_subsets` on the fitted regions (``rule`` already checked)."""
    n_q, m = X.shape
    support = regions.support
    n_classes = regions.n_classes
    out_support = np.zeros((n_q, m), dtype=bool)
    out_rel = np.zeros((n_q, m))
    region = np.full(n_q, -1, dtype=np.intp)
    n_deciding = np.zeros(n_q, dtype=np.intp)
    winner = np.zeros(n_q, dtype=np.intp)
    if not support.any():
        return QuerySubsets(out_support, out_rel, region, n_deciding, winner)
    active = support.any(axis=1)
    y_fit = regions.y_fit
    eta = np.bincount(y_fit[active], minlength=n_classes).astype(np.float64)
    eta[eta == 0] = np.inf
    onehot = np.eye(n_classes)[y_fit]
    support_f = support.astype(np.float64)
    # Dense (queries x training points) blocks: at most _QUERY_BLOCK rows, ~32 MiB each.
    step = min(_QUERY_BLOCK, query_block(regions.X_fit.shape[0]), query_block(regions.pool_width))
    for start in range(0, n_q, step):
        Q = X[start : start + step]
        sl = slice(start, start + Q.shape[0])
        ratio, votes = _block_votes(regions, Q)
        sphere = votes & (ratio <= 1.0)
        pool = np.where(sphere.any(axis=1, keepdims=True), sphere, votes)
        S = (pool @ onehot) / eta
        win = np.argmax(S, axis=1)
        deciding = pool & (y_fit[None, :] == win[:, None]) & (S.max(axis=1) > 0)[:, None]
        count = deciding.sum(axis=1)
        nearest_any = np.argmin(ratio, axis=1)
        if rule == "decisive":
            masked = np.where(deciding, ratio, np.inf)
            chosen = np.where(count > 0, np.argmin(masked, axis=1), nearest_any)
        else:
            chosen = nearest_any
        rel = np.where(
            (count > 0)[:, None],
            (deciding.astype(np.float64) @ support_f) / np.maximum(count, 1)[:, None],
            support_f[nearest_any],
        )
        out_support[sl] = support[chosen]
        out_rel[sl] = rel
        region[sl] = chosen
        n_deciding[sl] = count
        winner[sl] = win
    return QuerySubsets(out_support, out_rel, region, n_deciding, winner)
