"""The llds benchmark suites run and report Table 5 beside the paper's."""

from __future__ import annotations

import json

import pytest

from localselect_benchmarks._core import SuiteContext, available_suites, run_suite


def test_llds_suites_registered():
    assert {"llds-table5", "llds-perf", "llds-auto"} <= set(available_suites())


def test_llds_table5_quick(tmp_path, data_home, monkeypatch):
    monkeypatch.setenv("LOCALSELECT_DATA", str(data_home))
    results = run_suite("llds-table5", SuiteContext(quick=True, out=tmp_path))
    table5 = [r for r in results["records"] if r.get("table") == "Table 5"]
    assert len(table5) == 27  # every published profile has a row
    for r in table5:
        assert r["value"] == pytest.approx(r["published"], abs=0.0051)  # 2-decimal print
    lattice = [r for r in results["records"] if r.get("table") == "Section 4.2: lattice searched"]
    assert {r["profiles with support >= 0.15"] for r in lattice} == {33_908}
    assert (tmp_path / "lift_table_republican.png").stat().st_size > 1000
    assert "Table 5" in (tmp_path / "report.md").read_text()
    assert json.loads((tmp_path / "results.json").read_text())["suite"] == "llds-table5"


def test_llds_auto_quick_fits_every_small_uci_table(tmp_path, data_home, monkeypatch):
    from localselect_benchmarks.llds.suite_llds_auto import uci_tables

    monkeypatch.setenv("LOCALSELECT_DATA", str(data_home))
    results = run_suite("llds-auto", SuiteContext(quick=True, out=tmp_path))
    records = results["records"]
    assert {r["table"] for r in records} == set(uci_tables(10))
    assert {"cryotherapy", "pmlb_monk1", "Glass"} <= {r["table"] for r in records}
    for r in records:
        assert r["status"] == "ok" and 1 <= r["max_features_"] <= r["n_features"]
