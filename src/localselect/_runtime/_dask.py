"""joblib's Dask backend without single-worker scatter: the ``"localselect-dask"`` backend.

joblib's ``DaskDistributedBackend`` scatters every argument above 1 kB to one
worker (``client.scatter(arg, hash=False)``); the scheduler cannot recreate
scattered data, so losing that worker fails every task that needs it. This
subclass ships those arguments as data tasks instead (``client.submit(identity,
arg, pure=False)``, as :mod:`localselect._runtime._cluster` does), which the scheduler
recomputes from their specification when a worker dies. Everything else is
joblib's: batching, ``scatter=[...]`` (broadcast) and ``submit_kwargs``.

It is imported only on a Dask path (``joblib.parallel_config(backend=
"localselect-dask")``, or a ``localselect._runtime._cluster.Parallel`` loop inside a
Dask context) and imports nothing from localselect. It overrides
joblib's private ``_to_func_args``; a joblib upgrade that changes it breaks
here, in one place.
"""

from __future__ import annotations

import uuid
from typing import Any

import dask
from dask.sizeof import sizeof
from joblib import parallel_config
from joblib._dask import Batch, DaskDistributedBackend

__all__ = ["DATA_TASK_BYTES", "SCALARS", "ResilientDaskBackend", "identity"]

#: Arguments at least this large (bytes, ``dask.sizeof``) travel as data tasks.
DATA_TASK_BYTES = 1_000

#: Argument types always embedded in the task that uses them.
SCALARS = (bool, int, float, complex, str, bytes, type(None))


def identity(value: Any) -> Any:
    """The function of a data task: its embedded argument, recomputable by the scheduler."""
    return value


class _ResilientBatch(Batch):
    """joblib's batch of calls; nested joblib loops stay on the resilient backend."""

    def __call__(self, tasks=None):
        with parallel_config(backend=ResilientDaskBackend()):
            return [func(*args, **kwargs) for func, args, kwargs in tasks]


class ResilientDaskBackend(DaskDistributedBackend):
    """joblib's Dask backend whose large arguments are recomputable data tasks.

    Parameters are those of joblib's backend (``client``, ``scatter``,
    ``wait_for_workers_timeout``, extra ``client.submit`` keywords).
    """

    def __reduce__(self):
        return (ResilientDaskBackend, ())

    def get_nested_backend(self):
        return ResilientDaskBackend(client=self.client), -1

    def start_call(self):
        super().start_call()
        self._shipped: dict[int, tuple[Any, Any]] = {}

    def stop_call(self):
        super().stop_call()
        self._shipped = {}

    def _ship(self, value: Any) -> Any:
        if isinstance(value, SCALARS):
            return value
        scattered = self.data_futures.get(id(value))
        if scattered is not None:  # scatter=[...] given by the user: broadcast by joblib
            return scattered
        if sizeof(value) < DATA_TASK_BYTES:
            return value
        shipped = getattr(self, "_shipped", None)
        if shipped is None:
            shipped = self._shipped = {}
        entry = shipped.get(id(value))
        if entry is None or entry[1].status in ("cancelled", "lost"):
            with dask.config.set({"distributed.admin.large-graph-warning-threshold": "64GiB"}):
                future = self.client.submit(
                    identity, value, key=f"localselect-data-{uuid.uuid4().hex}", pure=False
                )
            # Keep ``value`` alive with its future so its id is not reused in this call.
            entry = shipped[id(value)] = (value, future)
        return entry[1]

    async def _to_func_args(self, func):
        tasks = []
        for f, args, kwargs in func.items:
            tasks.append(
                (f, [self._ship(a) for a in args], {k: self._ship(v) for k, v in kwargs.items()})
            )
        return _ResilientBatch(tasks), tasks
