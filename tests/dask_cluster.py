"""Real Dask clusters for the tests, and faults staged on them (not a test module).

Shared by ``tests/`` (``test_dask.py``, ``test_dask_faults.py``) and ``benchmarks/tests``
(``test_bench_dask.py``): the repository's root ``conftest.py`` puts this folder on
``sys.path`` and wraps :func:`local_cluster` and :func:`separate_scheduler` as the
fixtures ``dask_client`` and ``separate_scheduler``. Import it only after
``pytest.importorskip("distributed")``: it needs ``dask[distributed]``.

A worker plugin (:class:`KillOnStart`) kills one worker process at a deterministic point:
when the first unit of a fit (a task whose key starts with a given prefix) starts
executing on it, with SIGKILL or by allocating past the worker's ``memory_limit`` so that
its nanny restarts it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from contextlib import contextmanager, suppress

import cloudpickle
import dask
import distributed
import joblib
import numpy as np
import pytest

# Workers cannot import this module: ship its functions and classes (the plugin) by value.
cloudpickle.register_pickle_by_value(sys.modules[__name__])

#: The marks of a module that runs a cluster: slow, and deaf to the warnings of the cluster's
#: own machinery (tornado, psutil) and of killed workers (unclosed sockets), which the
#: tests do not control; the estimators' warnings are still checked by the default suite.
CLUSTER_MARKS = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.filterwarnings("ignore::FutureWarning"),
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
    ``"kill-pid"`` (SIGKILL process ``pid``, e.g. the scheduler). The marker holds the
    acting worker's process id.
    """

    def __init__(self, prefix, marker, action="kill", *, hog_bytes=0, pid=None):
        self.prefix = prefix
        self.marker = marker
        self.action = action
        self.hog_bytes = hog_bytes
        self.pid = pid

    def transition(self, key, start, finish, **kwargs):
        key = str(key)
        if finish != "executing" or key.startswith(DATA_TASK) or not key.startswith(self.prefix):
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


@contextmanager
def local_cluster():
    """A client of a ``LocalCluster``: two one-thread worker processes of 1 GiB each."""
    # A LocalCluster forgets a worker whose replacement has not registered within
    # ``lost-worker-timeout`` (15 s by default) and closes its nanny for good. On a
    # loaded 2-core machine a restarted worker can take longer than that to import
    # the library, and the next ``wait_for_workers(2)`` would then wait forever.
    with dask.config.set({"distributed.deploy.lost-worker-timeout": f"{TIMEOUT}s"}):
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
def separate_scheduler(folder):
    """A scheduler and two one-thread workers, each in its own process group we can kill.

    Yields the client and the scheduler's process id; ``folder`` receives the scheduler file.
    """
    scheduler_file = folder / "scheduler.json"
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
    """``func()`` with joblib dispatching to the current Dask client through ``backend``."""
    with joblib.parallel_config(backend=backend):
        return func()


def on_dask_counted(func, *, min_tasks=1):
    """``on_dask(func)``, checking that at least ``min_tasks`` tasks reached the cluster.

    So a test cannot pass because the work silently stayed in this process.
    """
    with distributed.get_task_stream() as stream:
        result = on_dask(func)
    assert len(stream.data) >= min_tasks, f"only {len(stream.data)} task(s) reached the cluster"
    return result


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


class LargestResult(distributed.diagnostics.plugin.SchedulerPlugin):
    """The largest task result (bytes) held on a worker while the plugin is installed."""

    def __init__(self, scheduler):
        self.scheduler = scheduler
        self.largest = 0

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "memory":
            task = self.scheduler.tasks.get(key)
            if task is not None and task.nbytes:
                self.largest = max(self.largest, task.nbytes)


@contextmanager
def gather_spies(client, monkeypatch):
    """``(plugin, received)``: the largest task result on a worker and the sizes of what
    the client gathered, while the block runs (the Dask-collection tests' proof that no
    table reaches one place)."""
    from dask.sizeof import sizeof

    scheduler = client.cluster.scheduler
    plugin = LargestResult(scheduler)
    name = f"largest-result-{id(plugin)}"
    scheduler.add_plugin(plugin, name=name)
    received = []
    gather = distributed.Client.gather

    def spy(self, futures, *args, **kwargs):
        result = gather(self, futures, *args, **kwargs)
        received.append(sizeof(result))
        return result

    monkeypatch.setattr(distributed.Client, "gather", spy)
    try:
        yield plugin, received
    finally:
        scheduler.remove_plugin(name=name)
