"""What the library's tests (``tests/``) and the benchmarks' (``benchmarks/tests``) share.

One thread per numeric library in each pytest-xdist worker, a deterministic hypothesis
profile, the ``data_home`` check, and the Dask cluster fixtures (``dask_client``,
``separate_scheduler``), whose helpers live in ``tests/dask_cluster.py``: this file puts
``tests/`` on ``sys.path`` so that both trees import them as ``dask_cluster`` (after
``pytest.importorskip("distributed")``), also when pytest runs one tree alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# Under pytest-xdist (``pytest -n auto``, what .ci/run runs) each worker is a process of its
# own: one thread each for the numeric libraries, so that two workers on two cores use two
# threads and not four contending ones (contending OpenMP threads made boosted-model fits
# 10-20 times slower). Set here, in the worker, before numpy or numba are imported; a
# variable the caller set wins.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OMP", "OPENBLAS", "MKL", "NUMBA"):
        os.environ.setdefault(f"{_var}_NUM_THREADS", "1")

TESTS = Path(__file__).parent / "tests"
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

settings.register_profile(
    "localselect",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "localselect"))


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """``-n`` without ``--dist``: idle workers take queued tests from busy ones (worksteal).

    The tests take from milliseconds to minutes; with pytest-xdist's default (``load``) one
    worker was left with four minutes of queued saliency tests while the other sat idle.
    """
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        config.option.dist = "worksteal"


@pytest.fixture(scope="session")
def data_home():
    """The shared benchmark data directory; skips the test when it is absent."""
    from localselect.datasets import get_data_home

    home = get_data_home()
    if home is None or not home.is_dir():
        pytest.skip(
            "benchmark data not found: set LOCALSELECT_DATA to the folder holding "
            "manifest.json (../shared/data in the project checkout)"
        )
    return home


@pytest.fixture(scope="module")
def dask_client():
    """A client of a two-process ``LocalCluster``, one cluster per test module."""
    from dask_cluster import local_cluster

    with local_cluster() as client:
        yield client


@pytest.fixture
def separate_scheduler(tmp_path):
    """``(client, scheduler_pid)``: scheduler and workers in process groups of their own."""
    from dask_cluster import separate_scheduler

    with separate_scheduler(tmp_path) as client_and_pid:
        yield client_and_pid


#: Tests that take minutes (``pytest -m slow --durations`` on 2 cores), longest families first:
#: under ``-n`` they start at once, so that no worker begins a six-minute test while the other
#: has nothing left to take.
LONG_FIRST = (
    "test_bench_all_quick.py",
    "evidence/test_auto.py",
    "saliency/test_screen.py",
    "test_regimes.py",
    "gp/test_reproduction.py",
    "margin/test_reproduction.py",
)


def pytest_collection_modifyitems(config, items):
    """Under pytest-xdist, the :data:`LONG_FIRST` families first (a stable sort: every
    worker collects the same order, and each file's tests stay together)."""
    if not getattr(config.option, "numprocesses", None):
        return

    def rank(item):
        return next(
            (i for i, part in enumerate(LONG_FIRST) if part in item.nodeid), len(LONG_FIRST)
        )

    items.sort(key=rank)
