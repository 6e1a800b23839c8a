"""Fault tolerance on a real Dask cluster (issue #22): a fit survives the loss of a worker.

A worker plugin kills one worker process at a deterministic point: when the first
unit of the fit (a task whose key starts with a given prefix) starts executing on
it, with SIGKILL or by allocating past the worker's ``memory_limit`` so that its
nanny restarts it. Each check asserts that the kill happened (the killed process
is gone from the cluster) and that the result is identical to ``n_jobs=1``.

What a cluster cannot survive (its scheduler killed) must raise
``ClusterLostError`` naming the scheduler, not hang. The benchmark harness on
a cluster (a suite survives a lost worker, resumes after a lost scheduler) is
checked beside it, in ``benchmarks/tests/test_bench_dask.py``.
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
import joblib
import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold, cross_val_score

from localselect import BoostedImmigrate, GPLocalFeatureSelection, LocalFeatureSelection
from localselect._runtime import BACKEND_NAME, ClusterLostError
from localselect.datasets import make_lfs_synthetic, make_subspace_classification

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


def test_lfs_fit_survives_killed_worker(dask_client, tmp_path):
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=0)
    params = dict(max_features=3, n_beta=6, max_iter=2, random_state=0)
    serial = LocalFeatureSelection(**params, n_jobs=1).fit(X, y)
    with killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(lambda: LocalFeatureSelection(**params, n_jobs=-1).fit(X, y))
    np.testing.assert_array_equal(serial.local_support_, survived.local_support_)
    np.testing.assert_array_equal(serial.radii_, survived.radii_)
    np.testing.assert_array_equal(serial.betas_, survived.betas_)


def test_lfs_fit_survives_nanny_restart_for_memory(dask_client, tmp_path):
    """A worker past its ``memory_limit`` (1 GiB) is restarted by its nanny mid-fit."""
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=1)
    params = dict(max_features=3, n_beta=6, max_iter=2, random_state=1)
    serial = LocalFeatureSelection(**params, n_jobs=1).fit(X, y)
    with killing(dask_client, ANY_UNIT, tmp_path, action="hog", hog_bytes=3 * 2**29):
        survived = on_dask(lambda: LocalFeatureSelection(**params, n_jobs=-1).fit(X, y))
    np.testing.assert_array_equal(serial.local_support_, survived.local_support_)
    np.testing.assert_array_equal(serial.radii_, survived.radii_)


@pytest.mark.filterwarnings("ignore:Algorithm 1 did not converge")
def test_gp_fit_survives_killed_worker(dask_client, tmp_path):
    X, y, _ = make_subspace_classification(
        n_samples=80, n_features=8, n_classes=2, n_subspaces=3, random_state=0
    )
    params = dict(n_neighbors=5, max_iter=3, random_state=0)
    serial = GPLocalFeatureSelection(**params, n_jobs=1).fit(X[:60], y[:60])
    with killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(
            lambda: GPLocalFeatureSelection(**params, n_jobs=-1).fit(X[:60], y[:60])
        )
    np.testing.assert_array_equal(serial.scores_, survived.scores_)
    np.testing.assert_array_equal(serial.observation_indices_, survived.observation_indices_)
    np.testing.assert_array_equal(serial.predict_proba(X[60:]), survived.predict_proba(X[60:]))


def test_boosted_immigrate_fit_survives_killed_worker(dask_client, tmp_path):
    X, y = load_iris(return_X_y=True)
    params = dict(n_estimators=4, max_iter=2, random_state=0)
    serial = BoostedImmigrate(**params, n_jobs=1).fit(X, y)
    # 1 MiB blocks: the fit's pair blocks become a dozen tasks on the cluster.
    with sklearn.config_context(working_memory=1), killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(lambda: BoostedImmigrate(**params, n_jobs=-1).fit(X, y))
    np.testing.assert_array_equal(serial.predict_proba(X), survived.predict_proba(X))
    np.testing.assert_array_equal(serial.feature_importances_, survived.feature_importances_)
    np.testing.assert_array_equal(serial.estimator_weights_, survived.estimator_weights_)


def test_cross_val_score_survives_killed_worker(dask_client, tmp_path):
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=2)
    cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    model = LocalFeatureSelection(max_features=3, n_beta=6, max_iter=1, random_state=0)
    serial = cross_val_score(model, X, y, cv=cv, n_jobs=1)
    with killing(dask_client, "batch_of__fit_and_score", tmp_path):
        survived = on_dask(
            lambda: cross_val_score(model.set_params(n_jobs=-1), X, y, cv=cv, n_jobs=-1),
            backend=BACKEND_NAME,
        )
    np.testing.assert_array_equal(serial, survived)


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


def test_killed_scheduler_fails_clearly(separate_scheduler, tmp_path):
    client, scheduler_pid = separate_scheduler
    address = client.scheduler.address
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=0)
    marker = tmp_path / "killed"
    client.register_plugin(
        KillOnStart(ANY_UNIT, str(marker), "kill-pid", pid=scheduler_pid), name="kill"
    )
    box, _ = run_with_deadline(
        lambda: on_dask(lambda: LocalFeatureSelection(max_features=3, n_jobs=-1).fit(X, y))
    )
    assert marker.exists()
    assert isinstance(box.get("error"), ClusterLostError), box
    assert address in str(box["error"])
