"""Every registered suite runs with --quick and writes its files (so the harness cannot rot)."""

from __future__ import annotations

import json

import pytest

from localselect_benchmarks import SuiteContext, available_suites, run_suite


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(available_suites()))
def test_suite_runs_quick(name, tmp_path):
    # real-tables --quick runs every continuous-target method on six tables through the
    # command line (minutes): here two tables, every method, keep the check within budget
    tables = ["salaries", "cars"] if name == "real-tables" else None
    results = run_suite(name, SuiteContext(quick=True, out=tmp_path, datasets=tables))
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["suite"] == name and saved["settings"]["quick"] is True
    assert saved["records"] or saved["notes"], "a quick run produced neither results nor notes"
    failed = [r for r in saved["records"] if str(r.get("status", "")).startswith("failed")]
    assert not failed, f"{len(failed)} failed cells, first: {failed[0]}"
    report = (tmp_path / "report.md").read_text()
    assert report.startswith(f"# {name}") and f"({len(results['records'])} records)" in report
