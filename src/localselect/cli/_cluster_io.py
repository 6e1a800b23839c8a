"""``select`` and ``predict`` with ``--cluster``: a folder or glob of files read on a Dask cluster.

``--cluster tcp://host:8786`` connects to a running scheduler; ``--cluster
local:N`` starts a ``LocalCluster`` of ``N`` worker processes (one thread
each) for the run. ``--input`` is then a folder (its ``*.parquet``/``*.pq``
files, else its ``*.csv`` files), a glob (``data/part-*.parquet``) or one
file, read lazily with ``dask.dataframe``: the table is never gathered on
the client.

The preparation is that of ``select`` restricted to what a cluster computes
in one pass: numeric feature columns, z-scored with the column means and
standard deviations reduced on the workers (``--no-scale`` keeps them); rows
with a missing value are dropped. Text and category columns are refused (name
them in ``--drop``, or encode them first). The saved model is the same
bundle as ``select`` writes, so ``predict`` with or without ``--cluster``
applies it.

The fit: an estimator with a fit on Dask collections (``FisherScore``,
``MRMR``: see ``localselect.base.collection_fit_names``) is fitted on the
workers; any other is fitted in memory on a random sample of ``--sample`` rows
(gathered on the client; said on the terminal), then answers every row on the
cluster. Progress: each stage (reading, scaling, fitting, writing) is a status
line and a step of the ``select --cluster`` progress task, and a fit on
collections reports its passes' blocks (bars on a terminal). The outputs:
``selected_features/`` (``select``) or ``--out``
(``predict``) as Parquet partitions, one per input partition, indexed by the
row number in the input (files in sorted order); ``importances.csv`` and
``importances.json`` from sums reduced on the workers; ``model.skops``.
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localselect.cli._errors import CLIError, note

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

__all__ = [
    "add_cluster_arguments",
    "clear_output",
    "connect",
    "input_files",
    "read_lazy",
    "run_predict_cluster",
    "run_select_cluster",
]

#: Rows of the in-memory sample for estimators without a fit on Dask collections.
DEFAULT_SAMPLE = 100_000

#: The folder of per-row answers ``select --cluster`` writes into ``--out``.
ROWS_FOLDER = "selected_features"

#: The stages of ``select --cluster``, each a status line and one step of its
#: progress task (the fit's own passes are progress tasks of the estimator).
STAGES = ("reading", "scaling", "fitting", "writing the per-row answers")

_PARQUET = (".parquet", ".pq")


def add_cluster_arguments(p: argparse.ArgumentParser, *, sample: bool) -> None:
    """``--cluster`` (and for ``select``, ``--sample``)."""
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="run on a Dask cluster: tcp://host:8786 (a running scheduler) or local:N (a "
        "LocalCluster of N worker processes); --input may then be a folder or glob of "
        "Parquet or CSV files, read lazily, and the per-row outputs are Parquet partitions",
    )
    if sample:
        p.add_argument(
            "--sample",
            type=int,
            default=DEFAULT_SAMPLE,
            metavar="N",
            help="with --cluster: rows to fit a method without a Dask fit on, in memory "
            "(default %(default)s; FisherScore and MRMR fit on the whole table on the workers)",
        )


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


def _feature_columns(frame: Any, args: argparse.Namespace) -> list[str]:
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


def _prepared_pipeline(
    frame: Any, features: list[str], scale: bool
) -> tuple[Any, int, pd.DataFrame]:
    """``select``'s preparation, fitted with statistics reduced on the workers.

    Returns the fitted preparation, the number of rows and the first rows (for
    the types of the lazy results).
    """
    import dask
    import numpy as np
    from sklearn.pipeline import Pipeline

    from localselect.cli._table import preparation_steps

    X = frame[features]
    n, mean, var = dask.compute(X.shape[0], X.mean(), X.var(ddof=0))
    if n == 0:
        raise CLIError("no rows left after dropping rows with missing values")
    prep = Pipeline(preparation_steps(features, [], scale=scale))
    head = X.head(16, npartitions=-1)
    prep.fit(head)
    if scale:
        scaler = prep.named_steps["prepare"].named_transformers_["num"]
        var = np.asarray(var, dtype=np.float64)
        scaler.mean_ = np.asarray(mean, dtype=np.float64)
        scaler.var_ = var
        scaler.scale_ = np.where(var > 0, np.sqrt(var), 1.0)
        scaler.n_samples_seen_ = int(n)
    return prep, int(n), head


def _model_block(part: pd.DataFrame, prep: Any) -> pd.DataFrame:
    return prep.transform(part)


def _fit(estimator: Any, X_model: Any, y: Any, n: int, sample: int, seed: Any) -> str:
    """Fit on the workers (a Dask fit) or on a sample in memory; says which."""
    from localselect._estimators import collection_fit

    name = type(estimator).__name__
    if collection_fit(type(estimator)) is not None:
        estimator.fit(X_model, y)
        return f"fitted on all {n} rows on the cluster"
    if sample < 1:
        raise CLIError("--sample must be at least 1")
    frac = min(1.0, sample / n)
    rows = X_model.assign(__y__=y).sample(frac=frac, random_state=seed).compute()
    note(
        f"{name} has no fit on Dask collections: fitting it in memory on a random sample of "
        f"{len(rows)} of the {n} rows (--sample), then answering every row on the cluster"
    )
    estimator.fit(rows.drop(columns="__y__"), rows["__y__"].to_numpy())
    return f"fitted in memory on a sample of {len(rows)} of {n} rows"


def _answer_block(part: pd.DataFrame, prep: Any, estimator: Any, names: list[str]) -> Any:
    """One partition's answer: the 0/1 subsets, n_selected, selected and the relevance."""
    import numpy as np

    from localselect.cli._answers import row_masks, row_relevance
    from localselect.cli._columns import selected_frame

    X_model = prep.transform(part)
    masks = row_masks(estimator, X_model, len(part))
    if masks is None:
        masks = np.zeros((len(part), len(names)), dtype=bool)
    out = selected_frame(masks, names, part.index)
    relevance = row_relevance(estimator, X_model, masks)
    if relevance is None:
        relevance = masks.astype(np.float64)
    for j, name in enumerate(names):
        out[f"relevance__{name}"] = relevance[:, j]
    return out


def run_select_cluster(args: argparse.Namespace, console: Console) -> int:
    """``select --cluster``: read, prepare, fit and answer on the cluster (module docstring)."""
    from localselect._runtime import Reporter
    from localselect.cli._progress import status
    from localselect.cli._select import _make_estimator, resolve_method

    for flag, given in (("--report", args.report), ("--stability", args.stability)):
        if given:
            raise CLIError(f"{flag} is not available with --cluster")
    cls = resolve_method(args.method)
    estimator = _make_estimator(cls, args)
    out = Path(args.out)
    stages = Reporter(logging.getLogger("localselect.cli"), 0).task(
        len(STAGES), "select --cluster", unit="passes", quiet=True
    )
    with connect(args.cluster), stages:
        with status(console, f"{STAGES[0]} {args.input} on the cluster ..."):
            frame = read_lazy(args.input, args.na_values)
            features = _feature_columns(frame, args)
            frame = frame.dropna(subset=[*features, args.target])
            stages.advance()
        with status(console, f"{STAGES[1]} on the cluster ..."):
            prep, n, head = _prepared_pipeline(frame, features, scale=not args.no_scale)
            meta = prep.transform(head).iloc[:0]
            X_model = frame[features].map_partitions(_model_block, prep, meta=meta)
            stages.advance()
        with status(console, f"{STAGES[2]} {type(estimator).__name__} on {n} rows ..."):
            start = time.perf_counter()
            how = _fit(estimator, X_model, frame[args.target], n, args.sample, args.random_state)
            seconds = time.perf_counter() - start
            stages.advance()
        with status(console, f"{STAGES[3]} to {out / ROWS_FOLDER} ..."):
            written = _write_rows(out, frame[features], prep, estimator, n, head)
            stages.advance()
    summary = _summary(args, estimator, n, seconds, how, written)
    _save(out, args, prep, estimator, features)
    console.print(
        f"{type(estimator).__name__} {how} in {seconds:.2f} s; top features: "
        f"{', '.join(f['feature'] for f in summary['features'][:5])}",
        highlight=False,
    )
    console.print(f"wrote {ROWS_FOLDER}/, importances.csv, importances.json, model.skops to {out}")
    return 0


def _write_rows(
    out: Path, X: Any, prep: Any, estimator: Any, n: int, head: pd.DataFrame
) -> pd.DataFrame:
    """Write the per-row answers as Parquet partitions; the per-feature table from their sums."""
    import dask
    import numpy as np

    from localselect.cli._answers import feature_stats_table

    names = list(X.columns)
    meta = _answer_block(head, prep, estimator, names).iloc[:0]
    answers = X.map_partitions(_answer_block, prep, estimator, names, meta=meta)
    relevance = [f"relevance__{c}" for c in names]
    folder = out / ROWS_FOLDER
    clear_output(folder)
    out.mkdir(parents=True, exist_ok=True)
    keep = [c for c in meta.columns if c not in relevance]
    writing = answers[keep].to_parquet(folder, compute=False, write_index=True)
    _, sums = dask.compute(writing, answers[names + relevance].sum())
    sums = np.asarray(sums, dtype=np.float64)
    width = len(names)
    return feature_stats_table(
        estimator, names, sums[:width] / n, sums[:width] > 0, sums[width:] / n
    )


def _summary(
    args: argparse.Namespace,
    estimator: Any,
    n: int,
    seconds: float,
    how: str,
    table: pd.DataFrame,
) -> dict[str, Any]:
    """``importances.csv`` and ``importances.json`` written; the summary returned."""
    from localselect.cli._columns import json_records
    from localselect.cli._select import _jsonable

    out = Path(args.out)
    table.to_csv(out / "importances.csv", index=False)
    summary = {
        "method": args.method,
        "estimator": type(estimator).__name__,
        "params": {k: _jsonable(v) for k, v in estimator.get_params(deep=False).items()},
        "input": str(args.input),
        "target": args.target,
        "cluster": args.cluster,
        "fit": how,
        "n_rows_used": n,
        "fit_seconds": seconds,
        "relevance_scope": table.attrs["relevance_scope"],
        "importance_source": table.attrs["importance_source"],
        "features": json_records(table),
    }
    text = json.dumps(summary, indent=2, allow_nan=False)
    (out / "importances.json").write_text(text + "\n")
    return summary


def _save(out: Path, args: argparse.Namespace, prep: Any, estimator: Any, names: list) -> None:
    """``model.skops``: the bundle ``select`` saves, so ``predict`` applies it either way."""
    from sklearn.base import is_classifier
    from sklearn.pipeline import Pipeline

    import localselect
    from localselect.cli._model_io import MODEL_FILE, MODEL_FORMAT, save_model

    bundle = {
        "format": MODEL_FORMAT,
        "localselect": localselect.__version__,
        "method": args.method,
        "target": args.target,
        "columns": list(names),
        "feature_names": list(names),
        "classifier": is_classifier(estimator),
        "missing": "drop",
        "pipeline": Pipeline([*prep.steps, ("estimator", estimator)]),
    }
    save_model(bundle, out / MODEL_FILE)


def _predict_block(part: pd.DataFrame, bundle: dict[str, Any], per_level: bool) -> Any:
    from localselect.cli._predict import predict_rows

    return predict_rows(bundle, part, per_level=per_level)


def run_predict_cluster(args: argparse.Namespace, console: Console) -> int:
    """``predict --cluster``: the saved model applied per partition, written as Parquet."""
    from localselect.cli._predict import load_bundle
    from localselect.cli._progress import status
    from localselect.cli._table import check_columns

    if not args.out:
        raise CLIError("predict --cluster writes Parquet partitions: give --out FOLDER")
    bundle = load_bundle(Path(args.model))
    with connect(args.cluster), status(console, f"predicting {args.input} on the cluster ..."):
        frame = read_lazy(args.input, args.na_values)
        check_columns(frame._meta, bundle["columns"], "feature")
        X = frame[bundle["columns"]].dropna()
        sample = X.head(8, npartitions=-1)
        if len(sample) == 0:
            raise CLIError("every row has a missing value; impute them first")
        meta = _predict_block(sample, bundle, args.per_level).iloc[:0]
        rows = X.map_partitions(_predict_block, bundle, args.per_level, meta=meta)
        folder = Path(args.out)
        clear_output(folder)
        rows.to_parquet(folder, write_index=True)
    console.print(f"wrote the per-row predictions to {folder} (Parquet partitions)")
    return 0
