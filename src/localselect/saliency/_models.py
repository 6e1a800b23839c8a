"""The model behind the saliency selector: which model, fitted how, on how many threads.

:class:`ModelFactory` makes the model ``ConditionalSaliencySelection`` reads
(the user's ``estimator`` cloned and seeded, or the default: histogram
gradient boosting for the held-out rule, a two-layer MLP for the relative
rule), fits it (the default MLP from several initialisations, the best kept)
and gives the grid of values its saliency replaces a feature by;
:func:`fitted_saliency` reads that saliency. :func:`on_n_jobs_threads` caps
the threads of the model's compiled code (OpenMP, BLAS) while a method runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone, is_regressor
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor
from sklearn.neural_network import MLPClassifier, MLPRegressor
from threadpoolctl import threadpool_limits

from localselect._runtime._blocks import n_threads
from localselect.saliency._mixed import mixed_grid
from localselect.saliency._saliency import model_saliency, quantile_grid, saliency

__all__ = ["ModelFactory", "fitted_saliency", "on_n_jobs_threads"]

#: The default model of ``per_row="heldout"`` (histogram gradient boosting), chosen by
#: measurement on Syn4-Syn6 (10,000 rows): with the default MLP the held-out rule's
#: profile neighbours mix regimes (realized per-row FDR 20-30 % at fdr 0.1), with these
#: settings 6-13 %.
_BOOSTING = {
    "max_iter": 500,
    "learning_rate": 0.05,
    "early_stopping": True,
    "max_leaf_nodes": 15,
    "min_samples_leaf": 50,
}

_Method = TypeVar("_Method", bound=Callable[..., Any])


def on_n_jobs_threads(method: _Method) -> _Method:
    """Run ``method`` with the model's compiled code (OpenMP, BLAS) on ``n_jobs`` threads.

    Parameters
    ----------
    method : callable
        A method of an estimator with an ``n_jobs`` parameter.

    Returns
    -------
    limited : callable
        ``method`` under ``threadpool_limits(n_threads(self.n_jobs))``.
    """

    @functools.wraps(method)
    def limited(self, *args, **kwargs):
        with threadpool_limits(limits=n_threads(self.n_jobs)):
            return method(self, *args, **kwargs)

    return limited  # type: ignore[return-value]


class ModelFactory(NamedTuple):
    """Makes, fits and reads the selector's model.

    Parameters
    ----------
    estimator : estimator or None
        The user's model (cloned for each fit), or None for the default.
    task : {"classification", "regression"}
        The fitted task.
    heldout : bool
        ``per_row="heldout"`` (the default model is then boosted trees).
    n_restarts : int
        Fits of the default MLP (``per_row="relative"``), the best kept.
    n_quantiles : int
        Replacement values per feature in the saliency (:meth:`grid`).
    categorical : ndarray of bool or None, default=None
        For a table with nominal columns or missing values, which of the
        modelled columns hold level codes: the default boosted model takes
        them as categories (``categorical_features``), and :meth:`grid` gives
        levels for them (:func:`~localselect.saliency._mixed.mixed_grid`).
        None for numeric, complete columns.
    """

    estimator: Any
    task: str
    heldout: bool
    n_restarts: int
    n_quantiles: int
    categorical: Any = None

    @property
    def regression(self) -> bool:
        """Whether the target is continuous."""
        return self.task == "regression"

    def make(self, n_samples: int, seed: int) -> Any:
        """An unfitted model for ``n_samples`` rows, seeded with ``seed``.

        Parameters
        ----------
        n_samples : int
            Rows it will be fitted on (early stopping needs enough of them).
        seed : int
            Its ``random_state``.

        Returns
        -------
        model : estimator
        """
        regression = self.regression
        if self.estimator is not None:
            if is_regressor(self.estimator) != regression or not (
                regression or hasattr(self.estimator, "predict_proba")
            ):
                kind = "a regressor" if regression else "a classifier with predict_proba"
                raise ValueError(f"the target is a {self.task} target: estimator must be {kind}.")
            est = clone(self.estimator)
            if "random_state" in est.get_params():
                est.set_params(random_state=seed)
            return est
        if self.heldout:
            cls = HistGradientBoostingRegressor if regression else HistGradientBoostingClassifier
            # early stopping holds out a stratified tenth: only on tables that have one
            settings: dict[str, Any] = {**_BOOSTING, "early_stopping": n_samples >= 1000}
            if self.categorical is not None and np.any(self.categorical):
                settings["categorical_features"] = np.asarray(self.categorical, dtype=bool)
            return cls(random_state=seed, **settings)
        return (MLPRegressor if regression else MLPClassifier)(
            hidden_layer_sizes=(100, 100),
            alpha=0.001,
            early_stopping=n_samples >= 200,
            max_iter=300,
            random_state=seed,
        )

    def grid(self, X: NDArray[np.float64]) -> NDArray[np.float64]:
        """The replacement values of the saliency: ``n_quantiles`` quantiles of each column
        of the model's rows ``X`` (:func:`~localselect.saliency._saliency.quantile_grid`;
        :func:`~localselect.saliency._mixed.mixed_grid` with ``categorical``)."""
        if self.categorical is not None:
            return mixed_grid(X, np.asarray(self.categorical, dtype=bool), self.n_quantiles)
        return quantile_grid(X, self.n_quantiles)

    def _unstratifiable(self, model: Any, target: NDArray) -> Any:
        """``model`` without early stopping when its stratified validation tenth cannot be
        drawn (a class with one row, or more classes than the tenth has rows)."""
        if self.regression or self.estimator is not None:
            return model
        if not model.get_params().get("early_stopping", False):
            return model
        counts = np.unique(target, return_counts=True)[1]
        if counts.min() < 2 or counts.size > 0.1 * target.shape[0]:
            model.set_params(early_stopping=False)
        return model

    def fit(self, X: NDArray[np.float64], target: NDArray, rng: np.random.RandomState) -> Any:
        """The model fitted on ``X``; the default MLP from ``n_restarts`` initialisations.

        Of the restarts, the one with the best validation score (or the lowest
        training loss without early stopping) is kept. Each fit draws its seed
        from ``rng``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
        target : ndarray of shape (n_samples,)
            Class codes, or the continuous target.
        rng : RandomState

        Returns
        -------
        model : estimator
        """
        n = X.shape[0]
        if self.estimator is not None or self.heldout:
            return self._unstratifiable(self.make(n, rng.randint(2**31 - 1)), target).fit(
                X, target
            )
        best, best_score = None, -np.inf
        for _ in range(self.n_restarts):
            model = self._unstratifiable(self.make(n, rng.randint(2**31 - 1)), target)
            model = model.fit(X, target)
            score = getattr(model, "best_validation_score_", None)
            score = -float(model.loss_) if score is None else float(score)
            if score > best_score:
                best, best_score = model, score
        return best


def fitted_saliency(
    model: Any, Z: NDArray[np.float64], grid: NDArray[np.float64], *, regression: bool
) -> NDArray[np.float64]:
    """Saliency of a fitted ``model`` at the rows ``Z`` (a regression's: half the absolute
    change of the prediction, :func:`~localselect.saliency._saliency.saliency`).

    Parameters
    ----------
    model : estimator
        Fitted by :meth:`ModelFactory.fit`.
    Z : ndarray of shape (n_rows, n_features)
    grid : ndarray of shape (n_quantiles, n_features)
        Replacement values.
    regression : bool
        A regressor (else a classifier with ``predict_proba``).

    Returns
    -------
    S : ndarray of shape (n_rows, n_features)
    """
    if regression:
        return saliency(lambda A: model.predict(A)[:, None], Z, grid)
    return model_saliency(model, Z, grid)
