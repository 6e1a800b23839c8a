"""Neighbour-truncated IMMIGRATE kernels: each sample's k nearest hits and misses only.

The softmax of eq. (3.6) gives a far hit or miss the weight ``exp(-q / sigma)``,
negligible once ``q`` is large. Truncation keeps, for every sample, its ``k``
nearest hits and ``k`` nearest misses in the Euclidean distance of the modelled
features, found once with scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors`
(memory O(N C k) for C classes, never N x N), and runs the alternation of
Algorithm 2 over those lists only: O(N k A^2) time per iteration instead of
O(N^2 A^2).

**Dropped weight.** For a sample ``n`` whose farthest kept hit lies at
Euclidean distance ``r_n``, every dropped hit ``j`` has ``||d_nj||_2 >= r_n``. For
an element-wise non-negative ``W`` and ``d >= 0``,
``q = d^T W d >= sum_a W_aa d_a^2 >= min_a W_aa ||d||_2^2``, so
``q_nj >= m r_n^2`` with ``m = min_a W_aa`` (``m = 0`` for a ``W`` with negative
entries). The exact softmax mass on the dropped hits is therefore at most
``delta_n = F / (F + S)`` with ``F = n_dropped exp(-m r_n^2 / sigma)`` and ``S`` the
kept hits' sum of ``exp(-q / sigma)``; it is also the total variation distance
between the truncated and the exact hit distribution of sample ``n``. The same
holds for misses. :func:`dropped_weight_bound` computes the bound.

When ``k`` reaches a class's size every hit (miss) is kept, nothing is dropped
and the kernels give the exact results (the tests compare them with the
all-pairs kernels of :mod:`localselect.margin._matrix_kernels`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn import get_config
from sklearn.neighbors import NearestNeighbors

from localselect._pairwise import DEFAULT_WORKING_MEMORY, row_chunks
from localselect._runtime import local_threads
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import ImmigrateStep, MarginVectorStep, quad_form

__all__ = [
    "EXACT_MAX_SAMPLES",
    "ClassNeighbours",
    "HitMissLists",
    "Neighbours",
    "auto_neighbors",
    "build_neighbours",
    "check_exact_with_missing",
    "class_neighbours",
    "dropped_weight_bound",
    "expected_distances_truncated",
    "hit_miss_lists",
    "immigrate_step_truncated",
    "margin_vector_step_truncated",
    "query_class_neighbours",
    "resolve_neighbours",
]


#: ``n_neighbors="auto"`` is exact up to this many samples (every data set of
#: the IMMIGRATE paper's Tables 2 and 3 has at most 768)...
EXACT_MAX_SAMPLES = 1000
#: ... while an exact pass (``N^2 A^power`` multiply-adds) costs at most this
#: many times the ``budget`` of a truncated one. With IMMIGRATE's budget (1e9)
#: every data set of the paper's Tables 2 and 3 stays exact (the largest,
#: Urban Land Cover's two classes, needs 1e9); a 452 x 279 table (1.6e10) does not.
EXACT_WORK_FACTOR = 2.0
#: Missing values need the exact method; past this many multiply-adds in one fit
#: (a few minutes on one core) ``n_neighbors="auto"`` refuses at once instead
#: (:func:`check_exact_with_missing`).
MISSING_EXACT_MAX_WORK = 2e11
#: Truncated: ``k = budget / (N A^power)`` (about ``budget`` multiply-adds per
#: pass over the data), clipped to [K_MIN, K_MAX].
K_MIN, K_MAX = 10, 100


def auto_neighbors(
    n_samples: int, n_features: int, budget: float = 1e9, power: int = 2
) -> int | None:
    """The ``n_neighbors="auto"`` rule.

    None (exact) when ``N <= EXACT_MAX_SAMPLES`` and an exact pass costs
    ``N^2 A^power <= EXACT_WORK_FACTOR * budget``; else
    ``k = budget / (N A^power)`` clipped to [10, 100] (``power`` 2 for the matrix
    kernel of IMMIGRATE, 1 for the weight-vector kernels of IM4E and I-RELIEF).
    """
    work = float(n_samples) ** 2 * float(max(n_features, 1)) ** power
    if n_samples <= EXACT_MAX_SAMPLES and work <= EXACT_WORK_FACTOR * budget:
        return None
    k = int(budget // (n_samples * max(n_features, 1) ** power))
    return int(min(max(k, K_MIN), K_MAX))


def check_exact_with_missing(
    name: str, n_samples: int, n_features: int, passes: int, power: int = 2
) -> None:
    """Refuse at once an exact fit forced by missing values that would run for long.

    ``n_neighbors="auto"`` chose truncation, but the neighbour search needs
    complete rows, so data with missing values run the exact all-pairs method:
    ``passes * N^2 * A^power`` multiply-adds. Past
    :data:`MISSING_EXACT_MAX_WORK` this raises a ``ValueError`` naming what to
    change, instead of computing silently for tens of minutes.
    """
    work = float(passes) * float(n_samples) ** 2 * float(n_features) ** power
    if work > MISSING_EXACT_MAX_WORK:
        raise ValueError(
            f"{name}: X has missing values, which only the exact all-pairs method takes, "
            f"and an exact fit here is about {work:.1g} multiply-adds ({passes} passes over "
            f"{n_samples}^2 pairs x {n_features}^{power}): tens of minutes or more. Impute the "
            "missing values first (sklearn.impute.SimpleImputer; in the CLI --missing impute), "
            "model fewer features (prescreen='auto'), or pass n_neighbors=None to run the "
            "exact method anyway."
        )


class ClassNeighbours(NamedTuple):
    """The ``k`` nearest samples of every class, for each sample (itself excluded)."""

    indices: NDArray[np.intp]
    """(N, C, k) row numbers into the training data; padding where ``distance`` is inf."""
    distance: FloatArray
    """(N, C, k) Euclidean distances, increasing along the last axis; inf for padding."""
    class_sizes: NDArray[np.intp]
    """(C,) samples per class."""


def _class_models(X: FloatArray, codes: IntArray, n_classes: int, n_jobs: int | None) -> list:
    return [NearestNeighbors(n_jobs=n_jobs).fit(X[codes == c]) for c in range(n_classes)]


def query_class_neighbours(
    models: list, rows_of: list[NDArray[np.intp]], X_query: FloatArray, k: int
) -> tuple[NDArray[np.intp], FloatArray]:
    """``k`` nearest training samples of each class for new queries.

    ``models[c]`` is a :class:`NearestNeighbors` fitted on the samples of class
    ``c``, whose training row numbers are ``rows_of[c]``. Classes with fewer
    than ``k`` samples are padded (index 0, distance inf).
    """
    n_q = X_query.shape[0]
    n_classes = len(models)
    index = np.zeros((n_q, n_classes, k), dtype=np.intp)
    distance = np.full((n_q, n_classes, k), np.inf)
    for c, model in enumerate(models):
        kc = min(k, len(rows_of[c]))
        if kc == 0 or n_q == 0:
            continue
        with local_threads():  # threads here, never a Dask cluster's scatter
            dist, local = model.kneighbors(X_query, kc)
        index[:, c, :kc] = rows_of[c][local]
        distance[:, c, :kc] = dist
    return index, distance


def class_neighbours(
    X: FloatArray, codes: IntArray, n_classes: int, k: int, *, n_jobs: int | None = None
) -> tuple[ClassNeighbours, list]:
    """The ``k`` nearest samples of each class for every training sample, self excluded.

    Returns the neighbour record and the per-class fitted models (kept by the
    estimators to query new samples). Memory O(N C k); time that of ``C``
    neighbour searches (scikit-learn picks a tree or brute force).
    """
    n = X.shape[0]
    rows_of = [np.flatnonzero(codes == c) for c in range(n_classes)]
    models = _class_models(X, codes, n_classes, n_jobs)
    index = np.zeros((n, n_classes, k), dtype=np.intp)
    distance = np.full((n, n_classes, k), np.inf)
    for c, model in enumerate(models):
        own = rows_of[c]
        others = np.flatnonzero(codes != c)
        k_own = min(k, len(own) - 1)
        if k_own > 0:
            # kneighbors() without X leaves each training point out of its own list.
            with local_threads():
                dist, local = model.kneighbors(None, k_own)
            index[own, c, :k_own] = own[local]
            distance[own, c, :k_own] = dist
        k_other = min(k, len(own))
        if k_other > 0 and len(others):
            with local_threads():
                dist, local = model.kneighbors(X[others], k_other)
            index[others, c, :k_other] = own[local]
            distance[others, c, :k_other] = dist
    sizes = np.array([len(r) for r in rows_of], dtype=np.intp)
    return ClassNeighbours(index, distance, sizes), models


class HitMissLists(NamedTuple):
    """Each sample's kept hits and misses, and how many of each were dropped."""

    hits: NDArray[np.intp]
    """(N, k_h) nearest hits; padding where ``hit_distance`` is inf."""
    hit_distance: FloatArray
    misses: NDArray[np.intp]
    """(N, k_m) nearest misses (all other classes pooled)."""
    miss_distance: FloatArray
    hits_dropped: NDArray[np.intp]
    """(N,) hits not kept."""
    misses_dropped: NDArray[np.intp]


def hit_miss_lists(neighbours: ClassNeighbours, codes: IntArray) -> HitMissLists:
    """Hits and misses from the per-class lists.

    The ``k`` nearest misses over all other classes are among the ``k``
    nearest of each other class, so they are the ``k`` smallest distances of
    the other classes' lists (ties: stable order, the lower class first).
    """
    n, n_classes, k = neighbours.indices.shape
    rows = np.arange(n)
    hits = neighbours.indices[rows, codes]
    hit_distance = neighbours.distance[rows, codes]
    other = np.ones((n, n_classes), dtype=bool)
    other[rows, codes] = False
    cand = neighbours.indices[other].reshape(n, (n_classes - 1) * k)
    cand_d = neighbours.distance[other].reshape(n, (n_classes - 1) * k)
    order = np.argsort(cand_d, axis=1, kind="stable")[:, :k]
    misses = np.take_along_axis(cand, order, axis=1)
    miss_distance = np.take_along_axis(cand_d, order, axis=1)
    size = neighbours.class_sizes[codes]
    hits_dropped = size - 1 - np.isfinite(hit_distance).sum(axis=1)
    misses_dropped = (n - size) - np.isfinite(miss_distance).sum(axis=1)
    return HitMissLists(hits, hit_distance, misses, miss_distance, hits_dropped, misses_dropped)


class Neighbours(NamedTuple):
    """What a truncated fit keeps: ``k``, the per-class lists, their models, hits/misses."""

    k: int
    classes: ClassNeighbours
    models: list
    lists: HitMissLists
    diffs: FloatArray | None = None
    """(N, k_h + k_m, A) ``|x_n - x_j|`` for the kept hits then misses, when they fit
    scikit-learn's ``working_memory``; every pass (and every boosting round) reuses them."""


def build_neighbours(
    X: FloatArray, codes: IntArray, n_classes: int, k: int, *, n_jobs: int | None = None
) -> Neighbours:
    """:func:`class_neighbours` and :func:`hit_miss_lists` of ``X`` in one record.

    The kept differences are computed once and cached when they fit
    scikit-learn's ``working_memory`` (1 GiB by default), else every pass
    gathers them again block by block.
    """
    classes, models = class_neighbours(X, codes, n_classes, k, n_jobs=n_jobs)
    lists = hit_miss_lists(classes, codes)
    cols = np.hstack([lists.hits, lists.misses])
    budget = (get_config().get("working_memory") or DEFAULT_WORKING_MEMORY) * 2**20
    diffs = None
    if cols.size * X.shape[1] * 8 <= budget:
        diffs = _gather_diffs(X, slice(0, X.shape[0]), cols)
    return Neighbours(k, classes, models, lists, diffs)


def resolve_neighbours(
    X: FloatArray,
    codes: IntArray,
    n_neighbors: int | str | None,
    *,
    budget: float,
    power: int,
    n_jobs: int | None = None,
) -> Neighbours | None:
    """The neighbour record an estimator's ``n_neighbors`` asks for (None: exact).

    Data with missing values always run exact (the neighbour search needs
    complete rows).
    """
    if np.isnan(X).any():
        return None
    k = (
        auto_neighbors(X.shape[0], X.shape[1], budget=budget, power=power)
        if n_neighbors == "auto"
        else n_neighbors
    )
    if k is None:
        return None
    return build_neighbours(X, codes, int(codes.max()) + 1, int(k), n_jobs=n_jobs)


def _softmax_rows(logits: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Softmax of each row (``-inf`` entries get 0), its log-normaliser and entropy."""
    lse = logsumexp(logits, axis=1)
    with np.errstate(invalid="ignore"):
        logp = logits - lse[:, None]
    finite = np.isfinite(logits)
    logp = np.where(finite, logp, 0.0)
    p = np.where(finite, np.exp(logp), 0.0)
    entropy = -np.sum(p * logp, axis=1)
    return p, lse, entropy


def _gather_diffs(X: FloatArray, rows: slice, cols: NDArray[np.intp]) -> FloatArray:
    """``|x_n - x_j|`` for the rows of a block and their listed neighbours: (r, K, A)."""
    F = X[cols]
    np.subtract(F, X[rows][:, None, :], out=F)
    np.abs(F, out=F)
    return F


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
        F = _gather_diffs(X, rows, cols[rows]) if diffs is None else diffs[rows]
        logits = np.where(valid[rows], quad_form(F, W) / -sigma, -np.inf)
        alpha, _, ent_h = _softmax_rows(logits[:, :k_h])
        beta, _, ent_m = _softmax_rows(logits[:, k_h:])
        s = sample_weight[rows]
        coef = np.hstack([alpha, -beta]) * s[:, None]
        flat = F.reshape(-1, a)
        total += (flat * coef.reshape(-1, 1)).T @ flat
        entropy += float(s @ (ent_m - ent_h))
    return ImmigrateStep(0.5 * (total + total.T), entropy)


def margin_vector_step_truncated(
    X: FloatArray,
    lists: HitMissLists,
    w: FloatArray,
    sigma: float,
    sample_weight: FloatArray,
    *,
    outlier: bool = False,
    block_memory: float | None = None,
    diffs: FloatArray | None = None,
) -> MarginVectorStep:
    """IM4E / I-RELIEF margin vector over each sample's kept hits and misses.

    ``z = sum_n s_n (sum_{M_n^k} beta |d| - sum_{H_n^k} alpha |d|)`` with alpha
    (beta) the softmax of ``-w^T |d| / sigma`` over the kept hits (misses);
    with ``outlier`` the sample weight is multiplied by I-RELIEF's
    ``gamma_n = 1 - sum_M f / sum_{H, M} f`` over the kept samples. Time
    O(N (k_h + k_m) A) per pass.
    """
    n, a = X.shape
    cols = np.hstack([lists.hits, lists.misses])
    valid = np.isfinite(np.hstack([lists.hit_distance, lists.miss_distance]))
    k_h = lists.hits.shape[1]
    z = np.zeros(a)
    entropy = 0.0
    for rows in row_chunks(n, 3 * cols.shape[1] * a * 8, block_memory):
        F = _gather_diffs(X, rows, cols[rows]) if diffs is None else diffs[rows]
        logits = np.where(valid[rows], (F @ w) / -sigma, -np.inf)
        alpha, lse_h, ent_h = _softmax_rows(logits[:, :k_h])
        beta, lse_m, ent_m = _softmax_rows(logits[:, k_h:])
        s = sample_weight[rows]
        if outlier:
            s = s * -np.expm1(lse_m - np.logaddexp(lse_h, lse_m))
        coef = np.hstack([-alpha, beta]) * s[:, None]
        z += np.einsum("rk,rka->a", coef, F)
        entropy += float(s @ (ent_m - ent_h))
    return MarginVectorStep(z, entropy)


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
            F = _gather_diffs(X, rows, part[rows])
            logits = np.where(valid[rows], quad_form(F, W) / -sigma, -np.inf)
            log_s = logsumexp(logits, axis=1)
            with np.errstate(divide="ignore"):
                log_f = np.log(dropped[rows].astype(float)) - m * radius[rows] ** 2 / sigma
            delta = np.where(dropped[rows] > 0, 1.0 / (1.0 + np.exp(log_s - log_f)), 0.0)
            out[rows] = np.maximum(out[rows], delta)
    return out


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
                p, _, _ = _softmax_rows(logits[has, c])
                out[np.flatnonzero(has) + rows.start, c] = np.sum(
                    np.where(ok[has, c], p * q[has, c], 0.0), axis=1
                )
    return out
