"""A progress listener for tests: it keeps every task it saw (``localselect._runtime.listen``)."""

from __future__ import annotations


class TaskRecorder:
    """Listener whose ``tasks`` lists each started task (their ``done`` is read at the end)."""

    def __init__(self):
        self.tasks = []

    def start(self, task):
        self.tasks.append(task)

    def update(self, task):
        pass

    def finish(self, task):
        pass
