"""The CLI's view of :mod:`localselect._runtime._report`: ``rich`` progress bars.

A task gets a bar once it has run for ``delay`` seconds (so quick fits draw
nothing) and loses it when it ends. Bars are drawn only on a terminal; piped
output stays clean. Status lines ("fitting ...") are drawn by the same live
display as the bars (:func:`status`), so the two never overwrite each other.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from localselect._runtime import ProgressTask, listen

__all__ = ["RichProgressListener", "progress_bars", "status"]

#: The live displays of the :func:`progress_bars` blocks drawing on a terminal in this
#: context, innermost last (a context variable: no state shared by the whole process).
_ACTIVE: contextvars.ContextVar[tuple[Progress, ...]] = contextvars.ContextVar(
    "localselect_cli_progress", default=()
)


class _CountedOnly(ProgressColumn):
    """Show ``column`` for counted tasks (bars) and nothing for status lines."""

    def __init__(self, column: ProgressColumn) -> None:
        super().__init__()
        self.column = column

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return self.column.render(task)  # type: ignore[return-value]


class RichProgressListener:
    """Draw each reported task as a ``rich`` bar after ``delay`` seconds.

    Parameters
    ----------
    progress : rich.progress.Progress
        The live progress display to add bars to.
    delay : float, default=2.0
        Seconds a task must run before it gets a bar.
    """

    def __init__(self, progress: Progress, *, delay: float = 2.0) -> None:
        self.progress = progress
        self.delay = delay
        self._bars: dict[int, Any] = {}
        self._lock = threading.Lock()

    def start(self, task: ProgressTask) -> None:
        """Nothing to draw yet: a bar appears once the task is slow."""

    def update(self, task: ProgressTask) -> None:
        """Create the bar when the task passes ``delay``; move it on."""
        with self._lock:
            bar = self._bars.get(id(task))
            if bar is None:
                if task.elapsed < self.delay:
                    return
                bar = self.progress.add_task(task.description, total=task.total, unit=task.unit)
                self._bars[id(task)] = bar
            self.progress.update(bar, completed=task.done)

    def finish(self, task: ProgressTask) -> None:
        """Remove the task's bar, if it had one."""
        with self._lock:
            bar = self._bars.pop(id(task), None)
            if bar is not None:
                self.progress.remove_task(bar)


@contextmanager
def progress_bars(console: Console | None = None, *, delay: float = 2.0) -> Iterator[None]:
    """Draw the progress of every task reported inside the block.

    Parameters
    ----------
    console : rich.console.Console, default=None
        Where to draw (standard error by default). Nothing is drawn unless it
        is a terminal.
    delay : float, default=2.0
        Seconds a task must run before it gets a bar.
    """
    console = console if console is not None else Console(stderr=True)
    if not console.is_terminal:
        yield
        return
    progress = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        _CountedOnly(BarColumn()),
        _CountedOnly(MofNCompleteColumn()),
        TextColumn("{task.fields[unit]}"),
        _CountedOnly(TimeElapsedColumn()),
        _CountedOnly(TextColumn("left")),
        _CountedOnly(TimeRemainingColumn()),
        console=console,
        transient=True,
    )
    token = _ACTIVE.set((*_ACTIVE.get(), progress))
    try:
        with progress, listen(RichProgressListener(progress, delay=delay)):
            yield
    finally:
        _ACTIVE.reset(token)


@contextmanager
def status(console: Console, text: str) -> Iterator[None]:
    """Show ``text`` with a spinner while the block runs.

    Inside :func:`progress_bars` drawing on a terminal, the line is a row of
    the same live display as the bars (two live displays on one terminal
    overwrite each other); elsewhere it is ``console.status(text)``.

    Parameters
    ----------
    console : rich.console.Console
        The console to use when no progress display is active.
    text : str
        The status line.
    """
    active = _ACTIVE.get()
    if not active:
        with console.status(text):
            yield
        return
    progress = active[-1]
    row = progress.add_task(text, total=None, unit="")
    try:
        yield
    finally:
        progress.remove_task(row)
