"""Feature selection for one representative point: lines 5-11 of Algorithm 1."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.neighbors import NearestNeighbors
from threadpoolctl import threadpool_limits

from localselect._parallel import local_threads
from localselect._typing import BoolArray, FloatArray, IntArray
from localselect.lfs._lp import (
    cost_scale,
    lp_candidates,
    prepare_lfs_lp,
    round_solution,
    solve_sweep,
)
from localselect.lfs._regions import local_score
from localselect.lfs._weights import class_distances, local_weights

__all__ = [
    "RepresentativeResult",
    "nearest_candidates",
    "select_block",
    "select_block_candidates",
    "select_representative",
]


class RepresentativeResult(NamedTuple):
    """The subset chosen for one representative.

    ``features`` is empty (and ``beta`` NaN) when no beta gave a feasible
    rounding; such a representative does not vote.
    """

    features: IntArray
    radius: float
    beta: float
    score: float
    n_lp_iter: int


def select_representative(
    X: FloatArray,
    i: int,
    same_row: BoolArray,
    w_row: FloatArray,
    *,
    alpha: int,
    gamma: float,
    n_beta: int,
    rounding: str,
    n_rounding: int,
    seed: int,
) -> RepresentativeResult:
    """Solve LP (9) for each beta, round, and keep the best-scoring subset.

    For ``beta_n = n / n_beta`` (n = 1..n_beta), ``epsilon = beta_n * eps_max``
    (LP (8)); the LP vertex is rounded (exactly, or with ``n_rounding`` draws
    from ``np.random.default_rng(seed)``); the candidate subsets are scored by
    :func:`~localselect.lfs._regions.local_score` and the best wins, ties to
    the smallest beta.
    """
    a, b = class_distances(X, i, same_row, w_row)
    alpha = min(alpha, a.size)
    keep = lp_candidates(a, b, alpha)
    if keep is None:
        prog = prepare_lfs_lp(a, b, alpha)
    else:  # an exact reduction: dropped features are in no LP solution (see lp_candidates)
        prog = prepare_lfs_lp(a[keep], b[keep], alpha, scale=cost_scale(a, b, alpha))
    rng = np.random.default_rng(seed) if rounding == "random" else None
    scored: dict[bytes, tuple[float, float]] = {}
    best: tuple[float, int, IntArray, float] | None = None
    epsilons = np.arange(1, n_beta + 1) / n_beta * prog.eps_max
    solutions = solve_sweep(prog, epsilons)
    n_lp_iter = sum(sol.n_iter for sol in solutions)
    for n, (eps, sol) in enumerate(zip(epsilons, solutions), start=1):
        eps = min(float(eps), prog.eps_max)
        draws = None
        if rng is not None:
            n_frac = int(np.count_nonzero((sol.x > 0) & (sol.x < 1)))
            draws = rng.random((n_rounding, n_frac))
        feats = round_solution(sol.x, prog.a, prog.b, alpha=alpha, epsilon=eps, draws=draws)
        if feats is None:
            continue
        if keep is not None:
            feats = keep[feats]
        key = feats.tobytes()
        if key not in scored:
            scored[key] = local_score(X, i, feats, same_row, gamma)
        radius, score = scored[key]
        if best is None or score > best[0]:
            best = (score, n, feats, radius)
    if best is None:
        return RepresentativeResult(np.empty(0, dtype=np.intp), 0.0, np.nan, -np.inf, n_lp_iter)
    score, n, feats, radius = best
    return RepresentativeResult(feats, radius, n / n_beta, score, n_lp_iter)


def select_block(
    X: FloatArray,
    reps: IntArray,
    same: BoolArray,
    W: FloatArray,
    seeds: NDArray[np.int64],
    **params,
) -> list[RepresentativeResult]:
    """:func:`select_representative` for a block of representatives (one joblib task).

    BLAS runs single-threaded inside: its products here are small (the
    leave-one-out screens), and threads only contend with joblib's workers.
    """
    # joblib hands large arrays to workers as np.memmap; plain views avoid the
    # subclass's per-operation overhead on thousands of small array operations.
    X, same, W = np.asarray(X), np.asarray(same), np.asarray(W)
    with threadpool_limits(limits=1, user_api="blas"):
        return [
            select_representative(X, int(i), same[i], W[i], seed=int(seeds[i]), **params)
            for i in reps
        ]


def nearest_candidates(
    X: FloatArray, y: NDArray[np.intp], n_candidates: int, n_jobs: int | None = None
) -> NDArray[np.intp]:
    """Each sample's candidate points: its ``n_candidates`` nearest of every class.

    Nearest in the full feature space (Euclidean), found per class with
    :class:`~sklearn.neighbors.NearestNeighbors` (memory bounded by
    scikit-learn's ``working_memory``). A sample is never its own candidate;
    a class with fewer members contributes all of them; equal distances are
    ordered as the neighbour search returns them (deterministic for given data).

    Returns
    -------
    universe : ndarray of shape (n_samples, n_universe), dtype=int
        Row ``i`` holds ``i`` and its candidates in increasing order, padded
        with -1 at the end (rows of classes of different sizes differ in length).
    """
    n = X.shape[0]
    classes = np.unique(y)
    parts = []
    for c in classes:
        members = np.flatnonzero(y == c)
        k = min(n_candidates + 1, members.size)
        nn = NearestNeighbors(n_neighbors=k, n_jobs=n_jobs).fit(X[members])
        with local_threads():
            idx = members[nn.kneighbors(X, return_distance=False)]
        # Rows of class c drop themselves (or, among more than k duplicates, the last
        # neighbour); other rows drop the extra (k-th) neighbour when c has more.
        own = y == c
        drop = np.zeros(idx.shape, dtype=bool)
        drop[own] = idx[own] == np.flatnonzero(own)[:, None]
        drop[own & ~drop.any(axis=1), -1] = True
        if members.size > n_candidates:
            drop[~own, -1] = True
        parts.append((idx, drop))
    width = 1 + sum(p[0].shape[1] for p in parts)
    universe = np.full((n, width), -1, dtype=np.intp)
    universe[:, 0] = np.arange(n)
    col = 1
    for idx, drop in parts:
        vals = np.where(drop, -1, idx)
        universe[:, col : col + idx.shape[1]] = vals
        col += idx.shape[1]
    # Sort each row ascending with the -1 padding moved to the end.
    key = np.where(universe < 0, n, universe)
    universe = np.take_along_axis(universe, np.argsort(key, axis=1, kind="stable"), axis=1)
    used = (universe >= 0).sum(axis=0) > 0
    return universe[:, used]


def select_block_candidates(
    X: FloatArray,
    y: NDArray[np.intp],
    support: BoolArray,
    universe: NDArray[np.intp],
    reps: IntArray,
    seeds: NDArray[np.int64],
    *,
    sigma: float,
    **params,
) -> list[RepresentativeResult]:
    """Weights (eq. (10)) and :func:`select_representative` on each representative's
    candidate points only (``universe`` from :func:`nearest_candidates`)."""
    X, support, universe = np.asarray(X), np.asarray(support), np.asarray(universe)
    out = []
    with threadpool_limits(limits=1, user_api="blas"):
        for i in reps:
            U = universe[i]
            U = U[U >= 0]
            i_loc = int(np.searchsorted(U, i))
            X_loc = X[U]
            same_loc = y[U] == y[i]
            w = local_weights(X_loc, i_loc, same_loc, support[U], sigma=sigma)
            out.append(
                select_representative(X_loc, i_loc, same_loc, w, seed=int(seeds[i]), **params)
            )
    return out
