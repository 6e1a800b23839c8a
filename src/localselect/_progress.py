"""Progress of long computations, shared by every estimator and the CLI.

Library code reports units of work (representatives, iterations, queries,
subsets) through :func:`progress_task`; it never prints. Two consumers read
the reports:

* the estimator's ``verbose`` parameter: with ``verbose >= 1`` the task logs
  ``done/total``, elapsed and estimated remaining time at INFO level to the
  estimator's logger, at most every ``log_interval`` seconds and only once the
  task has run for ``log_interval`` seconds (so short fits stay silent);
* listeners, installed with :func:`listen` (the CLI installs one that draws a
  ``rich`` progress bar for any task that runs past about two seconds).

Reporting never changes a result: a task only counts.

Examples
--------
>>> from localselect._progress import listen, progress_task
>>> seen = []
>>> class Recorder:
...     def start(self, task): seen.append(("start", task.total))
...     def update(self, task): seen.append(("update", task.done))
...     def finish(self, task): seen.append(("finish", task.done))
>>> with listen(Recorder()):
...     with progress_task(3, "toy", unit="steps") as task:
...         for _ in range(3):
...             task.advance()
>>> seen[0], seen[-1]
(('start', 3), ('finish', 3))
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol

__all__ = ["ProgressListener", "ProgressTask", "listen", "progress_task"]

_LOGGER = logging.getLogger("localselect")
_listeners: list[ProgressListener] = []
_listeners_lock = threading.Lock()


class ProgressListener(Protocol):
    """What :func:`listen` accepts: three callbacks, each given the task."""

    def start(self, task: ProgressTask) -> None: ...

    def update(self, task: ProgressTask) -> None: ...

    def finish(self, task: ProgressTask) -> None: ...


class ProgressTask:
    """A counted unit of long work: a context manager, used as ``with progress_task(...)``.

    Entering the block starts the task for the listeners, leaving it (also on
    an error) finishes it.

    Parameters
    ----------
    total : int or None
        Units of work expected; ``None`` when unknown.
    description : str
        What is being done, shown before the count.
    unit : str, default="steps"
        Name of one unit of work.
    logger : logging.Logger, default=None
        Where ``verbose`` messages go (the ``localselect`` logger by default).
    verbose : int, default=0
        ``>= 1`` logs the progress at INFO level every ``log_interval`` seconds
        once the task has run that long, and a last line at the end.
    log_interval : float, default=2.0
        Seconds between log lines.

    Attributes
    ----------
    total : int or None
        Units of work expected (``None`` when unknown).
    description : str
        What is being done, e.g. ``"LFS representatives"``.
    unit : str
        Name of one unit of work, e.g. ``"representatives"``.
    done : int
        Units finished so far.
    """

    def __init__(
        self,
        total: int | None,
        description: str,
        *,
        unit: str = "steps",
        logger: logging.Logger | None = None,
        verbose: int = 0,
        log_interval: float = 2.0,
    ) -> None:
        self.total = None if total is None else int(total)
        self.description = description
        self.unit = unit
        self.done = 0
        self._logger = logger if logger is not None else _LOGGER
        self._verbose = int(verbose or 0)
        self._log_interval = float(log_interval)
        self._start = time.monotonic()
        self._last_log = self._start
        self._lock = threading.Lock()
        with _listeners_lock:
            self._listeners = list(_listeners)

    @property
    def elapsed(self) -> float:
        """Seconds since the task started."""
        return time.monotonic() - self._start

    @property
    def remaining(self) -> float | None:
        """Estimated seconds left (linear in the units done), or None."""
        if not self.total or self.done <= 0:
            return None
        return self.elapsed * max(self.total - self.done, 0) / self.done

    def summary(self) -> str:
        """One line: ``description: done/total unit, elapsed, remaining``."""
        count = f"{self.done}/{self.total}" if self.total else f"{self.done}"
        line = f"{self.description}: {count} {self.unit}, {self.elapsed:.1f} s elapsed"
        remaining = self.remaining
        if remaining is not None and self.done < (self.total or 0):
            line += f", about {remaining:.0f} s left"
        return line

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more units done (thread-safe)."""
        with self._lock:
            self.done += int(n)
            now = time.monotonic()
            log_now = (
                self._verbose >= 1
                and now - self._start >= self._log_interval
                and now - self._last_log >= self._log_interval
            )
            if log_now:
                self._last_log = now
        if log_now:
            self._logger.info(self.summary())
        for listener in self._listeners:
            listener.update(self)

    def __enter__(self) -> ProgressTask:
        for listener in self._listeners:
            listener.start(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._verbose >= 1 and self.elapsed >= self._log_interval:
            self._logger.info(self.summary())
        for listener in self._listeners:
            listener.finish(self)


#: Report the progress of a block of counted work: ``with progress_task(total,
#: description, unit=..., verbose=..., logger=...) as task`` and ``task.advance(n)``
#: as units finish (see :class:`ProgressTask` for the arguments).
progress_task = ProgressTask


@contextmanager
def listen(listener: ProgressListener) -> Iterator[ProgressListener]:
    """Send every task started inside the block to ``listener``.

    Parameters
    ----------
    listener : ProgressListener
        An object with ``start(task)``, ``update(task)`` and ``finish(task)``.
        ``update`` may be called from worker threads.

    Yields
    ------
    listener : ProgressListener
        The same object.
    """
    with _listeners_lock:
        _listeners.append(listener)
    try:
        yield listener
    finally:
        with _listeners_lock:
            _listeners.remove(listener)
