"""The margin-family solvers: I-RELIEF, IM4E and IMMIGRATE's Algorithm 2 over a pair source.

Each solver alternates one pass over the pairs of a source of
:mod:`localselect.margin._pairs` (every pair, or each sample's kept neighbours:
the solver does not know which) with the closed-form update of the weights,
through the loop :func:`~localselect.margin._kernels.alternate`.
:func:`immigrate_fit` is the whole fit of one IMMIGRATE model (IM4E pre-screen,
pair source, initial ``W``, Algorithm 2, pruning), used by both
:class:`~localselect.margin.Immigrate` and every round of
:class:`~localselect.margin.BoostedImmigrate`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import VectorResult, alternate, relative_change_at_most
from localselect.margin._matrix_kernels import prune_weight_matrix, update_weight_matrix
from localselect.margin._pairs import AllPairs, resolve_pairs

__all__ = [
    "ImmigrateFit",
    "ImmigrateResult",
    "im4e",
    "immigrate",
    "immigrate_fit",
    "initial_matrix",
    "irelief",
    "prescreen_mask",
]


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
    pairs: AllPairs,
    W0: FloatArray,
    sigma: float,
    *,
    sample_weight: FloatArray | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    nonnegative: bool = True,
    block_memory: float | None = None,
    working_memory: float | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
) -> ImmigrateResult:
    """Algorithm 2: alternate eq. (3.6) and Theorem 3.1 until the cost settles.

    Each pass runs over the pairs of ``pairs`` (every pair of its training
    data, or each sample's kept hits and misses). The cost recorded after
    iteration ``t`` is eq. (3.5) (eq. (3.19) with sample weights) at
    ``(W^(t), alpha^(t), beta^(t))``:
    ``tr(W Sigma) + sigma * sum_n D_n (E_miss - E_hit)``. The loop stops when
    its relative change is at most ``tol``; at ``max_iter`` it warns
    (``ConvergenceWarning``) unless ``warn`` is False. ``block_memory`` (MiB per
    block) and ``working_memory`` (MiB for the cached pair differences) bound
    the pairwise work.
    """
    n = pairs.X.shape[0]
    sw = np.ones(n) if sample_weight is None else sample_weight
    step = pairs.immigrate_pass(
        sigma, sw, block_memory=block_memory, working_memory=working_memory
    )

    def update(W: FloatArray) -> tuple[FloatArray, float] | None:
        scatter, entropy = step(W)
        W_new = update_weight_matrix(scatter, nonnegative=nonnegative)
        if W_new is None:
            return None
        return W_new, float(np.sum(W_new * scatter) + sigma * entropy)

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
    pairs: AllPairs
    """The pair source of the modelled features the fit ran over (and predictions use)."""
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
    n_candidates: int | str | None = None,
    pairs: AllPairs | None = None,
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
    n_candidates : int, "auto" or None, default=None
        Neighbour truncation of the modelled data, resolved by
        :func:`~localselect.margin._pairs.resolve_pairs` (IMMIGRATE's budget
        1e9): ``k`` nearest hits and misses per sample; None is exact.
    pairs : AllPairs, default=None
        A pair source of the modelled features built once and shared
        (boosting rounds); it overrides ``n_candidates``.

    Returns
    -------
    fit : ImmigrateFit
    """
    a = X.shape[1]
    if im4e_weights is None and (prescreen is not None or init == "im4e"):
        everything = AllPairs(X, codes, n_jobs=n_jobs)
        im4e_weights = im4e(everything, sigma, max_iter=max_iter, tol=tol, warn=False).weights
    keep = np.ones(a, dtype=bool)
    if prescreen is not None and im4e_weights is not None:
        keep = prescreen_mask(im4e_weights, prescreen, max_features=max_features)
    features = np.flatnonzero(keep)
    if pairs is None:
        pairs = resolve_pairs(
            X[:, features],
            codes,
            n_candidates,
            method="Immigrate",
            budget=1e9,
            power=2,
            passes=max_iter,
            n_jobs=n_jobs,
        )
    sub_im4e = None if im4e_weights is None else im4e_weights[features]
    W0 = initial_matrix(init, len(features), rng, sub_im4e)
    res = immigrate(
        pairs,
        W0,
        sigma,
        sample_weight=sample_weight,
        max_iter=max_iter,
        tol=tol,
        nonnegative=nonnegative,
        callback=callback,
        warn=warn,
    )
    Wk = res.weights
    if prune:
        Wk = prune_weight_matrix(Wk, 1.0 / len(features))
    W = np.zeros((a, a))
    W[np.ix_(features, features)] = Wk
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
        pairs,
        pairs.dropped_weight_bound(Wk, sigma),
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


def _positive_part_normalised(z: FloatArray, ord: int = 2) -> FloatArray | None:
    zp = np.maximum(z, 0.0)
    norm = np.linalg.norm(zp, ord=ord)
    return zp / norm if norm > 0 else None


def _degenerate_message(method: str) -> str:
    return (
        f"{method}: the margin vector has no positive entry, so no feature weighting "
        "enlarges the margin; keeping the previous weights. Try a smaller sigma."
    )


def im4e(
    pairs: AllPairs,
    sigma: float,
    *,
    w0: FloatArray | None = None,
    sample_weight: FloatArray | None = None,
    max_iter: int = 10,
    tol: float = 1e-4,
    block_memory: float | None = None,
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
    Each pass runs over the pairs of ``pairs`` (every pair, or each sample's
    kept hits and misses).
    """
    n, a = pairs.X.shape
    sw = np.ones(n) if sample_weight is None else sample_weight
    margin = pairs.margin_pass(sigma, sw, outlier=False, block_memory=block_memory)

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
    pairs: AllPairs,
    sigma: float,
    *,
    max_iter: int = 20,
    tol: float = 1e-3,
    block_memory: float | None = None,
    callback: Callable[[int, float], object] | None = None,
    warn: bool = True,
) -> VectorResult:
    """I-RELIEF (Sun 2007): ``w = nu^+ / ||nu^+||_2`` with outlier-weighted margins.

    ``nu = (1/N) sum_n gamma_n (sum_M beta |d| - sum_H alpha |d|)`` with the
    kernel ``f = exp(-w^T d / sigma)``. Starts from uniform weights; stops when
    ``||w_new - w||_2 < tol``. The recorded "cost" is that change. Each pass
    (and ``gamma_n``) runs over the pairs of ``pairs``.
    """
    n, a = pairs.X.shape
    margin = pairs.margin_pass(sigma, np.full(n, 1.0 / n), outlier=True, block_memory=block_memory)

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
