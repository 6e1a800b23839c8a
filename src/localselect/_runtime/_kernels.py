"""Compiled (numba) kernels: one registry, one input rule, warm-up, Ctrl-C safety.

Every numba kernel a fit or a prediction calls is registered here with
:func:`register_kernel` (its dispatchers, a warm-up on a tiny problem and what
to tell the user while it compiles). Before a kernel's first call a method
calls :func:`ensure_compiled`; when neither this process nor numba's disk cache
has the kernel, it logs the kernel's message once, at INFO, before compiling
(through the fit's reporter when ``verbose >= 1``, else on this module's
logger, so that ``localselect -v`` and an application logging at INFO show it
whatever the estimator's ``verbose``), shows a progress task of that name (the
command line draws it as a status line with the elapsed time) and compiles
on a worker thread (:data:`COMPILE_THREAD`) while this thread waits: a Ctrl-C
landing inside LLVM's callbacks on the main thread would be swallowed there
and break the compile, while a waiting main thread raises
``KeyboardInterrupt`` at once. numba cannot be stopped mid-compile, and an
interpreter that finalises under it may crash; the command line therefore
leaves with ``os._exit`` while :func:`compiling` is true.

Input rule (:func:`kernel_input`): numba compiles one specialisation per array
type, and layout and read-only are part of the type; a read-only array (a
pandas frame's values, a joblib memmap) would compile the whole kernel again,
silently, in the middle of a fit. Every array a registered kernel receives is
``np.require(a, dtype, ["C", "W"])``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "COMPILE_THREAD",
    "CompiledKernel",
    "compiling",
    "ensure_compiled",
    "kernel_input",
    "register_kernel",
    "registered_kernels",
]

#: Name of the threads that compile kernels (see :func:`compiling`).
COMPILE_THREAD = "localselect-compile"

#: Where the compile message goes when the caller has no reporter (INFO level).
_LOGGER = logging.getLogger(__name__)

#: One lock per kernel name: two threads that need a cold kernel at once compile it once.
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


class CompiledKernel(NamedTuple):
    """A registered compiled kernel.

    Attributes
    ----------
    name : str
        Short name, e.g. ``"LFS fit"``.
    dispatchers : tuple
        The numba dispatchers whose compiled code the kernel needs (the entry
        points; numba compiles what they call with them).
    warm_up : callable
        ``warm_up()`` calls every dispatcher on a tiny problem with the argument
        types real calls use (compiles, or loads from the disk cache).
    message : str
        What is shown while it compiles.
    """

    name: str
    dispatchers: tuple
    warm_up: Callable[[], Any]
    message: str


#: The kernels, by name (filled as their modules are imported; never mutated afterwards).
_REGISTRY: dict[str, CompiledKernel] = {}


def register_kernel(
    name: str, dispatchers: tuple, warm_up: Callable[[], Any], message: str
) -> CompiledKernel:
    """Register a compiled kernel (at import of its module) and return its record."""
    kernel = CompiledKernel(name, tuple(dispatchers), warm_up, message)
    _REGISTRY[name] = kernel
    return kernel


def registered_kernels() -> dict[str, CompiledKernel]:
    """The registered kernels by name (a copy)."""
    return dict(_REGISTRY)


def kernel_input(a: Any, dtype: Any = np.float64) -> np.ndarray:
    """``a`` as the writable C-contiguous ``dtype`` array every kernel takes (no copy if it is)."""
    return np.require(a, dtype=dtype, requirements=["C", "W"])


def compiling() -> bool:
    """Whether a thread is compiling a kernel right now (after a Ctrl-C, say)."""
    return any(t.name == COMPILE_THREAD and t.is_alive() for t in threading.enumerate())


def _loaded(dispatcher: Any) -> bool:
    return bool(dispatcher.signatures)


def _cached_on_disk(dispatcher: Any) -> bool:
    """Whether numba's disk cache holds compiled code of ``dispatcher`` for its source."""
    try:  # numba's cache index (private API): empty when missing or stale
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:
        return False


def is_cold(kernel: CompiledKernel) -> bool:
    """Whether some dispatcher of ``kernel`` is neither in memory nor in the disk cache."""
    return not all(_loaded(d) or _cached_on_disk(d) for d in kernel.dispatchers)


def ensure_compiled(kernel: CompiledKernel, log: Any = None) -> bool:
    """Compile ``kernel`` before its first call when numba's cache is cold, and say so.

    Parameters
    ----------
    kernel : CompiledKernel
        A registered kernel.
    log : Reporter, optional
        The fit's reporter (:class:`localselect._runtime.Reporter`): its message
        at INFO on the fit's logger when ``verbose >= 1``, and a progress task
        for the listeners. Without a reporter, or at ``verbose=0``, the message
        goes to this module's logger at INFO: the application's logging
        configuration decides whether it shows (the command line shows it with
        ``-v``). One record either way.

    Returns
    -------
    compiled : bool
        Whether this call compiled the kernel (False: it was in memory or on disk;
        a cached kernel loads in a few seconds on its first call).
    """
    if not is_cold(kernel):
        return False
    with _LOCKS_GUARD:
        lock = _LOCKS.setdefault(kernel.name, threading.Lock())
    with lock:  # another thread may have compiled it while this one waited
        return is_cold(kernel) and _compile(kernel, log)


def _compile(kernel: CompiledKernel, log: Any) -> bool:
    """Say so once, then run the warm-up on a worker thread while this thread waits."""
    if log is not None and log.verbose >= 1:
        log(1, "%s", kernel.message)  # the fit's logger, beside its stages
    else:  # a wait of seconds to minutes is said even at verbose=0 (to INFO listeners)
        _LOGGER.info("%s", kernel.message)
    failure: list[BaseException] = []
    done = threading.Event()

    def compile_kernel() -> None:
        try:
            kernel.warm_up()
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)
        finally:
            done.set()

    if log is None:
        from localselect._runtime._report import ProgressTask

        task = ProgressTask(None, kernel.message, unit="")
    else:
        task = log.task(None, kernel.message, unit="", quiet=True)
    with task:
        threading.Thread(target=compile_kernel, name=COMPILE_THREAD, daemon=True).start()
        while not done.wait(0.5):
            task.advance(0)  # listeners draw a task only when it reports
    if failure:
        raise failure[0]
    return True
