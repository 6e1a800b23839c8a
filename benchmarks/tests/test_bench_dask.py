"""The benchmark harness on a real Dask cluster: same records, survives a lost worker, resumes.

Moved from the library's ``tests/test_dask.py`` and ``tests/test_dask_faults.py``,
whose cluster fixtures (the root ``conftest.py``) and fault helpers
(``tests/dask_cluster.py``) they share: a suite's records on Dask equal
those of ``n_jobs=1``; a suite survives a killed worker; when the scheduler dies
the run raises ``ClusterLostError`` and the next run resumes from the cache and
writes the same report as an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

import cloudpickle
import pytest

from localselect import LocalFeatureSelection
from localselect._runtime import ClusterLostError
from localselect.datasets import make_lfs_synthetic
from localselect_benchmarks import SuiteContext, run_suite
from localselect_benchmarks import _core as bench_core

distributed = pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install 'localselect[dask]')"
)

from dask_cluster import (  # noqa: E402
    ANY_UNIT,
    CLUSTER_MARKS,
    TIMEOUT,
    killing,
    on_dask,
    on_dask_counted,
    run_with_deadline,
)

# Workers cannot import this test module: ship its functions (the suite's cells) by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

pytestmark = CLUSTER_MARKS


def _table2_records(out, n_jobs):
    """The quick IMMIGRATE Table 2 suite on WIN: its records as sorted JSON."""
    ctx = SuiteContext(quick=True, n_jobs=n_jobs, out=out, random_state=0, datasets=["WIN"])
    result = run_suite("immigrate-table2", ctx)
    assert result["records"], "the suite ran no cell"
    return json.dumps(result["records"], sort_keys=True)


def test_benchmark_suite_identical_on_dask(dask_client, tmp_path):
    serial = _table2_records(tmp_path / "serial", 1)
    dask_records = on_dask_counted(lambda: _table2_records(tmp_path / "dask", 2))
    assert serial == dask_records


def test_bench_suite_survives_killed_worker(dask_client, tmp_path):
    serial = _table2_records(tmp_path / "serial", 1)
    with killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(lambda: _table2_records(tmp_path / "dask", -1))
    assert serial == survived


# ---------------------------------------------------------------- unsurvivable


#: Set by the resume test: the last cell's ``_cell`` then kills the scheduler.
GATE: dict[str, object] = {}


def _cell(seed, gate=None):
    """A small LFS fit. With ``gate``, first wait for a cached cell, then kill the scheduler."""
    if gate is not None:
        distributed.secede()  # free this worker's thread for the cells queued behind this one
        deadline = time.monotonic() + TIMEOUT
        while not any(Path(gate["cache"]).glob("*.joblib")):
            assert time.monotonic() < deadline, "no cell was cached"
            time.sleep(0.1)
        Path(gate["marker"]).write_text(str(os.getpid()))
        os.kill(gate["pid"], signal.SIGKILL)
        time.sleep(TIMEOUT)  # the result can no longer reach the client
    X, y, _ = make_lfs_synthetic(n_samples=30, n_irrelevant=4, random_state=seed)
    model = LocalFeatureSelection(max_features=2, n_beta=4, max_iter=1, random_state=seed).fit(
        X, y
    )
    return [float(model.local_support_.mean()), float(model.radii_.mean())]


def _toy_suite(ctx):
    seeds = ctx.seeds(8)
    args = [(s, GATE.get("gate") if k == 7 else None) for k, s in enumerate(seeds)]
    values = ctx.cached_map([{"cell": k} for k in range(8)], _cell, args)
    return [
        {"table": "toy", "dataset": f"cell {k}", "method": "LFS", "metric": "subset size",
         "value": v[0], "radius": v[1]}
        for k, v in enumerate(values)
    ]  # fmt: skip


def test_bench_resumes_after_killed_scheduler(separate_scheduler, tmp_path, monkeypatch):
    """The run dies with the cluster; the next run keeps its cached cells, same report."""
    client, scheduler_pid = separate_scheduler
    monkeypatch.setitem(
        bench_core._SUITES, "toy-cells", bench_core.Suite("toy-cells", _toy_suite, "-", "toy")
    )
    out = tmp_path / "run"
    marker = tmp_path / "killed"
    gate = {"cache": str(out / "cache"), "marker": str(marker), "pid": scheduler_pid}
    monkeypatch.setitem(GATE, "gate", gate)
    box, _ = run_with_deadline(
        lambda: on_dask(lambda: run_suite("toy-cells", SuiteContext(n_jobs=-1, out=out)))
    )
    monkeypatch.delitem(GATE, "gate")
    assert marker.exists()
    assert isinstance(box.get("error"), ClusterLostError), box
    assert client.scheduler.address in str(box["error"])
    kept = {p: p.stat().st_mtime_ns for p in (out / "cache").glob("*.joblib")}
    assert 1 <= len(kept) < 8, f"{len(kept)} cells cached before the scheduler died"

    resumed = run_suite("toy-cells", SuiteContext(n_jobs=1, out=out))
    clean = run_suite("toy-cells", SuiteContext(n_jobs=1, out=tmp_path / "clean"))
    assert {p: p.stat().st_mtime_ns for p in kept} == kept, "cached cells were recomputed"
    assert resumed["records"] == clean["records"]

    def report(folder):
        text = (folder / "report.md").read_text()
        return [line for line in text.splitlines() if not line.startswith("Wall time")]

    assert report(out) == report(tmp_path / "clean")
