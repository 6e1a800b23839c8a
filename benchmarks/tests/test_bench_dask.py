"""The benchmark harness on a real Dask cluster: same records, survives a lost worker, resumes.

Moved from the library's ``tests/test_dask.py`` and ``tests/test_dask_faults.py``
(the cluster helpers are copied from the latter): a suite's records on Dask equal
those of ``n_jobs=1``; a suite survives a killed worker; when the scheduler dies
the run raises ``ClusterLostError`` and the next run resumes from the cache and
writes the same report as an uninterrupted run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager, suppress
from pathlib import Path

import cloudpickle
import joblib
import numpy as np
import pytest

from localselect import LocalFeatureSelection
from localselect._runtime import ClusterLostError
from localselect.datasets import make_lfs_synthetic
from localselect_benchmarks import SuiteContext, run_suite
from localselect_benchmarks import _core as bench_core

dask = pytest.importorskip("dask", reason="dask is not installed (pip install localselect[dask])")
distributed = pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install 'localselect[dask]')"
)

# Workers cannot import this test module: ship its functions and classes by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
    # A killed worker leaves unclosed sockets and a restarted one warns about them.
    pytest.mark.filterwarnings("ignore::ResourceWarning"),
    pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning"),
]

#: Generous: the 2-core test machine is shared and a nanny restart imports the library.
TIMEOUT = 240


#: Keys of the shared layer's data tasks (inputs); the plugins act on units of work only.
DATA_TASK = "localselect-data-"

#: Any unit of work: the first one that starts is the one that dies with its worker.
ANY_UNIT = ""


class KillOnStart(distributed.WorkerPlugin):
    """Once per ``marker`` file, act when a unit whose key starts with ``prefix`` starts.

    ``action``: ``"kill"`` (SIGKILL this worker), ``"hog"`` (allocate ``hog_bytes``
    and hold the worker until its nanny kills it for exceeding ``memory_limit``) or
    ``"kill-pid"`` (SIGKILL process ``pid``, e.g. the scheduler). With ``after``, act
    only once that folder holds a file (a bench cell already cached). The marker
    holds the acting worker's process id.
    """

    def __init__(self, prefix, marker, action="kill", *, hog_bytes=0, pid=None, after=None):
        self.prefix = prefix
        self.marker = marker
        self.action = action
        self.hog_bytes = hog_bytes
        self.pid = pid
        self.after = after

    def transition(self, key, start, finish, **kwargs):
        key = str(key)
        if finish != "executing" or key.startswith(DATA_TASK) or not key.startswith(self.prefix):
            return
        if self.after is not None and not (
            os.path.isdir(self.after) and any(os.scandir(self.after))
        ):
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        if self.action == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        elif self.action == "kill-pid":
            os.kill(self.pid, signal.SIGKILL)
        elif self.action == "hog":
            self.hog = np.ones(self.hog_bytes // 8)
            time.sleep(TIMEOUT)  # the nanny kills this process long before


@pytest.fixture(scope="module")
def dask_client():
    # A LocalCluster forgets a worker whose replacement has not registered within
    # ``lost-worker-timeout`` (15 s by default) and closes its nanny for good. On a
    # loaded 2-core machine a restarted worker can take longer than that to import
    # the library, and the next ``wait_for_workers(2)`` would then wait forever.
    with dask.config.set({"distributed.deploy.lost-worker-timeout": f"{TIMEOUT}s"}):
        yield from _local_cluster()


def _local_cluster():
    cluster = distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        memory_limit="1GiB",
        dashboard_address=":0",
        silence_logs=50,
    )
    client = distributed.Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


@contextmanager
def killing(client, prefix, tmp_path, **kwargs):
    """Kill one worker when the first task named ``prefix...`` starts; check it died."""
    marker = tmp_path / f"killed-{uuid.uuid4().hex}"
    name = f"kill-{uuid.uuid4().hex}"
    client.register_plugin(KillOnStart(prefix, str(marker), **kwargs), name=name)
    try:
        yield marker
    finally:
        client.unregister_worker_plugin(name)
    assert marker.exists(), f"no unit {prefix!r}... started: the test killed nothing"
    client.wait_for_workers(2, timeout=TIMEOUT)
    pids = set(client.run(os.getpid).values())
    assert int(marker.read_text()) not in pids, "the worker chosen to die is still running"


def on_dask(func, backend="dask"):
    with joblib.parallel_config(backend=backend):
        return func()


def on_dask_counted(func, *, min_tasks=1):
    """``on_dask(func)``, checking that at least ``min_tasks`` tasks reached the cluster."""
    with distributed.get_task_stream() as stream:
        result = on_dask(func)
    assert len(stream.data) >= min_tasks, f"only {len(stream.data)} task(s) reached the cluster"
    return result


def test_benchmark_suite_identical_on_dask(dask_client, tmp_path):
    def records(out, n_jobs):
        ctx = SuiteContext(quick=True, n_jobs=n_jobs, out=out, random_state=0, datasets=["WIN"])
        result = run_suite("immigrate-table2", ctx)
        assert result["records"], "the suite ran no cell"
        return json.dumps(result["records"], sort_keys=True)

    serial = records(tmp_path / "serial", 1)
    dask_records = on_dask_counted(lambda: records(tmp_path / "dask", 2))
    assert serial == dask_records


def test_bench_suite_survives_killed_worker(dask_client, tmp_path):
    def records(out, n_jobs):
        ctx = SuiteContext(quick=True, n_jobs=n_jobs, out=out, random_state=0, datasets=["WIN"])
        result = run_suite("immigrate-table2", ctx)
        assert result["records"], "the suite ran no cell"
        return json.dumps(result["records"], sort_keys=True)

    serial = records(tmp_path / "serial", 1)
    with killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(lambda: records(tmp_path / "dask", -1))
    assert serial == survived


# ---------------------------------------------------------------- unsurvivable


@pytest.fixture
def separate_scheduler(tmp_path):
    """A scheduler and two one-thread workers, each in its own process group we can kill."""
    scheduler_file = tmp_path / "scheduler.json"
    common = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    scheduler = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
        **common,
    )  # fmt: skip
    workers = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file",
         str(scheduler_file), "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
         "--death-timeout", "60"],
        **common,
    )  # fmt: skip
    client = None
    try:
        deadline = time.monotonic() + TIMEOUT
        while not scheduler_file.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        client = distributed.Client(scheduler_file=str(scheduler_file), timeout=TIMEOUT)
        client.wait_for_workers(2, timeout=TIMEOUT)
        yield client, scheduler.pid
    finally:
        for proc in (workers, scheduler):
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=TIMEOUT)
        if client is not None:
            client.close(timeout=5)


def run_with_deadline(func):
    """``func()`` in a thread; its exception, or a failure if it is still running."""
    box = {}

    def target():
        try:
            box["value"] = func()
        except BaseException as exc:  # handed back to the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    start = time.monotonic()
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive(), f"still running {TIMEOUT} s after the scheduler died"
    return box, time.monotonic() - start


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
