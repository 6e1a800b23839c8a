"""The regression suite: its quick profile, in the default tests."""

from __future__ import annotations

import json

from localselect.utils import continuous_target_estimators
from localselect_benchmarks import SuiteContext, available_suites, run_suite
from localselect_benchmarks.compare import suite_regression as suite


def test_methods_come_from_the_registry():
    names = [name for name, _ in continuous_target_estimators()]
    assert suite.methods()[: len(names)] == names and "MRMR" in names


def test_quick_profile(tmp_path):
    assert "regression" in available_suites()
    records = run_suite("regression", SuiteContext(quick=True, out=tmp_path))["records"]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["settings"]["quick"] is True and len(saved["records"]) == len(records)
    cells = {(r["dataset"], r["method"], r["mode"], r["metric"]): r for r in records}
    for dataset in suite.DATASETS:
        for method in suite.methods():
            assert (dataset, method, "fixed", "r2") in cells, (dataset, method)
            if dataset != "diabetes":
                tpr = cells[(dataset, method, "fixed", "TPR")]["value"]
                assert 0.0 <= tpr <= 100.0
    # MRMR, global, keeps k features on every row; the LLDS profiles are per row
    assert cells[("switch", "MRMR", "fixed", "subset_size")]["value"] == 3.0
    assert cells[("switch", "MRMR", "fixed", "TPR")]["scope"] == "global"
    assert cells[("switch", suite.LLDS_PROFILES, "fixed", "TPR")]["scope"] == "local"
    assert ("friedman1", "MRMR", "auto", "FDR") in cells
    # the switch design's truth has 3 features per row: a perfect global k = 3 is impossible
    assert cells[("switch", "MRMR", "fixed", "TPR")]["value"] < 100.0
    report = (tmp_path / "report.md").read_text()
    assert "Friedman #1, MRMR 'auto' at fdr 0.1" in report
