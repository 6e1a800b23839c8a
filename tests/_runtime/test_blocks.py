"""Running work (``localselect._runtime._blocks``).

* one module constructs pools (``localselect/_runtime/_blocks.py``);
* ``n_jobs=None`` means one thread in every estimator (scikit-learn's meaning);
* :func:`run_blocks` gives the serial results, in order, at any thread count.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils import all_estimators

import localselect
from localselect._runtime import (
    _blocks,
    n_threads,
    run_blocks,
)
from localselect.datasets import make_lfs_synthetic
from localselect.utils.discovery import all_estimators as localselect_estimators

SRC = Path(localselect.__file__).parent

#: Constructions of pools or parallel loops (not imports, not type hints).
_POOL = re.compile(
    r"(?<!class )\b(ThreadPoolExecutor|ProcessPoolExecutor|ThreadPool|Pool|Parallel)\(|"
    r"\bthreading\.Thread\(|\bmultiprocessing\.\w*Pool\("
)


def test_only_the_runtime_constructs_pools():
    owners = {"_runtime/_blocks.py", "_runtime/_cluster.py", "_runtime/_kernels.py"}
    found = {}
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        hits = [m.group(0) for m in _POOL.finditer(path.read_text())]
        if hits:
            found[rel] = hits
    assert set(found) <= owners, {k: v for k, v in found.items() if k not in owners}
    # The cluster module only subclasses joblib's Parallel; the kernels start a compile thread.
    assert found.get("_runtime/_cluster.py", []) == []
    assert found["_runtime/_kernels.py"] == ["threading.Thread("]


def test_n_jobs_none_is_one_worker_unless_a_joblib_context_says_otherwise():
    import joblib

    assert n_threads(None) == 1
    assert n_threads(2) == 2
    with joblib.parallel_config(n_jobs=2):
        assert n_threads(None) == 2


@pytest.mark.parametrize("n_jobs", [None, 1, 2, 3])
def test_run_blocks_keeps_order_and_reports_each_block(n_jobs):
    blocks = [np.arange(k, 50, 7) for k in range(7)]
    seen = []
    got = run_blocks(
        lambda b: float(np.square(b).sum()),
        blocks,
        n_jobs,
        done=lambda b, r: seen.append(int(b[0])),
        first_here=True,
    )
    assert got == [float(np.square(b).sum()) for b in blocks]
    assert sorted(seen) == list(range(7))


def test_run_blocks_stops_on_the_first_error():
    def fail(block):
        if block == 3:
            raise ValueError("block 3")
        return block

    with pytest.raises(ValueError, match="block 3"):
        run_blocks(fail, list(range(6)), 2)


def _estimators():
    found = localselect_estimators()
    return [(name, cls) for name, cls in found if "n_jobs" in cls().get_params()]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(("name", "cls"), _estimators(), ids=lambda v: getattr(v, "__name__", v))
def test_n_jobs_none_uses_one_thread_in_every_estimator(name, cls, monkeypatch):
    """Every worker count an estimator asks the runtime for, with ``n_jobs=None``, is 1."""
    asked = []
    real = _blocks.n_threads

    def spy(n_jobs):
        value = real(n_jobs)
        asked.append(value)
        return value

    monkeypatch.setattr(_blocks, "n_threads", spy)
    started = []
    real_pool = _blocks.ThreadPoolExecutor
    monkeypatch.setattr(
        _blocks, "ThreadPoolExecutor", lambda *a, **k: started.append(a) or real_pool(*a, **k)
    )
    real_parallel = _blocks.Parallel

    def parallel(*args, **kwargs):
        asked.append(real(kwargs["n_jobs"]))
        return real_parallel(*args, **kwargs)

    monkeypatch.setattr(_blocks, "Parallel", parallel)
    X, y, _ = make_lfs_synthetic(60, 4, random_state=0)
    est = cls(n_jobs=None)
    if "max_iter" in est.get_params():
        est.set_params(max_iter=3)
    est.fit(X, y)
    if hasattr(est, "predict"):
        est.predict(X[:10])
    assert started == []  # no thread pool at all
    assert set(asked) <= {1}
    if name in ("LocalFeatureSelection", "ReliefF", "Immigrate"):
        assert asked  # their blocks go through the runtime


def test_sklearn_all_estimators_is_not_confused_with_ours():
    # Guard for the parametrisation above: it covers localselect's estimators.
    assert {n for n, _ in _estimators()} >= {"LocalFeatureSelection", "ReliefF", "Immigrate"}
    assert all_estimators is not localselect_estimators
