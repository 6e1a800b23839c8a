"""Softmax-margin feature-weight kernels of IM4E and I-RELIEF: the margin vector.

Both methods alternate the hit/miss softmax of the weighted Manhattan distance
``w^T |x_n - x_j|`` (:func:`~localselect.margin._kernels.softmax_coefficients`)
with a closed-form update of the weight vector from the expected margin
vector. The pass that computes that vector stands here in its exact form
(:func:`margin_vector_step`, every pair) and its neighbour-truncated form
(:func:`margin_vector_step_truncated`); :mod:`localselect.margin._pairs` puts
the two behind one interface. Notation and blocking as in
:mod:`localselect.margin._kernels`.
"""

from __future__ import annotations

import numpy as np

from localselect._pairwise import PairDiffs, row_chunks
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import (
    MarginVectorStep,
    map_blocks,
    pair_matrix,
    softmax_coefficients,
)
from localselect.margin._missing import expected_diff
from localselect.margin._neighbours import HitMissLists, gather_diffs, softmax_rows

__all__ = ["MarginVectorStep", "margin_vector_step", "margin_vector_step_truncated"]


def margin_vector_step(
    X: FloatArray,
    codes: IntArray,
    w: FloatArray,
    sigma: float,
    sample_weight: FloatArray,
    *,
    outlier: bool = False,
    pairs: PairDiffs | None = None,
    n_jobs: int | None = None,
) -> MarginVectorStep:
    """Expected margin vector for the weighted Manhattan distance ``w^T |x_n - x_j|``.

    alpha and beta are the softmax of ``-w^T d / sigma`` over hits and over
    misses (Bei and Hong 2015; Sun and Li 2006). With ``outlier`` each sample is
    also weighted by I-RELIEF's ``gamma_n = 1 - sum_M f / sum_{j != n} f``,
    ``f = exp(-w^T d / sigma)``: the probability that ``x_n`` is not an outlier
    (Sun 2007), computed from the two log-sum-exps.

    Each pair ``n < j`` is visited once (the distance is symmetric): pass 1
    fills the ``N x N`` distances, pass 2 adds ``(c_nj + c_jn) |x_n - x_j|``
    to ``z``. Pass ``pairs`` to reuse cached differences across iterations.
    """
    n, a = X.shape
    pairs = PairDiffs(X, missing=expected_diff(X, codes)) if pairs is None else pairs
    blocks = range(len(pairs))

    # einsum, not BLAS gemv: single-threaded and faster for these thin blocks
    def dist(k: int) -> FloatArray:
        return np.einsum("ij,j->i", pairs.diffs(k), w)

    C = pair_matrix(pairs, map_blocks(dist, blocks, n_jobs), n)
    entropy = softmax_coefficients(C, codes, sigma, sample_weight, hit_sign=-1.0, outlier=outlier)

    def part(k: int) -> FloatArray:
        ii, jj = pairs.blocks[k]
        return np.einsum("i,ij->j", C[ii, jj] + C[jj, ii], pairs.diffs(k))

    z = np.zeros(a)
    for piece in map_blocks(part, blocks, n_jobs):
        z += piece
    return MarginVectorStep(z, entropy)


def margin_vector_step_truncated(
    X: FloatArray,
    lists: HitMissLists,
    w: FloatArray,
    sigma: float,
    sample_weight: FloatArray,
    *,
    outlier: bool = False,
    block_memory: float | None = None,
    diffs: FloatArray | None = None,
) -> MarginVectorStep:
    """IM4E / I-RELIEF margin vector over each sample's kept hits and misses.

    ``z = sum_n s_n (sum_{M_n^k} beta |d| - sum_{H_n^k} alpha |d|)`` with alpha
    (beta) the softmax of ``-w^T |d| / sigma`` over the kept hits (misses);
    with ``outlier`` the sample weight is multiplied by I-RELIEF's
    ``gamma_n = 1 - sum_M f / sum_{H, M} f`` over the kept samples. Time
    O(N (k_h + k_m) A) per pass.
    """
    n, a = X.shape
    cols = np.hstack([lists.hits, lists.misses])
    valid = np.isfinite(np.hstack([lists.hit_distance, lists.miss_distance]))
    k_h = lists.hits.shape[1]
    z = np.zeros(a)
    entropy = 0.0
    for rows in row_chunks(n, 3 * cols.shape[1] * a * 8, block_memory):
        F = gather_diffs(X, rows, cols[rows]) if diffs is None else diffs[rows]
        logits = np.where(valid[rows], (F @ w) / -sigma, -np.inf)
        alpha, lse_h, ent_h = softmax_rows(logits[:, :k_h])
        beta, lse_m, ent_m = softmax_rows(logits[:, k_h:])
        s = sample_weight[rows]
        if outlier:
            s = s * -np.expm1(lse_m - np.logaddexp(lse_h, lse_m))
        coef = np.hstack([-alpha, beta]) * s[:, None]
        z += np.einsum("rk,rka->a", coef, F)
        entropy += float(s @ (ent_m - ent_h))
    return MarginVectorStep(z, entropy)
