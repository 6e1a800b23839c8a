"""Neighbour search of the truncated margin methods: each sample's k nearest hits and misses.

The softmax of eq. (3.6) gives a far hit or miss the weight ``exp(-q / sigma)``,
negligible once ``q`` is large. Truncation keeps, for every sample, its ``k``
nearest hits and ``k`` nearest misses in the Euclidean distance of the modelled
features, found once with scikit-learn's :class:`~sklearn.neighbors.NearestNeighbors`
(memory O(N C k) for C classes, never N x N). This module finds them
(:func:`build_neighbours`, :func:`query_class_neighbours`); the passes over them
stand beside their exact twins in :mod:`localselect.margin._vector_kernels` and
:mod:`localselect.margin._matrix_kernels`, and :mod:`localselect.margin._pairs`
puts both behind one interface.

**Dropped weight.** For a sample ``n`` whose farthest kept hit lies at
Euclidean distance ``r_n``, every dropped hit ``j`` has ``||d_nj||_2 >= r_n``. For
an element-wise non-negative ``W`` and ``d >= 0``,
``q = d^T W d >= sum_a W_aa d_a^2 >= min_a W_aa ||d||_2^2``, so
``q_nj >= m r_n^2`` with ``m = min_a W_aa`` (``m = 0`` for a ``W`` with negative
entries). The exact softmax mass on the dropped hits is therefore at most
``delta_n = F / (F + S)`` with ``F = n_dropped exp(-m r_n^2 / sigma)`` and ``S`` the
kept hits' sum of ``exp(-q / sigma)``; it is also the total variation distance
between the truncated and the exact hit distribution of sample ``n``. The same
holds for misses (:func:`~localselect.margin._matrix_kernels.dropped_weight_bound`).

When ``k`` reaches a class's size every hit (miss) is kept, nothing is dropped
and the truncated passes give the exact results (the tests compare them).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.special import logsumexp
from sklearn import get_config
from sklearn.neighbors import NearestNeighbors

from localselect._pairwise import DEFAULT_WORKING_MEMORY
from localselect._runtime import local_threads
from localselect._typing import FloatArray, IntArray

__all__ = [
    "ClassNeighbours",
    "HitMissLists",
    "Neighbours",
    "build_neighbours",
    "class_neighbours",
    "gather_diffs",
    "hit_miss_lists",
    "query_class_neighbours",
    "softmax_rows",
]


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
        diffs = gather_diffs(X, slice(0, X.shape[0]), cols)
    return Neighbours(k, classes, models, lists, diffs)


def softmax_rows(logits: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Softmax of each row (``-inf`` entries get 0), its log-normaliser and entropy."""
    lse = logsumexp(logits, axis=1)
    with np.errstate(invalid="ignore"):
        logp = logits - lse[:, None]
    finite = np.isfinite(logits)
    logp = np.where(finite, logp, 0.0)
    p = np.where(finite, np.exp(logp), 0.0)
    entropy = -np.sum(p * logp, axis=1)
    return p, lse, entropy


def gather_diffs(X: FloatArray, rows: slice, cols: NDArray[np.intp]) -> FloatArray:
    """``|x_n - x_j|`` for the rows of a block and their listed neighbours: (r, K, A)."""
    F = X[cols]
    np.subtract(F, X[rows][:, None, :], out=F)
    np.abs(F, out=F)
    return F
