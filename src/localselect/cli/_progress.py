"""The CLI's view of :mod:`localselect._progress`: ``rich`` progress bars.

A task gets a bar once it has run for ``delay`` seconds (so quick fits draw
nothing) and loses it when it ends. Bars are drawn only on a terminal; piped
output stays clean.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from localselect._progress import ProgressTask, listen

__all__ = ["RichProgressListener", "progress_bars"]


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
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    with progress, listen(RichProgressListener(progress, delay=delay)):
        yield
