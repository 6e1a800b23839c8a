"""Stability selection over any selector, global or local (Meinshausen and Buhlmann 2010)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state, get_tags
from sklearn.utils.validation import check_is_fitted, validate_data

from localselect._compat import HasMethods, Interval, fit_context
from localselect._runtime import map_tasks
from localselect.evidence._indices import (
    kuncheva_index,
    meinshausen_buhlmann_bound,
    nogueira_stability,
)
from localselect.evidence._null import target_task

__all__ = ["StabilitySelection"]

#: The subsample fraction Meinshausen and Buhlmann's bound assumes (2010, Thm. 1).
MB_SAMPLE_FRACTION = 0.5


def subsample_rows(y, fraction: float, rng, *, stratify: bool = True) -> np.ndarray:
    """Rows of one subsample: ``max(1, floor(fraction * n_c))`` of each class ``c``, drawn
    without replacement (stratified, so every class stays), in increasing order.

    A continuous target (``stratify=False``): ``max(1, floor(fraction * n))`` rows
    drawn without replacement from all rows, Meinshausen and Buhlmann's plain subsample.
    """
    if not stratify:
        n = len(y)
        return np.sort(rng.choice(n, max(1, int(np.floor(fraction * n))), replace=False))
    _, codes = np.unique(y, return_inverse=True)
    rows = [
        rng.choice(members, max(1, int(np.floor(fraction * members.size))), replace=False)
        for members in (np.flatnonzero(codes == c) for c in range(codes.max() + 1))
    ]
    return np.sort(np.concatenate(rows))


def _fit_subsample(estimator, X, y, rows, seed):
    est = clone(estimator)
    if "random_state" in est.get_params():
        est.set_params(random_state=seed)
    return est.fit(X[rows], y[rows])


class StabilitySelection(MetaEstimatorMixin, SelectorMixin, BaseEstimator):
    """Stability selection: how often each feature is selected over subsamples.

    ``estimator`` is fitted on ``n_subsamples`` random subsamples of about
    ``sample_fraction * n_samples`` rows (without replacement, as in
    Meinshausen and Buhlmann 2010, Sec. 2; stratified by class, see
    :func:`subsample_rows`, so no subsample loses a class; a continuous target,
    for an estimator that takes one, is subsampled without strata); a feature's
    selection probability
    is the fraction of fits whose ``get_support()`` contains it, and the
    features whose probability reaches ``threshold`` are selected. With
    subsamples of half the rows (``sample_fraction=0.5``, the assumption of
    Meinshausen and Buhlmann's Theorem 1) and a threshold above 0.5 the
    expected number of false selections is bounded by
    :func:`~localselect.evidence.meinshausen_buhlmann_bound`; for any other
    ``sample_fraction`` the theorem does not apply and the bound is NaN.

    For a local selector (``get_local_support(X)``),
    :meth:`local_selection_probabilities` gives the same frequency per row.

    Parameters
    ----------
    estimator : selector
        Any scikit-learn selector (``get_support``); cloned per subsample. Its
        ``random_state``, if any, is set per subsample.
    n_subsamples : int, default=50
        Number of subsample fits.
    sample_fraction : float, default=0.5
        Fraction of the rows in each subsample. The Meinshausen-Buhlmann bound
        (``expected_false_selections_``) is given for 0.5 only, the fraction
        its theorem assumes; NaN otherwise.
    threshold : float, default=0.6
        Selection probability a feature needs to be selected.
    random_state : int, RandomState instance or None, default=None
        Draws the subsamples and the fits' seeds (results do not depend on
        ``n_jobs``).
    n_jobs : int or None, default=None
        Subsample fits run in parallel.

    Attributes
    ----------
    estimators_ : list of fitted selectors
        One per subsample.
    subsets_ : ndarray of shape (n_subsamples, n_features_in_) of bool
        ``get_support()`` of each fit.
    selection_probabilities_ : ndarray of shape (n_features_in_,)
        Mean of ``subsets_`` over subsamples.
    stability_ : float
        Nogueira et al.'s stability index of ``subsets_``.
    kuncheva_index_ : float
        Kuncheva's index (NaN unless every fit selects the same number).
    expected_false_selections_ : float
        Meinshausen-Buhlmann bound on the expected number of false selections
        at ``threshold`` (``inf`` for a threshold of at most 0.5); NaN unless
        ``sample_fraction`` is 0.5, the subsample size the bound assumes.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen in ``fit``; only when ``X`` has string column names.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from localselect.evidence import StabilitySelection
    >>> from localselect.filters import FisherScore
    >>> X, y = make_classification(
    ...     100, 6, n_informative=1, n_redundant=0, n_clusters_per_class=1,
    ...     shuffle=False, random_state=0,
    ... )  # feature 0 is the informative one
    >>> stab = StabilitySelection(FisherScore(n_features_to_select=1), random_state=0)
    >>> stab.fit(X, y).get_support(indices=True)
    array([0])
    >>> stab.selection_probabilities_.round(2)
    array([1., 0., 0., 0., 0., 0.])
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "get_support"])],
        "n_subsamples": [Interval(Integral, 2, None, closed="left")],
        "sample_fraction": [Interval(Real, 0, 1, closed="neither")],
        "threshold": [Interval(Real, 0, 1, closed="right")],
        "random_state": ["random_state"],
        "n_jobs": [None, Integral],
    }

    def __init__(
        self,
        estimator,
        *,
        n_subsamples=50,
        sample_fraction=0.5,
        threshold=0.6,
        random_state=None,
        n_jobs=None,
    ):
        self.estimator = estimator
        self.n_subsamples = n_subsamples
        self.sample_fraction = sample_fraction
        self.threshold = threshold
        self.random_state = random_state
        self.n_jobs = n_jobs

    @fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, y):
        """Fit the estimator on every subsample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        y : array-like of shape (n_samples,)
            Class labels, or a continuous target for an estimator that takes
            one (:func:`~localselect.evidence._null.target_task`).

        Returns
        -------
        self : object
            The fitted meta-estimator.
        """
        nan = get_tags(self.estimator).input_tags.allow_nan
        X, y = validate_data(
            self, X, y, dtype=np.float64, ensure_all_finite="allow-nan" if nan else True
        )
        rng = check_random_state(self.random_state)
        stratify = target_task(self.estimator, y) == "classification"
        draws = [
            (
                subsample_rows(y, self.sample_fraction, rng, stratify=stratify),
                int(rng.randint(np.iinfo(np.int32).max)),
            )
            for _ in range(self.n_subsamples)
        ]
        self.estimators_ = map_tasks(
            _fit_subsample,
            [(self.estimator, X, y, rows, seed) for rows, seed in draws],
            self.n_jobs,
        )
        self.subsets_ = np.stack(
            [np.asarray(e.get_support(), dtype=bool) for e in self.estimators_]
        )
        self.selection_probabilities_ = self.subsets_.mean(axis=0)
        self.stability_ = nogueira_stability(self.subsets_)
        self.kuncheva_index_ = kuncheva_index(self.subsets_)
        # MB 2010, Thm. 1 holds for subsamples of size floor(n / 2) only
        self.expected_false_selections_ = (
            meinshausen_buhlmann_bound(
                self.subsets_.sum(axis=1).mean(), X.shape[1], self.threshold
            )
            if self.sample_fraction == MB_SAMPLE_FRACTION
            else float("nan")
        )
        return self

    def local_selection_probabilities(self, X):
        """Per-row selection probability: the mean of each fit's ``get_local_support(X)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Rows to explain (the training rows too: pass them).

        Returns
        -------
        probabilities : ndarray of shape (n_samples, n_features)
            For a global selector every row equals ``selection_probabilities_``.
        """
        check_is_fitted(self)
        nan = get_tags(self.estimator).input_tags.allow_nan
        X = validate_data(
            self, X, reset=False, dtype=np.float64, ensure_all_finite="allow-nan" if nan else True
        )
        total = np.zeros(X.shape, dtype=np.float64)
        for est in self.estimators_:
            if hasattr(est, "get_local_support"):
                total += np.asarray(est.get_local_support(X), dtype=bool)
            else:
                total += np.asarray(est.get_support(), dtype=bool)[None, :]
        return total / len(self.estimators_)

    def _get_support_mask(self):
        check_is_fitted(self)
        return self.selection_probabilities_ >= self.threshold

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = get_tags(self.estimator).input_tags.allow_nan
        return tags
