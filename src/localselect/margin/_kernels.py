"""Shared pieces of the margin-family kernels.

Notation of Zhao, Hong and Liu (IMMIGRATE): ``N`` samples, ``A`` features;
for sample ``n`` the hits ``H_n`` (same class, ``n`` excluded) and misses
``M_n`` (all other classes pooled); ``d_nj = |x_n - x_j|`` element-wise.

The kernels live in one module per family:

* :mod:`localselect.margin._nn_kernels`: nearest hit/miss methods (Relief,
  ReliefF, Simba);
* :mod:`localselect.margin._vector_kernels`: the margin vector of IM4E and
  I-RELIEF;
* :mod:`localselect.margin._matrix_kernels`: the IMMIGRATE weight matrix
  pass and its classifier;

their solvers (:mod:`localselect.margin._solvers`) run over a pair source of
:mod:`localselect.margin._pairs`. This module holds what the last two share:
the hit/miss softmax of eq. (3.6) over an ``N x N`` matrix of pair distances,
the block runner, the quadratic form of eq. (3.3), the records of one pass and
of a fit, and the alternating loop of Algorithm 2 (:func:`alternate`). All
pairwise work runs over blocks of rows
(:func:`localselect._pairwise.row_chunks`) or of pairs ``n < j``
(:class:`localselect._pairwise.PairDiffs`), never the whole ``N x N x A`` array
unless it fits the working-memory budget; blocks may run in parallel threads,
and their partial sums are added in block order, so results do not depend on
``n_jobs``. Kernels never validate user input: they take float64 ``X`` and
integer class codes ``0 .. C-1`` with at least two samples per class.

``X`` may hold NaN for missing values: every difference ``|x_n - x_j|`` with an
unknown entry is then the expected difference of :mod:`localselect.margin._missing`
(Kononenko's rule for unknown values, on continuous features).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from localselect._pairwise import PairDiffs, hit_miss_masks, masked_softmax, row_chunks
from localselect._runtime import run_blocks
from localselect._typing import FloatArray, IntArray

__all__ = [
    "DegenerateMarginWarning",
    "ImmigrateStep",
    "MarginVectorStep",
    "VectorResult",
    "alternate",
    "map_blocks",
    "pair_matrix",
    "quad_form",
    "relative_change_at_most",
    "softmax_coefficients",
]


class DegenerateMarginWarning(UserWarning):
    """The margin update has no descent direction; the previous weights are kept.

    Raised when every eigenvalue of IMMIGRATE's Sigma (Theorem 3.1) is
    non-negative, or every entry of the IM4E/I-RELIEF margin vector is
    non-positive: ``(-mu)^+`` (or ``z^+``) is zero and cannot be normalised.
    """


def quad_form(D: FloatArray, W: FloatArray) -> FloatArray:
    """``q_ij = D_ij^T W D_ij`` for a block ``D`` of shape (rows, K, A), eq. (3.3)."""
    rows, k, a = D.shape
    flat = D.reshape(rows * k, a)
    return np.einsum("ij,ij->i", flat @ W, flat).reshape(rows, k)


class ImmigrateStep(NamedTuple):
    """One pass over the data with ``W`` fixed (Step 1 of Algorithm 2)."""

    scatter: FloatArray
    """Sigma of Theorem 3.1: sum_n D_n (Sigma_{n,H} - Sigma_{n,M}), shape (A, A)."""
    entropy: float
    """sum_n D_n (E_miss(z_n) - E_hit(z_n)), the entropy term of eq. (3.5)/(3.19)."""


class MarginVectorStep(NamedTuple):
    """One pass with the feature weights fixed (IM4E / I-RELIEF)."""

    z: FloatArray
    """sum_n s_n (sum_M beta |d| - sum_H alpha |d|), shape (A,)."""
    entropy: float
    """sum_n s_n (E_miss - E_hit)."""


def map_blocks(func: Callable, blocks: Sequence[Any], n_jobs: int | None) -> list:
    """``func(block)`` of every block, in order (:func:`localselect._runtime.run_blocks`):
    on threads when ``n_jobs`` asks for it, or as the tasks of a Dask cluster the caller chose."""
    return run_blocks(func, blocks, n_jobs, remote=(func, ()))


def pair_matrix(pairs: PairDiffs, values: list[FloatArray], n: int) -> FloatArray:
    """The symmetric ``N x N`` matrix whose pair ``(i, j)`` holds the block values."""
    Q = np.zeros((n, n))
    for k, q in enumerate(values):
        ii, jj = pairs.blocks[k]
        Q[ii, jj] = q
        Q[jj, ii] = q
    return Q


def softmax_coefficients(
    Q: FloatArray,
    codes: IntArray,
    sigma: float,
    sample_weight: FloatArray,
    *,
    hit_sign: float,
    outlier: bool = False,
) -> float:
    """Overwrite the distances ``Q`` with ``s_n * hit_sign * (alpha_nj - beta_nj)``.

    alpha and beta are the softmax of ``-Q_nj / sigma`` over hits and over misses
    (eq. (3.6)). Rows are processed in blocks bounded by the working memory, so the
    only ``N x N`` array is ``Q`` itself (each row block reads and writes only its own
    rows). With ``outlier`` the sample weights are multiplied by I-RELIEF's
    ``gamma_n = 1 - sum_M f / sum_{j != n} f``. Returns the entropy term
    ``sum_n s_n (E_miss(n) - E_hit(n))``.
    """
    n = Q.shape[0]
    entropy = 0.0
    # masked_softmax keeps about eight (rows, N) temporaries alive.
    for rows in row_chunks(n, 8 * n * 8):
        hits, misses = hit_miss_masks(codes, rows)
        logits = Q[rows] / -sigma
        alpha = masked_softmax(logits, hits)
        beta = masked_softmax(logits, misses)
        s = sample_weight[rows]
        if outlier:
            lse_all = np.logaddexp(alpha.log_norm, beta.log_norm)
            s = s * -np.expm1(beta.log_norm - lse_all)
        np.subtract(alpha.probs, beta.probs, out=Q[rows])
        Q[rows] *= (hit_sign * s)[:, None]
        entropy += float(s @ (beta.entropy - alpha.entropy))
    return entropy


class VectorResult(NamedTuple):
    """Output of the feature-weight solvers (:func:`im4e`, :func:`irelief`, :func:`simba`)."""

    weights: FloatArray
    cost: FloatArray
    """Objective after each iteration (the solver's own; see its docstring)."""
    n_iter: int
    converged: bool
    degenerate: bool


def relative_change_at_most(tol: float) -> Callable[[list[float]], bool]:
    """Stopping rule of IM4E and IMMIGRATE: the cost moved by at most ``tol`` relative."""

    def settled(costs: list[float]) -> bool:
        return len(costs) > 1 and abs(costs[-1] - costs[-2]) <= tol * max(abs(costs[-2]), 1e-300)

    return settled


def alternate(
    update: Callable[[Any], tuple[Any, float] | None],
    weights: Any,
    *,
    max_iter: int,
    settled: Callable[[list[float]], bool],
    callback: Callable[[int, float], object] | None,
    warn: bool,
    degenerate_message: str,
    convergence_message: str,
) -> tuple[Any, FloatArray, int, bool, bool]:
    """The alternation of IMMIGRATE's Algorithm 2, also IM4E's and I-RELIEF's.

    Each iteration ``t`` calls ``update(weights)``: one pass with the weights
    fixed (the hit/miss softmax, eq. (3.6)) and the closed-form weights it
    gives, returned with the value recorded for iteration ``t`` (the cost, or
    I-RELIEF's weight change); ``None`` when the pass has no descent direction
    (then the previous weights are kept, with a
    :class:`DegenerateMarginWarning` saying ``degenerate_message``). The loop
    calls ``callback(t, value)`` and stops when ``settled(values)``; at
    ``max_iter`` it warns ``convergence_message`` (``ConvergenceWarning``).
    ``warn=False`` silences both warnings.

    Returns
    -------
    weights, values, n_iter, converged, degenerate
        The fields of :class:`VectorResult` (and of ``ImmigrateResult``).
    """
    values: list[float] = []
    converged = degenerate = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        result = update(weights)
        if result is None:
            degenerate = True
            if warn:
                warnings.warn(degenerate_message, DegenerateMarginWarning, stacklevel=4)
            break
        weights, value = result
        values.append(value)
        if callback is not None:
            callback(it, value)
        if settled(values):
            converged = True
            break
    if not converged and not degenerate and warn:
        warnings.warn(convergence_message, ConvergenceWarning, stacklevel=4)
    return weights, np.asarray(values), n_iter, converged, degenerate
