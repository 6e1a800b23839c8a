"""The medium suite's cell runner and records."""

from __future__ import annotations

from localselect_benchmarks import available_suites
from localselect_benchmarks.compare.suite_medium import _records_for, run_in_child


def test_registered():
    assert "medium" in available_suites()


def test_a_cell_runs_in_a_child_and_reports_times_memory_and_accuracy():
    spec = {"table": "noise:20x30", "n_train": None, "n_test": 0, "seed": 0, "method": "ReliefF"}
    out = run_in_child("cell", spec, 300.0)
    assert out["n_train"] == 20 and out["n_features"] == 30
    assert out["fit"] > 0 and out["peak_mb"] >= 0
    recs = _records_for("t", "20 x 30", "ReliefF", out, 300.0)
    metrics = {r["metric"]: r.get("value") for r in recs}
    assert metrics["fit within target"] is True
    assert "peak memory (MB)" in metrics


def test_a_slow_cell_is_stopped_and_reported():
    spec = {"table": "noise:20x30", "n_train": None, "n_test": 0, "seed": 0, "method": "ReliefF"}
    out = run_in_child("cell", spec, 0.01)
    assert out == {"timeout": 0.01}
    (rec,) = _records_for("t", "d", "ReliefF", out, 0.01)
    assert rec["status"].startswith("stopped after")


def test_a_refusal_is_a_record_with_its_time():
    out = {"n_train": 10, "n_features": 3, "refused": 0.2, "message": "set max_features"}
    recs = _records_for("t", "d", "LiftFeatureSelector", out, 150.0)
    assert recs[0] == {
        "table": "t",
        "dataset": "d",
        "method": "LiftFeatureSelector",
        "n_samples": 10,
        "metric": "refused in (s)",
        "value": 0.2,
    }
    assert recs[1]["status"] == "refused: set max_features"


def test_global_selectors_are_scored_through_a_5nn_and_local_ones_by_their_predict(monkeypatch):
    from sklearn.datasets import make_classification

    from localselect_benchmarks.compare import suite_medium

    X, y = make_classification(160, 12, n_informative=4, random_state=0)
    split = (X[:120], y[:120], X[120:], y[120:])
    monkeypatch.setattr(suite_medium, "_split", lambda *args: split)
    spec = {"table": "t", "n_train": None, "n_test": 40, "seed": 0}
    relief = suite_medium._cell({**spec, "method": "ReliefF"})
    weights = suite_medium._make("ReliefF", 0, 12).fit(X[:120], y[:120]).feature_importances_
    positive = int((weights > 0).sum())  # a count keeps only positive weights
    assert 0.0 <= relief["selector_knn"] <= 1.0 and relief["n_selected"] == min(10, positive)
    lfs = suite_medium._cell({**spec, "method": "LocalFeatureSelection"})
    assert 0.0 <= lfs["accuracy"] <= 1.0 and "selector_knn" not in lfs
