"""Fisher score: hand-worked values and a slow reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import make_classification
from sklearn.feature_selection import SelectKBest

from localselect.filters import FisherScore, fisher_score


def _fisher_reference(X, y):
    """Slow, obviously correct: loops over features and classes."""
    scores = []
    for j in range(X.shape[1]):
        mu = X[:, j].mean()
        num = den = 0.0
        for c in np.unique(y):
            xc = X[y == c, j]
            num += len(xc) * (xc.mean() - mu) ** 2
            den += len(xc) * xc.var()
        scores.append(num / den if den > 0 else (np.inf if num > 0 else 0.0))
    return np.array(scores)


def test_hand_worked_example():
    # Class means of feature 0 are 0.1 and 1.1 (overall 0.6): between = 4 * 0.25 = 1.0;
    # within-class variances are 0.01 each: within = 4 * 0.01 = 0.04; score 25.
    X = np.array([[0.0, 1.0], [0.2, 5.0], [1.0, 1.2], [1.2, 4.8]])
    np.testing.assert_allclose(fisher_score(X, [0, 0, 1, 1]), [25.0, 0.0], atol=1e-12)


@given(
    arrays(np.float64, (12, 4), elements=st.floats(-100, 100, allow_subnormal=False)),
    st.integers(2, 3),
)
def test_matches_reference(X, n_classes):
    y = np.arange(12) % n_classes
    expected = _fisher_reference(X, y)
    got = fisher_score(X, y)
    # Compare where the within-class spread is clearly non-zero; near-constant
    # features are covered by test_constant_feature_scores_zero_not_nan.
    within = sum(np.var(X[y == c], axis=0) * np.sum(y == c) for c in np.unique(y))
    finite = within > 1e-6
    np.testing.assert_allclose(got[finite], expected[finite], rtol=1e-7, atol=1e-9)
    assert np.all(np.isfinite(got) | np.isinf(got))  # never NaN


def test_constant_feature_scores_zero_not_nan():
    X = np.column_stack([np.ones(10), np.arange(10.0)])
    y = np.repeat([0, 1], 5)
    scores = fisher_score(X, y)
    assert scores[0] == 0.0 and scores[1] > 0


def test_selects_informative_features_and_plugs_into_selectkbest():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 150)
    X = rng.normal(size=(300, 10))
    X[:, :3] += np.array([2.0, 1.5, 1.0]) * y[:, None]  # features 0-2 carry the signal
    sel = FisherScore(n_features_to_select=3).fit(X, y)
    assert set(sel.get_support(indices=True)) == {0, 1, 2}
    kbest = SelectKBest(fisher_score, k=3).fit(X, y)
    np.testing.assert_array_equal(kbest.get_support(), sel.get_support())


def test_fractional_n_features_and_string_labels():
    X, y = make_classification(n_samples=60, n_features=10, random_state=1)
    labels = np.where(y == 1, "spam", "ham")
    sel = FisherScore(n_features_to_select=0.3).fit(X, labels)
    assert sel.n_features_to_select_ == 3
    assert sel.transform(X).shape == (60, 3)
    assert set(sel.classes_) == {"ham", "spam"}


def test_single_class_is_a_clear_error():
    X = np.random.default_rng(0).normal(size=(10, 3))
    with pytest.raises(ValueError, match="at least 2 classes"):
        FisherScore().fit(X, np.zeros(10))
