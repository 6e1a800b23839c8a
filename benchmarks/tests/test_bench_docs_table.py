"""The reproduction table in docs/benchmarks.md is generated from docs/results, not typed."""

from __future__ import annotations

from pathlib import Path

from localselect_benchmarks import collect_results
from localselect_benchmarks._report import readme_table, replace_marked_block

ROOT = Path(__file__).resolve().parents[2]


def test_committed_table_matches_the_committed_results():
    path = ROOT / "docs" / "benchmarks.md"
    text = path.read_text()
    regenerated = replace_marked_block(text, readme_table(collect_results(ROOT / "docs/results")))
    assert regenerated == text, (
        "docs/benchmarks.md is out of date: run `localselect bench readme-table "
        "--results docs/results --into docs/benchmarks.md`"
    )
