"""report.md rendering, the markdown table writer and the README table generator."""

from __future__ import annotations

import pytest

from localselect_benchmarks._report import (
    TABLE_END,
    TABLE_START,
    format_number,
    markdown_table,
    readme_table,
    render_report,
    replace_marked_block,
    summary_rows,
)


def _records():
    return [
        {"table": "Table 1", "dataset": "Sonar", "method": "LFS", "metric": "error",
         "value": 0.12, "std": 0.02, "published": 0.13, "published_std": 0.03},
        {"table": "Table 1", "dataset": "Sonar", "method": "FDA", "metric": "error",
         "value": 0.30, "std": 0.01, "published": 0.20, "published_std": 0.01,
         "wtl": "win", "wtl_reference": "LFS"},
        {"table": "Table 1", "dataset": "DNA", "method": "LFS", "metric": "error",
         "value": 0.05, "std": 0.01},
        {"table": "Table 1", "dataset": "DNA", "method": "FDA", "metric": "error",
         "status": "not run: needs xgboost"},
        {"table": "Scaling", "method": "LFS", "n_samples": 100, "seconds": 0.5},
    ]  # fmt: skip


def test_markdown_table_escapes_and_aligns():
    text = markdown_table(["a", "b"], [["x|y", 1.5]], align="lr")
    assert text.splitlines() == ["| a | b |", "|---|--:|", "| x\\|y | 1.5 |"]
    with pytest.raises(ValueError, match="2 cells"):
        markdown_table(["a", "b", "c"], [[1, 2]])


def test_format_number():
    assert format_number(0.12345, 0.0211) == "0.123 ± 0.021"
    assert format_number(79.4871, 18.929) == "79.5 ± 18.9"  # percentages: one decimal
    assert format_number(None) == "-"
    assert format_number(float("nan")) == "-"
    assert format_number(7) == "7"
    assert format_number(1.5e-6) == "1.50e-06"
    assert format_number("n/a") == "n/a"


def test_report_puts_ours_beside_published_with_wtl_and_not_run():
    text = render_report(
        name="lfs-table1", description="LFS Table 1", paper="Armanfard 2016",
        records=_records(), seconds=3.0, settings={"quick": True}, notes=["KCSM: not public"],
    )  # fmt: skip
    assert "## Table 1" in text and "## Scaling" in text
    assert "| Sonar | 0.120 ± 0.020 (0.130 ± 0.030) | 0.300 ± 0.010 (0.200 ± 0.010) |" in text
    assert "| DNA | 0.050 ± 0.010 | not run: needs xgboost |" in text
    assert "| (W,T,L) of LFS |  | (1,0,0) |" in text
    assert "- KCSM: not public" in text and "- not run: needs xgboost" in text
    # Sonar LFS is within its combined std, Sonar FDA is not.
    assert "1 of 2 numbers with a published counterpart" in text
    assert "Settings: quick=True." in text


def test_summary_rows_uses_combined_std():
    # hypot(0.02, 0.02) = 0.0283: a gap of 0.02 is within it, 0.03 is not.
    recs = [{"value": 0.5, "published": 0.52, "std": 0.02, "published_std": 0.02}]
    assert summary_rows(recs) == (1, 1, 1)
    recs[0]["published"] = 0.53
    assert summary_rows(recs) == (1, 0, 1)
    # Without any spread the tolerance is 0.02 absolute.
    assert summary_rows([{"value": 0.5, "published": 0.515}]) == (1, 1, 1)
    assert summary_rows([{"value": 0.5, "published": 0.53}, {"value": 1.0}]) == (1, 0, 2)


def test_readme_table_and_marked_block():
    results = [{"suite": "lfs-table1", "settings": {"quick": True}, "seconds": 12.0,
                "records": _records()}]  # fmt: skip
    table = readme_table(results)
    row = "| lfs-table1 | Table 1 | FDA | error | 1 | 0.300 | 0.200 | 0.100 | 0/1 |"
    assert row in table
    assert "| lfs-table1 | quick | 12.0 | 5 |" in table
    doc = f"intro\n{TABLE_START}\nold\n{TABLE_END}\nend\n"
    new = replace_marked_block(doc, table)
    assert "old" not in new and row in new and new.endswith(f"{TABLE_END}\nend\n")
    assert replace_marked_block(new, table) == new  # idempotent
    with pytest.raises(ValueError, match="markers"):
        replace_marked_block("no markers", table)


def test_run_list_says_when_a_run_was_restricted():
    def row(settings):
        table = readme_table([{"suite": "s", "settings": settings, "seconds": 1.0, "records": []}])
        return next(line for line in table.splitlines() if line.startswith("| s |"))

    assert row({"quick": False}) == "| s | full | 1.0 | 0 |"
    assert row({"quick": True, "datasets": ["A", "B"]}) == "| s | quick, only A B | 1.0 | 0 |"
    names = [f"D{i}" for i in range(5)]
    assert row({"quick": False, "repeats": 2, "datasets": names}).startswith(
        "| s | full, 2 repeats, 5 named data sets |"
    )
