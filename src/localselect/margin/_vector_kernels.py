"""Softmax-margin feature-weight kernels: IM4E and I-RELIEF.

Both alternate the hit/miss softmax of the weighted Manhattan distance
``w^T |x_n - x_j|`` (:func:`~localselect.margin._kernels.softmax_coefficients`)
with a closed-form update of the weight vector from the expected margin
vector (:func:`margin_vector_step`). Notation and blocking as in
:mod:`localselect.margin._kernels`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from localselect._pairwise import PairDiffs
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import (
    DegenerateMarginWarning,
    VectorResult,
    map_blocks,
    pair_matrix,
    softmax_coefficients,
)
from localselect.margin._missing import expected_diff
from localselect.margin._neighbours import Neighbours, margin_vector_step_truncated

__all__ = ["MarginVectorStep", "im4e", "irelief", "margin_vector_step"]


class MarginVectorStep(NamedTuple):
    """One pass with the feature weights fixed (IM4E / I-RELIEF)."""

    z: FloatArray
    """sum_n s_n (sum_M beta |d| - sum_H alpha |d|), shape (A,)."""
    entropy: float
    """sum_n s_n (E_miss - E_hit)."""


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


def _degenerate_warning(method: str) -> None:
    warnings.warn(
        f"{method}: the margin vector has no positive entry, so no feature weighting "
        "enlarges the margin; keeping the previous weights. Try a smaller sigma.",
        DegenerateMarginWarning,
        stacklevel=4,
    )


def _step(X, codes, w, sigma, sw, outlier, pairs, neighbours, block_memory, n_jobs):
    """One margin-vector pass: over all pairs, or over the kept neighbours when given."""
    if neighbours is None:
        return margin_vector_step(
            X, codes, w, sigma, sw, outlier=outlier, pairs=pairs, n_jobs=n_jobs
        )
    return margin_vector_step_truncated(
        X,
        neighbours.lists,
        w,
        sigma,
        sw,
        outlier=outlier,
        block_memory=block_memory,
        diffs=neighbours.diffs,
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
    w = np.full(a, 1.0 / a) if w0 is None else w0
    pairs = None
    if neighbours is None:
        pairs = PairDiffs(X, block_memory=block_memory, missing=expected_diff(X, codes))
    costs: list[float] = []
    converged = degenerate = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        step = _step(X, codes, w, sigma, sw, False, pairs, neighbours, block_memory, n_jobs)
        n_iter = it
        w_new = _positive_part_normalised(step.z, ord=1)
        if w_new is None:
            degenerate = True
            if warn:
                _degenerate_warning("IM4E")
            break
        w = w_new
        costs.append(float(-w @ step.z + sigma * step.entropy))
        if callback is not None:
            callback(it, costs[-1])
        if len(costs) > 1 and abs(costs[-1] - costs[-2]) <= tol * max(abs(costs[-2]), 1e-300):
            converged = True
            break
    if not converged and not degenerate and warn:
        warnings.warn(
            f"IM4E did not converge in max_iter={max_iter} iterations; increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return VectorResult(w, np.asarray(costs), n_iter, converged, degenerate)


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
    sw = np.full(n, 1.0 / n)
    w = np.full(a, 1.0 / np.sqrt(a))
    pairs = None
    if neighbours is None:
        pairs = PairDiffs(X, block_memory=block_memory, missing=expected_diff(X, codes))
    changes: list[float] = []
    converged = degenerate = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        step = _step(X, codes, w, sigma, sw, True, pairs, neighbours, block_memory, n_jobs)
        n_iter = it
        w_new = _positive_part_normalised(step.z)
        if w_new is None:
            degenerate = True
            if warn:
                _degenerate_warning("I-RELIEF")
            break
        change = float(np.linalg.norm(w_new - w))
        w = w_new
        changes.append(change)
        if callback is not None:
            callback(it, change)
        if change < tol:
            converged = True
            break
    if not converged and not degenerate and warn:
        warnings.warn(
            f"I-RELIEF did not converge in max_iter={max_iter} iterations; increase "
            f"max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return VectorResult(w, np.asarray(changes), n_iter, converged, degenerate)
