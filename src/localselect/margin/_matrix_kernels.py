"""The IMMIGRATE matrix kernels: one pass of Algorithm 2 and the classifier (3.18).

Notation and blocking as in :mod:`localselect.margin._kernels`. Each kernel
stands here in its exact form (every pair) and, next to it, its
neighbour-truncated form (each sample's kept hits and misses, from
:mod:`localselect.margin._neighbours`); :mod:`localselect.margin._pairs` puts the
two behind one interface, so the solvers of :mod:`localselect.margin._solvers`
never choose between them.

One exact iteration (:func:`immigrate_step`) is three passes: the
quadratic-Manhattan distances ``q`` of every pair (:func:`pair_quad_forms`,
eq. (3.3)), the hit/miss softmax
(:func:`~localselect.margin._kernels.softmax_coefficients`, eq. (3.6)) and the
matrix Sigma of Theorem 3.1 (:func:`scatter_matrix`); :func:`update_weight_matrix`
then gives the new ``W``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from numpy.typing import NDArray
from scipy.special import logsumexp

from localselect._pairwise import PairDiffs, abs_diff, masked_softmax, row_chunks
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import (
    ImmigrateStep,
    map_blocks,
    pair_matrix,
    quad_form,
    softmax_coefficients,
)
from localselect.margin._missing import expected_diff
from localselect.margin._neighbours import HitMissLists, gather_diffs, softmax_rows

__all__ = [
    "ImmigrateStep",
    "dropped_weight_bound",
    "expected_distances",
    "expected_distances_truncated",
    "immigrate_step",
    "immigrate_step_truncated",
    "pair_quad_forms",
    "prune_weight_matrix",
    "scatter_matrix",
    "update_weight_matrix",
]


def immigrate_step(
    X: FloatArray,
    codes: IntArray,
    W: FloatArray,
    sigma: float,
    sample_weight: FloatArray,
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
    pairs = PairDiffs(X, missing=expected_diff(X, codes)) if pairs is None else pairs
    C = pair_quad_forms(pairs, W, n_jobs=n_jobs)
    entropy = softmax_coefficients(C, codes, sigma, sample_weight, hit_sign=1.0)
    return ImmigrateStep(scatter_matrix(pairs, C, n_jobs=n_jobs), entropy)


def pair_quad_forms(pairs: PairDiffs, W: FloatArray, *, n_jobs: int | None = None) -> FloatArray:
    """The symmetric ``N x N`` matrix of ``q(x_n, x_j) = d_nj^T W d_nj``, eq. (3.3).

    Each pair ``n < j`` is computed once from the cached differences of
    ``pairs``; the diagonal is 0.
    """

    def quad(k: int) -> FloatArray:
        F = pairs.diffs(k)
        return np.einsum("ij,ij->i", F @ W, F)

    return pair_matrix(pairs, map_blocks(quad, range(len(pairs)), n_jobs), pairs.X.shape[0])


def scatter_matrix(pairs: PairDiffs, C: FloatArray, *, n_jobs: int | None = None) -> FloatArray:
    """Sigma of Theorem 3.1 from the softmax coefficients ``C``.

    ``Sigma = sum_{n < j} (c_nj + c_jn) d_nj d_nj^T`` with ``C`` as written by
    :func:`~localselect.margin._kernels.softmax_coefficients` (``c_nj = D_n
    (alpha_nj - beta_nj)``); symmetrised against rounding.
    """
    a = pairs.X.shape[1]

    def scatter(k: int) -> FloatArray:
        ii, jj = pairs.blocks[k]
        F = pairs.diffs(k)
        coef = C[ii, jj] + C[jj, ii]
        # G^T G products run as symmetric rank-k updates (half a general product).
        pos = coef > 0
        G = F[pos] * np.sqrt(coef[pos])[:, None]
        H = F[~pos] * np.sqrt(-coef[~pos])[:, None]
        return G.T @ G - H.T @ H

    total = np.zeros((a, a))
    for part in map_blocks(scatter, range(len(pairs)), n_jobs):
        total += part
    return 0.5 * (total + total.T)


def update_weight_matrix(scatter: FloatArray, *, nonnegative: bool = True) -> FloatArray | None:
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


def prune_weight_matrix(W: FloatArray, threshold: float) -> FloatArray:
    """Weight pruning of Sec. 3.4.3: entries below ``threshold`` set to 0, renormalised."""
    pruned = np.where(threshold > W, 0.0, W)
    norm = np.linalg.norm(pruned)
    return pruned / norm if norm > 0 else W


def immigrate_step_truncated(
    X: FloatArray,
    lists: HitMissLists,
    W: FloatArray,
    sigma: float,
    sample_weight: FloatArray,
    *,
    block_memory: float | None = None,
    diffs: FloatArray | None = None,
) -> ImmigrateStep:
    """Eq. (3.6) and Sigma of Theorem 3.1 over each sample's kept hits and misses.

    ``Sigma = sum_n D_n (sum_{j in H_n^k} alpha_nj d d^T - sum_{j in M_n^k} beta_nj d d^T)``
    with alpha (beta) the softmax of ``-q / sigma`` over the kept hits (misses).
    Rows run in blocks of at most ``block_memory`` MiB (scikit-learn's
    ``working_memory`` by default); time O(N (k_h + k_m) A^2). ``diffs``: the
    cached differences of :class:`Neighbours` (else gathered per block).
    """
    n, a = X.shape
    cols = np.hstack([lists.hits, lists.misses])
    valid = np.isfinite(np.hstack([lists.hit_distance, lists.miss_distance]))
    k_h = lists.hits.shape[1]
    total = np.zeros((a, a))
    entropy = 0.0
    for rows in row_chunks(n, 4 * cols.shape[1] * a * 8, block_memory):
        F = gather_diffs(X, rows, cols[rows]) if diffs is None else diffs[rows]
        logits = np.where(valid[rows], quad_form(F, W) / -sigma, -np.inf)
        alpha, _, ent_h = softmax_rows(logits[:, :k_h])
        beta, _, ent_m = softmax_rows(logits[:, k_h:])
        s = sample_weight[rows]
        coef = np.hstack([alpha, -beta]) * s[:, None]
        flat = F.reshape(-1, a)
        total += (flat * coef.reshape(-1, 1)).T @ flat
        entropy += float(s @ (ent_m - ent_h))
    return ImmigrateStep(0.5 * (total + total.T), entropy)


def expected_distances(
    X_query: FloatArray,
    X_train: FloatArray,
    codes: IntArray,
    n_classes: int,
    W: FloatArray,
    sigma: float,
    *,
    leave_one_out: bool = False,
    block_memory: float | None = None,
    n_jobs: int | None = None,
) -> FloatArray:
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

    def block(rows: slice) -> FloatArray:
        Q = X_query[rows]
        D = abs_diff(Q, X_train) if missing is None else missing.queries(Q)
        q = D @ W if W.ndim == 1 else quad_form(D, W)
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
    parts = map_blocks(block, blocks, n_jobs)
    return np.vstack(parts) if parts else np.empty((0, n_classes))


def expected_distances_truncated(
    X_query: FloatArray,
    X_train: FloatArray,
    index: NDArray[np.intp],
    distance: FloatArray,
    W: FloatArray,
    sigma: float,
    *,
    block_memory: float | None = None,
) -> FloatArray:
    """Eq. (3.18) over each query's ``k`` nearest samples of every class.

    ``index``/``distance`` (n_query, C, k) come from :func:`query_class_neighbours`
    (or :func:`class_neighbours` for the leave-one-out training error).
    ``s_c(x) = sum_j alpha_j^c q(x, x_j)`` over the kept samples ``j`` of class
    ``c``; ``inf`` where a class has none. Time O(n_query C k A^2).
    """
    n_q, n_classes, k = index.shape
    a = X_train.shape[1]
    out = np.full((n_q, n_classes), np.inf)
    flat_index = index.reshape(n_q, n_classes * k)
    valid = np.isfinite(distance)
    for rows in row_chunks(n_q, 4 * n_classes * k * a * 8, block_memory):
        F = X_train[flat_index[rows]]
        np.subtract(F, X_query[rows][:, None, :], out=F)
        np.abs(F, out=F)
        q = quad_form(F, W).reshape(-1, n_classes, k)
        ok = valid[rows]
        logits = np.where(ok, q / -sigma, -np.inf)
        for c in range(n_classes):
            has = ok[:, c].any(axis=1)
            if has.any():
                p, _, _ = softmax_rows(logits[has, c])
                out[np.flatnonzero(has) + rows.start, c] = np.sum(
                    np.where(ok[has, c], p * q[has, c], 0.0), axis=1
                )
    return out


def dropped_weight_bound(
    X: FloatArray,
    lists: HitMissLists,
    W: FloatArray,
    sigma: float,
    *,
    block_memory: float | None = None,
) -> FloatArray:
    """Per-sample bound on the exact softmax mass the truncation drops (module docstring).

    Returns
    -------
    delta : ndarray of shape (N,)
        For each sample the larger of the hit and miss bounds ``F / (F + S)``;
        0 where nothing is dropped.
    """
    n, a = X.shape
    m = float(W.diagonal().min()) if np.all(W >= 0) else 0.0
    out = np.zeros(n)
    for part, dist, dropped in (
        (lists.hits, lists.hit_distance, lists.hits_dropped),
        (lists.misses, lists.miss_distance, lists.misses_dropped),
    ):
        valid = np.isfinite(dist)
        radius = np.where(valid, dist, 0.0).max(axis=1)
        for rows in row_chunks(n, 4 * part.shape[1] * a * 8, block_memory):
            F = gather_diffs(X, rows, part[rows])
            logits = np.where(valid[rows], quad_form(F, W) / -sigma, -np.inf)
            log_s = logsumexp(logits, axis=1)
            with np.errstate(divide="ignore"):
                log_f = np.log(dropped[rows].astype(float)) - m * radius[rows] ** 2 / sigma
            delta = np.where(dropped[rows] > 0, 1.0 / (1.0 + np.exp(log_s - log_f)), 0.0)
            out[rows] = np.maximum(out[rows], delta)
    return out
