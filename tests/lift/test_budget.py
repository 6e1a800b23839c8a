"""``max_features="auto"``: the largest subset size whose search fits the guard."""

from math import comb

import numpy as np
import pytest

from localselect import LiftFeatureSelector
from localselect.lift import _budget
from localselect.lift._budget import (
    auto_max_size,
    largest_affordable_size,
    largest_countable_size,
    pilot_seconds_per_size,
)
from localselect.lift._search import MAX_SUBSETS, profile_search_seconds


def _discrete(n, m, seed=0, levels=3):
    rng = np.random.default_rng(seed)
    return rng.integers(0, levels, size=(n, m)), rng.integers(0, 2, size=n)


def _count(m, k):
    return sum(comb(m, j) for j in range(1, k + 1))


@pytest.mark.parametrize("m", [1, 5, 21, 23, 40, 300])
def test_countable_size_is_the_largest_within_the_limit(m):
    k = largest_countable_size(m, MAX_SUBSETS)
    assert _count(m, k) <= MAX_SUBSETS
    assert k == m or _count(m, k + 1) > MAX_SUBSETS


def test_affordable_size():
    assert largest_affordable_size([1.0, 5.0, 30.0, 200.0], 60.0) == 3
    assert largest_affordable_size([1.0, 5.0], 0.5) == 0
    assert largest_affordable_size([1.0, 5.0], None) == 2


def test_auto_size_is_the_largest_whose_estimate_fits(monkeypatch):
    # A fake clock: a subset of size k costs k "seconds", so size k adds C(m, k) * k.
    now = [0.0]

    def run(subsets):
        now[0] += sum(len(s) for s in subsets)

    monkeypatch.setattr(_budget.time, "perf_counter", lambda: now[0])
    m, budget = 12, 5000.0
    size, estimate = auto_max_size(
        run, m, budget=budget, limit=MAX_SUBSETS, n_jobs=None, pilot_seconds=1e9
    )
    pilot = sum(range(1, m + 1))  # one subset of each size, k seconds each
    left = _budget.AUTO_SHARE * (budget - pilot)
    cost = [sum(comb(m, j) * j for j in range(1, k + 1)) for k in range(1, m + 1)]
    expected = max(k for k in range(1, m + 1) if cost[k - 1] <= left)
    assert size == expected and estimate == pytest.approx(cost[size - 1])
    assert cost[size] > left  # the next size would not fit


def test_pilot_times_batches_of_cheap_subsets():
    calls = []
    pilot_seconds_per_size(lambda s: calls.append(len(s)), 10, 3, pilot_seconds=10.0)
    assert sum(calls) > 3 * 2  # more than the two single subsets per size of before
    assert sum(calls) <= 3 * _budget.MAX_PILOT_SUBSETS


def test_auto_searches_everything_when_it_fits():
    X, y = _discrete(80, 6, seed=1)
    auto = LiftFeatureSelector().fit(X, y)
    assert auto.max_features_ == 6
    assert auto.results_.equals(LiftFeatureSelector(max_features=None).fit(X, y).results_)


@pytest.mark.parametrize("resolution", ["features", "windows"])
def test_auto_runs_where_an_explicit_size_is_refused(resolution):
    X, y = _discrete(30, 40, seed=2, levels=2)
    with pytest.raises(ValueError, match="max_features"):
        LiftFeatureSelector(resolution, max_features=None).fit(X, y)
    auto = LiftFeatureSelector(resolution, max_seconds=5.0).fit(X, y)
    assert 1 <= auto.max_features_ <= largest_countable_size(40, MAX_SUBSETS)
    assert auto.results_["features"].map(len).max() <= auto.max_features_
    # The chosen size never changes what a search of that size returns.
    same = LiftFeatureSelector(resolution, max_features=auto.max_features_, max_seconds=None)
    assert same.fit(X, y).results_.equals(auto.results_)


def test_auto_profile_size_is_the_largest_bound_that_fits():
    X, y = _discrete(2000, 25, seed=4, levels=4)
    sel = LiftFeatureSelector("profiles", max_seconds=20.0).fit(X, y)
    k = sel.max_features_
    bound = [profile_search_seconds([4] * 25, 2000, -1e-9, j) for j in (k, k + 1)]
    assert 1 <= k < 25 and bound[0] <= 20.0 < bound[1]


def test_auto_refuses_at_once_when_single_features_do_not_fit():
    X, y = _discrete(50, 8, seed=3)
    with pytest.raises(ValueError, match=r"max_features='auto'.*single features.*max_seconds"):
        LiftFeatureSelector(max_seconds=1e-9).fit(X, y)


def test_explicit_size_is_kept():
    X, y = _discrete(60, 7, seed=5)
    assert LiftFeatureSelector(max_features=2).fit(X, y).max_features_ == 2
    assert LiftFeatureSelector(max_features=20).fit(X, y).max_features_ == 7
