"""The time guard and progress of LiftFeatureSelector's searches."""

import numpy as np
import pytest
from sklearn.preprocessing import KBinsDiscretizer
from task_recorder import TaskRecorder

from localselect import LiftFeatureSelector
from localselect._runtime import listen
from localselect.lift import _budget
from localselect.lift._search import (
    PROFILE_SECONDS,
    count_subsets,
    estimate_search_seconds,
    profile_search_seconds,
)


def _discrete(n, m, seed=0, levels=3):
    rng = np.random.default_rng(seed)
    return rng.integers(0, levels, size=(n, m)), rng.integers(0, 2, size=n)


@pytest.mark.parametrize("resolution", ["features", "windows", "profiles"])
def test_refusal_names_the_parameters(resolution):
    X, y = _discrete(60, 8)
    sel = LiftFeatureSelector(resolution, max_features=None, max_seconds=1e-9)
    with pytest.raises(ValueError) as info:
        sel.fit(X, y)
    text = str(info.value)
    for word in ("max_features", "min_support", "discretizer", "max_seconds"):
        assert word in text
    assert "255 feature subsets" in text  # 2**8 - 1


def test_refusal_with_a_discretizer_names_it():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(50, 6)), rng.integers(0, 2, size=50)
    disc = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform")
    with pytest.raises(ValueError, match="KBinsDiscretizer"):
        LiftFeatureSelector(discretizer=disc, max_features=None, max_seconds=1e-9).fit(X, y)


def test_no_limit_runs_and_limit_does_not_change_results():
    X, y = _discrete(80, 6, seed=2)
    free = LiftFeatureSelector("windows", min_support=0.1, max_seconds=None).fit(X, y)
    guarded = LiftFeatureSelector("windows", min_support=0.1).fit(X, y)
    assert free.results_.equals(guarded.results_)


def test_estimate_visits_every_size_and_scales_with_counts():
    calls = []

    def run(subsets):
        calls.extend(subsets)

    estimate_search_seconds(run, 10, 4, pilot_seconds=10.0)
    sizes = sorted({len(s) for s in calls})
    assert sizes == [1, 2, 3, 4]
    assert all(list(s) == sorted(set(s)) for s in calls)


def test_estimate_is_the_count_weighted_pilot_time(monkeypatch):
    # A fake clock: every subset of size k costs exactly k "seconds".
    now = [0.0]

    def run(subsets):
        now[0] += sum(len(s) for s in subsets)

    monkeypatch.setattr(_budget.time, "perf_counter", lambda: now[0])
    est = estimate_search_seconds(run, 6, 3, pilot_seconds=1e9)
    expected = 6 * 1 + 15 * 2 + 20 * 3  # C(6, k) subsets of size k, k seconds each
    assert est == pytest.approx(expected)
    # With two jobs the estimate halves.
    assert estimate_search_seconds(run, 6, 3, pilot_seconds=1e9, n_jobs=2) == pytest.approx(
        expected / 2
    )


@pytest.mark.parametrize("min_support", [0.05, 0.2])
def test_profile_bound_covers_the_candidates_counted(min_support):
    X, y = _discrete(200, 7, seed=3)
    sel = LiftFeatureSelector("profiles", min_support=min_support).fit(X, y)
    cards = [3] * 7
    threshold = min_support * 200 - 1e-9
    bound = profile_search_seconds(cards, 200, threshold, 7)
    per = PROFILE_SECONDS[0] + PROFILE_SECONDS[1] * 200
    assert bound / per >= sel.n_counted_


def test_profile_search_without_support_on_many_features_is_refused():
    X, y = _discrete(2000, 25, seed=4, levels=4)
    with pytest.raises(ValueError, match="raise min_support"):
        LiftFeatureSelector("profiles", max_features=None).fit(X, y)


@pytest.mark.parametrize("resolution", ["features", "profiles"])
def test_progress_is_reported_and_does_not_change_results(resolution):
    X, y = _discrete(100, 6, seed=5)
    params = {"resolution": resolution, "min_support": 0.1}
    quiet = LiftFeatureSelector(**params).fit(X, y)
    rec = TaskRecorder()
    with listen(rec):
        loud = LiftFeatureSelector(**params, verbose=1).fit(X, y)
    assert quiet.results_.equals(loud.results_)
    (task,) = [t for t in rec.tasks if t.description.startswith("LLDS")]
    total = 6 if resolution == "profiles" else count_subsets(6, 6)
    assert task.total == total
    assert task.done == total


def test_too_many_subsets_is_refused_before_discretizing():
    class Exploding:
        def fit_transform(self, X):
            raise AssertionError("the discretizer must not run")

    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(20, 40)), rng.integers(0, 2, size=20)
    with pytest.raises(ValueError, match="max_features"):
        LiftFeatureSelector(max_features=None, discretizer=Exploding()).fit(X, y)
