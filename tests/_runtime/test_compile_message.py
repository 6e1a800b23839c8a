"""The compile message: one INFO line before numba compiles a cold kernel, and only then."""

from __future__ import annotations

import logging
import threading
from types import SimpleNamespace

from localselect._runtime import Reporter, ensure_compiled, listen
from localselect._runtime import _kernels as K


def _cold_kernel(monkeypatch, calls, seconds=0.0):
    """A kernel that is in neither memory nor numba's disk cache until its warm-up ran."""
    dispatcher = SimpleNamespace(signatures=[])
    release = threading.Event()

    def warm_up():
        calls.append(threading.current_thread().name)
        release.wait(seconds)
        dispatcher.signatures.append("compiled")

    monkeypatch.setattr(K, "_cached_on_disk", lambda d: False)
    return K.CompiledKernel("toy", (dispatcher,), warm_up, "compiling the toy kernel once")


class _Recorder:
    def __init__(self):
        self.started = []

    def start(self, task):
        self.started.append(task.description)

    def update(self, task):
        pass

    def finish(self, task):
        pass


def test_the_message_is_logged_once_before_compiling(monkeypatch, caplog):
    calls = []
    kernel = _cold_kernel(monkeypatch, calls)
    recorder = _Recorder()
    with listen(recorder), caplog.at_level(logging.INFO, logger="localselect"):
        log = Reporter(logging.getLogger("localselect.toy"), verbose=1)
        assert ensure_compiled(kernel, log) is True
        assert ensure_compiled(kernel, log) is False  # compiled: nothing said
    assert caplog.messages == ["compiling the toy kernel once"]
    assert caplog.records[0].levelno == logging.INFO
    assert calls == [K.COMPILE_THREAD]
    assert recorder.started == ["compiling the toy kernel once"]  # the CLI's status line


def test_at_verbose_zero_the_runtime_logger_says_it(monkeypatch, caplog):
    """The wait is said to an application (or ``localselect -v``) listening at INFO."""
    kernel = _cold_kernel(monkeypatch, [])
    log = Reporter(logging.getLogger("localselect.toy"), verbose=0)
    with caplog.at_level(logging.DEBUG, logger="localselect"):
        assert ensure_compiled(kernel, log) is True
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("localselect._runtime._kernels", logging.INFO, "compiling the toy kernel once")
    ]
    with caplog.at_level(logging.WARNING, logger="localselect"):
        caplog.clear()
        kernel = _cold_kernel(monkeypatch, [])
        ensure_compiled(kernel, log)
    assert caplog.records == []  # logging at WARNING (the default): nothing shows


def test_without_a_reporter_the_module_logger_says_it(monkeypatch, caplog):
    kernel = _cold_kernel(monkeypatch, [])
    with caplog.at_level(logging.INFO, logger="localselect"):
        ensure_compiled(kernel)
    assert [(r.name, r.getMessage()) for r in caplog.records] == [
        ("localselect._runtime._kernels", "compiling the toy kernel once")
    ]


def test_threads_that_need_a_cold_kernel_at_once_compile_it_once(monkeypatch, caplog):
    calls = []
    kernel = _cold_kernel(monkeypatch, calls, seconds=0.3)
    results = []
    with caplog.at_level(logging.INFO, logger="localselect"):
        threads = [
            threading.Thread(target=lambda: results.append(ensure_compiled(kernel)))
            for _ in range(3)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join(10)
    assert len(calls) == 1
    assert sorted(results) == [False, False, True]
    assert caplog.messages == ["compiling the toy kernel once"]
