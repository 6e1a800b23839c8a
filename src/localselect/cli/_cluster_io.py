"""Data on a Dask cluster for ``select --cluster`` and ``predict --cluster``.

``--cluster tcp://host:8786`` connects to a running scheduler; ``--cluster
local:N`` starts a ``LocalCluster`` of ``N`` worker processes (one thread
each) for the run (:func:`connect`). ``--input`` is then a folder (its
``*.parquet``/``*.pq`` files, else its ``*.csv`` files), a glob
(``data/part-*.parquet``) or one file, read lazily with ``dask.dataframe``
(:func:`read_lazy`), indexed by the row number in the input (files in sorted
order): the table is never gathered on the client.

The preparation (:func:`prepared_pipeline`) is that of ``select`` restricted to
what a cluster computes in one pass: numeric feature columns
(:func:`feature_columns`), z-scored with the column means and standard
deviations reduced on the workers
(:func:`localselect._runtime._collections.summarise`; ``--no-scale`` keeps
them); rows with a missing value are dropped. Text and category columns are
refused (name them in ``--drop``, or encode them first). The per-row outputs
are Parquet partitions, one per input partition (:func:`clear_output` makes
room for them).
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localselect.cli._errors import CLIError

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "clear_output",
    "connect",
    "feature_columns",
    "input_files",
    "prepared_pipeline",
    "read_lazy",
]

_PARQUET = (".parquet", ".pq")


@contextlib.contextmanager
def connect(address: str) -> Iterator[Any]:
    """A ``distributed.Client`` for ``address`` (``local:N`` starts a ``LocalCluster``)."""
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:
        raise CLIError('--cluster needs Dask: pip install "localselect[dask]"') from exc
    if address.startswith("local:"):
        count = address.partition(":")[2]
        if not count.isdigit() or int(count) < 1:
            raise CLIError(f"--cluster {address!r}: write local:N with N >= 1 workers")
        cluster = LocalCluster(
            n_workers=int(count),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=logging.ERROR,
        )
        with cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(address, timeout="20s")
    except OSError as exc:
        raise CLIError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from exc
    with client:
        yield client


def input_files(spec: str) -> tuple[list[str], str]:
    """The files of ``--input`` (a folder, glob or file), sorted, and their kind."""
    path = Path(spec)
    if path.is_dir():
        files = sorted(str(f) for f in path.iterdir() if f.suffix.lower() in _PARQUET)
        if not files:
            files = sorted(str(f) for f in path.glob("*.csv"))
    else:
        files = sorted(glob.glob(spec)) if any(c in spec for c in "*?[") else [spec]
        files = [f for f in files if Path(f).is_file()]
    if not files:
        raise CLIError(f"--input {spec!r} names no Parquet or CSV file (a folder, glob or file)")
    kinds = {"parquet" if Path(f).suffix.lower() in _PARQUET else "csv" for f in files}
    if len(kinds) > 1:
        raise CLIError(f"--input {spec!r} mixes Parquet and CSV files; name one kind")
    return files, kinds.pop()


def clear_output(folder: Path) -> None:
    """Remove the Parquet partitions of an earlier run; refuse a folder holding anything else."""
    import shutil

    if not folder.exists():
        return
    ours = {".parquet", ".crc"}
    if not folder.is_dir() or any(
        f.suffix not in ours and f.name not in {"_metadata", "_common_metadata"}
        for f in folder.iterdir()
    ):
        raise CLIError(
            f"{str(folder)!r} exists and holds other files than Parquet partitions; "
            "give a new or empty folder"
        )
    shutil.rmtree(folder)


def _number_rows(part: pd.DataFrame, offsets: Any, partition_info: Any = None) -> pd.DataFrame:
    """The rows of one partition indexed by their row number in the whole input."""
    import numpy as np

    start = int(offsets[partition_info["number"]]) if partition_info else 0
    out = part.copy()
    out.index = np.arange(start, start + len(part), dtype=np.int64)
    out.index.name = "row"
    return out


def read_lazy(spec: str, na_values: list[str]) -> Any:
    """``--input`` as a dask dataframe indexed by row number (one pass counts the rows)."""
    import dask.dataframe as dd
    import numpy as np

    files, kind = input_files(spec)
    try:
        if kind == "parquet":
            frame = dd.read_parquet(files)
        else:
            frame = dd.read_csv(files, na_values=na_values or None, assume_missing=True)
    except (ValueError, OSError) as exc:
        raise CLIError(f"cannot read {spec!r}: {exc}") from exc
    frame.columns = [str(c) for c in frame.columns]
    lengths = np.asarray(frame.map_partitions(len).compute(), dtype=np.int64)
    if lengths.sum() == 0:
        raise CLIError(f"--input {spec!r} has no rows")
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    meta = frame._meta.copy()
    meta.index = meta.index.astype(np.int64).rename("row")
    return frame.map_partitions(_number_rows, offsets, meta=meta)


def feature_columns(frame: Any, args: argparse.Namespace) -> list[str]:
    """The numeric feature columns; a usage error for the others."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    from localselect.cli._table import check_columns

    check_columns(frame._meta, [args.target, *args.drop], "column")
    if args.categorical:
        raise CLIError("--categorical is not available with --cluster; encode those columns first")
    features = [c for c in frame.columns if c != args.target and c not in args.drop]
    other = [
        c
        for c in features
        if not is_numeric_dtype(frame._meta[c]) or is_bool_dtype(frame._meta[c])
    ]
    if other:
        raise CLIError(
            f"with --cluster every feature column must be numeric; {', '.join(other[:5])} "
            "is not: name it in --drop or encode it first"
        )
    if not features:
        raise CLIError("no feature columns left besides the target")
    return features


def prepared_pipeline(
    frame: Any, features: list[str], scale: bool
) -> tuple[Any, int, pd.DataFrame]:
    """``select``'s preparation, fitted with statistics reduced on the workers.

    The row count and the column means and variances come from one summary pass
    (:func:`localselect._runtime._collections.summarise_columns`: the first pass
    of every fit on a collection, without counting the rows first; the population
    variance is ``m2 / n``). Returns
    the fitted preparation, the number of rows and the first rows (for the
    types of the lazy results).
    """
    import numpy as np
    from sklearn.pipeline import Pipeline

    from localselect._runtime._collections import summarise_columns
    from localselect.cli._table import preparation_steps

    X = frame[features]
    stats = summarise_columns(X)
    n = int(stats.n)
    if n == 0:
        raise CLIError("no rows left after dropping rows with missing values")
    prep = Pipeline(preparation_steps(features, [], scale=scale))
    head = X.head(16, npartitions=-1)
    prep.fit(head)
    if scale:
        scaler = prep.named_steps["prepare"].named_transformers_["num"]
        var = np.asarray(stats.m2, dtype=np.float64) / n
        scaler.mean_ = np.asarray(stats.mean, dtype=np.float64)
        scaler.var_ = var
        scaler.scale_ = np.where(var > 0, np.sqrt(var), 1.0)
        scaler.n_samples_seen_ = n
    return prep, n, head
