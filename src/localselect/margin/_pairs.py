"""One source of hit/miss pairs for the margin family: every pair, or the kept neighbours.

The softmax-margin methods (I-RELIEF, IM4E, IMMIGRATE and its boosted form) run
their passes either over every pair of samples (the papers' exact method) or over
each sample's ``k`` nearest hits and misses (neighbour truncation,
``n_candidates``; see :mod:`localselect.margin._neighbours`). Both are a *pair
source* here, with one interface:

* ``margin_pass(sigma, sample_weight, outlier=...)``: the function ``w -> margin
  vector`` of IM4E and I-RELIEF;
* ``immigrate_pass(sigma, sample_weight)``: the function ``W -> (Sigma, entropy)``
  of IMMIGRATE's Algorithm 2;
* ``dropped_weight_bound(W, sigma)``: the mean bound on the softmax weight the
  source leaves out (0 for every pair);
* ``query(X_query, leave_one_out=...)`` and ``expected_distances(query, W,
  sigma)``: the classifier of eq. (3.18).

The solvers call these without knowing which source they hold, and
:func:`resolve_pairs` is the one place that turns an estimator's
``n_candidates`` (``"auto"``, an int or None) into a source, refusing at once an
exact fit that missing values would force to run for long.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._pairwise import PairDiffs
from localselect._typing import FloatArray, IntArray
from localselect.margin._kernels import ImmigrateStep, MarginVectorStep
from localselect.margin._matrix_kernels import (
    dropped_weight_bound,
    expected_distances,
    expected_distances_truncated,
    immigrate_step,
    immigrate_step_truncated,
)
from localselect.margin._missing import expected_diff
from localselect.margin._neighbours import Neighbours, build_neighbours, query_class_neighbours
from localselect.margin._vector_kernels import margin_vector_step, margin_vector_step_truncated

__all__ = [
    "EXACT_MAX_SAMPLES",
    "AllPairs",
    "NeighbourPairs",
    "PairQuery",
    "auto_candidates",
    "check_exact_with_missing",
    "resolve_pairs",
]

#: ``n_candidates="auto"`` is exact up to this many samples (every data set of
#: the IMMIGRATE paper's Tables 2 and 3 has at most 768)...
EXACT_MAX_SAMPLES = 1000
#: ... while an exact pass (``N^2 A^power`` multiply-adds) costs at most this
#: many times the ``budget`` of a truncated one. With IMMIGRATE's budget (1e9)
#: every data set of the paper's Tables 2 and 3 stays exact (the largest,
#: Urban Land Cover's two classes, needs 1e9); a 452 x 279 table (1.6e10) does not.
EXACT_WORK_FACTOR = 2.0
#: Missing values need the exact method; past this many multiply-adds in one fit
#: (a few minutes on one core) ``n_candidates="auto"`` refuses at once instead
#: (:func:`check_exact_with_missing`).
MISSING_EXACT_MAX_WORK = 2e11
#: Truncated: ``k = budget / (N A^power)`` (about ``budget`` multiply-adds per
#: pass over the data), clipped to [K_MIN, K_MAX].
K_MIN, K_MAX = 10, 100


def auto_candidates(
    n_samples: int, n_features: int, budget: float = 1e9, power: int = 2
) -> int | None:
    """The ``n_candidates="auto"`` rule.

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

    ``n_candidates="auto"`` chose truncation, but the neighbour search needs
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
            "model fewer features (prescreen='auto'), or pass n_candidates=None to run the "
            "exact method anyway."
        )


class PairQuery(NamedTuple):
    """Queries for eq. (3.18) and, for a truncated source, their kept training samples."""

    X: FloatArray
    """(n_query, A) the queries, in the source's columns."""
    leave_one_out: bool
    """The queries are the training samples, each left out of its own sums."""
    kept: NDArray[np.intp] | None = None
    """(n_query, C, k) kept training samples of each class; None: every sample."""
    kept_distance: FloatArray | None = None
    """(n_query, C, k) their Euclidean distances (inf for padding)."""


class AllPairs:
    """Every hit and miss of every sample: the exact method of the papers.

    Parameters
    ----------
    X : ndarray of shape (N, A)
        Training data (may hold NaN: the expected differences of
        :mod:`localselect.margin._missing` stand in).
    codes : ndarray of shape (N,)
        Class codes ``0 .. C-1``.
    n_jobs : int, default=None
        Threads over pair blocks.
    """

    #: Hits and misses kept per sample: None, every one.
    n_candidates: int | None = None

    def __init__(self, X: FloatArray, codes: IntArray, *, n_jobs: int | None = None) -> None:
        self.X = X
        self.codes = codes
        self.n_classes = int(codes.max()) + 1
        self.n_jobs = n_jobs

    def _pair_diffs(self, block_memory, working_memory=None) -> PairDiffs:
        # One PairDiffs per solver run: its cache lives as long as the pass function.
        return PairDiffs(
            self.X,
            block_memory=block_memory,
            working_memory=working_memory,
            missing=expected_diff(self.X, self.codes),
        )

    def margin_pass(
        self,
        sigma: float,
        sample_weight: FloatArray,
        *,
        outlier: bool = False,
        block_memory: float | None = None,
    ) -> Callable[[FloatArray], MarginVectorStep]:
        """``w -> margin vector`` over every pair (differences cached across passes)."""
        pairs = self._pair_diffs(block_memory)
        return lambda w: margin_vector_step(
            self.X,
            self.codes,
            w,
            sigma,
            sample_weight,
            outlier=outlier,
            pairs=pairs,
            n_jobs=self.n_jobs,
        )

    def immigrate_pass(
        self,
        sigma: float,
        sample_weight: FloatArray,
        *,
        block_memory: float | None = None,
        working_memory: float | None = None,
    ) -> Callable[[FloatArray], ImmigrateStep]:
        """``W -> (Sigma, entropy)`` over every pair, eq. (3.6) and Theorem 3.1."""
        pairs = self._pair_diffs(block_memory, working_memory)
        return lambda W: immigrate_step(
            self.X, self.codes, W, sigma, sample_weight, pairs=pairs, n_jobs=self.n_jobs
        )

    def dropped_weight_bound(self, W: FloatArray, sigma: float) -> float:
        """Nothing is dropped: 0."""
        return 0.0

    def query(self, X_query: FloatArray, *, leave_one_out: bool = False) -> PairQuery:
        """Queries compared with every training sample."""
        return PairQuery(X_query, leave_one_out)

    def expected_distances(
        self, query: PairQuery, W: FloatArray, sigma: float, *, n_jobs: int | None = None
    ) -> FloatArray:
        """Eq. (3.18) for the queries: shape (n_query, C), ``inf`` for an empty class."""
        return expected_distances(
            query.X,
            self.X,
            self.codes,
            self.n_classes,
            W,
            sigma,
            leave_one_out=query.leave_one_out,
            n_jobs=n_jobs,
        )


class NeighbourPairs(AllPairs):
    """Each sample's ``k`` nearest hits and misses only (neighbour truncation).

    The same interface as :class:`AllPairs` (its base: the interface every
    solver types against), each pass over the kept pairs.

    Parameters
    ----------
    X, codes, n_jobs
        As :class:`AllPairs`; ``X`` has no missing value.
    neighbours : Neighbours
        The neighbour record of ``X`` (:func:`~localselect.margin._neighbours.build_neighbours`).

    A query with missing values is compared with every training sample (the
    inherited exact classifier), since the neighbour search needs complete rows.
    """

    def __init__(
        self,
        X: FloatArray,
        codes: IntArray,
        neighbours: Neighbours,
        *,
        n_jobs: int | None = None,
    ) -> None:
        super().__init__(X, codes, n_jobs=n_jobs)
        self.neighbours = neighbours
        self.n_candidates = neighbours.k

    def margin_pass(self, sigma, sample_weight, *, outlier=False, block_memory=None):
        """``w -> margin vector`` over the kept hits and misses."""
        nb = self.neighbours
        return lambda w: margin_vector_step_truncated(
            self.X,
            nb.lists,
            w,
            sigma,
            sample_weight,
            outlier=outlier,
            block_memory=block_memory,
            diffs=nb.diffs,
        )

    def immigrate_pass(self, sigma, sample_weight, *, block_memory=None, working_memory=None):
        """``W -> (Sigma, entropy)`` over the kept hits and misses."""
        nb = self.neighbours
        return lambda W: immigrate_step_truncated(
            self.X, nb.lists, W, sigma, sample_weight, block_memory=block_memory, diffs=nb.diffs
        )

    def dropped_weight_bound(self, W: FloatArray, sigma: float) -> float:
        """Mean over the samples of the bound on the softmax weight left out."""
        return float(dropped_weight_bound(self.X, self.neighbours.lists, W, sigma).mean())

    def query(self, X_query: FloatArray, *, leave_one_out: bool = False) -> PairQuery:
        """Queries with their ``k`` nearest training samples of each class."""
        if np.isnan(X_query).any():
            return PairQuery(X_query, leave_one_out)
        nb = self.neighbours
        if leave_one_out:
            return PairQuery(X_query, True, nb.classes.indices, nb.classes.distance)
        rows_of = [np.flatnonzero(self.codes == c) for c in range(self.n_classes)]
        index, distance = query_class_neighbours(nb.models, rows_of, X_query, nb.k)
        return PairQuery(X_query, False, index, distance)

    def expected_distances(self, query, W, sigma, *, n_jobs=None):
        """Eq. (3.18) over each query's kept samples (every sample for an exact query)."""
        if query.kept is None or query.kept_distance is None:
            return super().expected_distances(query, W, sigma, n_jobs=n_jobs)
        return expected_distances_truncated(
            query.X, self.X, query.kept, query.kept_distance, W, sigma
        )


def resolve_pairs(
    X: FloatArray,
    codes: IntArray,
    n_candidates: int | str | None,
    *,
    method: str,
    budget: float,
    power: int,
    passes: int,
    n_jobs: int | None = None,
) -> AllPairs:
    """The pair source an estimator's ``n_candidates`` asks for.

    ``"auto"`` applies :func:`auto_candidates` with ``budget`` and ``power``;
    an int keeps that many hits and misses; None is exact. Data with missing
    values run exact (the neighbour search needs complete rows); when
    ``"auto"`` would have truncated, :func:`check_exact_with_missing` first
    refuses an exact fit of more than ``MISSING_EXACT_MAX_WORK`` multiply-adds
    (``passes`` passes; ``method`` names the estimator in the message).
    """
    missing = bool(np.isnan(X).any())
    k = n_candidates
    if k == "auto":
        k = auto_candidates(X.shape[0], X.shape[1], budget=budget, power=power)
        if k is not None and missing:
            check_exact_with_missing(method, X.shape[0], X.shape[1], passes, power)
    if k is None or missing:
        return AllPairs(X, codes, n_jobs=n_jobs)
    n_classes = int(codes.max()) + 1
    neighbours = build_neighbours(X, codes, n_classes, int(k), n_jobs=n_jobs)
    return NeighbourPairs(X, codes, neighbours, n_jobs=n_jobs)
