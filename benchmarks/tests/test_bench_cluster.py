"""The cluster suite's quick profile: select --cluster on Parquet folders from the workers."""

from __future__ import annotations

import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from localselect_benchmarks import SuiteContext, run_suite


def test_quick_cluster_profile(tmp_path):
    records = run_suite("cluster", SuiteContext(quick=True, out=tmp_path))["records"]
    by = {(r["dataset"], r["method"], r["metric"]): r for r in records}
    for n in ("N=20000", "N=40000"):
        assert by[(n, "fisher", "time (s)")]["value"] > 0, by[(n, "fisher", "time (s)")]
        assert by[(n, "fisher", "planted first")]["value"] == 1.0
        assert 0 < by[(n, "fisher", "client peak (MiB)")]["value"] < 1536
        assert by[(n, "fisher", "worker peak (MiB)")]["value"] > 0
    assert by[("N=20000", "fisher", "identity (max rel diff)")]["value"] < 1e-9
    # a worker killed a second into a second run: it survives (exit 0) with the same
    # importances up to rounding (lost tasks are recomputed, reductions merge in block order)
    assert by[("N=20000", "fisher", "worker killed (max rel diff)")]["value"] < 1e-9
    assert ("against N", "fisher", "time slope") in by
