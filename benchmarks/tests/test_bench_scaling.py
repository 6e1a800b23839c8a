"""The scaling suite: its grid, slopes, time budget and failure reporting (on fast inputs)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin

from localselect_benchmarks import SuiteContext, run_suite
from localselect_benchmarks.compare import suite_scaling as scaling


def test_slope_recovers_a_power_law():
    x = [10.0, 20.0, 40.0, 80.0]
    assert scaling._slope(x, [v**2 * 1e-6 for v in x]) == pytest.approx(2.0)
    assert scaling._slope(x, [3.0 * v for v in x]) == pytest.approx(1.0)
    assert scaling._slope([10.0], [1.0]) is None
    assert scaling._slope(x, [0.0, 0.0, 0.0, 1.0]) is None  # zeros carry no scale


def test_fisher_score_grid_records_and_slopes(tmp_path):
    results = run_suite(
        "scaling", SuiteContext(quick=True, datasets=["FisherScore"], out=tmp_path)
    )
    records = results["records"]
    cfg = scaling.SETTINGS[True]
    times = [r for r in records if r.get("metric") == "fit time (s)"]
    assert len(times) == len(cfg["n_grid"]) + len(cfg["m_grid"])
    assert {r["method"] for r in records} == {"FisherScore"}
    assert all(r["value"] > 0 for r in times)
    memory = [r for r in records if r["metric"] == "peak memory (MB)" and "N fixed" in r["table"]]
    # Fisher score stores O(M) numbers per class: memory grows with M.
    assert memory[-1]["value"] > memory[0]["value"]
    slopes = {(r["dataset"], r["metric"]) for r in records if r["table"] == "Log-log slopes"}
    assert slopes == {(f"against {a}", m) for a in "NM" for m in ("time slope", "memory slope")}
    assert "## Log-log slopes" in (tmp_path / "report.md").read_text()


class _Slow(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self


class _Broken(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        raise ValueError("cannot fit this")


def test_budget_and_failures_are_reported(tmp_path, monkeypatch):
    import localselect.utils

    fake = [("Broken", _Broken), ("Slow", _Slow)]
    monkeypatch.setattr(localselect.utils, "all_estimators", lambda type_filter=None: fake)
    monkeypatch.setitem(scaling.SETTINGS, True, {**scaling.SETTINGS[True], "budget": -1.0})
    records = run_suite("scaling", SuiteContext(quick=True, out=tmp_path))["records"]
    slow = [r for r in records if r["method"] == "Slow" and r["metric"] == "fit time (s)"]
    # Over budget after the first size on each axis: the rest are "not run".
    assert [("value" in r) for r in slow] == [True, False, False, True, False, False]
    assert all(r["status"] == "not run: Slow over budget" for r in slow if "value" not in r)
    broken = [r for r in records if r["method"] == "Broken"]
    assert broken and all("failed: ValueError: cannot fit this" in r["status"] for r in broken)


class _Hanging(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        time.sleep(60)
        return self


def test_a_hanging_fit_is_killed_at_the_limit(tmp_path, monkeypatch):
    import localselect.utils

    fake = [("Hanging", _Hanging)]
    monkeypatch.setattr(localselect.utils, "all_estimators", lambda type_filter=None: fake)
    quick = {**scaling.SETTINGS[True], "budget": 0.1, "grace": 0.5}
    monkeypatch.setitem(scaling.SETTINGS, True, quick)
    start = time.perf_counter()
    records = run_suite("scaling", SuiteContext(quick=True, out=tmp_path))["records"]
    assert time.perf_counter() - start < 10  # two kills (one per axis), not 2 x 60 s
    statuses = {r["status"] for r in records}
    assert statuses == {"not run: Hanging stopped after 1 s", "not run: Hanging over budget"}


@pytest.mark.slow
def test_parallel_table_times_n_jobs_and_dask(tmp_path):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed")
    results = run_suite("scaling", SuiteContext(quick=True, datasets=["ReliefF"], out=tmp_path))
    parallel = [r for r in results["records"] if r["table"] == "Parallel execution"]
    metrics = {r["metric"]: r.get("value") for r in parallel}
    for label in ("n_jobs=1", "n_jobs=2", "Dask, 2 workers"):
        assert metrics[f"fit time (s), {label}"] > 0
    assert metrics["speed-up, n_jobs=2"] == pytest.approx(
        metrics["fit time (s), n_jobs=1"] / metrics["fit time (s), n_jobs=2"]
    )
    assert "## Parallel execution" in (tmp_path / "report.md").read_text()


def test_parallel_table_skips_estimators_without_n_jobs(tmp_path):
    results = run_suite(
        "scaling", SuiteContext(quick=True, datasets=["FisherScore"], out=tmp_path)
    )
    assert not [r for r in results["records"] if r["table"] == "Parallel execution"]
