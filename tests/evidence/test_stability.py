"""Stability selection against a loop; stability indices against their definitions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import clone
from sklearn.utils import check_random_state

from localselect.evidence import (
    StabilitySelection,
    kuncheva_index,
    meinshausen_buhlmann_bound,
    nogueira_stability,
)
from localselect.filters import FisherScore
from localselect.lift import LiftFeatureSelector
from localselect.margin import Relief


def loop_subsample_fits(estimator, X, y, n_subsamples, fraction, seed):
    """The subsample fits written out: the rows and seeds StabilitySelection documents."""
    rng = check_random_state(seed)
    classes = np.unique(y)
    fits = []
    for _ in range(n_subsamples):
        rows = []
        for c in classes:
            members = np.flatnonzero(y == c)
            take = max(1, int(np.floor(fraction * members.size)))
            rows.append(rng.choice(members, take, replace=False))
        rows = np.sort(np.concatenate(rows))
        fit_seed = int(rng.randint(np.iinfo(np.int32).max))
        est = clone(estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=fit_seed)
        fits.append(est.fit(X[rows], y[rows]))
    return fits


def test_selection_probabilities_match_loop():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = np.c_[y + rng.normal(size=60), 0.5 * y + rng.normal(size=60), rng.normal(size=(60, 4))]
    est = Relief(n_features_to_select=2, max_samples=20)
    stab = StabilitySelection(est, n_subsamples=12, random_state=3).fit(X, y)
    fits = loop_subsample_fits(est, X, y, 12, 0.5, 3)
    expected = np.mean([f.get_support() for f in fits], axis=0)
    np.testing.assert_array_equal(stab.selection_probabilities_, expected)
    np.testing.assert_array_equal(stab.get_support(), expected >= 0.6)
    assert stab.selection_probabilities_[0] == 1.0
    np.testing.assert_array_equal(
        stab.local_selection_probabilities(X[:5]), np.tile(expected, (5, 1))
    )
    # n_jobs does not change the result
    with parallel_config(backend="threading"):
        again = StabilitySelection(est, n_subsamples=12, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(again.selection_probabilities_, expected)


def test_local_selection_probabilities_match_loop():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(80, 4)).astype(float)
    y = (X[:, 0].astype(int) & X[:, 1].astype(int)) | (rng.random(80) < 0.1)
    est = LiftFeatureSelector(resolution="profiles", max_features=2, top_k=3, discretizer=None)
    stab = StabilitySelection(est, n_subsamples=6, random_state=0).fit(X, y)
    fits = loop_subsample_fits(est, X, y, 6, 0.5, 0)
    expected = np.mean([f.get_local_support(X) for f in fits], axis=0)
    got = stab.local_selection_probabilities(X)
    np.testing.assert_array_equal(got, expected)
    assert got.shape == X.shape and not np.all(got == got[0])  # rows differ: local


def slow_nogueira(Z):
    Z = np.asarray(Z, dtype=float)
    m, p = Z.shape
    kbar = Z.sum() / m
    total = 0.0
    for f in range(p):
        col = Z[:, f]
        mean = col.sum() / m
        total += sum((z - mean) ** 2 for z in col) / (m - 1)
    return 1 - (total / p) / (kbar / p * (1 - kbar / p))


def slow_kuncheva(Z):
    Z = np.asarray(Z, dtype=bool)
    m, p = Z.shape
    k = Z[0].sum()
    vals = [
        ((Z[a] & Z[b]).sum() * p - k * k) / (k * (p - k))
        for a, b in itertools.combinations(range(m), 2)
    ]
    return float(np.mean(vals))


def test_indices_match_definitions():
    rng = np.random.default_rng(2)
    for _ in range(20):
        Z = rng.random((7, 9)) < 0.4
        Z[:, 0] = True
        assert nogueira_stability(Z) == pytest.approx(slow_nogueira(Z), rel=1e-12)
        fixed = np.zeros((6, 9), dtype=bool)
        for row in fixed:
            row[rng.choice(9, 3, replace=False)] = True
        assert kuncheva_index(fixed) == pytest.approx(slow_kuncheva(fixed), rel=1e-12)
    same = np.tile([True, False, True, False], (5, 1))
    assert nogueira_stability(same) == 1.0 and kuncheva_index(same) == 1.0
    assert np.isnan(kuncheva_index([[True, False], [True, True]]))  # sizes differ
    assert np.isnan(nogueira_stability(np.zeros((3, 4))))
    with pytest.raises(ValueError, match="at least 2 subsets"):
        nogueira_stability([[True, False]])


def test_random_subsets_are_about_zero_stable():
    rng = np.random.default_rng(3)
    Z = np.zeros((400, 30), dtype=bool)
    for row in Z:
        row[rng.choice(30, 5, replace=False)] = True
    assert abs(nogueira_stability(Z)) < 0.02 and abs(kuncheva_index(Z)) < 0.02


def test_mb_bound_and_attributes():
    assert meinshausen_buhlmann_bound(5, 100, 0.75) == pytest.approx(25 / (0.5 * 100))
    assert meinshausen_buhlmann_bound(5, 100, 0.5) == float("inf")
    rng = np.random.default_rng(4)
    y = np.repeat([0, 1], 25)
    X = np.c_[y + rng.normal(size=50), rng.normal(size=(50, 5))]
    stab = StabilitySelection(FisherScore(n_features_to_select=2), n_subsamples=10, random_state=0)
    stab.fit(X, y)
    assert stab.subsets_.shape == (10, 6) and stab.kuncheva_index_ <= 1
    assert stab.expected_false_selections_ == pytest.approx(4 / (0.2 * 6))
    small = StabilitySelection(FisherScore(), n_subsamples=2, sample_fraction=0.01).fit(X, y)
    assert all(e.n_features_in_ == 6 for e in small.estimators_)  # one row per class each


def test_mb_bound_only_for_half_subsamples():
    # MB 2010's Theorem 1 assumes subsamples of floor(n / 2) rows
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 25)
    X = np.c_[3 * y + rng.normal(size=50), rng.normal(size=(50, 5))]
    est = FisherScore(n_features_to_select=2)
    half = StabilitySelection(est, n_subsamples=6, random_state=0).fit(X, y)
    assert half.expected_false_selections_ == pytest.approx(4 / (0.2 * 6))
    for fraction in (0.3, 0.8):
        other = StabilitySelection(
            est, n_subsamples=6, sample_fraction=fraction, random_state=0
        ).fit(X, y)
        assert np.isnan(other.expected_false_selections_)
        assert other.selection_probabilities_[0] == 1.0  # the rest is computed as before


def test_stability_selection_passes_sklearn_checks():
    from sklearn.utils.estimator_checks import check_estimator

    check_estimator(
        StabilitySelection(FisherScore(n_features_to_select=2), n_subsamples=3, random_state=0)
    )
