"""The fit shared by the margin-based feature-weight selectors (Relief family, IM4E)."""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from localselect._compat import fit_context
from localselect.base import ScoreSelectorMixin, check_classification_data, verbose_log
from localselect.margin._kernels import VectorResult

#: Why the margin methods need two samples per class.
NEED_HITS = "a sample's 'hits' are the other samples of its class"


def iteration_callback(
    log: Callable[..., None], name: str, callback: Callable | None
) -> Callable[[int, float], None]:
    """Kernel callback: log ``(iteration, objective)`` at depth 2, then call ``callback``."""

    def report(iteration: int, value: float) -> None:
        log(2, "%s iteration %d: %.10g", name, iteration, value)
        if callback is not None:
            callback(iteration, value)

    return report


class _FeatureWeightSelector(ScoreSelectorMixin, BaseEstimator):
    """Global selector on margin feature weights: one ``fit`` for the family.

    Subclasses extend ``_parameter_constraints`` and implement
    ``_fit_weights(X, codes, log)``, returning the weights or a
    :class:`~localselect.margin._kernels.VectorResult` (then ``cost_`` and
    ``n_iter_`` are set too). ``_need_hits = False`` allows one-sample classes.
    """

    _parameter_constraints: dict = {
        **ScoreSelectorMixin._parameter_constraints,
        "verbose": ["verbose"],
    }
    _need_hits = True

    def _fit_weights(
        self, X: NDArray[np.float64], codes: NDArray[np.intp], log: Callable[..., None]
    ) -> NDArray[np.float64] | VectorResult:
        raise NotImplementedError

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Learn the feature weights.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; standardise it (the distances are unscaled).
        y : array-like of shape (n_samples,)
            Class labels: at least 2 classes, each with at least 2 samples
            (ReliefF accepts one-sample classes).

        Returns
        -------
        self : object
            The fitted selector.
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = check_classification_data(
            type(self).__name__, y, min_class_size=2 if self._need_hits else 1, why=NEED_HITS
        )
        log = verbose_log(logging.getLogger(type(self).__module__), self.verbose)
        result = self._fit_weights(X, codes, log)
        if isinstance(result, VectorResult):
            self.cost_ = result.cost
            self.n_iter_ = result.n_iter
            result = result.weights
        self.feature_importances_ = result
        return self
