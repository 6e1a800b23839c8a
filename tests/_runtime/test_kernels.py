"""The registry of compiled kernels (``localselect._runtime._kernels``).

Every registered kernel's warm-up compiles the specialisations real calls use,
and a prediction kernel gets the compile message and Ctrl-C care of the fit.
"""

from __future__ import annotations

import threading
from types import SimpleNamespace

import numpy as np
import pytest

from localselect._runtime import _kernels as K
from localselect._runtime import (
    compiling,
    ensure_compiled,
    listen,
    registered_kernels,
)
from localselect.datasets import make_lfs_synthetic
from localselect.lfs import LocalFeatureSelection
from localselect.lfs import _candidate_votes as V
from localselect.lfs import _decide as D


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
