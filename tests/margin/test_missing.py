"""Missing values (NaN) in the Relief family and IMMIGRATE: the expected-difference rule.

Every kernel is compared with the slow references of ``_reference_missing.py``,
which apply the rule of :mod:`localselect.margin._missing` one entry at a time.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localselect import (
    IM4E,
    BoostedImmigrate,
    Immigrate,
    IRelief,
    Relief,
    ReliefF,
    Simba,
)
from localselect.margin import _matrix_kernels as MK
from localselect.margin import _nn_kernels as NK
from localselect.margin import _vector_kernels as VK
from localselect.margin._missing import ExpectedDiff, expected_diff

_spec = importlib.util.spec_from_file_location(
    "margin_reference_missing", Path(__file__).with_name("_reference_missing.py")
)
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def _problem(seed, n=14, a=4, n_classes=2, rate=0.2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a))
    codes = np.arange(n) % n_classes
    rng.shuffle(codes)
    X[rng.random(size=X.shape) < rate] = np.nan
    return X, codes.astype(np.intp)


def test_rule_by_hand():
    # Class 0 knows feature 0 at {0, 2}; class 1 at {4}. Sample 1 (class 0) misses it.
    X = np.array([[0.0], [np.nan], [2.0], [4.0], [np.nan]])
    codes = np.array([0, 0, 0, 1, 1], dtype=np.intp)
    m = ExpectedDiff(X, codes, 2)
    # |4 - X|, X uniform on {0, 2} (class of sample 1): (4 + 2) / 2 = 3.
    assert m.pairs(np.array([1]), np.array([3]))[0, 0] == pytest.approx(3.0)
    # Both unknown, classes 0 and 1: E|X - X'| with X in {0, 2}, X' in {4}: 3.
    assert m.pairs(np.array([1]), np.array([4]))[0, 0] == pytest.approx(3.0)
    # Both unknown, class 0 twice: E|X - X'| over {0, 2} x {0, 2} = (0+2+2+0)/4 = 1.
    assert m.pairs(np.array([1]), np.array([1]))[0, 0] == pytest.approx(1.0)
    # A missing query value (no class) uses the pooled {0, 2, 4}: |4 - X| -> (4 + 2 + 0) / 3.
    q = m.queries(np.array([[np.nan], [1.0]]))
    assert q[0, 3, 0] == pytest.approx(2.0)
    # A known query value against sample 1 (class 0): |1 - X|, X in {0, 2} -> 1.
    assert q[1, 1, 0] == pytest.approx(1.0)
    # Known against known stays |a - b|.
    assert m.pairs(np.array([0]), np.array([3]))[0, 0] == 4.0


@pytest.mark.parametrize("seed", range(4))
def test_pair_diffs_match_reference(seed):
    X, codes = _problem(seed, n=12, a=5, n_classes=3, rate=0.3)
    X[:, 4] = np.nan  # a feature with no known value: difference 0
    X[codes == 1, 3] = np.nan  # a class with no known value: pooled distribution
    m = expected_diff(X, codes)
    ii, jj = np.triu_indices(len(X), 1)
    got = m.pairs(ii, jj)
    want = np.array([ref.diff(X, codes, i, j) for i, j in zip(ii, jj)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.all(got[:, 4] == 0)
    Q = np.where(np.random.default_rng(seed).random((3, 5)) < 0.4, np.nan, 0.5)
    got_q = expected_diff(X, codes, 3, Q).queries(Q)
    want_q = np.array([[ref.query_diff(X, codes, x, j) for j in range(len(X))] for x in Q])
    np.testing.assert_allclose(got_q, want_q, rtol=1e-12, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.floats(0.0, 0.6))
def test_pair_diffs_property(seed, rate):
    # Symmetric, non-negative, finite, and equal to |x_i - x_j| where both are known.
    X, codes = _problem(seed, n=9, a=3, n_classes=2, rate=rate)
    X[0, 0] = 0.0  # at least one known value
    m = ExpectedDiff(X, codes, 2, np.ones(3, dtype=bool))
    ii, jj = np.triu_indices(len(X), 1)
    D, Dt = m.pairs(ii, jj), m.pairs(jj, ii)
    np.testing.assert_allclose(D, Dt, atol=1e-12)
    assert np.all(np.isfinite(D)) and np.all(D >= 0)
    both = ~np.isnan(X[ii]) & ~np.isnan(X[jj])
    np.testing.assert_array_equal(D[both], np.abs(X[ii] - X[jj])[both])


@pytest.mark.parametrize("seed", range(3))
def test_relief_matches_reference(seed):
    X, codes = _problem(seed)
    np.testing.assert_allclose(
        NK.relief(X, codes, np.arange(len(X))), ref.relief(X, codes), rtol=1e-10, atol=1e-12
    )


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_relieff_matches_reference(seed, n_classes):
    X, codes = _problem(seed, n=15, n_classes=n_classes)
    for engine in ("auto", "numpy"):
        np.testing.assert_allclose(
            NK.relieff(X, codes, 3, engine=engine),
            ref.relieff(X, codes, 3),
            rtol=1e-10,
            atol=1e-12,
        )


def test_relieff_blocks_do_not_change_result():
    X, codes = _problem(7, n=30, a=6, n_classes=3)
    whole = NK.relieff(X, codes, 4, engine="numpy")
    tiny = NK.relieff(X, codes, 4, engine="numpy", block_memory=0.001)
    np.testing.assert_allclose(whole, tiny, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("outlier", [False, True])
def test_margin_vector_step_matches_reference(seed, outlier):
    X, codes = _problem(seed, n_classes=3)
    rng = np.random.default_rng(seed)
    w, sw = rng.uniform(0.1, 1, size=4), rng.uniform(0.1, 1, size=len(X))
    got = VK.margin_vector_step(X, codes, w, 0.7, sw, outlier=outlier)
    z, entropy = ref.margin_vector_step(X, codes, w, 0.7, sw, outlier=outlier)
    np.testing.assert_allclose(got.z, z, rtol=1e-10, atol=1e-12)
    assert got.entropy == pytest.approx(entropy, rel=1e-10)


@pytest.mark.parametrize("seed", range(3))
def test_immigrate_step_and_prediction_match_reference(seed):
    X, codes = _problem(seed, n_classes=2)
    rng = np.random.default_rng(seed)
    B = rng.uniform(size=(4, 4))
    W, sw = B @ B.T, rng.uniform(0.1, 1, size=len(X))
    got = MK.immigrate_step(X, codes, W, 0.8, sw)
    Sigma, entropy = ref.immigrate_step(X, codes, W, 0.8, sw)
    np.testing.assert_allclose(got.scatter, Sigma, rtol=1e-10, atol=1e-12)
    assert got.entropy == pytest.approx(entropy, rel=1e-10)
    Q = np.where(rng.random((4, 4)) < 0.3, np.nan, rng.normal(size=(4, 4)))
    np.testing.assert_allclose(
        MK.expected_distances(Q, X, codes, 2, W, 0.8),
        ref.expected_distances(Q, X, codes, np.arange(2), W, 0.8),
        rtol=1e-10,
    )


def _informative_with_holes(seed=0, n=80):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = np.column_stack([y + 0.3 * rng.normal(size=n), rng.normal(size=(n, 4))])
    X[rng.random(size=X.shape) < 0.15] = np.nan
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "est",
    [
        Relief(n_features_to_select=1),
        ReliefF(n_features_to_select=1),
        Simba(n_features_to_select=1),
        IRelief(n_features_to_select=1),
        IM4E(n_features_to_select=1),
        Immigrate(n_features_to_select=1, random_state=0),
    ],
    ids=lambda e: type(e).__name__,
)
def test_estimators_accept_nan_and_find_the_feature(est):
    X, y = _informative_with_holes()
    est.fit(X, y)
    assert np.all(np.isfinite(est.feature_importances_))
    assert est.get_support(indices=True).tolist() == [0]
    assert est.__sklearn_tags__().input_tags.allow_nan


def test_immigrate_predicts_queries_with_nan():
    X, y = _informative_with_holes()
    model = Immigrate(random_state=0).fit(X, y)
    Q = np.array([[1.0, np.nan, np.nan, np.nan, np.nan], [0.0, np.nan, 0.2, np.nan, 0.1]])
    assert model.predict(Q).tolist() == [1, 0]
    assert np.all(np.isfinite(model.predict_proba(Q)))
    boosted = BoostedImmigrate(n_estimators=2, random_state=0).fit(X, y)
    assert boosted.predict(Q).tolist() == [1, 0]


def test_estimators_without_nan_support_say_so():
    # The estimators that do not take NaN raise scikit-learn's clear error.
    from localselect.utils import fast_estimators

    X, y = _informative_with_holes()
    refused = []
    for _, est in fast_estimators("check"):
        if est.__sklearn_tags__().input_tags.allow_nan:
            continue
        with pytest.raises(ValueError, match="NaN"):
            est.fit(X, y)
        refused.append(type(est).__name__)
    assert {"FisherScore", "LocalFeatureSelection", "GPLocalFeatureSelection"} <= set(refused)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("power", [1, 2])
def test_block_distances_match_the_completed_differences(seed, power):
    # The matrix-product form of the distances equals summing the completed |d|.
    X, codes = _problem(seed, n=17, a=6, n_classes=3, rate=0.35)
    X[codes == 2, 1] = np.nan  # a class without known values: pooled
    m = expected_diff(X, codes)
    v = np.random.default_rng(seed).uniform(0, 2, size=6)
    rows = slice(3, 11)
    want = (m.rows(rows) ** power * v).sum(axis=2)
    np.testing.assert_allclose(m.distances(rows, v, power), want, rtol=1e-10, atol=1e-10)


def test_neighbour_truncation_runs_exact_with_missing_values():
    # The truncated IMMIGRATE needs complete rows for its neighbour search.
    X, y = _informative_with_holes()
    model = Immigrate(n_candidates=5, random_state=0).fit(X, y)
    exact = Immigrate(n_candidates=None, random_state=0).fit(X, y)
    assert model.n_candidates_ is None
    np.testing.assert_allclose(model.weights_, exact.weights_)
    boosted = BoostedImmigrate(n_estimators=2, n_candidates=5, random_state=0).fit(X, y)
    assert boosted.n_candidates_ is None
