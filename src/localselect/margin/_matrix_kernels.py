"""The IMMIGRATE matrix kernel: Algorithm 2, its pre-screen and the classifier (3.18).

Notation and blocking as in :mod:`localselect.margin._kernels`. One iteration
(:func:`immigrate_step`) is three passes: the quadratic-Manhattan distances
``q`` of every pair (:func:`pair_quad_forms`, eq. (3.3)), the hit/miss softmax
(:func:`~localselect.margin._kernels.softmax_coefficients`, eq. (3.6)) and the
matrix Sigma of Theorem 3.1 (:func:`scatter_matrix`); :func:`update_weight_matrix`
then gives the new ``W``. :func:`immigrate_fit` is the whole fit of one
IMMIGRATE model (IM4E pre-screen, initial ``W``, Algorithm 2, pruning), used by
both :class:`~localselect.margin.Immigrate` and every round of
:class:`~localselect.margin.BoostedImmigrate`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
import scipy.linalg
from numpy.typing import NDArray

from localselect._pairwise import PairDiffs, abs_diff, masked_softmax, row_chunks
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import (
    ImmigrateStep,
    alternate,
    map_blocks,
    pair_matrix,
    quad_form,
    relative_change_at_most,
    softmax_coefficients,
)
from localselect.margin._missing import expected_diff
from localselect.margin._neighbours import (
    Neighbours,
    auto_neighbors,
    build_neighbours,
    check_exact_with_missing,
    dropped_weight_bound,
    immigrate_step_truncated,
)
from localselect.margin._vector_kernels import im4e

__all__ = [
    "ImmigrateFit",
    "ImmigrateResult",
    "ImmigrateStep",
    "expected_distances",
    "immigrate",
    "immigrate_fit",
    "immigrate_step",
    "initial_matrix",
    "pair_quad_forms",
    "prescreen_mask",
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


class ImmigrateResult(NamedTuple):
    """Output of :func:`immigrate`."""

    weights: FloatArray
    """The learned W, shape (A, A)."""
    cost: FloatArray
    """Cost (3.5)/(3.19) after each iteration."""
    n_iter: int
    converged: bool
    degenerate: bool
    """True when an iteration stopped on a Sigma without negative eigenvalues."""


def immigrate(
    X: FloatArray,
    codes: IntArray,
    W0: FloatArray,
    sigma: float,
    *,
    sample_weight: FloatArray | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    nonnegative: bool = True,
    block_memory: float | None = None,
    working_memory: float | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
    neighbours: Neighbours | None = None,
) -> ImmigrateResult:
    """Algorithm 2: alternate eq. (3.6) and Theorem 3.1 until the cost settles.

    The cost recorded after iteration ``t`` is eq. (3.5) (eq. (3.19) with
    sample weights) at ``(W^(t), alpha^(t), beta^(t))``:
    ``tr(W Sigma) + sigma * sum_n D_n (E_miss - E_hit)``. The loop stops when
    its relative change is at most ``tol``; at ``max_iter`` it warns
    (``ConvergenceWarning``) unless ``warn`` is False. ``block_memory`` (MiB per
    block) and ``working_memory`` (MiB for the cached pair differences) go to
    :class:`~localselect._pairwise.PairDiffs`. With ``neighbours`` (a
    :class:`~localselect.margin._neighbours.Neighbours` record of ``X``) each
    step runs over the kept hits and misses only
    (:func:`~localselect.margin._neighbours.immigrate_step_truncated`).
    """
    n = X.shape[0]
    sw = np.ones(n) if sample_weight is None else sample_weight
    if neighbours is None:
        pairs = PairDiffs(
            X,
            block_memory=block_memory,
            working_memory=working_memory,
            missing=expected_diff(X, codes),
        )

    def update(W: FloatArray) -> tuple[FloatArray, float] | None:
        if neighbours is None:
            step = immigrate_step(X, codes, W, sigma, sw, pairs=pairs, n_jobs=n_jobs)
        else:
            step = immigrate_step_truncated(
                X,
                neighbours.lists,
                W,
                sigma,
                sw,
                block_memory=block_memory,
                diffs=neighbours.diffs,
            )
        W_new = update_weight_matrix(step.scatter, nonnegative=nonnegative)
        if W_new is None:
            return None
        return W_new, float(np.sum(W_new * step.scatter) + sigma * step.entropy)

    return ImmigrateResult(
        *alternate(
            update,
            W0,
            max_iter=max_iter,
            settled=relative_change_at_most(tol),
            callback=callback,
            warn=warn,
            degenerate_message="IMMIGRATE: Sigma has no negative eigenvalue, so no weight "
            "matrix lowers the margin cost; keeping the previous W. Try a smaller sigma or "
            "check that the classes differ in some feature.",
            convergence_message=f"IMMIGRATE did not converge in max_iter={max_iter} "
            f"iterations (relative cost change above tol={tol}); increase max_iter or tol.",
        )
    )


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


def initial_matrix(
    init: str, n_features: int, rng, im4e_weights: FloatArray | None = None
) -> FloatArray:
    """Starting ``W`` of Algorithm 2, scaled to unit Frobenius norm.

    ``"identity"``: the identity; ``"random"``: ``U + U^T`` with ``U`` uniform on
    [0, 1) drawn from ``rng``; ``"im4e"``: the diagonal of the IM4E weights
    (Sec. 3.6), which must then be given.
    """
    if init == "identity":
        W0 = np.eye(n_features)
    elif init == "random":
        U = rng.uniform(size=(n_features, n_features))
        W0 = U + U.T
    elif init == "im4e" and im4e_weights is not None:
        W0 = np.diag(im4e_weights)
    else:
        raise ValueError(f"init={init!r} needs IM4E weights" if init == "im4e" else f"{init=}")
    return W0 / np.linalg.norm(W0)


class ImmigrateFit(NamedTuple):
    """Output of :func:`immigrate_fit`: one fitted IMMIGRATE model."""

    weights: FloatArray
    """W over all ``A`` features, shape (A, A); rows and columns not modelled are 0."""
    features: NDArray[np.intp]
    """Indices of the modelled features (all, unless pre-screened)."""
    modelled_weights: FloatArray
    """W over the modelled features only, the matrix eq. (3.18) predicts with."""
    prescreen_support: NDArray[np.bool_]
    """Modelled features as a mask of shape (A,)."""
    im4e_weights: FloatArray | None
    """IM4E weights of all ``A`` features when the pre-screen or the start used them."""
    cost: FloatArray
    n_iter: int
    converged: bool
    degenerate: bool
    neighbours: Neighbours | None = None
    """The neighbour record of the modelled features (None: exact all-pairs fit)."""
    dropped_weight_bound: float = 0.0
    """Mean per-sample bound on the softmax weight the truncation dropped, at the final W."""


def immigrate_fit(
    X: FloatArray,
    codes: IntArray,
    sigma: float,
    *,
    rng,
    init: str = "identity",
    prescreen: float | str | None = None,
    nonnegative: bool = True,
    prune: bool = False,
    max_iter: int = 10,
    tol: float = 1e-4,
    sample_weight: FloatArray | None = None,
    im4e_weights: FloatArray | None = None,
    n_jobs: int | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
    max_features: int | None = None,
    n_neighbors: int | str | None = None,
    neighbour_budget: float = 1e9,
    neighbours: Neighbours | None = None,
) -> ImmigrateFit:
    """One IMMIGRATE model: optional IM4E pre-screen (Sec. 3.6), Algorithm 2, pruning.

    Parameters
    ----------
    X : ndarray of shape (N, A)
    codes : ndarray of shape (N,)
        Class codes; every class has at least two samples.
    sigma : float
        Softmax temperature and weight of the entropy terms (> 0).
    rng : numpy.random.RandomState
        Draws the random start (``init="random"``).
    init, prescreen, nonnegative, prune, max_iter, tol
        As the parameters of :class:`~localselect.margin.Immigrate`.
    sample_weight : ndarray of shape (N,), default=None
        ``D(x_n)`` of the weighted cost (3.19) (boosting); None: all ones.
    im4e_weights : ndarray of shape (A,), default=None
        Precomputed IM4E weights for the pre-screen and ``init="im4e"``; when
        None and one of them needs them, IM4E runs here with ``sigma``,
        ``max_iter`` and ``tol``.
    n_jobs : int, default=None
        Threads over pair blocks.
    callback : callable, default=None
        ``callback(iteration, cost)`` after each iteration of Algorithm 2.
    warn : bool, default=True
        Raise ``ConvergenceWarning`` / ``DegenerateMarginWarning``.
    max_features : int, default=None
        With the pre-screen, model at most this many features (the largest
        IM4E weights), so memory stays O(max_features^2).
    n_neighbors : int, "auto" or None, default=None
        Neighbour truncation (:mod:`localselect.margin._neighbours`): ``k``
        nearest hits and misses per sample; ``"auto"`` applies
        :func:`~localselect.margin._neighbours.auto_neighbors` with
        ``neighbour_budget`` to the modelled data; None is exact.
    neighbours : Neighbours, default=None
        A neighbour record of the modelled features computed once and shared
        (boosting rounds); it overrides ``n_neighbors``.

    Returns
    -------
    fit : ImmigrateFit
    """
    a = X.shape[1]
    if im4e_weights is None and (prescreen is not None or init == "im4e"):
        im4e_weights = im4e(
            X, codes, sigma, max_iter=max_iter, tol=tol, n_jobs=n_jobs, warn=False
        ).weights
    keep = np.ones(a, dtype=bool)
    if prescreen is not None and im4e_weights is not None:
        keep = prescreen_mask(im4e_weights, prescreen, max_features=max_features)
    features = np.flatnonzero(keep)
    Xk = X[:, features]
    if neighbours is None:
        k = n_neighbors
        missing = bool(np.isnan(Xk).any())
        if k == "auto":
            k = auto_neighbors(Xk.shape[0], Xk.shape[1], budget=neighbour_budget)
            if k is not None and missing:
                check_exact_with_missing("Immigrate", Xk.shape[0], Xk.shape[1], max_iter)
        # Missing values: the neighbour search needs complete rows, so run exact.
        if k is not None and not missing:
            neighbours = build_neighbours(Xk, codes, int(codes.max()) + 1, int(k), n_jobs=n_jobs)
    sub_im4e = None if im4e_weights is None else im4e_weights[features]
    W0 = initial_matrix(init, len(features), rng, sub_im4e)
    res = immigrate(
        Xk,
        codes,
        W0,
        sigma,
        sample_weight=sample_weight,
        max_iter=max_iter,
        tol=tol,
        nonnegative=nonnegative,
        n_jobs=n_jobs,
        callback=callback,
        warn=warn,
        neighbours=neighbours,
    )
    Wk = res.weights
    if prune:
        Wk = prune_weight_matrix(Wk, 1.0 / len(features))
    W = np.zeros((a, a))
    W[np.ix_(features, features)] = Wk
    bound = 0.0
    if neighbours is not None:
        bound = float(dropped_weight_bound(Xk, neighbours.lists, Wk, sigma).mean())
    return ImmigrateFit(
        W,
        features,
        Wk,
        keep,
        im4e_weights,
        res.cost,
        res.n_iter,
        res.converged,
        res.degenerate,
        neighbours,
        bound,
    )


def prescreen_mask(
    weights: FloatArray, prescreen: float | str, *, max_features: int | None = None
) -> NDArray[np.bool_]:
    """Features kept by the IM4E pre-screen of Sec. 3.6.

    Weights above ``prescreen`` (``"auto"``: ``2 / A``) are kept, and always
    the largest one; with ``max_features`` at most that many (the largest
    weights, ties to the lower index).
    """
    a = len(weights)
    threshold = 2.0 / a if prescreen == "auto" else float(prescreen)
    keep = weights > threshold
    keep[np.argmax(weights)] = True
    if max_features is not None and keep.sum() > max_features:
        keep = np.zeros(a, dtype=bool)
        keep[np.argsort(-weights, kind="stable")[:max_features]] = True
    return keep
