"""Evidence on a continuous target, for every estimator whose declaration takes one.

The estimators come from the registry (``continuous_target_names``), so an
estimator that starts taking a continuous ``y`` is covered here without an
edit; the estimators that refuse one are covered by ``tests/test_targets.py``.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state

from localselect._estimators import continuous_target_names, registered
from localselect.evidence import StabilitySelection, feature_pvalues, permutation_null
from localselect.evidence._null import target_task
from localselect.evidence._stability import subsample_rows
from localselect.utils import fast_params

CONTINUOUS = continuous_target_names()


def _regression(n=120, p=8, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = 3.0 * X[:, 0] - 3.0 * X[:, 1] + 0.3 * rng.normal(size=n)
    return X, y


def _estimator(name, **params):
    cls = registered()[name]
    accepted = inspect.signature(cls).parameters
    wanted = {"n_features_to_select": 2, "random_state": 0, **params}
    chosen = {k: v for k, v in wanted.items() if k in accepted}
    return cls(**{**fast_params(name, "check"), **chosen})


def _takes_auto(name):
    constraints = registered()[name]._parameter_constraints.get("n_features_to_select", [])
    return any("auto" in getattr(c, "options", ()) for c in constraints)


def _scored(name):
    """A registered estimator with scores, or the test selector below (``"<test>"``)."""
    return _AbsCorrelation() if name == "<test>" else _estimator(name, n_features_to_select=None)


@pytest.mark.parametrize("name", CONTINUOUS)
def test_stability_selection_subsamples_a_continuous_target_without_strata(name):
    X, y = _regression()
    est = _estimator(name)
    stab = StabilitySelection(est, n_subsamples=6, random_state=0).fit(X, y)
    assert stab.selection_probabilities_.shape == (8,)
    assert all(fit.task_ == "regression" for fit in stab.estimators_)
    # the documented rows: floor(n / 2) of all rows, then a seed, per subsample
    rng = check_random_state(0)
    for fit in stab.estimators_:
        rows = np.sort(rng.choice(120, 60, replace=False))
        rng.randint(np.iinfo(np.int32).max)
        again = clone(est).fit(X[rows], y[rows])
        np.testing.assert_array_equal(again.get_support(), fit.get_support())
    probabilities = stab.local_selection_probabilities(X)
    assert probabilities.shape == X.shape and np.all((probabilities >= 0) & (probabilities <= 1))


@pytest.mark.parametrize("name", [n for n in CONTINUOUS if _takes_auto(n)])
def test_auto_on_a_continuous_target(name):
    X, y = _regression()
    est = _estimator(name, n_features_to_select="auto", fdr=0.1).fit(X, y)
    assert est.task_ == "regression"
    assert est.pvalues_.shape == (8,) and np.all((est.pvalues_ > 0) & (est.pvalues_ <= 1))
    assert est.get_support()[:2].all(), "the two strong features are selected"
    assert est.get_support()[2:].sum() <= 2


def _has_scores(name):
    return hasattr(_estimator(name).fit(*_regression()), "feature_importances_")


@pytest.mark.parametrize("null", ["permutation", "shadow"])
@pytest.mark.parametrize("name", ["<test>", *(n for n in CONTINUOUS if _has_scores(n))])
def test_nulls_on_a_continuous_target(name, null):
    X, y = _regression()
    est = _scored(name)
    draws = 19 if null == "permutation" else 3
    pvalues, _ = feature_pvalues(est, X, y, null=null, n_draws=draws, random_state=0)
    assert pvalues.shape == (8,) and np.all((pvalues > 0) & (pvalues <= 1))
    assert pvalues[:2].max() <= pvalues[2:].min()


class _AbsCorrelation(SelectorMixin, BaseEstimator):
    """Test selector: |corr(x_j, y)| of a continuous target, with a vectorised null."""

    def __init__(self, task="auto"):
        self.task = task

    @staticmethod
    def _scores(X, Y):
        Xc = (X - X.mean(0)) / X.std(0)
        Yc = (Y - Y.mean(1, keepdims=True)) / Y.std(1, keepdims=True)
        return np.abs(Yc @ Xc) / X.shape[0]

    def fit(self, X, y):
        self.feature_importances_ = self._scores(X, np.asarray(y, float)[None, :])[0]
        return self

    def _get_support_mask(self):
        return self.feature_importances_ > 0.5


class _AbsCorrelationFast(_AbsCorrelation):
    def _permuted_scores(self, X, Y):
        return self._scores(X, Y)


def test_fast_null_gets_the_permuted_values_of_a_continuous_target():
    X, y = _regression()
    slow = permutation_null(_AbsCorrelation(), X, y, n_permutations=30, random_state=1)
    fast = permutation_null(_AbsCorrelationFast(), X, y, n_permutations=30, random_state=1)
    np.testing.assert_allclose(fast.null, slow.null, rtol=1e-12)
    np.testing.assert_allclose(fast.scores, slow.scores, rtol=1e-12)


def test_target_task_reads_the_fit_then_the_parameter():
    _, y = _regression()
    counts = np.round(y).astype(int)
    assert target_task(_AbsCorrelation(), y) == "regression"
    assert target_task(_AbsCorrelation(), counts) == "classification"
    assert target_task(_AbsCorrelation(task="regression"), counts) == "regression"


def test_plain_subsample_of_a_continuous_target():
    rng = check_random_state(0)
    rows = subsample_rows(np.linspace(0, 1, 11), 0.5, rng, stratify=False)
    assert rows.size == 5 and np.all(np.diff(rows) > 0)
