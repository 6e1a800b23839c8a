"""Running blocks of work: the one place that turns ``n_jobs`` into threads or tasks.

Two ways, one meaning of ``n_jobs`` (scikit-learn's: ``None`` is 1 unless a
``joblib.parallel_config(n_jobs=...)`` context says otherwise, ``-1`` all
cores, see :func:`n_threads`):

* :func:`run_blocks` runs ``func(block)`` in this process, on a thread pool
  when ``n_jobs`` asks for more than one thread. It is for compiled kernels
  that release the GIL and numpy work on shared arrays: each block owns its
  outputs, so the result does not depend on the number of threads. A
  ``KeyboardInterrupt`` while waiting cancels the blocks not yet started and
  returns once the running ones end (each block is short). When the caller
  chose a joblib backend of their own (e.g. Dask, :func:`on_cluster`), the
  blocks may instead go to it as tasks (``remote=``).
* :func:`map_tasks` runs picklable tasks through joblib's active backend
  (processes by default, threads with ``prefer="threads"``, a Dask cluster
  inside ``parallel_config(backend="dask")``), with
  :class:`~localselect._runtime._cluster.Parallel` so that a lost Dask worker
  is recomputed.

No other module of localselect constructs a pool (``tests/test_runtime.py``
checks the source).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any

import joblib
from joblib.parallel import get_active_backend

from localselect._runtime._cluster import Parallel, delayed

__all__ = ["local_threads", "map_tasks", "n_threads", "on_cluster", "run_blocks"]

#: joblib's own backends; any other active backend is the caller's (e.g. Dask).
_OWN_BACKENDS = {"LokyBackend", "ThreadingBackend", "SequentialBackend", "MultiprocessingBackend"}


def n_threads(n_jobs: int | None) -> int:
    """The number of workers ``n_jobs`` asks for, scikit-learn's way.

    ``None`` means 1 unless inside ``joblib.parallel_config(n_jobs=...)``;
    ``-1`` all usable cores, ``-2`` all but one, and so on.

    Examples
    --------
    >>> n_threads(None), n_threads(1), n_threads(3)
    (1, 1, 3)
    """
    return max(1, int(joblib.effective_n_jobs(n_jobs)))


def on_cluster() -> bool:
    """Whether the caller chose a joblib backend other than joblib's own (e.g. Dask)."""
    backend, _ = get_active_backend()
    return type(backend).__name__ not in _OWN_BACKENDS


def local_threads() -> Any:
    """Context in which scikit-learn's fine-grained loops stay on this machine's threads.

    Neighbour queries (``NearestNeighbors(n_jobs=...).kneighbors``) prefer
    threads, but a ``parallel_config(backend="dask")`` context would send them
    to the cluster through joblib's scattering backend. Wrap such calls in
    ``with local_threads():``.
    """
    return joblib.parallel_config(backend="threading")


def run_blocks(
    func: Callable[[Any], Any],
    blocks: Sequence[Any],
    n_jobs: int | None,
    *,
    done: Callable[[Any, Any], None] | None = None,
    first_here: bool = False,
    remote: tuple[Callable[..., Any], tuple] | None = None,
) -> list:
    """``[func(block) for block in blocks]`` on ``n_threads(n_jobs)`` threads (or the cluster).

    Parameters
    ----------
    func : callable
        Called once per block; should release the GIL (compiled kernels,
        numpy) for the threads to run in parallel, and write only its own
        block's outputs.
    blocks : sequence
        The blocks, in the order of the returned results.
    n_jobs : int or None
        Threads (:func:`n_threads`).
    done : callable, optional
        ``done(block, result)``, called on this thread as each block finishes
        (in any order; e.g. to count progress or store a remote result).
    first_here : bool, default=False
        Run the first block on this thread before starting the others (it
        compiles, or loads, a kernel once instead of on every thread).
    remote : (callable, tuple), optional
        ``(task, shared)``: a picklable ``task(*shared, block)`` that returns
        what ``func(block)`` would write. When given and the caller chose a
        joblib backend of their own (:func:`on_cluster`, e.g. Dask) with
        ``n_jobs > 1``, the blocks are that backend's tasks (the ``shared``
        arguments travel once, :mod:`._cluster`), and ``done`` receives their
        results.

    Returns
    -------
    results : list
        ``func(block)`` (or ``remote(block)``) of each block, in block order.
    """
    threads = n_threads(n_jobs)
    results: list = [None] * len(blocks)
    if remote is not None and threads > 1 and on_cluster():
        task, shared = remote
        parts = map_tasks(task, ((*shared, b) for b in blocks), threads, generator=True)
        for k, part in enumerate(parts):
            results[k] = part
            if done is not None:
                done(blocks[k], part)
        return results
    start = 0
    if threads <= 1 or len(blocks) <= 1 or first_here:
        start = len(blocks) if threads <= 1 or len(blocks) <= 1 else 1
        for k in range(start):
            results[k] = func(blocks[k])
            if done is not None:
                done(blocks[k], results[k])
    if start == len(blocks):
        return results
    pool = ThreadPoolExecutor(min(threads, len(blocks) - start))
    try:
        pending = {pool.submit(func, blocks[k]): k for k in range(start, len(blocks))}
        waiting = set(pending)
        while waiting:
            finished, waiting = wait(waiting, return_when=FIRST_COMPLETED)
            for future in finished:
                k = pending[future]
                results[k] = future.result()
                if done is not None:
                    done(blocks[k], results[k])
    finally:  # on Ctrl-C: drop the blocks not started, let the running ones end
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def map_tasks(
    func: Callable[..., Any],
    arguments: Iterable[tuple],
    n_jobs: int | None,
    *,
    prefer: str | None = None,
    generator: bool = False,
) -> Any:
    """``func(*args)`` for each tuple of ``arguments``, through joblib's active backend.

    Parameters
    ----------
    func : callable
        A picklable function (it may run in another process or on a cluster).
    arguments : iterable of tuple
        Positional arguments of each task.
    n_jobs : int or None
        Workers, joblib's way (None: 1 unless a ``parallel_config`` says otherwise).
    prefer : {"threads", "processes"} or None
        joblib's soft hint for its default backend.
    generator : bool, default=False
        Return a generator of the results (in order) instead of a list.

    Returns
    -------
    results : list or generator
        The results in the order of ``arguments``.
    """
    run = Parallel(n_jobs=n_jobs, prefer=prefer, return_as="generator" if generator else "list")
    return run(delayed(func)(*args) for args in arguments)
