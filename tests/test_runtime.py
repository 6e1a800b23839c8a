"""The runtime owns running work, compiled kernels and reporting.

* one module constructs pools (``localselect/_runtime/_blocks.py``);
* ``n_jobs=None`` means one thread in every estimator (scikit-learn's meaning);
* :func:`run_blocks` gives the serial results, in order, at any thread count;
* every registered kernel's warm-up compiles the specialisations real calls
  use, and a prediction kernel gets the compile message and Ctrl-C care of the fit.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.utils import all_estimators

import localselect
from localselect._runtime import (
    _blocks,
    compiling,
    ensure_compiled,
    listen,
    n_threads,
    registered_kernels,
    run_blocks,
)
from localselect._runtime import _kernels as K
from localselect.datasets import make_lfs_synthetic
from localselect.lfs import LocalFeatureSelection
from localselect.lfs import _candidate_votes as V
from localselect.lfs import _decide as D
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


# --------------------------------------------------------------------------- kernels


@pytest.mark.parametrize("name", ["LFS fit", "LFS prediction", "ReliefF"])
def test_warm_up_compiles_what_real_calls_use(name):
    """After the warm-up, fits and predictions (also on read-only input) add no specialisation."""
    from localselect import ReliefF

    kernel = registered_kernels()[name]
    kernel.warm_up()
    before = [len(d.signatures) for d in kernel.dispatchers]
    X, y, _ = make_lfs_synthetic(40, 3, random_state=1)
    X_ro = X.copy()
    X_ro.setflags(write=False)
    for data in (X, X_ro):
        for n_candidates in (None, 5):
            est = LocalFeatureSelection(max_features=2, n_beta=3, n_candidates=n_candidates)
            est.fit(data, y)
            est.predict_proba(data)
            est.get_local_support(data)
        ReliefF(n_neighbors=3).fit(data, y)
    assert [len(d.signatures) for d in kernel.dispatchers] == before


class _Recorder:
    def __init__(self):
        self.events = []

    def start(self, task):
        self.events.append(("start", task.description))

    def update(self, task):
        pass

    def finish(self, task):
        self.events.append(("finish", task.description))


def _cold_prediction_kernel(monkeypatch, warm_up):
    """Make predict see its vote kernels as compiled neither in memory nor on disk."""
    kernel = V.PREDICT_KERNEL._replace(
        dispatchers=(SimpleNamespace(signatures=[]),), warm_up=warm_up
    )
    monkeypatch.setattr(D, "PREDICT_KERNEL", kernel)
    monkeypatch.setattr(K, "_cached_on_disk", lambda dispatcher: False)
    return kernel


def test_a_cold_prediction_kernel_is_compiled_before_predict_and_said(monkeypatch, caplog):
    X, y, _ = make_lfs_synthetic(40, 3, random_state=2)
    est = LocalFeatureSelection(max_features=2, n_beta=3, verbose=1).fit(X, y)
    expected = est.predict(X)
    calls = []
    _cold_prediction_kernel(monkeypatch, lambda: calls.append(V.PREDICT_KERNEL.warm_up()))
    rec = _Recorder()
    with listen(rec), caplog.at_level("INFO", logger="localselect.lfs._estimator"):
        got = est.predict(X)
    np.testing.assert_array_equal(got, expected)
    assert len(calls) == 1
    assert caplog.messages.count(V.COMPILE_MESSAGE) == 1
    assert rec.events[0] == ("start", V.COMPILE_MESSAGE)


@pytest.mark.parametrize("step", ["fit", "predict"])
def test_ctrl_c_while_a_kernel_compiles_stops_at_once(step, monkeypatch):
    """The compile runs on a worker thread: Ctrl-C is not swallowed inside LLVM."""
    import _thread
    import signal
    import time

    from localselect.lfs import _estimator as E
    from localselect.lfs import _fit as F

    X, y, _ = make_lfs_synthetic(40, 3, random_state=3)
    est = LocalFeatureSelection(max_features=2, n_beta=3).fit(X, y)
    release = threading.Event()

    def compiling_for_ever():  # stands for numba compiling the kernel
        release.wait(10)

    if step == "predict":
        _cold_prediction_kernel(monkeypatch, compiling_for_ever)
        run = lambda: est.predict(X)  # noqa: E731
    else:
        cold = F.FIT_KERNEL._replace(
            dispatchers=(SimpleNamespace(signatures=[]),), warm_up=compiling_for_ever
        )
        monkeypatch.setattr(E, "FIT_KERNEL", cold)
        monkeypatch.setattr(K, "_cached_on_disk", lambda dispatcher: False)
        run = lambda: est.fit(X, y)  # noqa: E731
    # Ctrl-C as Python's default handler delivers it (a background job of a
    # non-interactive shell inherits SIGINT ignored; pytest may install its own).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(0.3, _thread.interrupt_main).start()
    t = time.perf_counter()
    try:
        with pytest.raises(KeyboardInterrupt):
            run()
        assert time.perf_counter() - t < 3
        assert compiling()  # still compiling: the CLI leaves with os._exit
    finally:
        release.set()
        signal.signal(signal.SIGINT, previous)
    deadline = time.perf_counter() + 5
    while compiling() and time.perf_counter() < deadline:
        time.sleep(0.05)
    assert not compiling()


def test_a_failing_compile_raises_in_the_caller():
    def broken():
        raise RuntimeError("no compiler")

    kernel = K.CompiledKernel("broken", (SimpleNamespace(signatures=[]),), broken, "compiling")
    with pytest.raises(RuntimeError, match="no compiler"):
        ensure_compiled(kernel)
