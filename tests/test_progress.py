"""The shared progress reporter and the CLI's rich listener."""

import logging
import threading

import pytest
from rich.console import Console
from rich.progress import Progress

from localselect._progress import listen, progress_task
from localselect.cli._progress import RichProgressListener, progress_bars, status


class Recorder:
    def __init__(self):
        self.events = []

    def start(self, task):
        self.events.append(("start", task.description, task.total))

    def update(self, task):
        self.events.append(("update", task.done))

    def finish(self, task):
        self.events.append(("finish", task.done))


def test_listener_sees_start_updates_and_finish():
    rec = Recorder()
    with listen(rec), progress_task(4, "work", unit="items") as task:
        for _ in range(2):
            task.advance(2)
    assert rec.events == [("start", "work", 4), ("update", 2), ("update", 4), ("finish", 4)]


def test_listener_removed_after_block():
    rec = Recorder()
    with listen(rec):
        pass
    with progress_task(1, "later") as task:
        task.advance()
    assert rec.events == []


def test_advance_is_thread_safe():
    with progress_task(8000, "threads") as task:
        threads = [
            threading.Thread(target=lambda: [task.advance() for _ in range(1000)])
            for _ in range(8)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert task.done == 8000


def test_finish_reported_on_error():
    rec = Recorder()
    with pytest.raises(RuntimeError), listen(rec), progress_task(3, "fails") as task:
        task.advance()
        raise RuntimeError("boom")
    assert rec.events[-1] == ("finish", 1)


def test_verbose_logs_only_slow_tasks(caplog):
    logger = logging.getLogger("localselect.test_progress")
    with caplog.at_level(logging.INFO, logger="localselect.test_progress"):
        with progress_task(2, "fast", logger=logger, verbose=1) as task:
            task.advance(2)
        assert caplog.records == []
        with progress_task(2, "slow", logger=logger, verbose=1, log_interval=0.0) as task:
            task.advance()
            task.advance()
    messages = [r.getMessage() for r in caplog.records]
    assert messages and all(m.startswith("slow: ") for m in messages)
    assert "2/2 steps" in messages[-1]


def test_verbose_zero_never_logs(caplog):
    logger = logging.getLogger("localselect.test_progress")
    with (
        caplog.at_level(logging.DEBUG, logger="localselect.test_progress"),
        progress_task(2, "quiet", logger=logger, verbose=0, log_interval=0.0) as task,
    ):
        task.advance(2)
    assert caplog.records == []


def test_summary_estimates_remaining_time():
    with progress_task(10, "half", unit="blocks") as task:
        task.advance(5)
        line = task.summary()
    assert line.startswith("half: 5/10 blocks")
    assert "left" in line
    assert task.remaining is not None and task.remaining >= 0


def test_rich_listener_draws_bar_only_after_delay():
    progress = Progress(console=Console(file=None, force_terminal=False))
    listener = RichProgressListener(progress, delay=3600.0)
    with listen(listener), progress_task(3, "short") as task:
        task.advance()
        assert progress.tasks == []
    eager = RichProgressListener(progress, delay=0.0)
    with listen(eager), progress_task(3, "long", unit="reps") as task:
        task.advance(2)
        (bar,) = progress.tasks
        assert bar.completed == 2 and bar.total == 3 and bar.fields["unit"] == "reps"
    assert progress.tasks == []


def test_progress_bars_silent_when_not_a_terminal(capsys):
    with (
        progress_bars(Console(force_terminal=False, stderr=True)),
        progress_task(2, "piped") as task,
    ):
        task.advance(2)
    out, err = capsys.readouterr()
    assert out == "" and err == ""


def test_status_line_joins_the_bars_live_display():
    # Two live displays on one terminal overwrite each other: inside progress_bars
    # a status line must be a row of the same display, not a second ``console.status``.
    import io

    from localselect.cli import _progress as cli_progress

    terminal = Console(file=io.StringIO(), force_terminal=True, width=100)
    with progress_bars(terminal, delay=0.0):
        (progress,) = cli_progress._ACTIVE
        with status(Console(file=io.StringIO(), force_terminal=True), "fitting X ..."):
            rows = [t.description for t in progress.tasks]
            assert rows == ["fitting X ..."]
            with progress_task(3, "rounds", unit="rounds") as task:
                task.advance(1)
                assert [t.description for t in progress.tasks] == ["fitting X ...", "rounds"]
        assert progress.tasks == []
    assert cli_progress._ACTIVE == []


def test_status_without_live_display_uses_console_status(monkeypatch):
    import io
    from contextlib import nullcontext

    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    shown = []
    monkeypatch.setattr(console, "status", lambda text: shown.append(text) or nullcontext())
    with status(console, "reading table ..."):
        assert shown == ["reading table ..."]
