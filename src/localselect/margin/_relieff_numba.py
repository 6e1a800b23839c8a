"""Compiled ReliefF kernel (numba), used by :func:`localselect.margin._nn_kernels.relieff`.

numba is a core dependency (the LFS core needs it). The kernel computes
what the numpy path computes: the Manhattan distances of the range-scaled
features, the ``k`` nearest samples of each class (the sample itself
excluded, ties to the lower index) and the prior-weighted mean differences of
Kononenko's ReliefF update. It differs in how it moves data, which is what
bounds this computation in float64:

1. distances: when the ``N x N`` matrix fits the memory budget, each pair
   once, by 16 x 16 tiles of rows that stay in cache
   (:func:`_cityblock_symmetric`); otherwise each tile of 16 rows against
   all samples, in a ``16 x N`` buffer;
2. neighbours: the ``k`` best of each class kept by insertion, into an
   ``N x (k C)`` table of indices and weights (:func:`_neighbours`);
3. update: by blocks of 128 features, so that a block of every row stays in
   cache while all neighbour pairs pass over it (:func:`_weighted_diffs`).

Every tile and block owns its outputs, so the summation order, and the
result, does not depend on the number of threads. The compiled functions are
serial and release the GIL; Python threads run them over ranges of tiles and
blocks. (numba's own ``parallel=True`` would start an OpenMP runtime, after
which a forked child process aborts: ``multiprocessing`` with ``fork`` after
a ``ReliefF`` fit would crash.) Distances are summed in
another order than numpy's (SIMD lanes), so they agree to rounding, and two
distances equal only up to rounding may be ordered differently.

Nothing here validates user input; see :func:`relieff_compiled`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
from numba import njit
from numpy.typing import NDArray

from localselect._runtime import kernel_input, n_threads, register_kernel, run_blocks

__all__ = ["RELIEFF_KERNEL", "relieff_compiled"]

#: Features per block of the update loop (a block of every row stays in cache).
_FEATURE_BLOCK = 128
#: Rows whose distances are computed together (cache blocking).
_TILE = 16

_FAST = {"reassoc", "contract", "nsz"}


@njit(nogil=True, cache=True)
def _range_scale(X, Xs, b0, b1):  # pragma: no cover
    """Blocks ``b0:b1`` of columns scaled to [0, 1] by their range (0 if constant).

    The same arithmetic as numpy's ``(X - lo) * (1 / (hi - lo))``.
    """
    n, a = X.shape
    lo = np.empty(_FEATURE_BLOCK)
    scale = np.empty(_FEATURE_BLOCK)
    for b in range(b0, b1):
        f0 = b * _FEATURE_BLOCK
        width = min(f0 + _FEATURE_BLOCK, a) - f0
        for f in range(width):
            lo[f] = X[0, f0 + f]
            scale[f] = X[0, f0 + f]
        for i in range(1, n):
            for f in range(width):
                v = X[i, f0 + f]
                lo[f] = min(lo[f], v)
                scale[f] = max(scale[f], v)
        for f in range(width):
            span = scale[f] - lo[f]
            scale[f] = 1.0 / span if span > 0 else 0.0
        for i in range(n):
            for f in range(width):
                Xs[i, f0 + f] = (X[i, f0 + f] - lo[f]) * scale[f]


@njit(nogil=True, cache=True, fastmath=_FAST)
def _cityblock_tiles(Xs, pairs, D, p0, p1):  # pragma: no cover
    """Tile pairs ``p0:p1`` (``bi <= bj``) of the Manhattan distance matrix, each pair once."""
    n, a = Xs.shape
    for p in range(p0, p1):
        i0 = pairs[p, 0] * _TILE
        j0 = pairs[p, 1] * _TILE
        i1 = min(i0 + _TILE, n)
        j1 = min(j0 + _TILE, n)
        for j in range(j0, j1):
            xj = Xs[j]
            for i in range(i0, min(i1, j + 1) if i0 == j0 else i1):
                xi = Xs[i]
                s = 0.0
                for f in range(a):
                    s += abs(xi[f] - xj[f])
                D[i, j] = s
                D[j, i] = s


@njit(nogil=True, cache=True, fastmath=_FAST)
def _neighbours(
    Xs, D, codes, starts, members, k_per, coef, nb_idx, nb_w, tile0, tile1
):  # pragma: no cover
    """k nearest per class (ties to the lower index) and weights, tiles ``tile0:tile1``.

    Distances come from ``D`` when it holds the whole matrix, else each tile
    of rows computes its own (each ``x_j`` read once per tile).
    """
    n, a = Xs.shape
    n_classes = starts.shape[0] - 1
    have_d = D.shape[0] == n
    dist = np.empty((0 if have_d else _TILE, n))
    best_d = np.empty(max(1, k_per.max()))
    for tile in range(tile0, tile1):
        t0 = tile * _TILE
        t1 = min(t0 + _TILE, n)
        if not have_d:
            for j in range(n):
                xj = Xs[j]
                for i in range(t0, t1):
                    xi = Xs[i]
                    s = 0.0
                    for f in range(a):
                        s += abs(xi[f] - xj[f])
                    dist[i - t0, j] = s
        for i in range(t0, t1):
            ci = codes[i]
            row = D[i] if have_d else dist[i - t0]
            slot = 0
            for c in range(n_classes):
                k = k_per[ci, c]
                if k <= 0:
                    continue
                # Insertion into the k best, candidates in index order and a
                # strict comparison: ties go to the lower index.
                m = 0
                for t in range(starts[c], starts[c + 1]):
                    j = members[t]
                    if j == i:
                        continue
                    dj = row[j]
                    if m == k and dj >= best_d[k - 1]:
                        continue
                    pos = m if m < k else k - 1
                    while pos > 0 and dj < best_d[pos - 1]:
                        best_d[pos] = best_d[pos - 1]
                        nb_idx[i, slot + pos] = nb_idx[i, slot + pos - 1]
                        pos -= 1
                    best_d[pos] = dj
                    nb_idx[i, slot + pos] = j
                    if m < k:
                        m += 1
                w = coef[ci, c] / k
                for t in range(k):
                    nb_w[i, slot + t] = w
                slot += k


@njit(nogil=True, cache=True, fastmath=_FAST)
def _weighted_diffs(Xs, nb_idx, nb_w, total, b0, b1):  # pragma: no cover
    """``sum_i sum_slots w |x_i - x_nb|`` for the features of blocks ``b0:b1``.

    Each block of columns stays in cache while every row and neighbour passes
    over it; blocks own disjoint features, so the sum order is fixed.
    """
    n, a = Xs.shape
    for b in range(b0, b1):
        f0 = b * _FEATURE_BLOCK
        f1 = min(f0 + _FEATURE_BLOCK, a)
        acc = total[f0:f1]
        for i in range(n):
            xi = Xs[i, f0:f1]
            for t in range(nb_idx.shape[1]):
                w = nb_w[i, t]
                if w == 0.0:
                    continue
                xh = Xs[nb_idx[i, t], f0:f1]
                for f in range(f1 - f0):
                    acc[f] += w * abs(xi[f] - xh[f])


def _run(threads: int, func: Callable[..., object], n_items: int, *args: Any) -> None:
    """``func(*args, start, stop)`` over ``range(n_items)``, in ``threads`` parts.

    The compiled functions release the GIL, so the parts run in parallel
    (:func:`localselect._runtime.run_blocks`); each part writes only its own outputs.
    """
    n_parts = max(1, min(threads, n_items))
    bounds = [n_items * k // n_parts for k in range(n_parts + 1)]
    run_blocks(lambda part: func(*args, *part), list(itertools.pairwise(bounds)), n_parts)


def relieff_compiled(
    X: NDArray[np.float64],
    codes: NDArray[np.intp],
    n_neighbors: int,
    n_jobs: int | None = None,
    matrix_bytes: float = 256 * 2**20,
) -> NDArray[np.float64]:
    """ReliefF scores, the compiled twin of :func:`localselect.margin._nn_kernels.relieff`.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; each feature is scaled to [0, 1] by its range (0 if constant).
    codes : ndarray of shape (n_samples,)
        Class codes ``0 .. C-1``.
    n_neighbors : int
        ``k``: hits, and misses of each other class, per sample (capped per class).
    n_jobs : int or None, default=None
        Threads (:func:`localselect._runtime.n_threads`: None means 1).
    matrix_bytes : float, default=256 MiB
        Largest ``N x N`` distance matrix to hold, so that each pair is computed
        once; beyond it every tile of rows computes its own distances.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        ``(1/N) sum_i (-mean_hits diff + sum_c P(c) / (1 - P(y_i)) mean_misses_c diff)``.
    """
    threads = n_threads(n_jobs)
    X = kernel_input(X)
    n, a = X.shape
    counts = np.bincount(codes)
    n_classes = counts.shape[0]
    priors = counts / n
    members = np.argsort(codes, kind="stable").astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    same = np.eye(n_classes, dtype=bool)
    k_per = np.minimum(n_neighbors, counts[None, :] - same).astype(np.int64)
    coef = np.where(same, -1.0, priors[None, :] / (1.0 - priors[:, None]))
    n_tiles = -(-n // _TILE)
    n_blocks = -(-a // _FEATURE_BLOCK)
    slots = int(k_per.max()) * n_classes
    nb_idx = np.zeros((n, slots), dtype=np.int64)
    nb_w = np.zeros((n, slots))
    total = np.zeros(a)
    Xs = np.empty((n, a))
    _run(threads, _range_scale, n_blocks, X, Xs)
    if n * n * 8 <= matrix_bytes:
        bi, bj = np.triu_indices(n_tiles)
        pairs = np.column_stack([bi, bj]).astype(np.int64)
        D = np.empty((n, n))
        _run(threads, _cityblock_tiles, len(pairs), Xs, pairs, D)
    else:
        D = np.empty((0, 0))
    args = (Xs, D, codes.astype(np.int64), starts, members, k_per, coef, nb_idx, nb_w)
    _run(threads, _neighbours, n_tiles, *args)
    _run(threads, _weighted_diffs, n_blocks, Xs, nb_idx, nb_w, total)
    return total / n


#: What a fit reports while numba compiles the ReliefF kernel (first use).
COMPILE_MESSAGE = "compiling the ReliefF kernel once (about 10 s; cached afterwards)"


def _warm_up() -> None:
    """The kernel on six samples, both distance paths (held matrix and per-tile rows)."""
    X = np.arange(12.0).reshape(6, 2) % 5
    codes = np.array([0, 0, 0, 1, 1, 1])
    relieff_compiled(X, codes, 1)
    relieff_compiled(X, codes, 1, matrix_bytes=0)


#: The compiled ReliefF kernel, as the runtime's kernel registry knows it.
RELIEFF_KERNEL = register_kernel(
    "ReliefF",
    (_range_scale, _cityblock_tiles, _neighbours, _weighted_diffs),
    _warm_up,
    COMPILE_MESSAGE,
)
