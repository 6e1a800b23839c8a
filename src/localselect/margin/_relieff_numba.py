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

__all__ = [
    "RELIEFF_KERNEL",
    "corelearn_select",
    "nearest",
    "regression_sums",
    "relieff_compiled",
    "scaled",
]

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
    Xs, D, codes, starts, members, k_per, coef, refs, nb_idx, nb_w, nb_d, tile0, tile1
):  # pragma: no cover
    """k nearest per class of the reference rows ``refs`` (ties to the lower index).

    Row ``r`` of ``nb_idx``, ``nb_w`` (the update's weights) and ``nb_d`` (the
    distances, nearest first within a class) belongs to sample ``refs[r]``;
    tiles ``tile0:tile1`` of ``_TILE`` references. Distances come from ``D``
    when it holds the whole matrix (then ``refs`` is every row), else each tile
    computes its own (each ``x_j`` read once per tile).
    """
    n, a = Xs.shape
    m = refs.shape[0]
    n_classes = starts.shape[0] - 1
    have_d = D.shape[0] == n
    dist = np.empty((0 if have_d else _TILE, n))
    best_d = np.empty(max(1, k_per.max()))
    for tile in range(tile0, tile1):
        t0 = tile * _TILE
        t1 = min(t0 + _TILE, m)
        if not have_d:
            for j in range(n):
                xj = Xs[j]
                for r in range(t0, t1):
                    xi = Xs[refs[r]]
                    s = 0.0
                    for f in range(a):
                        s += abs(xi[f] - xj[f])
                    dist[r - t0, j] = s
        for r in range(t0, t1):
            i = refs[r]
            ci = codes[i]
            row = D[i] if have_d else dist[r - t0]
            slot = 0
            for c in range(n_classes):
                k = k_per[ci, c]
                if k <= 0:
                    continue
                # Insertion into the k best, candidates in index order and a
                # strict comparison: ties go to the lower index.
                filled = 0
                for t in range(starts[c], starts[c + 1]):
                    j = members[t]
                    if j == i:
                        continue
                    dj = row[j]
                    if filled == k and dj >= best_d[k - 1]:
                        continue
                    pos = filled if filled < k else k - 1
                    while pos > 0 and dj < best_d[pos - 1]:
                        best_d[pos] = best_d[pos - 1]
                        nb_idx[r, slot + pos] = nb_idx[r, slot + pos - 1]
                        pos -= 1
                    best_d[pos] = dj
                    nb_idx[r, slot + pos] = j
                    if filled < k:
                        filled += 1
                w = coef[ci, c] / k
                for t in range(k):
                    nb_w[r, slot + t] = w
                    nb_d[r, slot + t] = best_d[t]
                slot += k


@njit(nogil=True, cache=True)
def _pushdown(keys, vals, first, last):  # pragma: no cover
    """Restore the min-heap (1-based positions ``first .. last``) below ``first``.

    CORElearn's ``marray::pushdownDsc`` step for step (strict comparisons of
    the keys), so that equal keys move exactly as they move there.
    """
    r = first
    limit = last // 2
    while r <= limit:
        child2 = 2 * r
        child1 = child2 - 1
        parent = r - 1
        if last == child2:
            if keys[parent] > keys[child1]:
                keys[parent], keys[child1] = keys[child1], keys[parent]
                vals[parent], vals[child1] = vals[child1], vals[parent]
            break
        if keys[parent] > keys[child1] and not keys[child1] > keys[child2]:
            keys[parent], keys[child1] = keys[child1], keys[parent]
            vals[parent], vals[child1] = vals[child1], vals[parent]
            r = child2
        elif keys[parent] > keys[child2] and keys[child1] > keys[child2]:
            keys[parent], keys[child2] = keys[child2], keys[parent]
            vals[parent], vals[child2] = vals[child2], vals[parent]
            r = child2 + 1
        else:
            break


@njit(nogil=True, cache=True)
def _heap_select(row, i, k, keys, vals, out_idx, out_d):  # pragma: no cover
    """CORElearn's selection step for step (see :func:`corelearn_select`)."""
    n = row.shape[0]
    for j in range(n):
        keys[j] = row[j]
        vals[j] = j
    kk = min(k + 1, n)
    for r in range(n // 2, 0, -1):
        _pushdown(keys, vals, r, n)
    lower = max(n - kk, 1)
    e = n
    while e > lower:
        e -= 1
        keys[0], keys[e] = keys[e], keys[0]
        vals[0], vals[e] = vals[e], vals[0]
        _pushdown(keys, vals, 1, e)
    for p in range(n - 1, -1, -1):
        if vals[p] == i:
            keys[p] = keys[n - 1]
            vals[p] = vals[n - 1]
            break
    for t in range(k):
        out_idx[t] = vals[n - 2 - t]
        out_d[t] = keys[n - 2 - t]


@njit(nogil=True, cache=True)
def corelearn_select(row, i, k, keys, vals, out_idx, out_d):  # pragma: no cover
    """The ``k`` nearest samples of sample ``i`` by CORElearn's rule (its ties included).

    ``row`` holds the distances of ``i`` to every sample (index order). As
    CORElearn's ``estimationReg::prepareDistanceFactors``: the ``k + 1``
    smallest by its heap selection (``marray::sortKsmallest``: a min-heap built
    over the samples in index order, the minimum swapped to the end ``k + 1``
    times), then sample ``i`` is searched from the end and overwritten by the
    nearest; the neighbours are the ``k`` positions before the last, nearest
    first. Among samples at equal distance the heap decides which are kept;
    when ``i`` is not among the ``k + 1`` (more than ``k`` samples at its own
    distance, or a positive self-distance with missing values) the nearest one
    is dropped, as there. ``keys`` and ``vals`` are scratch arrays of length N.

    Shortcut with the same neighbours: when ``i`` is at distance 0 from itself
    and the ``(k + 1)``-th smallest distance is below the ``(k + 2)``-th (no
    tie at the boundary), the heap keeps exactly the ``k + 1`` smallest, so
    they are found by insertion (``O(N)`` with rare inserts) and ``i`` is
    removed; samples at equal distance inside the ``k`` may then come in index
    order rather than the heap's, which changes no neighbour weight.
    """
    n = row.shape[0]
    kk = k + 2
    if row[i] == 0.0 and kk <= n:
        filled = 0
        for j in range(n):  # the kk smallest, strict comparisons: ties to the lower index
            dj = row[j]
            if filled == kk and dj >= keys[kk - 1]:
                continue
            pos = filled if filled < kk else kk - 1
            while pos > 0 and dj < keys[pos - 1]:
                keys[pos] = keys[pos - 1]
                vals[pos] = vals[pos - 1]
                pos -= 1
            keys[pos] = dj
            vals[pos] = j
            if filled < kk:
                filled += 1
        if keys[k] < keys[k + 1]:
            t = 0
            for p in range(k + 1):
                if vals[p] != i:
                    out_idx[t] = vals[p]
                    out_d[t] = keys[p]
                    t += 1
            if t == k:  # i was among the k + 1 (always, unless a distance is negative)
                return
    _heap_select(row, i, k, keys, vals, out_idx, out_d)


@njit(nogil=True, cache=True, fastmath=_FAST)
def _weighted_diffs(Xs, refs, nb_idx, nb_w, total, b0, b1):  # pragma: no cover
    """``sum_r sum_slots w |x_refs[r] - x_nb|`` for the features of blocks ``b0:b1``.

    Each block of columns stays in cache while every row and neighbour passes
    over it; blocks own disjoint features, so the sum order is fixed.
    """
    a = Xs.shape[1]
    for b in range(b0, b1):
        f0 = b * _FEATURE_BLOCK
        f1 = min(f0 + _FEATURE_BLOCK, a)
        acc = total[f0:f1]
        for r in range(refs.shape[0]):
            xi = Xs[refs[r], f0:f1]
            for t in range(nb_idx.shape[1]):
                w = nb_w[r, t]
                if w == 0.0:
                    continue
                xh = Xs[nb_idx[r, t], f0:f1]
                for f in range(f1 - f0):
                    acc[f] += w * abs(xi[f] - xh[f])


@njit(nogil=True, cache=True, fastmath=_FAST)
def _regression_diffs(Xs, refs, nb_idx, nb_w, dy, diff_a, diff_ca, b0, b1):  # pragma: no cover
    """RReliefF's sums for the features of blocks ``b0:b1``.

    ``diff_a += sum_r sum_t w_rt diff_a(r, t)`` and ``diff_ca += sum_r sum_t
    w_rt dy_rt diff_a(r, t)``: the ``N_dA`` and ``N_dC&dA`` of Robnik-Sikonja
    and Kononenko (2003, Fig. 3), with ``dy`` the target differences.
    """
    a = Xs.shape[1]
    for b in range(b0, b1):
        f0 = b * _FEATURE_BLOCK
        f1 = min(f0 + _FEATURE_BLOCK, a)
        acc_a = diff_a[f0:f1]
        acc_ca = diff_ca[f0:f1]
        for r in range(refs.shape[0]):
            xi = Xs[refs[r], f0:f1]
            for t in range(nb_idx.shape[1]):
                w = nb_w[r, t]
                if w == 0.0:
                    continue
                wc = w * dy[r, t]
                xh = Xs[nb_idx[r, t], f0:f1]
                for f in range(f1 - f0):
                    d = abs(xi[f] - xh[f])
                    acc_a[f] += w * d
                    acc_ca[f] += wc * d


def _run(threads: int, func: Callable[..., object], n_items: int, *args: Any) -> None:
    """``func(*args, start, stop)`` over ``range(n_items)``, in ``threads`` parts.

    The compiled functions release the GIL, so the parts run in parallel
    (:func:`localselect._runtime.run_blocks`); each part writes only its own outputs.
    """
    n_parts = max(1, min(threads, n_items))
    bounds = [n_items * k // n_parts for k in range(n_parts + 1)]
    run_blocks(lambda part: func(*args, *part), list(itertools.pairwise(bounds)), n_parts)


def scaled(X: NDArray[np.float64], threads: int) -> NDArray[np.float64]:
    """``X`` with each feature scaled to [0, 1] by its range (0 if constant)."""
    X = kernel_input(X)
    Xs = np.empty(X.shape)
    _run(threads, _range_scale, -(-X.shape[1] // _FEATURE_BLOCK), X, Xs)
    return Xs


def _distance_matrix(Xs: NDArray[np.float64], threads: int) -> NDArray[np.float64]:
    """Every pair's Manhattan distance once, by tiles (:func:`_cityblock_tiles`)."""
    n = Xs.shape[0]
    n_tiles = -(-n // _TILE)
    bi, bj = np.triu_indices(n_tiles)
    pairs = np.column_stack([bi, bj]).astype(np.int64)
    D = np.empty((n, n))
    _run(threads, _cityblock_tiles, len(pairs), Xs, pairs, D)
    return D


def nearest(
    Xs: NDArray[np.float64],
    codes: NDArray[np.intp],
    k_per: NDArray[np.int64],
    coef: NDArray[np.float64],
    refs: NDArray[np.int64],
    threads: int,
    matrix_bytes: float,
) -> tuple[NDArray[np.int64], NDArray[np.float64], NDArray[np.float64]]:
    """The nearest samples of each class for the reference rows ``refs``.

    Manhattan distance of the scaled ``Xs``, the sample itself excluded, ties
    to the lower index; ``k_per[c_i, c]`` neighbours of class ``c`` for a
    reference of class ``c_i``, each with the weight ``coef[c_i, c] / k``.
    Returns ``(indices, weights, distances)``, each ``(len(refs), sum_c k)``,
    nearest first within each class. When every row is a reference and the
    ``N x N`` matrix fits ``matrix_bytes``, each pair's distance is computed once.
    """
    n = Xs.shape[0]
    m = refs.shape[0]
    n_classes = k_per.shape[0]
    counts = np.bincount(codes, minlength=n_classes)
    members = np.argsort(codes, kind="stable").astype(np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    slots = int(k_per.max()) * n_classes
    nb_idx = np.zeros((m, slots), dtype=np.int64)
    nb_w = np.zeros((m, slots))
    nb_d = np.zeros((m, slots))
    held = m == n and n * n * 8 <= matrix_bytes
    D = _distance_matrix(Xs, threads) if held else np.empty((0, 0))
    args = (Xs, D, codes.astype(np.int64), starts, members, k_per, coef, refs)
    _run(threads, _neighbours, -(-m // _TILE), *args, nb_idx, nb_w, nb_d)
    return nb_idx, nb_w, nb_d


def regression_sums(
    Xs: NDArray[np.float64],
    refs: NDArray[np.int64],
    nb_idx: NDArray[np.int64],
    nb_w: NDArray[np.float64],
    dy: NDArray[np.float64],
    threads: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """RReliefF's ``N_dA`` and ``N_dC&dA`` (:func:`_regression_diffs`), by feature blocks."""
    a = Xs.shape[1]
    diff_a = np.zeros(a)
    diff_ca = np.zeros(a)
    args = (Xs, refs, nb_idx, kernel_input(nb_w), kernel_input(dy), diff_a, diff_ca)
    _run(threads, _regression_diffs, -(-a // _FEATURE_BLOCK), *args)
    return diff_a, diff_ca


def relieff_compiled(
    X: NDArray[np.float64],
    codes: NDArray[np.intp],
    n_neighbors: int,
    n_jobs: int | None = None,
    matrix_bytes: float = 256 * 2**20,
    refs: NDArray[np.intp] | None = None,
    prescaled: bool = False,
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
    refs : ndarray of shape (m,), default=None
        The reference rows (sorted); None means every row.
    prescaled : bool, default=False
        ``X`` is already on the scale of ``diff``: no range scaling.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        ``(1/m) sum_{i in refs} (-mean_hits diff + sum_c P(c) / (1 - P(y_i))
        mean_misses_c diff)``, with the priors ``P`` of all ``N`` rows.
    """
    threads = n_threads(n_jobs)
    n = X.shape[0]
    refs = np.arange(n, dtype=np.int64) if refs is None else refs.astype(np.int64)
    counts = np.bincount(codes)
    n_classes = counts.shape[0]
    priors = counts / n
    same = np.eye(n_classes, dtype=bool)
    k_per = np.minimum(n_neighbors, counts[None, :] - same).astype(np.int64)
    coef = np.where(same, -1.0, priors[None, :] / (1.0 - priors[:, None]))
    Xs = kernel_input(X) if prescaled else scaled(X, threads)
    nb_idx, nb_w, _ = nearest(Xs, codes, k_per, coef, refs, threads, matrix_bytes)
    total = np.zeros(X.shape[1])
    _run(threads, _weighted_diffs, -(-X.shape[1] // _FEATURE_BLOCK), Xs, refs, nb_idx, nb_w, total)
    return total / len(refs)


#: What a fit reports while numba compiles the ReliefF kernel (first use).
COMPILE_MESSAGE = "compiling the ReliefF kernel once (about 10 s; cached afterwards)"


def _warm_up() -> None:
    """The kernel on six samples, both distance paths (held matrix and per-tile rows)."""
    X = np.arange(12.0).reshape(6, 2) % 5
    codes = np.array([0, 0, 0, 1, 1, 1])
    relieff_compiled(X, codes, 1)
    relieff_compiled(X, codes, 1, matrix_bytes=0, refs=np.array([1, 4]))
    refs = np.arange(6, dtype=np.int64)
    w = np.full((6, 1), 1.0)
    regression_sums(scaled(X, 1), refs, refs[::-1, None].copy(), w, w, 1)
    keys, vals = np.empty(6), np.empty(6, dtype=np.int64)
    corelearn_select(np.arange(6.0), 0, 2, keys, vals, vals[:2].copy(), keys[:2].copy())


#: The compiled ReliefF kernel, as the runtime's kernel registry knows it.
RELIEFF_KERNEL = register_kernel(
    "ReliefF",
    (
        _range_scale,
        _cityblock_tiles,
        _neighbours,
        _pushdown,
        _heap_select,
        corelearn_select,
        _weighted_diffs,
        _regression_diffs,
    ),
    _warm_up,
    COMPILE_MESSAGE,
)
