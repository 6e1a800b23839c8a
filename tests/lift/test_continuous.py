"""LLDS on a continuous target: y cut into quantile bins (``target_bins``, our extension)."""

from __future__ import annotations

import numpy as np
import pytest

from localselect import LiftFeatureSelector
from localselect.lift._discretize import quantile_bins


def _switch_data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 5)).astype(float)
    y = np.where(X[:, 0] == 2, 3.0 * X[:, 1], 0.0) + 0.05 * rng.normal(size=n) + 0.5
    return X, y


def test_quantile_bins_match_a_loop():
    rng = np.random.default_rng(1)
    y = rng.normal(size=101)
    codes, edges = quantile_bins(y, 4)
    cuts = np.quantile(y, [0.25, 0.5, 0.75])
    expected = [sum(v > c for c in cuts) for v in y]
    assert codes.tolist() == expected
    assert np.bincount(codes).tolist() == [26, 25, 25, 25]
    for b, (low, high) in enumerate(edges):
        inside = y[codes == b]
        assert inside.max() <= high and (b == 0 or inside.min() > low)


def test_quantile_bins_merge_ties_and_refuse_a_constant():
    codes, edges = quantile_bins([1.0] * 8 + [2.0, 3.0], 4)
    assert codes.tolist() == [0] * 8 + [1, 1]  # every cut point is 1.0
    np.testing.assert_array_equal(edges, [[1.0, 1.0], [1.0, 3.0]])
    with pytest.raises(ValueError, match="single value"):
        quantile_bins([2.5] * 5, 3)


def test_features_on_a_continuous_target_equal_the_binned_fit():
    X, y = _switch_data()
    sel = LiftFeatureSelector(max_features=2, discretizer=None, target_bins=3).fit(X, y)
    assert sel.task_ == "regression" and not hasattr(sel, "classes_")
    assert sel.target_edges_.shape[0] == len(np.unique(quantile_bins(y, 3)[0]))
    binned = LiftFeatureSelector(max_features=2, discretizer=None).fit(X, quantile_bins(y, 3)[0])
    assert sel.results_["features"].tolist() == binned.results_["features"].tolist()
    np.testing.assert_allclose(sel.results_["score"], binned.results_["score"])
    assert set(sel.best_features_) == {0, 1}


def test_profiles_target_the_top_bin():
    X, y = _switch_data()
    sel = LiftFeatureSelector(
        "profiles", max_features=2, discretizer=None, target_class=2, min_support=0.05
    ).fit(X, y)
    best = sel.results_.iloc[0]
    assert best["target_class"] == 2 and best["features"] == ("x0", "x1")
    assert best["profile"] == (2.0, 2.0)
    support = sel.get_local_support(X)
    top = (X[:, 0] == 2) & (X[:, 1] == 2)
    assert support[top][:, :2].all()
    with pytest.raises(ValueError, match="not a bin of y"):
        LiftFeatureSelector("profiles", max_features=1, discretizer=None, target_class=7).fit(X, y)


def test_integer_quantity_with_task_regression():
    X, y = _switch_data()
    counts = np.round(10 * y).astype(int)
    as_classes = LiftFeatureSelector(max_features=1, discretizer=None).fit(X, counts)
    assert as_classes.task_ == "classification" and len(as_classes.classes_) > 3
    as_quantity = LiftFeatureSelector(max_features=1, discretizer=None, task="regression")
    assert as_quantity.fit(X, counts).target_edges_.shape == (3, 2)
