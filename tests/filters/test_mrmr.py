"""Our mRMR (MID) against a slow reference with explicit counting loops."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    sel = MRMR(n_features_to_select=5).fit(X, y)
    assert sel.get_support().tolist() == [True, True]
    assert sel.ranking_[0] == 1
    with pytest.raises(ValueError, match="n_features_to_select"):
        MRMR(n_features_to_select=0).fit(X, y)
