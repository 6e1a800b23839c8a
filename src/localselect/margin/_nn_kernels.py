"""Nearest hit/miss kernels: Relief, ReliefF and Simba.

Each sample is compared with its nearest hits (same class) and misses (other
classes) only, found block by block of rows
(:func:`localselect._pairwise.row_chunks`); ties go to the lowest index.
ReliefF has a compiled twin in :mod:`localselect.margin._relieff_numba`.
Kernels never validate user input: they take float64 ``X`` and integer class
codes ``0 .. C-1``. NaN in ``X`` marks a missing value: differences use the
expected-difference rule of :mod:`localselect.margin._missing`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import cast

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.distance import pdist, squareform
from sklearn import get_config
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import pairwise_distances

from localselect._pairwise import hit_miss_masks, row_chunks
from localselect._runtime import ensure_compiled
from localselect._typing import FloatArray, IntArray
from localselect.margin import _relieff_numba
from localselect.margin._kernels import VectorResult, map_blocks
from localselect.margin._missing import ExpectedDiff, expected_diff

__all__ = ["relief", "relieff", "simba"]


def _masked_argmin(dist: FloatArray, mask: NDArray[np.bool_]) -> NDArray[np.intp]:
    """Column of the smallest ``dist`` among ``mask`` per row; ties to the lowest index."""
    return np.argmin(np.where(mask, dist, np.inf), axis=1)


def _nearest_hit_miss(
    X: FloatArray,
    codes: IntArray,
    scale: FloatArray,
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
    X: FloatArray,
    codes: IntArray,
    sample_indices: NDArray[np.intp],
    block_memory: float | None = None,
) -> FloatArray:
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
    X: FloatArray, ii: NDArray[np.intp], jj: NDArray[np.intp], missing: ExpectedDiff | None
) -> FloatArray:
    """``|X[ii] - X[jj]|`` row by row, completed when there are missing values."""
    return np.abs(X[ii] - X[jj]) if missing is None else missing.pairs(ii, jj)


def _range_scaled(X: FloatArray) -> FloatArray:
    """``X`` on the scale of ``diff``: ``(x - min) / (max - min)`` per feature over its
    known values (NaN stays NaN); a constant or all-missing feature becomes 0."""
    known = ~np.isnan(X)
    lo = np.where(known, X, np.inf).min(axis=0)
    span = np.where(known, X, -np.inf).max(axis=0) - lo
    ok = np.isfinite(span) & (span > 0)
    scale = np.divide(1.0, span, out=np.zeros(X.shape[1]), where=ok)
    return (X - np.where(ok, lo, 0.0)) * scale


def relieff(
    X: FloatArray,
    codes: IntArray,
    n_neighbors: int,
    *,
    block_memory: float | None = None,
    n_jobs: int | None = None,
    engine: str = "auto",
    refs: NDArray[np.intp] | None = None,
    prescaled: bool = False,
) -> FloatArray:
    """ReliefF scores (Kononenko 1994; Robnik-Sikonja and Kononenko 2003).

    Features are scaled to [0, 1] by their range (a constant feature gets
    ``diff = 0``). Neighbours are found by the Manhattan distance of the
    scaled features, ties to the lowest index. For every sample ``i``, with its
    ``k_h = min(k, N_{y_i} - 1)`` nearest hits and ``k_c = min(k, N_c)``
    nearest misses of each other class ``c``::

        W += ( -mean_hits diff + sum_c P(c) / (1 - P(y_i)) mean_{misses in c} diff ) / N

    A sample whose class has no other member adds no hit term.

    ``engine="auto"`` runs the compiled kernel of
    :mod:`localselect.margin._relieff_numba` (numba is a core dependency;
    threads: ``n_jobs``, None means one) when ``X`` has no NaN, else this numpy
    code; ``"numpy"`` and ``"numba"`` force one (``"numba"`` needs complete
    data). Both find the same neighbours and agree to rounding.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; NaN marks a missing value (numpy engine only).
    codes : ndarray of shape (n_samples,)
        Class codes ``0 .. C-1``.
    n_neighbors : int
        ``k``: hits, and misses of each other class, per sample (capped per class).
    block_memory : float, default=None
        MiB per block of pairwise work; None uses scikit-learn's ``working_memory``.
    n_jobs : int, default=None
        Parallel jobs (threads of the compiled kernel, blocks of the numpy one).
    engine : {"auto", "numpy", "numba"}, default="auto"
        Which implementation runs (see above).
    refs : ndarray of shape (m,), default=None
        The reference rows ``i`` of the sum (sorted; their neighbours come from
        all rows, the priors from all rows, and the sum is divided by ``m``);
        None means every row.
    prescaled : bool, default=False
        ``X`` is already on the scale of ``diff`` (an encoding of mixed
        columns, :func:`localselect.margin._common.encode_nominal`): no range
        scaling.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        The ReliefF weight of each feature, in [-1, 1].
    """
    if engine not in ("auto", "numpy", "numba"):
        raise ValueError(f"engine must be 'auto', 'numpy' or 'numba'; got {engine!r}.")
    has_nan = bool(np.isnan(X).any())
    if engine == "numba" and has_nan:
        raise ValueError("engine='numba' needs complete data; use engine='numpy' with NaN.")
    if engine == "numba" or (engine == "auto" and not has_nan):
        ensure_compiled(_relieff_numba.RELIEFF_KERNEL)
        memory = (block_memory or get_config().get("working_memory") or 1024) * 2**20
        return _relieff_numba.relieff_compiled(
            X, codes, n_neighbors, n_jobs, memory, refs, prescaled=prescaled
        )
    n, a = X.shape
    refs = np.arange(n) if refs is None else np.asarray(refs, dtype=np.intp)
    Xs = X.copy() if prescaled else _range_scaled(X)
    missing = expected_diff(Xs, codes)
    n_classes = int(codes.max()) + 1
    counts = np.bincount(codes, minlength=n_classes)
    priors = counts / n

    # The distance matrix is symmetric: when it fits scikit-learn's working memory,
    # compute each pair once (pdist); otherwise rows of it per block.
    full = None
    budget = (get_config().get("working_memory") or 1024) * 2**20
    if missing is None and len(refs) == n and n * n * 8 <= budget:
        full = squareform(pdist(Xs, metric="cityblock"))

    def block(chunk: slice) -> FloatArray:
        rows = refs[chunk]
        if full is not None:
            dist = full[rows].copy()
        elif missing is None:
            dist = pairwise_distances(Xs[rows], Xs, metric="manhattan")
        else:
            dist = missing.distances(cast(slice, rows), np.ones(a), 1)  # index arrays work too
        dist[np.arange(dist.shape[0]), rows] = np.inf
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
    parts = map_blocks(block, row_chunks(len(refs), int(per_row) + 1, block_memory), n_jobs)
    return np.sum(parts, axis=0) / len(refs)


def simba(
    X: FloatArray,
    codes: IntArray,
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
