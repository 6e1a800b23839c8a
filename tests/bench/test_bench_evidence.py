"""The evidence suites' quick profiles run in the default tests (issue 29)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from localselect.bench import SuiteContext, run_suite
from localselect.bench.suite_evidence import summarise


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_evidence_quick(tmp_path):
    run_suite("evidence", SuiteContext(quick=True, out=tmp_path))
    records = json.loads((tmp_path / "results.json").read_text())["records"]
    assert {r["selector"] for r in records} == {"FisherScore", "Relief", "IM4E"}
    assert len({r["generator"] for r in records}) == 6
    for r in records:
        assert 0 <= r["auto_fdp"] <= 1 and r["auto_n_selected"] <= r["n_features"]
        assert r["top10_n_selected"] == 10 and r["seconds_auto"] > 0
    null = [r for r in records if r["generator"] == "global-null"]
    assert all(np.isnan(r["auto_power"]) or r["auto_power"] is None for r in null)
    rows = summarise(records)
    assert all(row["draws"] == 3 for row in rows)
    # top-10 on a 20-feature table with 5 informative columns has FDP >= 0.5
    easy = [row for row in rows if row["generator"] == "classification-easy"]
    assert all(row["top10_fdr"] >= 0.5 for row in easy)
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
