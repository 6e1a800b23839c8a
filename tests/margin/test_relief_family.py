"""Relief, ReliefF, I-RELIEF, Simba and IM4E estimators; ReliefF against scikit-rebate."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from localselect import IM4E, IRelief, Relief, ReliefF, Simba


def _signal(seed=0, n=60, noise=4):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = np.column_stack([y + 0.3 * rng.normal(size=n), rng.normal(size=(n, noise))])
    return X, y


SELECTORS = [
    Relief(n_features_to_select=1),
    ReliefF(n_neighbors=5, n_features_to_select=1),
    IRelief(n_features_to_select=1, max_iter=50),
    Simba(n_features_to_select=1, max_iter=100),
    IM4E(n_features_to_select=1, max_iter=50),
]


@pytest.mark.parametrize("selector", SELECTORS, ids=lambda s: type(s).__name__)
def test_recovers_the_informative_feature(selector):
    X, y = _signal()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = selector.fit(X, y)
    np.testing.assert_array_equal(fitted.get_support(indices=True), [0])
    assert np.all(np.isfinite(fitted.feature_importances_))


@pytest.mark.parametrize("selector", SELECTORS, ids=lambda s: type(s).__name__)
def test_constant_feature_scores_zero_and_labels_can_be_strings(selector):
    X, y = _signal()
    X = np.column_stack([X, np.full(len(X), -2.5)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fitted = selector.fit(X, np.where(y == 1, "b", "a"))
    assert fitted.feature_importances_[-1] == 0.0
    np.testing.assert_array_equal(fitted.classes_, ["a", "b"])


@pytest.mark.parametrize(
    "selector", [Relief(), IRelief(), Simba(), IM4E()], ids=lambda s: type(s).__name__
)
def test_singleton_class_and_single_class_are_errors(selector):
    X, y = _signal()
    y1 = y.copy()
    y1[0] = 5
    with pytest.raises(ValueError, match="at least 2 samples in every class"):
        selector.fit(X, y1)
    with pytest.raises(ValueError, match="at least 2 classes"):
        selector.fit(X, np.ones(len(X)))


def test_relieff_singleton_class_is_finite_without_hit_term():
    X, y = _signal()
    y1 = y.copy()
    y1[0] = 5
    scores = ReliefF(n_neighbors=5).fit(X, y1).feature_importances_
    assert np.all(np.isfinite(scores))


@given(st.permutations(list(range(5))))
def test_relieff_permuting_features_permutes_scores(perm):
    X, y = _signal(1)
    base = ReliefF(n_neighbors=4).fit(X, y).feature_importances_
    perm = np.asarray(perm)
    np.testing.assert_allclose(
        ReliefF(n_neighbors=4).fit(X[:, perm], y).feature_importances_, base[perm], atol=1e-12
    )


def test_relieff_is_invariant_to_positive_rescaling_and_shift():
    X, y = _signal(2)
    base = ReliefF(n_neighbors=4).fit(X, y).feature_importances_
    scaled = ReliefF(n_neighbors=4).fit(X * [1, 3, 0.5, 10, 2] + 7, y).feature_importances_
    np.testing.assert_allclose(scaled, base, atol=1e-12)


def test_irelief_and_im4e_normalisations():
    X, y = _signal(3)
    w = IRelief().fit(X, y).feature_importances_
    assert np.linalg.norm(w) == pytest.approx(1.0)
    v = IM4E(max_iter=40).fit(X, y).feature_importances_
    assert v.sum() == pytest.approx(1.0)
    s = Simba(max_iter=100).fit(X, y).feature_importances_
    assert s.max() == pytest.approx(1.0) and s.min() >= 0


def test_relief_subsampling_is_seeded():
    X, y = _signal(4)
    a = Relief(max_samples=0.5, random_state=1).fit(X, y).feature_importances_
    b = Relief(max_samples=30, random_state=1).fit(X, y).feature_importances_
    np.testing.assert_array_equal(a, b)
    with pytest.raises(ValueError, match="exceeds"):
        Relief(max_samples=1000).fit(X, y)


def test_n_jobs_does_not_change_relieff_or_im4e():
    X, y = _signal(5, n=80)
    np.testing.assert_array_equal(
        ReliefF(n_jobs=2).fit(X, y).feature_importances_,
        ReliefF(n_jobs=1).fit(X, y).feature_importances_,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        np.testing.assert_array_equal(
            IM4E(n_jobs=2).fit(X, y).feature_importances_,
            IM4E(n_jobs=1).fit(X, y).feature_importances_,
        )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_relieff_equals_scikit_rebate_on_binary_continuous_data(seed):
    # scikit-rebate (PyPI "skrebate") is the reference implementation named in
    # ALGORITHMS.md; with more than 10 distinct values per feature it treats
    # every feature as continuous, like us.
    skrebate = pytest.importorskip("skrebate", reason="needs scikit-rebate (pip install skrebate)")
    rng = np.random.default_rng(seed)
    n, a = [(50, 6), (80, 12), (120, 5)][seed]
    X = rng.normal(size=(n, a)) * rng.uniform(0.5, 3, size=a)
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    for k in (1, 5, 10):
        expected = skrebate.ReliefF(n_neighbors=k, n_features_to_select=2).fit(X, y)
        got = ReliefF(n_neighbors=k).fit(X, y).feature_importances_
        np.testing.assert_allclose(got, expected.feature_importances_, rtol=0, atol=1e-9)
