"""The fit shared by the margin-based feature-weight selectors (Relief family, IM4E)."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator

from localselect._compat import Interval, StrOptions
from localselect._runtime import Reporter
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

    @abstractmethod
    def _fit_weights(
        self, X: NDArray[np.float64], codes: NDArray[np.intp], log: Callable[..., None]
    ) -> NDArray[np.float64] | VectorResult:
        """The feature weights (or a :class:`VectorResult`) of validated ``X`` and ``codes``."""

    def _fit(self, X, codes, log):
        result = self._fit_weights(X, codes, log)
        if isinstance(result, VectorResult):
            self.cost_ = result.cost
            self.n_iter_ = result.n_iter
            result = result.weights
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
