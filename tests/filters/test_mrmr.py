"""Our mRMR (MID) against a slow reference with explicit counting loops."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect._targets import QuantityTargetWarning
from localselect.base import FewerFeaturesWarning
from localselect.filters import MRMR
from localselect.filters._mrmr import discretize_three_states, mrmr_order


def reference_mi(a, b):
    n = len(a)
    joint = Counter(zip(a, b))
    pa, pb = Counter(a), Counter(b)
    return sum(c / n * math.log((c / n) / (pa[x] / n * pb[y] / n)) for (x, y), c in joint.items())


def reference_mrmr(states, y, k):
    m = states.shape[1]
    cols = [list(states[:, j]) for j in range(m)]
    rel = [reference_mi(cols[j], list(y)) for j in range(m)]
    chosen = [max(range(m), key=lambda j: (rel[j], -j))]
    while len(chosen) < min(k, m):
        best, best_score = None, -math.inf
        for j in range(m):
            if j in chosen:
                continue
            red = sum(reference_mi(cols[j], cols[s]) for s in chosen) / len(chosen)
            if rel[j] - red > best_score + 1e-12:
                best, best_score = j, rel[j] - red
        chosen.append(best)
    return chosen


@given(st.integers(0, 2**16), st.integers(2, 7), st.integers(1, 7))
def test_order_matches_the_reference(seed, m, k):
    rng = np.random.default_rng(seed)
    n = 40
    y = rng.integers(0, 3, n)
    X = rng.normal(size=(n, m)) + 0.8 * y[:, None] * rng.integers(0, 2, m)
    states = discretize_three_states(X)
    got = mrmr_order(states, y, k)
    expected = reference_mrmr(states, y, k)
    # Compare the scores of the picks, robust to exact float ties between features.
    assert len(got) == len(expected)
    assert got[0] == expected[0] or math.isclose(
        reference_mi(list(states[:, got[0]]), list(y)),
        reference_mi(list(states[:, expected[0]]), list(y)),
    )
    if len(set(map(tuple, states.T))) == m:  # no duplicated columns: the order is unique
        assert list(got) == expected


def test_discretisation_thresholds():
    X = np.array([[-2.0], [0.0], [0.0], [2.0]])  # mean 0, std sqrt(2)
    assert discretize_three_states(X).ravel().tolist() == [0, 1, 1, 2]
    assert discretize_three_states(X, scale=2.0).ravel().tolist() == [1, 1, 1, 1]


def test_redundant_copy_is_not_picked_second():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    strong = y + 0.3 * rng.normal(size=300)
    copy = strong + 1e-3 * rng.normal(size=300)
    weaker = y + 0.8 * rng.normal(size=300)
    X = np.c_[strong, copy, weaker, rng.normal(size=300)]
    order = MRMR(n_features_to_select=2).fit(X, y).ranking_
    assert order[0] in (0, 1)
    assert order[1] == 2  # relevance alone would take the copy


def test_estimator_api_and_constant_feature():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    X = np.c_[np.ones(50), y + rng.normal(size=50)]
    with pytest.warns(FewerFeaturesWarning, match="kept 1 feature"):
        sel = MRMR(n_features_to_select=5).fit(X, y)
    assert sel.get_support().tolist() == [False, True]  # a constant column has no relevance
    assert sel.ranking_.tolist() == [1]
    with pytest.raises(ValueError, match="n_features_to_select"):
        MRMR(n_features_to_select=0).fit(X, y)


# --- continuous targets and the F-statistic criteria (Ding and Peng 2005) -----------------


def reference_f_order(X, y, k, quotient, regression):
    """Slow FCD/FCQ: scipy's F per feature, Pearson correlations one pair at a time."""
    from scipy import stats

    n, m = X.shape
    if regression:
        rel = []
        for j in range(m):
            r = stats.pearsonr(X[:, j], y).statistic
            rel.append((n - 2) * r * r / (1 - r * r))
    else:
        rel = [stats.f_oneway(*(X[y == c, j] for c in np.unique(y))).statistic for j in range(m)]
    chosen = [max(range(m), key=lambda j: (rel[j], -j))]
    while len(chosen) < min(k, m):
        best, best_score = None, -math.inf
        for j in range(m):
            if j in chosen:
                continue
            red = sum(abs(stats.pearsonr(X[:, j], X[:, s]).statistic) for s in chosen)
            red /= len(chosen)
            score = rel[j] / max(red, 1e-3) if quotient else rel[j] - red
            if score > best_score + 1e-9 * max(1.0, abs(score)):
                best, best_score = j, score
        chosen.append(best)
    return chosen


@given(st.integers(0, 2**16), st.integers(2, 7), st.booleans(), st.booleans())
def test_f_criteria_match_the_reference(seed, m, quotient, regression):
    from localselect.filters._mrmr import f_statistic, fstat_order

    rng = np.random.default_rng(seed)
    n = 40
    X = rng.normal(size=(n, m))
    X[:, -1] += 0.7 * X[:, 0]  # some redundancy
    if regression:
        y = X[:, : min(2, m)].sum(axis=1) + rng.normal(size=n)
    else:
        y = (X[:, 0] + rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)
    rel = f_statistic(X, y[None, :], regression)[0]
    got = fstat_order(X, rel, m, quotient)
    assert list(got) == reference_f_order(X, y, m, quotient, regression)
    criterion = "fcq" if quotient else "fcd"
    fitted = MRMR(m, criterion=criterion, task="regression" if regression else "auto").fit(X, y)
    assert list(fitted.ranking_) == list(got)
    assert fitted.task_ == ("regression" if regression else "classification")


def test_f_statistic_equals_scikit_learn():
    from sklearn.feature_selection import f_classif, f_regression

    from localselect.filters._mrmr import f_statistic

    rng = np.random.default_rng(1)
    X = rng.normal(size=(80, 5))
    y = X[:, 0] + rng.normal(size=80)
    np.testing.assert_allclose(f_statistic(X, y[None], True)[0], f_regression(X, y)[0])
    codes = rng.integers(0, 3, 80)
    np.testing.assert_allclose(f_statistic(X, codes[None], False)[0], f_classif(X, codes)[0])
    flat = np.c_[np.full(80, 0.1), X[:, :1]]  # a constant column scores a finite 0
    assert f_statistic(flat, y[None], True)[0, 0] == 0.0
    assert f_statistic(flat, codes[None], False)[0, 0] == 0.0


def test_mid_on_a_continuous_target_discretises_y():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 6))
    y = np.sin(X[:, 3]) + 0.5 * X[:, 1] ** 2 + 0.1 * rng.normal(size=300)
    fitted = MRMR(4).fit(X, y)
    assert fitted.task_ == "regression" and not hasattr(fitted, "classes_")
    y_states = discretize_three_states(y[:, None])[:, 0]
    expected = mrmr_order(discretize_three_states(X), y_states, 4)
    np.testing.assert_array_equal(fitted.ranking_, expected)
    assert set(fitted.ranking_[:2]) == {1, 3}


@pytest.mark.parametrize("criterion", ["mid", "fcd", "fcq"])
def test_auto_on_a_continuous_target(criterion):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(200, 12))
    y = 2 * X[:, 0] - 2 * X[:, 1] + 0.5 * rng.normal(size=200)
    fitted = MRMR("auto", criterion=criterion).fit(X, y)
    assert fitted.null_.null.shape == (1000, 12)
    assert fitted.get_support()[:2].all()
    assert fitted.get_support()[2:].sum() <= 1
    assert set(fitted.ranking_[:2]) == {0, 1}


def test_an_integer_quantity_is_read_as_continuous_and_task_overrides_it():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(120, 4))
    counts = np.round(5 * X[:, 2] + 20).astype(int)  # a count: 20+ values, not class codes
    with pytest.warns(QuantityTargetWarning, match="a quantity"):
        fitted = MRMR(1, criterion="fcd").fit(X, counts)
    assert fitted.task_ == "regression" and fitted.ranking_.tolist() == [2]
    assert MRMR(1, criterion="fcd", task="classification").fit(X, counts).task_ == (
        "classification"
    )
