"""The runtime's cluster path (``localselect._runtime._cluster``): one entry point, clear failures.

The fault-injection checks on a cluster of worker processes are in
``tests/test_dask_faults.py`` (slow); these are the fast ones.
"""

from __future__ import annotations

import re
from pathlib import Path

import joblib
import numpy as np
import pytest
import sklearn

import localselect
from localselect._runtime import BACKEND_NAME, ClusterLostError
from localselect._runtime._cluster import Parallel, delayed

#: The package under test: the checkout's src, or the installed wheel in CI's wheel stage.
SRC = Path(localselect.__file__).parent


def _square_sum(a, b, *, scale):
    return float(scale * (a * a).sum() + b)


def test_every_parallel_loop_goes_through_the_shared_layer():
    """Importing joblib's or scikit-learn's Parallel would lose a Dask worker's data."""
    pattern = re.compile(
        r"from (joblib|sklearn\.utils\.parallel) import [^\n]*\bParallel\b|joblib\.Parallel\("
    )
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.name != "_cluster.py" and pattern.search(path.read_text())
    ]
    assert offenders == [], f"use localselect._runtime.map_tasks in {offenders}"


@pytest.mark.parametrize("backend", ["sequential", "threading", "loky"])
def test_local_backends_give_the_serial_results(backend):
    rng = np.random.default_rng(0)
    blocks = [rng.standard_normal((5, 3)) for _ in range(6)]
    expected = [_square_sum(b, k, scale=2.0) for k, b in enumerate(blocks)]
    with joblib.parallel_config(backend=backend):
        got = Parallel(n_jobs=2)(
            delayed(_square_sum)(b, k, scale=2.0) for k, b in enumerate(blocks)
        )
    assert got == expected


def test_the_resilient_backend_is_registered():
    pytest.importorskip("distributed")
    from joblib.parallel import BACKENDS

    assert BACKEND_NAME in BACKENDS


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_a_cluster_without_workers_fails_clearly_instead_of_hanging():
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=0, processes=False, dashboard_address=":0", silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as client,
        joblib.parallel_config(backend="dask", wait_for_workers_timeout=1),
        pytest.raises(ClusterLostError, match=re.escape(client.scheduler.address)),
    ):
        Parallel(n_jobs=2)(delayed(_square_sum)(np.ones((2, 2)), k, scale=1.0) for k in range(3))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
def test_in_process_cluster_gives_the_serial_results_and_config():
    """Order, keyword arguments, shared inputs and scikit-learn's config reach the workers."""
    distributed = pytest.importorskip("distributed")
    shared = np.arange(400.0).reshape(20, 20)  # > 1 kB and shared: shipped as one data task

    def unit(a, k, *, scale):
        return _square_sum(a, k, scale=scale), sklearn.get_config()["working_memory"]

    expected = [unit(shared, k, scale=0.5)[0] for k in range(5)]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster),
        distributed.get_task_stream() as stream,
        joblib.parallel_config(backend="dask"),
        sklearn.config_context(working_memory=7),
    ):  # fmt: skip
        got = Parallel(n_jobs=2)(delayed(unit)(shared, k, scale=0.5) for k in range(5))
    assert [g[0] for g in got] == expected
    assert {g[1] for g in got} == {7}
    keys = [str(t["key"]) for t in stream.data]
    assert sum(k.startswith("unit-") for k in keys) == 5
    assert sum(k.startswith("localselect-data-") for k in keys) == 1


def test_importing_an_estimator_registers_the_backend_and_plain_import_stays_light():
    """What docs/scaling.md says: ``from localselect import X`` registers the backend."""
    import subprocess
    import sys

    code = (
        "import sys, localselect; light = 'joblib' not in sys.modules; "
        "from localselect import Relief; from joblib.parallel import BACKENDS; "
        f"print(light, {BACKEND_NAME!r} in BACKENDS)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True", "True"]
