"""Reporting long work: one :class:`Reporter` per fit, for log messages and progress.

An estimator makes one reporter when ``fit`` starts, from its ``verbose``
parameter (:meth:`Reporter.for_estimator`; ``LabelledFitMixin.fit`` hands it to
``_fit`` as ``log``); everything the fit says goes through it:

* ``log(depth, message, *args)``: depth 1 (stages) at INFO when
  ``verbose >= 1``, depth 2 (iterations) at DEBUG when ``verbose >= 2``, to
  the estimator's module logger (the application's logging configuration
  decides where they appear; no logger's level is changed);
* ``log.task(total, description, unit=...)``: a counted block of work
  (:class:`ProgressTask`). With ``verbose >= 1`` it logs ``done/total``,
  elapsed and estimated remaining time at INFO every ``log_interval`` seconds
  once it has run that long (so short fits stay silent); listeners see it too.

Listeners are installed with :func:`listen` for the block of code (and the
context, :mod:`contextvars`) that runs the fit, not for the whole process; the
CLI installs one that draws a ``rich`` progress bar for any task that runs
past about two seconds. A reporter takes the listeners of the context it was
made in, so tasks advanced from worker threads still reach them.

Reporting never changes a result: a task only counts.

Examples
--------
>>> import logging
>>> from localselect._runtime import Reporter, listen
>>> seen = []
>>> class Recorder:
...     def start(self, task): seen.append(("start", task.total))
...     def update(self, task): seen.append(("update", task.done))
...     def finish(self, task): seen.append(("finish", task.done))
>>> with listen(Recorder()):
...     log = Reporter(logging.getLogger("localselect.example"), verbose=0)
...     with log.task(3, "toy", unit="steps") as task:
...         for _ in range(3):
...             task.advance()
>>> seen[0], seen[-1]
(('start', 3), ('finish', 3))
"""

from __future__ import annotations

import contextvars
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["ProgressListener", "ProgressTask", "Reporter", "listen"]

_LOGGER = logging.getLogger("localselect")
#: Listeners of the current context (a tuple: contexts never share a mutable list).
_LISTENERS: contextvars.ContextVar[tuple] = contextvars.ContextVar(
    "localselect_progress_listeners", default=()
)


class ProgressListener(Protocol):
    """What :func:`listen` accepts: three callbacks, each given the task."""

    def start(self, task: ProgressTask) -> None: ...

    def update(self, task: ProgressTask) -> None: ...

    def finish(self, task: ProgressTask) -> None: ...


class ProgressTask:
    """A counted unit of long work: a context manager, used as ``with log.task(...)``.

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
    listeners : tuple, optional
        Who sees the task (default: those of the current context, :func:`listen`).

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
        listeners: tuple | None = None,
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
        self._listeners = _LISTENERS.get() if listeners is None else tuple(listeners)

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
    token = _LISTENERS.set((*_LISTENERS.get(), listener))
    try:
        yield listener
    finally:
        _LISTENERS.reset(token)


class Reporter:
    """What a fit says: ``log(depth, message, *args)`` and ``log.task(...)``.

    Parameters
    ----------
    logger : logging.Logger
        Where the records go (usually the estimator's module logger).
    verbose : int
        The estimator's ``verbose`` parameter (None counts as 0).
    listeners : tuple, optional
        Who sees the progress tasks (default: those of the context the
        reporter is made in, :func:`listen`).

    Examples
    --------
    >>> import logging
    >>> log = Reporter(logging.getLogger("localselect.example"), verbose=2)
    >>> with log.task(2, "toy iterations", unit="iterations") as task:
    ...     for it in range(2):
    ...         log(2, "iteration %d", it)  # a DEBUG record
    ...         task.advance()
    >>> task.done
    2
    """

    def __init__(
        self, logger: logging.Logger, verbose: int | None = 0, listeners: tuple | None = None
    ) -> None:
        self.logger = logger
        self.verbose = int(verbose or 0)
        self.listeners = _LISTENERS.get() if listeners is None else tuple(listeners)

    @classmethod
    def for_estimator(cls, estimator: Any) -> Reporter:
        """The reporter of a fit: the estimator's module logger and ``verbose``."""
        return cls(logging.getLogger(type(estimator).__module__), getattr(estimator, "verbose", 0))

    def __call__(self, depth: int, message: str, *args: Any) -> None:
        """Log ``message % args`` at INFO (depth 1) or DEBUG (depth 2) if ``verbose >= depth``."""
        if self.verbose >= depth:
            self.logger.log(logging.INFO if depth <= 1 else logging.DEBUG, message, *args)

    def task(
        self, total: int | None, description: str, *, unit: str = "steps", quiet: bool = False
    ) -> ProgressTask:
        """A counted block of work (:class:`ProgressTask`) for this fit's listeners.

        ``quiet=True`` shows the task to the listeners only (no log lines).
        """
        return ProgressTask(
            total,
            description,
            unit=unit,
            logger=self.logger,
            verbose=0 if quiet else self.verbose,
            listeners=self.listeners,
        )
