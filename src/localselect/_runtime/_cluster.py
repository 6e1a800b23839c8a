"""joblib loops that survive a lost Dask worker: the runtime's cluster path.

``Parallel`` and ``delayed`` are drop-in replacements for
:mod:`sklearn.utils.parallel` (which propagates scikit-learn's configuration
and warning filters to the workers). Outside a Dask context they *are*
scikit-learn's. Inside ``joblib.parallel_config(backend="dask")`` joblib's Dask
backend would scatter every argument above 1 kB to a single worker: when that
worker dies the scheduler cannot recreate the data and the whole fit fails
(``FutureCancelledError ... already forgotten``). There ``Parallel`` submits the
same units to the backend's ``dask.distributed`` client itself, so that the
cluster can recompute whatever a lost worker held:

- an argument shared by several units, or larger than 1 kB, becomes a *data
  task* whose specification embeds the value (``client.submit(identity, value,
  pure=False)``): it is sent once, other workers fetch it from the first, and
  when every copy is lost the scheduler recomputes it from the specification it
  keeps, as for any other task. Nothing is scattered.
- each unit is an ordinary task (``pure=False``) that the scheduler reruns
  elsewhere when its worker dies, up to ``distributed.scheduler.allowed-failures``
  times (default 3; a unit that kills every worker it runs on raises
  ``KilledWorker``).
- results come back in submission order, so they are identical to ``n_jobs=1``.

What a cluster cannot survive fails with :class:`ClusterLostError`, naming the
scheduler, instead of hanging: the client losing its scheduler (the futures are
cancelled at once), or no worker at all for ``wait_for_workers_timeout`` seconds
(the joblib Dask backend's setting, 10 s by default; pass
``parallel_config(backend="dask", wait_for_workers_timeout=60)`` to wait longer).

scikit-learn's own loops (``cross_val_score(..., n_jobs=-1)``, ``GridSearchCV``)
go through joblib's backend, not through this module. Importing the runtime
(any estimator module does) registers the joblib backend ``"localselect-dask"``
(:mod:`localselect._runtime._backend`; the backend is
:mod:`localselect._runtime._dask`): joblib's Dask backend with the scatter
replaced by data tasks, so those loops survive a lost worker too.
"""

from __future__ import annotations

import threading
import time
import uuid
import warnings
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError
from typing import Any

import joblib
from sklearn import get_config
from sklearn.utils.parallel import Parallel as _SklearnParallel
from sklearn.utils.parallel import delayed

from localselect._runtime._backend import BACKEND_NAME, register_backend

__all__ = ["BACKEND_NAME", "ClusterLostError", "Parallel", "delayed", "register_backend"]


#: How often (seconds) the client checks its cluster while it waits for results.
POLL_SECONDS = 1.0

#: Times a unit cancelled by the cluster (its inputs lost) is submitted again.
MAX_RESUBMITS = 3


class ClusterLostError(RuntimeError):
    """The Dask cluster running a parallel loop is gone: its scheduler, or every worker.

    Work already finished on the cluster is not kept by the estimator; rerun the
    fit once the cluster is back (``localselect bench`` resumes from its cache).
    """


def _dask_client(backend: Any) -> Any:
    """The ``distributed.Client`` of a joblib Dask backend, else None."""
    client = getattr(backend, "client", None)
    if client is None:
        return None
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - no Dask backend without distributed
        return None
    return client if isinstance(client, Client) else None


class Parallel(_SklearnParallel):
    """:class:`sklearn.utils.parallel.Parallel` that survives a lost Dask worker.

    Same arguments and results as scikit-learn's ``Parallel``. When joblib's
    active backend is a Dask backend, the units go straight to its
    ``dask.distributed`` client as recomputable tasks (see the module docstring);
    otherwise scikit-learn's ``Parallel`` runs them.
    """

    def __call__(self, iterable: Iterable) -> Any:
        client = _dask_client(self._backend)
        if client is None:
            return super().__call__(iterable)
        config = get_config()
        filters = list(warnings.filters)
        units = []
        for func, args, kwargs in iterable:
            if hasattr(func, "with_config_and_warning_filters"):
                func = func.with_config_and_warning_filters(config, filters)
            units.append((func, args, kwargs))
        run = _DaskRun(client, units, self._backend)
        if self.return_generator:
            return run.results()
        return list(run.results())


def _run_unit(func: Callable, args: list, kwargs: dict) -> Any:
    """One unit on a worker; its nested joblib loops go to the same cluster, resiliently."""
    with joblib.parallel_config(backend=BACKEND_NAME):
        return func(*args, **kwargs)


def _unit_name(func: Callable) -> str:
    inner = getattr(func, "function", func)
    return getattr(inner, "__name__", type(inner).__name__)


class _DaskRun:
    """Submit units to a client and collect their results in order, recovering lost work."""

    def __init__(self, client: Any, units: list[tuple], backend: Any) -> None:
        self.client = client
        self.units = units
        self.wait_timeout = float(getattr(backend, "wait_for_workers_timeout", 10) or 10)
        self.submit_kwargs = dict(getattr(backend, "submit_kwargs", {}) or {})
        self.submit_kwargs.pop("nesting_level", None)
        self.address = getattr(client.scheduler, "address", None) or "an unknown address"
        self.shared = self._shared_ids()
        self.data: dict[int, Any] = {}
        self.resubmits = 0

    # ------------------------------------------------------------ submission
    def _shared_ids(self) -> set[int]:
        from dask.sizeof import sizeof

        from localselect._runtime._dask import DATA_TASK_BYTES, SCALARS

        seen: dict[int, int] = {}
        big: set[int] = set()
        for _, args, kwargs in self.units:
            for value in (*args, *kwargs.values()):
                if isinstance(value, SCALARS):
                    continue
                seen[id(value)] = seen.get(id(value), 0) + 1
                if sizeof(value) >= DATA_TASK_BYTES:
                    big.add(id(value))
        return {key for key, count in seen.items() if count > 1} | big

    def _ship(self, value: Any) -> Any:
        """``value`` itself, or a data task holding it when it is shared or large."""
        from localselect._runtime._dask import identity

        if id(value) not in self.shared:
            return value
        future = self.data.get(id(value))
        if future is None or future.status in ("cancelled", "lost"):
            future = self.client.submit(
                identity, value, key=f"localselect-data-{uuid.uuid4().hex}", pure=False
            )
            self.data[id(value)] = future
        return future

    def _submit(self, index: int) -> Any:
        import dask

        func, args, kwargs = self.units[index]
        # Data embedded on purpose: once per value, recomputable by the scheduler.
        with dask.config.set({"distributed.admin.large-graph-warning-threshold": "64GiB"}):
            shipped_args = [self._ship(a) for a in args]
            shipped_kwargs = {k: self._ship(v) for k, v in kwargs.items()}
            return self.client.submit(
                _run_unit,
                func,
                shipped_args,
                shipped_kwargs,
                key=f"{_unit_name(func)}-{uuid.uuid4().hex}",
                pure=False,
                **self.submit_kwargs,
            )

    # ------------------------------------------------------------ collection
    def _lost(self, why: str) -> ClusterLostError:
        return ClusterLostError(
            f"The Dask cluster with scheduler {self.address} is lost: {why}. "
            "Finished units are not kept; rerun once the cluster is back "
            "(localselect bench resumes from its cache)."
        )

    def _disconnected(self) -> ClusterLostError:
        return self._lost(f"the client lost its connection (status {self.client.status!r})")

    def _count_retry(self, why: str) -> None:
        self.resubmits += 1
        if self.resubmits > MAX_RESUBMITS * len(self.units):
            raise self._lost(why)

    def _n_workers(self) -> int:
        try:
            return len(self.client.nthreads())
        except Exception:  # the scheduler is unreachable: report it as no worker
            return 0

    def results(self) -> Iterator[Any]:
        from distributed import rejoin, secede
        from distributed.worker import thread_state

        in_worker = hasattr(thread_state, "execution_state")
        if in_worker:
            secede()  # a unit waiting for its own units must not hold a worker thread
        futures: list[Any] = []
        try:
            futures.extend(self._submit(i) for i in range(len(self.units)))
            yield from self._collect(futures)
        finally:
            pending = [f for f in futures if f is not None and f.status == "pending"]
            if pending and self.client.status == "running":
                self.client.cancel(pending)
            self.data.clear()
            if in_worker:
                rejoin()

    def _collect(self, futures: list) -> Iterator[Any]:
        changed = threading.Event()

        def watch(future: Any) -> None:
            future.add_done_callback(lambda _: changed.set())

        for future in futures:
            watch(future)
        next_index = 0
        done: dict[int, Any] = {}
        no_worker_since: float | None = None
        while next_index < len(futures):
            changed.wait(POLL_SECONDS)
            changed.clear()
            if self.client.status != "running":
                raise self._disconnected()
            progressed = False
            for i in range(next_index, len(futures)):
                future = futures[i]
                if i in done or future.status == "pending":
                    continue
                if future.status == "finished":
                    try:
                        done[i] = future.result()
                    except (OSError, CancelledError) as exc:
                        # The connection broke while fetching: look again on the next poll
                        # (a lost scheduler shows as the client's status by then).
                        self._count_retry(f"fetching results kept failing ({exc!r})")
                        continue
                    progressed = True
                elif future.status == "error":
                    future.result()  # raises the unit's own exception (or KilledWorker)
                else:  # cancelled or lost: its inputs went with a worker
                    if self.client.status != "running":
                        raise self._disconnected()
                    self._count_retry("units were cancelled again and again")
                    futures[i] = self._submit(i)
                    watch(futures[i])
            while next_index in done:
                yield done.pop(next_index)
                futures[next_index] = None
                next_index += 1
            if progressed:
                no_worker_since = None
            elif self._n_workers() == 0:
                now = time.monotonic()
                no_worker_since = no_worker_since or now
                if now - no_worker_since > self.wait_timeout:
                    raise self._lost(f"no worker for {self.wait_timeout:g} s")
            else:
                no_worker_since = None
