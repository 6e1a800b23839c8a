"""Vectorised kernels of the margin family: Relief, ReliefF, Simba, I-RELIEF, IM4E, IMMIGRATE.

Notation of Zhao, Hong and Liu (IMMIGRATE): ``N`` samples, ``A`` features;
for sample ``n`` the hits ``H_n`` (same class, ``n`` excluded) and misses
``M_n`` (all other classes pooled); ``d_nj = |x_n - x_j|`` element-wise.

All pairwise work runs over blocks of rows (:func:`localselect._pairwise.row_chunks`)
or of pairs ``n < j`` (:class:`localselect._pairwise.PairDiffs`), never the whole
``N x N x A`` array unless it fits the working-memory budget; blocks may run
in parallel threads, and their partial sums are added in block order, so
results do not depend on ``n_jobs``. Kernels never validate user input: they take float64
``X`` and integer class codes ``0 .. C-1`` with at least two samples per class.

``X`` may hold NaN for missing values: every difference ``|x_n - x_j|`` with an
unknown entry is then the expected difference of :mod:`localselect.margin._missing`
(Kononenko's rule for unknown values, on continuous features).
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np
import scipy.linalg
from joblib import effective_n_jobs
from numpy.typing import NDArray
from scipy.spatial.distance import pdist, squareform
from sklearn import get_config
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances
from sklearn.utils.parallel import Parallel, delayed

from localselect._pairwise import (
    PairDiffs,
    abs_diff,
    hit_miss_masks,
    masked_softmax,
    row_chunks,
)
from localselect.margin import _relieff_numba
from localselect.margin._missing import ExpectedDiff, expected_diff

__all__ = [
    "DegenerateMarginWarning",
    "ImmigrateResult",
    "ImmigrateStep",
    "MarginVectorStep",
    "VectorResult",
    "expected_distances",
    "im4e",
    "immigrate",
    "immigrate_step",
    "irelief",
    "margin_vector_step",
    "relief",
    "relieff",
    "simba",
    "update_weight_matrix",
]

Array = NDArray[np.float64]
Codes = NDArray[np.intp]

logger = logging.getLogger(__name__)


class DegenerateMarginWarning(UserWarning):
    """The margin update has no descent direction; the previous weights are kept.

    Raised when every eigenvalue of IMMIGRATE's Sigma (Theorem 3.1) is
    non-negative, or every entry of the IM4E/I-RELIEF margin vector is
    non-positive: ``(-mu)^+`` (or ``z^+``) is zero and cannot be normalised.
    """


def _map_blocks(func: Callable, blocks: Sequence[Any], n_jobs: int | None) -> list:
    """Run ``func(block)`` on every block, in threads when ``n_jobs`` asks for it."""
    if n_jobs is None or n_jobs == 1 or len(blocks) == 1:
        return [func(block) for block in blocks]
    return Parallel(n_jobs=n_jobs, prefer="threads")(delayed(func)(block) for block in blocks)


def _quad_form(D: Array, W: Array) -> Array:
    """``q_ij = D_ij^T W D_ij`` for a block ``D`` of shape (rows, N, A), eq. (3.3)."""
    rows, n, a = D.shape
    flat = D.reshape(rows * n, a)
    return np.einsum("ij,ij->i", flat @ W, flat).reshape(rows, n)


# --------------------------------------------------------------------------- IMMIGRATE


class ImmigrateStep(NamedTuple):
    """One pass over the data with ``W`` fixed (Step 1 of Algorithm 2)."""

    scatter: Array
    """Sigma of Theorem 3.1: sum_n D_n (Sigma_{n,H} - Sigma_{n,M}), shape (A, A)."""
    entropy: float
    """sum_n D_n (E_miss(z_n) - E_hit(z_n)), the entropy term of eq. (3.5)/(3.19)."""


def immigrate_step(
    X: Array,
    codes: Codes,
    W: Array,
    sigma: float,
    sample_weight: Array,
    *,
    pairs: PairDiffs | None = None,
    n_jobs: int | None = None,
) -> ImmigrateStep:
    """alpha, beta by eq. (3.6) for the current ``W``, and the Sigma they define.

    ``q`` and ``|x_n - x_j| |x_n - x_j|^T`` are symmetric in the pair, so each
    pair ``n < j`` is visited once: pass 1 fills the ``N x N`` matrix of ``q``,
    the softmax runs over its rows, and pass 2 adds
    ``(c_nj + c_jn) d d^T`` to Sigma with ``c_nj = D_n (alpha_nj - beta_nj)``.

    Parameters
    ----------
    X : ndarray of shape (N, A)
    codes : ndarray of shape (N,)
        Class codes; every class has at least two samples.
    W : ndarray of shape (A, A)
        Current symmetric weight matrix.
    sigma : float
        Softmax temperature (> 0).
    sample_weight : ndarray of shape (N,)
        ``D(x_n)`` of eq. (3.19); all ones for eq. (3.5).
    pairs : PairDiffs, default=None
        The pair differences of ``X`` (pass one to reuse its cache across
        iterations); built here when None.
    n_jobs : int, default=None
        Threads over pair blocks.

    Returns
    -------
    step : ImmigrateStep
    """
    n, a = X.shape
    pairs = PairDiffs(X, missing=expected_diff(X, codes)) if pairs is None else pairs
    blocks = range(len(pairs))

    def quad(k: int) -> Array:
        F = pairs.diffs(k)
        return np.einsum("ij,ij->i", F @ W, F)

    C = _pair_matrix(pairs, _map_blocks(quad, blocks, n_jobs), n)
    entropy = _softmax_coefficients(C, codes, sigma, sample_weight, hit_sign=1.0)

    def scatter(k: int) -> Array:
        ii, jj = pairs.blocks[k]
        F = pairs.diffs(k)
        coef = C[ii, jj] + C[jj, ii]
        # G^T G products run as symmetric rank-k updates (half a general product).
        pos = coef > 0
        G = F[pos] * np.sqrt(coef[pos])[:, None]
        H = F[~pos] * np.sqrt(-coef[~pos])[:, None]
        return G.T @ G - H.T @ H

    total = np.zeros((a, a))
    for part in _map_blocks(scatter, blocks, n_jobs):
        total += part
    return ImmigrateStep(0.5 * (total + total.T), entropy)


def _pair_matrix(pairs: PairDiffs, values: list[Array], n: int) -> Array:
    """The symmetric ``N x N`` matrix whose pair ``(i, j)`` holds the block values."""
    Q = np.zeros((n, n))
    for k, q in enumerate(values):
        ii, jj = pairs.blocks[k]
        Q[ii, jj] = q
        Q[jj, ii] = q
    return Q


def _softmax_coefficients(
    Q: Array,
    codes: Codes,
    sigma: float,
    sample_weight: Array,
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


def update_weight_matrix(scatter: Array, *, nonnegative: bool = True) -> Array | None:
    """Closed-form W of Theorem 3.1 (eq. (3.8), (3.17)).

    ``W = sum_i eta_i psi_i psi_i^T`` with ``(psi_i, mu_i)`` the eigenpairs of
    Sigma and ``eta = (-mu)^+ / ||(-mu)^+||_2``, so ``||W||_F = 1``. With
    ``nonnegative`` the negative entries are then set to 0 and W renormalised to
    unit Frobenius norm (the paper's constraint ``W >= 0``; the R package does
    the same).

    Returns
    -------
    W : ndarray of shape (A, A) or None
        None when Sigma has no negative eigenvalue (degenerate case).
    """
    mu, psi = scipy.linalg.eigh(scatter, driver="evd", check_finite=False)
    eta = np.maximum(-mu, 0.0)
    # Eigenvalues at rounding level of the largest one are zero, not descent directions.
    eta[eta <= 1e-12 * max(np.abs(mu).max(), np.finfo(float).tiny)] = 0.0
    norm = np.linalg.norm(eta)
    if norm == 0.0:
        return None
    W = (psi * (eta / norm)) @ psi.T
    W = 0.5 * (W + W.T)
    if nonnegative:
        W = np.maximum(W, 0.0)
        W /= np.linalg.norm(W)
    return W


def prune_weight_matrix(W: Array, threshold: float) -> Array:
    """Weight pruning of Sec. 3.4.3: entries below ``threshold`` set to 0, renormalised."""
    pruned = np.where(threshold > W, 0.0, W)
    norm = np.linalg.norm(pruned)
    return pruned / norm if norm > 0 else W


class ImmigrateResult(NamedTuple):
    """Output of :func:`immigrate`."""

    weights: Array
    """The learned W, shape (A, A)."""
    cost: Array
    """Cost (3.5)/(3.19) after each iteration."""
    n_iter: int
    converged: bool
    degenerate: bool
    """True when an iteration stopped on a Sigma without negative eigenvalues."""


def immigrate(
    X: Array,
    codes: Codes,
    W0: Array,
    sigma: float,
    *,
    sample_weight: Array | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    nonnegative: bool = True,
    block_memory: float | None = None,
    working_memory: float | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
) -> ImmigrateResult:
    """Algorithm 2: alternate eq. (3.6) and Theorem 3.1 until the cost settles.

    The cost recorded after iteration ``t`` is eq. (3.5) (eq. (3.19) with
    sample weights) at ``(W^(t), alpha^(t), beta^(t))``:
    ``tr(W Sigma) + sigma * sum_n D_n (E_miss - E_hit)``. The loop stops when
    its relative change is at most ``tol``; at ``max_iter`` it warns
    (``ConvergenceWarning``) unless ``warn`` is False. ``block_memory`` (MiB per
    block) and ``working_memory`` (MiB for the cached pair differences) go to
    :class:`~localselect._pairwise.PairDiffs`.
    """
    n = X.shape[0]
    sw = np.ones(n) if sample_weight is None else sample_weight
    W = W0
    pairs = PairDiffs(
        X,
        block_memory=block_memory,
        working_memory=working_memory,
        missing=expected_diff(X, codes),
    )
    costs: list[float] = []
    converged = degenerate = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        step = immigrate_step(X, codes, W, sigma, sw, pairs=pairs, n_jobs=n_jobs)
        W_new = update_weight_matrix(step.scatter, nonnegative=nonnegative)
        n_iter = it
        if W_new is None:
            degenerate = True
            if warn:
                warnings.warn(
                    "IMMIGRATE: Sigma has no negative eigenvalue, so no weight matrix "
                    "lowers the margin cost; keeping the previous W. Try a smaller sigma "
                    "or check that the classes differ in some feature.",
                    DegenerateMarginWarning,
                    stacklevel=3,
                )
            break
        W = W_new
        cost = float(np.sum(W * step.scatter) + sigma * step.entropy)
        costs.append(cost)
        logger.debug("IMMIGRATE iteration %d: cost %.10g", it, cost)
        if callback is not None:
            callback(it, cost)
        if len(costs) > 1 and abs(costs[-1] - costs[-2]) <= tol * max(abs(costs[-2]), 1e-300):
            converged = True
            break
    if not converged and not degenerate and warn:
        warnings.warn(
            f"IMMIGRATE did not converge in max_iter={max_iter} iterations (relative "
            f"cost change above tol={tol}); increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    return ImmigrateResult(W, np.asarray(costs), n_iter, converged, degenerate)


def expected_distances(
    X_query: Array,
    X_train: Array,
    codes: Codes,
    n_classes: int,
    W: Array,
    sigma: float,
    *,
    leave_one_out: bool = False,
    block_memory: float | None = None,
    n_jobs: int | None = None,
) -> Array:
    """Expected distance of each query to each class, eq. (3.18).

    ``s_c(x) = sum_{y_n = c} alpha_n^c(x) q(x, x_n)`` with ``alpha^c`` the
    softmax of ``-q / sigma`` over class ``c``. ``W`` may be a matrix (IMMIGRATE)
    or a vector (a weighted Manhattan distance, IM4E).

    Parameters
    ----------
    leave_one_out : bool, default=False
        ``X_query`` is ``X_train``: each sample is left out of its own sums
        (used for the training error inside boosting).

    Returns
    -------
    s : ndarray of shape (n_query, n_classes)
        ``inf`` where a class has no sample to compare with.
    """
    n_train, a = X_train.shape
    onehot = codes[None, :] == np.arange(n_classes)[:, None]
    missing = expected_diff(X_train, codes, n_classes, X_query)

    def block(rows: slice) -> Array:
        Q = X_query[rows]
        D = abs_diff(Q, X_train) if missing is None else missing.queries(Q)
        q = D @ W if W.ndim == 1 else _quad_form(D, W)
        out = np.full((q.shape[0], n_classes), np.inf)
        for c in range(n_classes):
            mask = np.broadcast_to(onehot[c], q.shape).copy()
            if leave_one_out:
                mask[np.arange(q.shape[0]), np.arange(rows.start, rows.stop)] = False
            ok = mask.any(axis=1)
            if ok.any():
                soft = masked_softmax(-q[ok] / sigma, mask[ok])
                out[ok, c] = (soft.probs * np.where(mask[ok], q[ok], 0.0)).sum(axis=1)
        return out

    blocks = row_chunks(X_query.shape[0], 3 * n_train * a * 8, block_memory)
    parts = _map_blocks(block, blocks, n_jobs)
    return np.vstack(parts) if parts else np.empty((0, n_classes))


# --------------------------------------------------------------------------- IM4E, I-RELIEF


class MarginVectorStep(NamedTuple):
    """One pass with the feature weights fixed (IM4E / I-RELIEF)."""

    z: Array
    """sum_n s_n (sum_M beta |d| - sum_H alpha |d|), shape (A,)."""
    entropy: float
    """sum_n s_n (E_miss - E_hit)."""


def margin_vector_step(
    X: Array,
    codes: Codes,
    w: Array,
    sigma: float,
    sample_weight: Array,
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
    def dist(k: int) -> Array:
        return np.einsum("ij,j->i", pairs.diffs(k), w)

    C = _pair_matrix(pairs, _map_blocks(dist, blocks, n_jobs), n)
    entropy = _softmax_coefficients(C, codes, sigma, sample_weight, hit_sign=-1.0, outlier=outlier)

    def part(k: int) -> Array:
        ii, jj = pairs.blocks[k]
        return np.einsum("i,ij->j", C[ii, jj] + C[jj, ii], pairs.diffs(k))

    z = np.zeros(a)
    for piece in _map_blocks(part, blocks, n_jobs):
        z += piece
    return MarginVectorStep(z, entropy)


class VectorResult(NamedTuple):
    """Output of the feature-weight solvers (:func:`im4e`, :func:`irelief`, :func:`simba`)."""

    weights: Array
    cost: Array
    """Objective after each iteration (the solver's own; see its docstring)."""
    n_iter: int
    converged: bool
    degenerate: bool


def _positive_part_normalised(z: Array, ord: int = 2) -> Array | None:
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


def im4e(
    X: Array,
    codes: Codes,
    sigma: float,
    *,
    w0: Array | None = None,
    sample_weight: Array | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    block_memory: float | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
) -> VectorResult:
    """IM4E (Bei and Hong 2015) with lambda = 1, as used by IMMIGRATE's Sec. 3.6.

    Alternates alpha, beta = softmax(-w^T d / sigma) over hits / misses with
    ``w = z^+ / ||z^+||_1`` (weights sum to 1, as in the authors' R package, so
    ``w^T d`` is a weighted mean of the differences whatever the number of
    features, and the pre-screen threshold ``2/A`` means "twice the uniform
    weight"). Starts from ``w = 1/A``. The cost after each iteration is
    ``-w^T z + sigma * sum_n (E_miss - E_hit)`` (the margin-quantity and
    margin-quality terms); the loop stops on a relative change at most ``tol``.
    """
    n, a = X.shape
    sw = np.ones(n) if sample_weight is None else sample_weight
    w = np.full(a, 1.0 / a) if w0 is None else w0
    pairs = PairDiffs(X, block_memory=block_memory, missing=expected_diff(X, codes))
    costs: list[float] = []
    converged = degenerate = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        step = margin_vector_step(X, codes, w, sigma, sw, pairs=pairs, n_jobs=n_jobs)
        n_iter = it
        w_new = _positive_part_normalised(step.z, ord=1)
        if w_new is None:
            degenerate = True
            if warn:
                _degenerate_warning("IM4E")
            break
        w = w_new
        costs.append(float(-w @ step.z + sigma * step.entropy))
        logger.debug("IM4E iteration %d: cost %.10g", it, costs[-1])
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
    X: Array,
    codes: Codes,
    sigma: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-3,
    block_memory: float | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
) -> VectorResult:
    """I-RELIEF (Sun 2007): ``w = nu^+ / ||nu^+||_2`` with outlier-weighted margins.

    ``nu = (1/N) sum_n gamma_n (sum_M beta |d| - sum_H alpha |d|)`` with the
    kernel ``f = exp(-w^T d / sigma)``. Starts from uniform weights; stops when
    ``||w_new - w||_2 < tol``. The recorded "cost" is that change.
    """
    n, a = X.shape
    sw = np.full(n, 1.0 / n)
    w = np.full(a, 1.0 / np.sqrt(a))
    pairs = PairDiffs(X, block_memory=block_memory, missing=expected_diff(X, codes))
    changes: list[float] = []
    converged = degenerate = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        step = margin_vector_step(X, codes, w, sigma, sw, outlier=True, pairs=pairs, n_jobs=n_jobs)
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
        logger.debug("I-RELIEF iteration %d: |dw| %.3g", it, change)
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


# ------------------------------------------------------------------------ Relief, ReliefF, Simba


def _masked_argmin(dist: Array, mask: NDArray[np.bool_]) -> NDArray[np.intp]:
    """Column of the smallest ``dist`` among ``mask`` per row; ties to the lowest index."""
    return np.argmin(np.where(mask, dist, np.inf), axis=1)


def _nearest_hit_miss(
    X: Array,
    codes: Codes,
    scale: Array,
    block_memory: float | None,
    missing: ExpectedDiff | None = None,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Nearest hit and nearest miss of every sample under ``||scale * (x - x')||_2``."""
    n = X.shape[0]
    Xs = X * scale
    nh = np.empty(n, dtype=np.intp)
    nm = np.empty(n, dtype=np.intp)
    for rows in row_chunks(n, 4 * n * 8, block_memory):
        if missing is None:
            dist = pairwise_distances(Xs[rows], Xs, metric="sqeuclidean")
        else:
            dist = missing.distances(rows, scale**2, 2)
        hits, misses = hit_miss_masks(codes, rows)
        nh[rows] = _masked_argmin(dist, hits)
        nm[rows] = _masked_argmin(dist, misses)
    return nh, nm


def relief(
    X: Array, codes: Codes, sample_indices: NDArray[np.intp], block_memory: float | None = None
) -> Array:
    """Relief weights, Algorithm 1 of the IMMIGRATE paper (Kira and Rendell 1992).

    For each chosen sample: nearest hit and miss by Euclidean distance (ties to
    the lowest index; misses from all other classes), and
    ``w += ((x - NM(x))^2 - (x - NH(x))^2) / M``.
    """
    missing = expected_diff(X, codes)
    nh, nm = _nearest_hit_miss(X, codes, np.ones(X.shape[1]), block_memory, missing)
    diff_miss = _pair_diffs(X, sample_indices, nm[sample_indices], missing) ** 2
    diff_hit = _pair_diffs(X, sample_indices, nh[sample_indices], missing) ** 2
    return (diff_miss - diff_hit).mean(axis=0)


def _pair_diffs(
    X: Array, ii: NDArray[np.intp], jj: NDArray[np.intp], missing: ExpectedDiff | None
) -> Array:
    """``|X[ii] - X[jj]|`` row by row, completed when there are missing values."""
    return np.abs(X[ii] - X[jj]) if missing is None else missing.pairs(ii, jj)


def relieff(
    X: Array,
    codes: Codes,
    n_neighbors: int,
    *,
    block_memory: float | None = None,
    n_jobs: int | None = None,
    engine: str = "auto",
) -> Array:
    """ReliefF scores (Kononenko 1994; Robnik-Sikonja and Kononenko 2003).

    Features are scaled to [0, 1] by their range (a constant feature gets
    ``diff = 0``). Neighbours are found by the Manhattan distance of the
    scaled features, ties to the lowest index. For every sample ``i``, with its
    ``k_h = min(k, N_{y_i} - 1)`` nearest hits and ``k_c = min(k, N_c)``
    nearest misses of each other class ``c``::

        W += ( -mean_hits diff + sum_c P(c) / (1 - P(y_i)) mean_{misses in c} diff ) / N

    A sample whose class has no other member adds no hit term.

    ``engine="auto"`` runs the compiled kernel of
    :mod:`localselect.margin._relieff_numba` when numba is installed (the
    ``fast`` extra; threads: ``n_jobs``, or every usable core for None), else
    this numpy code; ``"numpy"`` and ``"numba"`` force one. Both find the same
    neighbours and agree to rounding.
    """
    if engine not in ("auto", "numpy", "numba"):
        raise ValueError(f"engine must be 'auto', 'numpy' or 'numba'; got {engine!r}.")
    has_nan = bool(np.isnan(X).any())
    if engine == "numba" and has_nan:
        raise ValueError("engine='numba' needs complete data; use engine='numpy' with NaN.")
    if engine == "numba" or (engine == "auto" and _relieff_numba.AVAILABLE and not has_nan):
        if not _relieff_numba.AVAILABLE:
            raise ImportError("engine='numba' needs numba: pip install 'localselect[fast]'.")
        threads = None if n_jobs is None else effective_n_jobs(n_jobs)
        memory = (block_memory or get_config().get("working_memory") or 1024) * 2**20
        return _relieff_numba.relieff_compiled(X, codes, n_neighbors, threads, memory)
    n, a = X.shape
    known = ~np.isnan(X)
    lo = np.where(known, X, np.inf).min(axis=0)
    span = np.where(known, X, -np.inf).max(axis=0) - lo
    ok = np.isfinite(span) & (span > 0)
    scale = np.divide(1.0, span, out=np.zeros(a), where=ok)
    Xs = (X - np.where(ok, lo, 0.0)) * scale
    missing = expected_diff(Xs, codes)
    n_classes = int(codes.max()) + 1
    counts = np.bincount(codes, minlength=n_classes)
    priors = counts / n

    # The distance matrix is symmetric: when it fits scikit-learn's working memory,
    # compute each pair once (pdist); otherwise rows of it per block.
    full = None
    if missing is None and n * n * 8 <= (get_config().get("working_memory") or 1024) * 2**20:
        full = squareform(pdist(Xs, metric="cityblock"))

    def block(rows: slice) -> Array:
        if full is not None:
            dist = full[rows].copy()
        elif missing is None:
            dist = pairwise_distances(Xs[rows], Xs, metric="manhattan")
        else:
            dist = missing.distances(rows, np.ones(a), 1)
        dist[np.arange(dist.shape[0]), np.arange(rows.start, rows.stop)] = np.inf
        block_codes = codes[rows]
        total = np.zeros(a)
        for c_ref in range(n_classes):
            sel = np.flatnonzero(block_codes == c_ref)
            if sel.size == 0:
                continue
            ref = Xs[rows][sel]
            for c_nb in range(n_classes):
                k = min(n_neighbors, counts[c_nb] - (c_nb == c_ref))
                if k <= 0:
                    continue
                cand = np.flatnonzero(codes == c_nb)
                d = dist[sel][:, cand]
                order = np.argsort(d, axis=1, kind="stable")[:, :k]
                nb = cand[order]  # (len(sel), k)
                # One gathered (len(sel), k, A) array, differenced in place; the mean
                # over the k neighbours summed over samples is the total over both / k.
                G = Xs[nb]
                np.subtract(G, ref[:, None, :], out=G)
                np.abs(G, out=G)
                if missing is not None:
                    missing.fill(G, Xs[nb], ref[:, None, :], codes[nb], c_ref)
                diff = G.reshape(-1, a).sum(axis=0) / k
                if c_nb == c_ref:
                    total -= diff
                else:
                    total += priors[c_nb] / (1.0 - priors[c_ref]) * diff
        return total

    per_row = 8 * n * (3 + 2 * n_neighbors * a / max(n, 1))
    parts = _map_blocks(block, row_chunks(n, int(per_row) + 1, block_memory), n_jobs)
    return np.sum(parts, axis=0) / n


def simba(
    X: Array,
    codes: Codes,
    *,
    max_iter: int = 20,
    tol: float = 1e-3,
    block_memory: float | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
) -> VectorResult:
    """Simba (Gilad-Bachrach, Navot and Tishby 2004), batch gradient ascent.

    The margin ``theta_n = (||x_n - NM(x_n)||_w - ||x_n - NH(x_n)||_w) / 2`` with
    ``||z||_w = sqrt(sum_i w_i^2 z_i^2)`` has gradient
    ``w_i (z_{nm,i}^2 / ||z_nm||_w - z_{nh,i}^2 / ||z_nh||_w) / 2``. Each
    iteration recomputes nearest hits and misses under the current ``w``, adds
    the mean gradient over all samples and rescales ``w`` to unit max-norm.
    Stops when the max-norm change of ``w`` is below ``tol``. Starts from
    ``w = 1`` (0 for constant features). Returns ``w^2 / ||w^2||_inf`` as in
    the original algorithm.
    """
    n = X.shape[0]
    missing = expected_diff(X, codes)
    # A constant feature never differs between samples: it has no margin, weight 0.
    known = ~np.isnan(X)
    span = np.where(known, X, -np.inf).max(axis=0) - np.where(known, X, np.inf).min(axis=0)
    w = (np.isfinite(span) & (span > 0)).astype(float)
    if not w.any():
        return VectorResult(w, np.zeros(0), 0, True, True)
    changes: list[float] = []
    converged = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        nh, nm = _nearest_hit_miss(X, codes, w, block_memory, missing)
        every = np.arange(n)
        z_hit = _pair_diffs(X, every, nh, missing) ** 2
        z_miss = _pair_diffs(X, every, nm, missing) ** 2
        norm_hit = np.sqrt(z_hit @ w**2)
        norm_miss = np.sqrt(z_miss @ w**2)
        inv_hit = np.divide(1.0, norm_hit, out=np.zeros(n), where=norm_hit > 0)
        inv_miss = np.divide(1.0, norm_miss, out=np.zeros(n), where=norm_miss > 0)
        grad = 0.5 * w * (inv_miss @ z_miss - inv_hit @ z_hit) / n
        w_new = w + grad
        top = np.abs(w_new).max()
        if top == 0.0:
            break
        w_new /= top
        change = float(np.abs(w_new - w).max())
        w = w_new
        n_iter = it
        changes.append(change)
        if callback is not None:
            callback(it, change)
        if change < tol:
            converged = True
            break
    if not converged and warn:
        warnings.warn(
            f"Simba did not converge in max_iter={max_iter} iterations; increase max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    w2 = w**2
    return VectorResult(w2 / w2.max(), np.asarray(changes), n_iter, converged, False)
