"""The evidence suites' quick profiles run in the default tests."""

from __future__ import annotations

import json

import numpy as np
import pytest

from localselect_benchmarks import SuiteContext, run_suite


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_evidence_quick(tmp_path):
    run_suite("evidence", SuiteContext(quick=True, out=tmp_path))
    rows = json.loads((tmp_path / "results.json").read_text())["records"]
    assert {r["selector"] for r in rows} == {"FisherScore", "Relief", "IM4E"}
    assert len({r["generator"] for r in rows}) == 6 and len(rows) == 18
    for row in rows:
        assert row["draws"] == 3 and 0 <= row["fdr"] <= 1 and row["n_selected"] <= 20
        assert row["cost_ratio"] > 0
    null = [r for r in rows if r["generator"] == "global-null"]
    assert all(np.isnan(r["power"]) for r in null)
    # top-10 on a 20-feature table with 5 informative columns has FDP >= 0.5 where the noise
    # columns score above 0 (Fisher, Relief); IM4E's zero weights are never selected by a count
    easy = [row for row in rows if row["generator"] == "classification-easy"]
    assert all(row["top10_fdr"] >= 0.5 for row in easy if row["selector"] != "IM4E")
    assert all(row["top10_fdr"] > row["fdr"] for row in easy)
    assert "report.md" in {p.name for p in tmp_path.iterdir()}


def test_evidence_uci_quick(tmp_path, data_home):
    run_suite("evidence-uci", SuiteContext(quick=True, out=tmp_path))
    saved = json.loads((tmp_path / "results.json").read_text())
    records = saved["records"]
    assert len(records) == 2 * 2 * 5  # tables x selectors x folds
    for r in records:
        for key in ("acc_auto", "acc_k5", "acc_k10", "acc_k20", "acc_all"):
            assert 0 <= r[key] <= 1
        assert r["cost_ratio"] > 0
    assert any("best fixed" in note for note in saved["notes"])


def test_summarise_averages_draws():
    from localselect_benchmarks.compare.suite_evidence import summarise

    cells = [
        {"generator": "g", "selector": "s", "auto_fdp": fdp, "auto_power": 1.0,
         "auto_n_selected": 2, "top10_fdp": 0.5, "top10_power": 1.0, "cost_ratio": c}
        for fdp, c in ((0.0, 2.0), (0.5, 4.0), (0.1, 9.0))
    ]  # fmt: skip
    (row,) = summarise(cells)
    assert row["draws"] == 3 and row["fdr"] == pytest.approx(0.2) and row["cost_ratio"] == 4.0
    assert row["fdr_se"] == pytest.approx(np.std([0.0, 0.5, 0.1], ddof=1) / np.sqrt(3))
