"""One iteration of Algorithm 1 (LFS) over every representative: the Python driver.

:func:`fit_iteration` splits the representatives into blocks and runs the
compiled :func:`localselect.lfs._regions.fit_block` on them through the
runtime (:func:`localselect._runtime.run_blocks`: threads here, or the tasks of
a Dask cluster the caller chose). The compiled functions are serial and
release the GIL, and each representative owns its outputs, so the result does
not depend on the number of threads. (numba's ``parallel=True`` would start an
OpenMP runtime, after which a forked child process aborts.)

The compiled fit is registered with the runtime as :data:`FIT_KERNEL`
(:func:`localselect._runtime.ensure_compiled` compiles it before a fit when
numba's cache is cold, with :data:`COMPILE_MESSAGE`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._runtime import kernel_input, n_threads, register_kernel, run_blocks
from localselect._typing import FloatArray, IntArray
from localselect.lfs._regions import fit_block

__all__ = ["COMPILE_MESSAGE", "FIT_KERNEL", "IterationResult", "fit_iteration", "subset_table"]

BoolArray = NDArray[np.bool_]


class IterationResult(NamedTuple):
    """One iteration of Algorithm 1 over all representatives."""

    support: BoolArray
    radii: FloatArray
    betas: FloatArray
    scores: FloatArray
    n_lp_iter: int


def subset_table(support: BoolArray, distinct: bool) -> tuple[IntArray, IntArray, FloatArray]:
    """Previous subsets as a padded table: ``(features, lengths, counts)``.

    ``distinct=True`` keeps each distinct subset once with its multiplicity
    (the exact method); otherwise one row per training point, count 1.
    """
    if distinct:
        # Rows packed to bytes compare as one opaque value (much faster than
        # unique(axis=0) on many features), in the same lexicographic order.
        packed = np.ascontiguousarray(np.packbits(support, axis=1))
        keys = packed.view(np.dtype((np.void, max(1, packed.shape[1])))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        rows = support[first]
        counts = np.bincount(inverse.ravel(), minlength=rows.shape[0]).astype(np.float64)
    else:
        rows = support
        counts = np.ones(support.shape[0])
    lengths = rows.sum(axis=1).astype(np.int64)
    width = max(1, int(lengths.max()) if lengths.size else 1)
    table = np.zeros((rows.shape[0], width), dtype=np.int64)
    r, c = np.nonzero(rows)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    table[r, np.arange(r.size) - starts[r]] = c
    return table, lengths, counts


def _run_block(X, XT, y, reps, args, rand, seeds, outputs) -> None:
    """The compiled core on one block (``XT``: ``X`` feature-major), writing into ``outputs``."""
    use_draws, n_rounding, n_draws = rand
    if use_draws:
        draws = np.stack([np.random.default_rng(int(seeds[i])).random(n_draws) for i in reps])
    else:
        draws = np.zeros((reps.size, 1))
    univ, table, lengths, counts, sigma, alpha, gamma, n_beta = args
    fit_block(
        X, XT, y, reps, univ, table, lengths, counts, sigma, alpha, gamma, n_beta,
        draws, use_draws, n_rounding, *outputs,
    )  # fmt: skip


def _block_result(X, y, args, rand, seeds, reps):
    """One block as a cluster task: its rows of (support, radii, betas, scores, n_iter)."""
    X, y = kernel_input(X), kernel_input(y, np.int64)  # joblib's memmaps are read-only
    XT = np.ascontiguousarray(X.T)
    n, m = X.shape
    outputs = (
        np.zeros((n, m), dtype=bool),
        np.zeros(n),
        np.full(n, np.nan),
        np.full(n, -np.inf),
        np.zeros(n, dtype=np.int64),
    )
    _run_block(X, XT, y, reps, args, rand, seeds, outputs)
    return tuple(out[reps] for out in outputs)


def fit_iteration(
    X: FloatArray,
    y: IntArray,
    support: BoolArray,
    universe: IntArray | None,
    seeds: IntArray,
    *,
    alpha: int,
    gamma: float,
    sigma: float,
    n_beta: int,
    rounding: str,
    n_rounding: int,
    n_jobs: int | None = 1,
    advance: Callable[[int], None] | None = None,
) -> IterationResult:
    """One iteration of Algorithm 1 (lines 3-12): every representative's new subset.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Class codes.
    support : ndarray of shape (n_samples, n_features), dtype=bool
        Previous subsets (all False in the first iteration).
    universe : ndarray of shape (n_samples, n_universe) or None
        Candidate points of each representative (see ``nearest_candidates``),
        or None for the exact method.
    seeds : ndarray of shape (n_samples,)
        Random-rounding seed of each representative: the draws are
        ``np.random.default_rng(seed).random`` consumed in order, beta after
        beta, ``(n_rounding, n_fractional)`` at a time.
    n_jobs : int or None
        Threads over blocks of representatives (:func:`localselect._runtime.n_threads`).
    advance : callable, optional
        Called with the number of representatives of each finished block.
    """
    X, y = kernel_input(X), kernel_input(y, np.int64)
    XT = np.ascontiguousarray(X.T)  # feature-major, for the sums over points
    n, m = X.shape
    exact = universe is None
    table, lengths, counts = subset_table(support, distinct=exact)
    univ = np.empty((0, 0), dtype=np.int64) if exact else np.ascontiguousarray(universe, np.int64)
    out_support = np.zeros((n, m), dtype=bool)
    radii = np.zeros(n)
    betas = np.full(n, np.nan)
    scores = np.full(n, -np.inf)
    n_iter = np.zeros(n, dtype=np.int64)
    use_draws = rounding == "random"
    # Block sizes: enough blocks for progress and balance, few enough to amortise calls;
    # random rounding holds 2 n_beta n_rounding uniforms per representative of a block.
    n_blocks = max(min(n, 8 * n_threads(n_jobs)), min(n, 200))
    if use_draws:
        n_blocks = max(n_blocks, -(-n // 8))
    blocks = [np.arange(k, n, n_blocks, dtype=np.int64) for k in range(n_blocks)]
    args = (univ, table, lengths, counts, float(sigma), int(alpha), float(gamma), int(n_beta))
    rand = (use_draws, int(n_rounding), 2 * n_beta * n_rounding)

    outputs = (out_support, radii, betas, scores, n_iter)

    def run(reps: IntArray) -> None:
        _run_block(X, XT, y, reps, args, rand, seeds, outputs)

    def done(reps: IntArray, part: tuple | None) -> None:
        if part is not None:  # a cluster task's rows
            for dest, src in zip(outputs, part):
                dest[reps] = src
        if advance is not None:
            advance(reps.size)

    # The first block runs here: it compiles (or loads) the kernel once.
    remote = (_block_result, (X, y, args, rand, seeds))
    run_blocks(run, blocks, n_jobs, done=done, first_here=True, remote=remote)
    return IterationResult(out_support, radii, betas, scores, int(n_iter.sum()))


#: What a fit reports while numba compiles the LFS fit (first use after installing).
COMPILE_MESSAGE = "compiling the LFS core once (about a minute; cached afterwards)"


def _warm_up() -> None:
    """A fit iteration on four points: compiles every function the fit calls."""
    X = np.array([[0.0, 1.0], [0.5, 0.0], [2.0, 1.5], [2.5, 3.0]])
    y = np.array([0, 0, 1, 1])
    fit_iteration(
        X, y, np.zeros(X.shape, dtype=bool), None, np.zeros(4, dtype=np.int64),
        alpha=1, gamma=0.2, sigma=1.0, n_beta=2, rounding="exact", n_rounding=1,
    )  # fmt: skip


#: The compiled LFS fit, as the runtime's kernel registry knows it.
FIT_KERNEL = register_kernel("LFS fit", (fit_block,), _warm_up, COMPILE_MESSAGE)
