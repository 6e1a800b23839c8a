"""Data on a Dask cluster: dask arrays and dataframes as row blocks, reduced on the workers.

The task backend (:mod:`._cluster`, :mod:`._dask`) ships in-memory data to a
cluster; this module works on data that already lives there (a
``dask.array`` or ``dask.dataframe``, e.g. read lazily from Parquet files) and
never gathers it:

* :func:`is_collection`: whether an object is a Dask collection, without
  importing Dask when the caller never did;
* :func:`row_blocks`: ``X`` (and ``y``) as one float64 dask array chunked by
  rows only, with ``y`` aligned to its blocks and the global row offset of
  every block (unknown block lengths are counted on the blocks themselves, one
  integer each, in one pass over ``X`` and ``y``);
* :func:`reduce_blocks`: ``per_block(x, y, offset, *shared)`` on every block
  (on the workers), its results merged by ``combine`` in a tree of fan-in
  ``split_every`` (on the workers too): only the final, small result reaches
  the client;
* :func:`summarise`: the first pass every fit on a collection makes (row
  count, column minimum, maximum, mean and centred sum of squares merged by
  Chan et al.'s pairwise update, non-finite cells, the labels of ``y`` and
  their counts);
* :func:`map_rows`: a per-row answer (``predict``, ``transform``, ...)
  computed block by block (``map_blocks`` / ``map_partitions``), returned as a
  dask collection.

Nothing here imports the rest of localselect; Dask is imported only when a
function receives a collection.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

__all__ = [
    "RowBlocks",
    "Summary",
    "is_collection",
    "map_rows",
    "reduce_blocks",
    "row_blocks",
    "summarise",
    "summarise_columns",
]

#: Fan-in of the tree reductions (results merged per task).
SPLIT_EVERY = 8


def is_collection(obj: Any) -> bool:
    """Whether ``obj`` is a Dask collection (array, dataframe, series, delayed).

    Dask is not imported: if the caller never imported it, nothing is a collection.
    """
    if "dask" not in sys.modules:
        return False
    import dask

    return bool(dask.is_dask_collection(obj))


class RowBlocks(NamedTuple):
    """``X`` and ``y`` of a fit on a cluster, cut into the same row blocks."""

    X: Any
    """Dask array (n_samples, n_features), float64, one chunk across the columns."""
    y: Any
    """Dask array (n_samples,) with ``X``'s row chunks, or None."""
    offsets: np.ndarray
    """Global index of the first row of each block."""
    n_samples: int
    feature_names: np.ndarray | None
    """Column names of a dataframe when they are all strings (scikit-learn's rule), else None."""


def _as_array(obj: Any) -> Any:
    """A dask array of a dask dataframe, series or array (row counts possibly unknown)."""
    import dask.array as da

    if isinstance(obj, da.Array):
        return obj
    if hasattr(obj, "to_dask_array"):
        return obj.to_dask_array()
    raise ValueError(
        f"Expected a dask array, dataframe or series; got {type(obj).__name__}. "
        "Pass dask.array / dask.dataframe collections (or call .compute() on small data)."
    )


def _block_rows(block: np.ndarray) -> np.ndarray:
    return np.array([block.shape[0]], dtype=np.int64)


def _known_rows(*arrays: Any) -> list[Any]:
    """The arrays with their row chunks known, counted in one pass over all of them.

    The counts come from each array's own blocks: a dataframe's partitions can
    be fused differently once columns are projected (``dd.read_parquet`` of
    small files), so lengths counted on the dataframe need not fit the blocks
    of ``to_dask_array()``.
    """
    import dask
    import dask.array as da

    unknown = [i for i, a in enumerate(arrays) if any(np.isnan(c) for c in a.chunks[0])]
    counts = [
        arrays[i].map_blocks(
            _block_rows, dtype=np.int64, chunks=((1,) * arrays[i].numblocks[0],),
            drop_axis=list(range(1, arrays[i].ndim)),
        )
        for i in unknown
    ]  # fmt: skip
    out = list(arrays)
    for i, sizes in zip(unknown, dask.compute(*counts), strict=True):
        arr = arrays[i]
        chunks = (tuple(int(c) for c in sizes), *arr.chunks[1:])
        out[i] = da.Array(arr.dask, arr.name, chunks=chunks, dtype=arr.dtype)
    return out


def row_blocks(X: Any, y: Any = None, *, dtype: Any = np.float64) -> RowBlocks:
    """``X`` and ``y`` as aligned row blocks (see :class:`RowBlocks`).

    Parameters
    ----------
    X : dask array or dask dataframe of shape (n_samples, n_features)
    y : dask array, dask series, ndarray or None
        Rechunked to ``X``'s row blocks when its own differ (``y`` is one column):
        ``X`` and ``y`` taken from one dataframe may be partitioned differently
        (``dd.read_parquet`` fuses small files once columns are projected).
    dtype : dtype, default=float64
        Type of ``X``'s blocks; None keeps it.

    Returns
    -------
    blocks : RowBlocks
    """
    import dask.array as da

    names = None
    columns = getattr(X, "columns", None)
    if columns is not None and all(isinstance(c, str) for c in columns):
        names = np.asarray(list(columns), dtype=object)
    arr = _as_array(X)
    if arr.ndim != 2:
        raise ValueError(f"X must be 2-dimensional (n_samples, n_features); got {arr.ndim}.")
    target = None
    if y is not None:
        target = _as_array(y) if is_collection(y) else da.from_array(np.asarray(y))
        arr, target = _known_rows(arr, target)
        if target.ndim == 2 and target.shape[1] == 1:
            target = target[:, 0]
        if target.ndim != 1 or target.shape[0] != arr.shape[0]:
            raise ValueError(
                f"y must be one column of {arr.shape[0]} values (the rows of X); "
                f"got shape {target.shape}."
            )
    else:
        (arr,) = _known_rows(arr)
    arr = arr.rechunk({1: -1})
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
    if target is not None and target.chunks[0] != arr.chunks[0]:
        target = target.rechunk({0: arr.chunks[0]})
    sizes = np.asarray(arr.chunks[0], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    return RowBlocks(arr, target, offsets, int(sizes.sum()), names)


def _combine_all(combine: Callable[[Any, Any], Any], parts: Sequence[Any]) -> Any:
    out = parts[0]
    for part in parts[1:]:
        out = combine(out, part)
    return out


def reduce_blocks(
    blocks: RowBlocks,
    per_block: Callable[..., Any],
    combine: Callable[[Any, Any], Any],
    *shared: Any,
    split_every: int = SPLIT_EVERY,
    name: str = "localselect-reduce",
    log: Any = None,
) -> Any:
    """``per_block`` on every row block, merged by ``combine`` in a tree, on the workers.

    Parameters
    ----------
    blocks : RowBlocks
    per_block : callable
        ``per_block(x, y, offset, *shared)`` for a block's rows ``x`` (ndarray),
        its targets ``y`` (None without them) and the global index ``offset`` of
        its first row. Module-level (the workers import it).
    combine : callable
        ``combine(a, b)``: two partial results into one; associative. Merges
        run in block order (left to right), so the result does not depend on
        which worker computed what.
    *shared : object
        Arguments every block receives, shipped once (one task each).
    split_every : int, default=8
        Partial results merged per task.
    name : str
        Prefix of the task keys.
    log : Reporter or None
        The fit's reporter: the blocks done are counted as a progress task
        (``log.task``; the CLI draws it as a bar), on a ``distributed`` client
        or Dask's local schedulers. Counting never changes the result.

    Returns
    -------
    result : object
        The merged result, computed on the cluster; only it reaches the client.
    """
    import dask

    xs = blocks.X.to_delayed().ravel()
    ys = blocks.y.to_delayed().ravel() if blocks.y is not None else [None] * len(xs)
    args = [dask.delayed(value, name=f"{name}-shared-{dask.base.tokenize(value)}")
            if isinstance(value, np.ndarray) else value for value in shared]  # fmt: skip
    step = dask.delayed(per_block, pure=True)
    # Keys name everything a block's result depends on: two passes over the same
    # blocks with different shared arguments (the narrowing brackets of an exact
    # quantile, say) must never share a key, or the scheduler hands back a stale result.
    call = dask.base.tokenize(per_block, combine, *shared)
    parts = [
        step(x, y, int(offset), *args,
             dask_key_name=f"{name}-block-{i}-{dask.base.tokenize(x, y, int(offset), call)}")
        for i, (x, y, offset) in enumerate(zip(xs, ys, blocks.offsets, strict=True))
    ]  # fmt: skip
    if log is None:
        return _tree(parts, combine, split_every, name).compute()
    what = f"{name.removeprefix('localselect-')} blocks"
    with log.task(len(parts), what, unit="blocks") as task:
        return _compute_counted(parts, combine, split_every, name, task)


def _tree(parts: list, combine: Callable, split_every: int, name: str) -> Any:
    """The partial results merged in a tree of fan-in ``split_every``, in block order."""
    import dask

    merge = dask.delayed(_combine_all, pure=True)
    level = 0
    while len(parts) > 1:
        parts = [
            merge(combine, parts[i : i + split_every],
                  dask_key_name=f"{name}-merge{level}-{i}-"
                                f"{dask.base.tokenize(combine, parts[i : i + split_every])}")
            for i in range(0, len(parts), split_every)
        ]  # fmt: skip
        level += 1
    return parts[0]


def _compute_counted(parts: list, combine: Callable, split_every: int, name: str, task) -> Any:
    """The tree of :func:`reduce_blocks` computed with ``task.advance()`` per block done.

    On a ``distributed`` client the blocks are submitted as futures (their
    results are small) and the tree merges them as they arrive; on Dask's
    local schedulers a callback counts the block tasks.
    """
    try:
        from distributed import as_completed, get_client

        client = get_client()
    except (ImportError, ValueError):
        client = None
    if client is None:
        from dask.callbacks import Callback

        prefix = f"{name}-block-"

        def posttask(key, result, dsk, state, worker_id):
            if str(key).startswith(prefix):
                task.advance()

        with Callback(posttask=posttask):
            return _tree(parts, combine, split_every, name).compute()
    futures = client.compute(parts)
    final = client.compute(_tree([_delayed_future(f) for f in futures], combine,
                                 split_every, name))  # fmt: skip
    for _ in as_completed(futures):
        task.advance()
    return client.gather(final)


def _delayed_future(future: Any) -> Any:
    import dask

    return dask.delayed(future)


class Summary(NamedTuple):
    """The first pass of a fit on a collection (:func:`summarise`)."""

    n: int
    lo: np.ndarray
    hi: np.ndarray
    mean: np.ndarray
    m2: np.ndarray
    """Centred sum of squares per column: ``m2 / n`` is the population variance."""
    nonfinite: int
    labels: dict
    """Label -> count of ``y`` (empty when ``y`` is continuous or absent)."""
    continuous: bool
    """``y`` holds floats that are not all integers."""


def _summarise_block(x: np.ndarray, y: Any, offset: int) -> Summary:
    n, p = x.shape
    if n == 0:
        empty = np.zeros(p)
        return Summary(0, empty + np.inf, empty - np.inf, empty, empty, 0, {}, False)
    mean = x.mean(axis=0)
    m2 = ((x - mean) ** 2).sum(axis=0)
    nonfinite = int(np.size(x) - np.isfinite(x).sum())
    labels: dict = {}
    continuous = False
    if y is not None:
        y = np.asarray(y)
        continuous = y.dtype.kind == "f" and bool(np.any(y != np.round(y)))
        if not continuous:
            values, counts = np.unique(y, return_counts=True)
            labels = dict(zip(values.tolist(), counts.tolist(), strict=True))
    return Summary(n, x.min(axis=0), x.max(axis=0), mean, m2, nonfinite, labels, continuous)


def _merge_summaries(a: Summary, b: Summary) -> Summary:
    """Chan, Golub and LeVeque's pairwise update of counts, means and centred sums."""
    if a.n == 0 or b.n == 0:
        first, second = (b, a) if a.n == 0 else (a, b)
        labels = dict(first.labels)
        for key, count in second.labels.items():
            labels[key] = labels.get(key, 0) + count
        return first._replace(
            labels=labels,
            continuous=a.continuous or b.continuous,
            nonfinite=a.nonfinite + b.nonfinite,
        )
    n = a.n + b.n
    delta = b.mean - a.mean
    mean = a.mean + delta * (b.n / n)
    m2 = a.m2 + b.m2 + delta**2 * (a.n * b.n / n)
    continuous = a.continuous or b.continuous
    labels = {} if continuous else dict(a.labels)
    if not continuous:
        for key, count in b.labels.items():
            labels[key] = labels.get(key, 0) + count
    return Summary(
        n,
        np.minimum(a.lo, b.lo),
        np.maximum(a.hi, b.hi),
        mean,
        m2,
        a.nonfinite + b.nonfinite,
        labels,
        continuous,
    )


def summarise(blocks: RowBlocks, log: Any = None) -> Summary:
    """Row count, column range, mean, centred sum of squares and labels, on the workers."""
    return reduce_blocks(
        blocks, _summarise_block, _merge_summaries, name="localselect-summary", log=log
    )


def summarise_columns(X: Any, log: Any = None) -> Summary:
    """:func:`summarise` of ``X`` alone, in one pass over its blocks.

    A summary does not read the blocks' row offsets, so the rows of each block
    are not counted first (a dataframe's partitions have unknown lengths after
    a filter such as ``dropna``, and counting them is a pass of its own):
    :func:`row_blocks` would read the data twice.

    Parameters
    ----------
    X : dask array or dask dataframe of shape (n_samples, n_features)
    log : Reporter or None
        As for :func:`reduce_blocks`.

    Returns
    -------
    summary : Summary
        The same values as ``summarise(row_blocks(X), log)``.
    """
    arr = _as_array(X).rechunk({1: -1})
    if arr.dtype != np.float64:
        arr = arr.astype(np.float64)
    # offsets left at 0 and the row count unknown (-1): the summary reads neither
    blocks = RowBlocks(arr, None, np.zeros(arr.numblocks[0], dtype=np.int64), -1, None)
    return summarise(blocks, log)


def _rows_block(block: Any, func: Callable, kind: str, columns: Any) -> Any:
    """One block's answer; a pandas partition gives a pandas answer with its index."""
    out = func(block)
    if columns is None:
        return out
    import pandas as pd

    if kind == "vector":
        return pd.Series(np.asarray(out), index=block.index, name=columns)
    return pd.DataFrame(np.asarray(out), index=block.index, columns=columns)


def map_rows(
    func: Callable[[Any], Any], X: Any, *, kind: str, dtype: Any, columns: Sequence[Any]
) -> Any:
    """``func`` on every row block of ``X``, as a lazy collection of the same rows.

    Parameters
    ----------
    func : callable
        Rows (an ndarray block, or a pandas partition) -> their answer: an
        array of shape ``(rows, len(columns))`` (``kind="matrix"``) or ``(rows,)``
        (``kind="vector"``).
    X : dask array or dask dataframe of shape (n_samples, n_features)
    kind : {"matrix", "vector"}
    dtype : dtype
        Type of the answer.
    columns : sequence
        Columns of a matrix answer (its width); for a dataframe ``X`` they
        name the result's columns (a vector answer is a series named
        ``"prediction"``).

    Returns
    -------
    answer : dask array, or dask dataframe / series for a dataframe ``X``
        Computed block by block when the caller computes or writes it; the
        rows are never gathered here.
    """
    import dask.array as da

    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-dimensional; got {X.ndim} dimensions.")
        X = X.rechunk({1: -1})
        if kind == "vector":
            return X.map_blocks(
                _rows_block, func, kind=kind, columns=None, dtype=dtype, drop_axis=1,
                chunks=(X.chunks[0],),
            )  # fmt: skip
        return X.map_blocks(
            _rows_block, func, kind=kind, columns=None, dtype=dtype,
            chunks=(X.chunks[0], (len(columns),)),
        )  # fmt: skip
    if not hasattr(X, "map_partitions"):
        raise ValueError(f"Expected a dask array or dataframe; got {type(X).__name__}.")
    import pandas as pd

    if kind == "vector":
        meta: Any = pd.Series(np.empty(0, dtype=dtype), name="prediction")
        name: Any = "prediction"
    else:
        name = list(columns)
        meta = pd.DataFrame(np.empty((0, len(name)), dtype=dtype), columns=name)
    return X.map_partitions(_rows_block, func, kind, name, meta=meta)
