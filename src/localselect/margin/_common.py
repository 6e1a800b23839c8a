"""The fit shared by the margin-based feature-weight selectors (Relief family, IM4E)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral, Real
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator

from localselect._compat import Interval, StrOptions
from localselect._runtime import Reporter
from localselect._typing import FloatArray
from localselect.base import LabelledFitMixin, ScoreSelectorMixin, shared_constraints
from localselect.margin._kernels import VectorResult
from localselect.margin._pairs import resolve_pairs

#: Why the margin methods need two samples per class.
NEED_HITS = "a sample's 'hits' are the other samples of its class"

#: Constraints of the iterative solvers' parameters (Simba, I-RELIEF, IM4E, IMMIGRATE).
ITERATION_CONSTRAINTS: dict = {
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0, None, closed="left")],
    "callback": [callable, None],
}

#: The neighbour truncation ``n_candidates`` of the softmax-margin solvers.
CANDIDATES_CONSTRAINT: list = [
    Interval(Integral, 1, None, closed="left"),
    StrOptions({"auto"}),
    None,
]

#: ... and of the softmax-margin solvers (I-RELIEF, IM4E, IMMIGRATE): temperature,
#: truncation, threads.
SOFTMAX_CONSTRAINTS: dict = {
    **ITERATION_CONSTRAINTS,
    "sigma": [Interval(Real, 0, None, closed="neither")],
    "n_candidates": CANDIDATES_CONSTRAINT,
    **shared_constraints("n_jobs"),
}


def iteration_callback(
    log: Callable[..., None], name: str, callback: Callable | None, task: Any = None
) -> Callable[[int, float], None]:
    """Kernel callback: count the iteration on ``task`` (a progress task), log
    ``(iteration, objective)`` at depth 2, then call the user's ``callback``."""

    def report(iteration: int, value: float) -> None:
        if task is not None:
            task.advance()
        log(2, "%s iteration %d: %.10g", name, iteration, value)
        if callback is not None:
            callback(iteration, value)

    return report


@contextmanager
def iterations(estimator: Any, name: str, log: Reporter) -> Iterator[Callable]:
    """A progress task over ``estimator.max_iter`` iterations; yields the kernel callback.

    The callback advances the task, logs each iteration (depth 2) and calls the
    estimator's own ``callback``.
    """
    with log.task(estimator.max_iter, f"{name} iterations", unit="iterations") as task:
        yield iteration_callback(log, name, estimator.callback, task)


def input_kinds(estimator: Any, n_features: int) -> tuple[NDArray[np.bool_], NDArray[np.intp]]:
    """The nominal input columns of a fit and their numbers of levels.

    Read from the fitted ``input_columns_`` (set by the fit before ``_fit``);
    without it, or when it does not describe ``n_features`` columns, every
    column is numeric. The count is 0 for a numeric column, and for a nominal
    one whose levels are not given (its codes then tell).
    """
    cols = getattr(estimator, "input_columns_", None)
    nominal = None if cols is None else np.asarray(cols.nominal, dtype=bool)
    if nominal is None or nominal.shape != (n_features,):
        return np.zeros(n_features, dtype=bool), np.zeros(n_features, dtype=np.intp)
    levels = cols.levels
    n_levels = np.array(
        [
            len(lv) if nom and lv is not None else 0
            for nom, lv in zip(nominal, levels, strict=True)
        ],
        dtype=np.intp,
    )
    return nominal, n_levels


class NominalEncoding(NamedTuple):
    """Mixed columns as numbers for a kernel that takes numbers only.

    Attributes
    ----------
    X : ndarray of shape (N, A_encoded)
        Every numeric column scaled to [0, 1] by its range, ``(x - min) * (1 /
        (max - min))`` (0 for a constant one); a nominal column of two levels
        as its code 0/1; one of ``L >= 3`` levels as ``L`` indicator columns of
        height ``h``; NaN where the value is missing (in every indicator column).
    groups : ndarray of shape (A_encoded,)
        The input column of each encoded column.
    """

    X: FloatArray
    groups: NDArray[np.intp]


def encode_nominal(
    X: FloatArray, nominal: NDArray[np.bool_], n_levels: NDArray[np.intp], power: int
) -> NominalEncoding:
    """The :class:`NominalEncoding` in which two different levels are ``diff = 1``.

    ``h = 2^(-1/power)``: two levels differ in two indicator columns, by ``h``
    each, so ``sum |d|^power = 1`` over them, as a numeric column one range
    apart (``power=1`` for an L1 distance and sums of ``|d|``, ``power=2`` for
    squared differences). A weight linear in the per-column ``diff`` (ReliefF's)
    is then exactly the sum of the weights of its indicator columns. A missing
    level completed by the class-conditional expected difference of
    :mod:`localselect.margin._missing` (over the indicator columns, ``power=1``)
    is ``1 - P(v | c)``, or ``1 - sum_v P(v | c) P(v | c')`` when both are
    missing: Kononenko's (1994) rule.
    """
    blocks, groups = [], []
    height = 2.0 ** (-1.0 / power)
    for a in range(X.shape[1]):  # one column at a time, each vectorised
        col = X[:, a]
        known = ~np.isnan(col)
        if nominal[a]:
            top = int(col[known].max()) + 1 if known.any() else 1
            levels = max(int(n_levels[a]), top)
            if levels <= 2:
                blocks.append(col[:, None])
                groups.append(a)
                continue
            codes = np.where(known, col, -1.0).astype(np.intp)
            ind = (codes[:, None] == np.arange(levels)[None, :]) * height
            blocks.append(np.where(known[:, None], ind, np.nan))
            groups.extend([a] * levels)
            continue
        lo = col[known].min() if known.any() else 0.0
        span = (col[known].max() - lo) if known.any() else 0.0
        blocks.append(((col - lo) * (1.0 / span if span > 0 else 0.0))[:, None])
        groups.append(a)
    return NominalEncoding(np.hstack(blocks), np.asarray(groups, dtype=np.intp))


class _FeatureWeightSelector(LabelledFitMixin, ScoreSelectorMixin, BaseEstimator):
    """Global selector on margin feature weights: one ``fit`` for the family.

    Subclasses extend ``_parameter_constraints`` and implement
    ``_fit_weights(X, codes, log)``, returning the weights or a
    :class:`~localselect.margin._kernels.VectorResult` (then ``cost_`` and
    ``n_iter_`` are set too). ``_min_class_size = 2``: every class needs a
    same-class neighbour (a hit); a family member without a hit term lowers it
    (ReliefF: 1).
    """

    _parameter_constraints: dict = {
        **ScoreSelectorMixin._parameter_constraints,
        **shared_constraints("verbose"),
    }
    _min_class_size = 2
    _class_size_reason = NEED_HITS
    #: ``power`` of :func:`encode_nominal` for a member that takes nominal input
    #: columns through that encoding (None: the member takes numbers only).
    _nominal_power: int | None = None
    #: The norm (``"l2"``, ``"max"``) a member's weights are scaled to, kept after
    #: the weights of a nominal column's encoded columns are summed (None: none).
    _weights_norm: str | None = None

    def _native_nominal(self) -> bool:
        """Whether ``_fit_weights`` takes the nominal columns as they are (level codes)."""
        return False

    @abstractmethod
    def _fit_weights(
        self, X: NDArray[np.float64], codes: NDArray[np.intp], log: Callable[..., None]
    ) -> NDArray[np.float64] | VectorResult:
        """The feature weights (or a :class:`VectorResult`) of validated ``X`` and ``codes``."""

    def _fit(self, X, codes, log):
        nominal, n_levels = input_kinds(self, X.shape[1])
        groups = None
        if self._nominal_power is not None and nominal.any() and not self._native_nominal():
            encoding = encode_nominal(X, nominal, n_levels, self._nominal_power)
            X, groups = encoding.X, encoding.groups
        result = self._fit_weights(X, codes, log)
        if isinstance(result, VectorResult):
            self.cost_ = result.cost
            self.n_iter_ = result.n_iter
            result = result.weights
        if groups is not None:  # one weight per input column: its encoded columns summed
            result = np.bincount(groups, weights=result, minlength=nominal.shape[0])
            norm = {"l2": np.linalg.norm, "max": np.max, None: None}[self._weights_norm]
            if norm is not None and norm(result) > 0:
                result = result / norm(result)
        self.feature_importances_ = result
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # missing values: see each kernel
        return tags


class _SoftmaxMarginSelector(_FeatureWeightSelector):
    """IM4E and I-RELIEF: a softmax-margin kernel over all pairs or the kept neighbours.

    The pair source (every pair, or the neighbour truncation ``n_candidates``)
    is resolved once, then the method's solver of
    :mod:`localselect.margin._solvers` alternates over it.
    Subclasses write ``__init__`` and set ``_method`` (the name in logs and
    progress) and ``_kernel``.
    """

    _parameter_constraints: dict = {
        **_FeatureWeightSelector._parameter_constraints,
        **SOFTMAX_CONSTRAINTS,
    }
    _method: str
    _kernel: Callable[..., VectorResult]

    def _fit_weights(self, X, codes, log):
        log(1, "%s: %d samples, %d features, sigma=%g", self._method, *X.shape, self.sigma)
        pairs = resolve_pairs(
            X,
            codes,
            self.n_candidates,
            method=type(self).__name__,
            budget=1e8,
            power=1,
            passes=self.max_iter,
            n_jobs=self.n_jobs,
        )
        self.n_candidates_ = pairs.n_candidates
        with iterations(self, self._method, log) as callback:
            return type(self)._kernel(
                pairs, self.sigma, max_iter=self.max_iter, tol=self.tol, callback=callback
            )
