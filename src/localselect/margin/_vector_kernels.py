"""Softmax-margin feature-weight kernels: IM4E and I-RELIEF.

Both alternate the hit/miss softmax of the weighted Manhattan distance
``w^T |x_n - x_j|`` (:func:`~localselect.margin._kernels.softmax_coefficients`)
with a closed-form update of the weight vector from the expected margin
vector (:func:`margin_vector_step`). Notation and blocking as in
:mod:`localselect.margin._kernels`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from localselect._pairwise import PairDiffs
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import (
    MarginVectorStep,
    VectorResult,
    alternate,
    map_blocks,
    pair_matrix,
    relative_change_at_most,
    softmax_coefficients,
)
from localselect.margin._missing import expected_diff
from localselect.margin._neighbours import Neighbours, margin_vector_step_truncated

__all__ = ["MarginVectorStep", "im4e", "irelief", "margin_vector_step"]


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


def _positive_part_normalised(z: FloatArray, ord: int = 2) -> FloatArray | None:
    zp = np.maximum(z, 0.0)
    norm = np.linalg.norm(zp, ord=ord)
    return zp / norm if norm > 0 else None


def _degenerate_message(method: str) -> str:
    return (
        f"{method}: the margin vector has no positive entry, so no feature weighting "
        "enlarges the margin; keeping the previous weights. Try a smaller sigma."
    )


def _margin_pass(
    X: FloatArray,
    codes: IntArray,
    sigma: float,
    sw: FloatArray,
    *,
    outlier: bool,
    neighbours: Neighbours | None,
    block_memory: float | None,
    n_jobs: int | None,
) -> Callable[[FloatArray], MarginVectorStep]:
    """``w -> margin vector pass``: over all pairs (their differences cached across
    passes), or over the kept neighbours when given."""
    if neighbours is not None:
        return lambda w: margin_vector_step_truncated(
            X,
            neighbours.lists,
            w,
            sigma,
            sw,
            outlier=outlier,
            block_memory=block_memory,
            diffs=neighbours.diffs,
        )
    pairs = PairDiffs(X, block_memory=block_memory, missing=expected_diff(X, codes))
    return lambda w: margin_vector_step(
        X, codes, w, sigma, sw, outlier=outlier, pairs=pairs, n_jobs=n_jobs
    )


def im4e(
    X: FloatArray,
    codes: IntArray,
    sigma: float,
    *,
    w0: FloatArray | None = None,
    sample_weight: FloatArray | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    block_memory: float | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
    neighbours: Neighbours | None = None,
) -> VectorResult:
    """IM4E (Bei and Hong 2015) with lambda = 1, as used by IMMIGRATE's Sec. 3.6.

    Alternates alpha, beta = softmax(-w^T d / sigma) over hits / misses with
    ``w = z^+ / ||z^+||_1`` (weights sum to 1, as in the authors' R package, so
    ``w^T d`` is a weighted mean of the differences whatever the number of
    features, and the pre-screen threshold ``2/A`` means "twice the uniform
    weight"). Starts from ``w = 1/A``. The cost after each iteration is
    ``-w^T z + sigma * sum_n (E_miss - E_hit)`` (the margin-quantity and
    margin-quality terms); the loop stops on a relative change at most ``tol``.
    With ``neighbours`` each pass runs over the kept hits and misses only
    (:func:`~localselect.margin._neighbours.margin_vector_step_truncated`).
    """
    n, a = X.shape
    sw = np.ones(n) if sample_weight is None else sample_weight
    margin = _margin_pass(
        X,
        codes,
        sigma,
        sw,
        outlier=False,
        neighbours=neighbours,
        block_memory=block_memory,
        n_jobs=n_jobs,
    )

    def update(w: FloatArray) -> tuple[FloatArray, float] | None:
        z, entropy = margin(w)
        w_new = _positive_part_normalised(z, ord=1)
        return None if w_new is None else (w_new, float(-w_new @ z + sigma * entropy))

    return VectorResult(
        *alternate(
            update,
            np.full(a, 1.0 / a) if w0 is None else w0,
            max_iter=max_iter,
            settled=relative_change_at_most(tol),
            callback=callback,
            warn=warn,
            degenerate_message=_degenerate_message("IM4E"),
            convergence_message=f"IM4E did not converge in max_iter={max_iter} iterations; "
            "increase max_iter or tol.",
        )
    )


def irelief(
    X: FloatArray,
    codes: IntArray,
    sigma: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-3,
    block_memory: float | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
    neighbours: Neighbours | None = None,
) -> VectorResult:
    """I-RELIEF (Sun 2007): ``w = nu^+ / ||nu^+||_2`` with outlier-weighted margins.

    ``nu = (1/N) sum_n gamma_n (sum_M beta |d| - sum_H alpha |d|)`` with the
    kernel ``f = exp(-w^T d / sigma)``. Starts from uniform weights; stops when
    ``||w_new - w||_2 < tol``. The recorded "cost" is that change. With
    ``neighbours`` each pass (and ``gamma_n``) runs over the kept hits and
    misses only.
    """
    n, a = X.shape
    margin = _margin_pass(
        X,
        codes,
        sigma,
        np.full(n, 1.0 / n),
        outlier=True,
        neighbours=neighbours,
        block_memory=block_memory,
        n_jobs=n_jobs,
    )

    def update(w: FloatArray) -> tuple[FloatArray, float] | None:
        w_new = _positive_part_normalised(margin(w).z)
        return None if w_new is None else (w_new, float(np.linalg.norm(w_new - w)))

    return VectorResult(
        *alternate(
            update,
            np.full(a, 1.0 / np.sqrt(a)),
            max_iter=max_iter,
            settled=lambda changes: changes[-1] < tol,
            callback=callback,
            warn=warn,
            degenerate_message=_degenerate_message("I-RELIEF"),
            convergence_message=f"I-RELIEF did not converge in max_iter={max_iter} "
            "iterations; increase max_iter or tol.",
        )
    )
