"""The runtime's reporter (``localselect._runtime._report``) and the CLI's rich listener."""

import logging
import threading

import pytest
from rich.console import Console
from rich.progress import Progress

from localselect._runtime import ProgressTask, Reporter, listen
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
    with listen(rec), ProgressTask(4, "work", unit="items") as task:
        for _ in range(2):
            task.advance(2)
    assert rec.events == [("start", "work", 4), ("update", 2), ("update", 4), ("finish", 4)]


def test_listener_removed_after_block():
    rec = Recorder()
    with listen(rec):
        pass
    with ProgressTask(1, "later") as task:
        task.advance()
    assert rec.events == []


def test_advance_is_thread_safe():
    with ProgressTask(8000, "threads") as task:
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
    with pytest.raises(RuntimeError), listen(rec), ProgressTask(3, "fails") as task:
        task.advance()
        raise RuntimeError("boom")
    assert rec.events[-1] == ("finish", 1)


def test_verbose_logs_only_slow_tasks(caplog):
    logger = logging.getLogger("localselect.test_progress")
    with caplog.at_level(logging.INFO, logger="localselect.test_progress"):
        with ProgressTask(2, "fast", logger=logger, verbose=1) as task:
            task.advance(2)
        assert caplog.records == []
        with ProgressTask(2, "slow", logger=logger, verbose=1, log_interval=0.0) as task:
            task.advance()
            task.advance()
    messages = [r.getMessage() for r in caplog.records]
    assert messages and all(m.startswith("slow: ") for m in messages)
    assert "2/2 steps" in messages[-1]


def test_verbose_zero_never_logs(caplog):
    logger = logging.getLogger("localselect.test_progress")
    with (
        caplog.at_level(logging.DEBUG, logger="localselect.test_progress"),
        ProgressTask(2, "quiet", logger=logger, verbose=0, log_interval=0.0) as task,
    ):
        task.advance(2)
    assert caplog.records == []


def test_summary_estimates_remaining_time():
    with ProgressTask(10, "half", unit="blocks") as task:
        task.advance(5)
        line = task.summary()
    assert line.startswith("half: 5/10 blocks")
    assert "left" in line
    assert task.remaining is not None and task.remaining >= 0


def test_rich_listener_draws_bar_only_after_delay():
    progress = Progress(console=Console(file=None, force_terminal=False))
    listener = RichProgressListener(progress, delay=3600.0)
    with listen(listener), ProgressTask(3, "short") as task:
        task.advance()
        assert progress.tasks == []
    eager = RichProgressListener(progress, delay=0.0)
    with listen(eager), ProgressTask(3, "long", unit="reps") as task:
        task.advance(2)
        (bar,) = progress.tasks
        assert bar.completed == 2 and bar.total == 3 and bar.fields["unit"] == "reps"
    assert progress.tasks == []


def test_progress_bars_silent_when_not_a_terminal(capsys):
    with (
        progress_bars(Console(force_terminal=False, stderr=True)),
        ProgressTask(2, "piped") as task,
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
        (progress,) = cli_progress._ACTIVE.get()
        with status(Console(file=io.StringIO(), force_terminal=True), "fitting X ..."):
            rows = [t.description for t in progress.tasks]
            assert rows == ["fitting X ..."]
            with ProgressTask(3, "rounds", unit="rounds") as task:
                task.advance(1)
                assert [t.description for t in progress.tasks] == ["fitting X ...", "rounds"]
        assert progress.tasks == []
    assert cli_progress._ACTIVE.get() == ()


def test_status_without_live_display_uses_console_status(monkeypatch):
    import io
    from contextlib import nullcontext

    console = Console(file=io.StringIO(), force_terminal=True, width=100)
    shown = []
    monkeypatch.setattr(console, "status", lambda text: shown.append(text) or nullcontext())
    with status(console, "reading table ..."):
        assert shown == ["reading table ..."]


def test_listeners_belong_to_the_context_not_the_process():
    """A listener installed by another thread's block never sees this thread's tasks."""
    rec = Recorder()
    entered, leave = threading.Event(), threading.Event()

    def other():
        with listen(rec):
            entered.set()
            leave.wait(5)

    thread = threading.Thread(target=other)
    thread.start()
    entered.wait(5)
    try:
        with ProgressTask(2, "here") as task:
            task.advance(2)
    finally:
        leave.set()
        thread.join()
    assert rec.events == []


def test_a_reporter_keeps_the_listeners_of_its_fit_across_threads(caplog):
    """Made inside ``listen`` (as a fit is), its tasks reach the listener from worker threads."""
    rec = Recorder()
    logger = logging.getLogger("localselect.test_progress")
    with listen(rec):
        log = Reporter(logger, verbose=2)
    with caplog.at_level(logging.DEBUG, logger="localselect.test_progress"):
        log(1, "stage %d", 1)
        log(2, "iteration %d", 2)
        log(3, "never")
        with log.task(4, "work") as task:
            workers = [threading.Thread(target=task.advance, args=(2,)) for _ in range(2)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
    assert [(r.levelname, r.getMessage()) for r in caplog.records] == [
        ("INFO", "stage 1"),
        ("DEBUG", "iteration 2"),
    ]
    assert rec.events[0] == ("start", "work", 4) and rec.events[-1] == ("finish", 4)


def test_reporter_for_estimator_uses_its_module_logger_and_verbose():
    from localselect import ReliefF

    log = Reporter.for_estimator(ReliefF(verbose=2))
    assert log.logger.name == "localselect.margin._relief" and log.verbose == 2
