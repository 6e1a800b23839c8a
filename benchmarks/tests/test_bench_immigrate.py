"""The IMMIGRATE reproduction suites' full-protocol branches, on small stand-in data."""

from __future__ import annotations

import numpy as np
import pytest

from localselect_benchmarks import SuiteContext
from localselect_benchmarks.margin import suite_immigrate as suite


@pytest.fixture
def small_gene_data(monkeypatch):
    """Table 1's loader returns a 40 x 12 two-class set in place of Colon / Prostate."""

    def load(name):
        rng = np.random.default_rng(len(name))
        X = rng.standard_normal((40, 12))
        y = np.repeat([0, 1], 20)
        X[y == 1, :2] += 2.0
        return X, y

    monkeypatch.setattr(suite, "_load", load)


def test_table1_full_leaves_b4g_out_where_listed(small_gene_data, tmp_path, monkeypatch):
    monkeypatch.setattr(suite, "B4G_LEFT_OUT", {"PRO": "too slow here"})
    ctx = SuiteContext(out=tmp_path, repeats=1, datasets=["COL", "PRO"])
    records = suite.table1(ctx)
    methods = {c: {r["method"] for r in records if r["dataset"] == c} for c in ("COL", "PRO")}
    assert "B4G" in methods["COL"] and "EGT" in methods["COL"]
    assert "B4G" not in methods["PRO"] and "EGT" in methods["PRO"]
    # The t-test reference follows: B4G where it ran, EGT where it did not.
    assert {r["wtl_reference"] for r in records if r["dataset"] == "COL" and "wtl" in r} == {"B4G"}
    assert {r["wtl_reference"] for r in records if r["dataset"] == "PRO" and "wtl" in r} == {"EGT"}
    assert all(r["n_trials"] == 10 for r in records)  # 1 repeat of 10-fold CV
    assert any("PRO: B4G not run, too slow here" in n for n in ctx.notes)
