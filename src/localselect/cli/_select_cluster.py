"""``select --cluster``: read, prepare, fit and answer a table that lives on a Dask cluster.

The table is read and prepared on the cluster
(:mod:`localselect.cli._cluster_io`). The fit: an estimator with a fit on
Dask collections (its declaration's ``collection_fit``; ``select --help``
lists them, from :func:`localselect._estimators.collection_fit_names`) is
fitted on the workers; any other is fitted in memory on a random sample of
``--sample`` rows (gathered on the client; said on the terminal), then answers
every row on the cluster. Progress: each stage (reading, scaling, fitting,
writing) is a status line and a step of the ``select --cluster`` progress
task, and a fit on collections reports its passes' blocks (bars on a
terminal). The outputs: ``selected_features/`` as Parquet partitions, one per
input partition, indexed by the row number in the input;
``importances.csv`` and ``importances.json`` from sums reduced on the
workers; ``model.skops``, the bundle ``select`` writes
(:func:`localselect.cli._model_io.write_model`), so ``predict`` with or
without ``--cluster`` applies it.
"""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localselect.cli._cluster_io import (
    clear_output,
    connect,
    feature_columns,
    prepared_pipeline,
    read_lazy,
)
from localselect.cli._errors import CLIError, note
from localselect.cli._methods import make_estimator, params_record, resolve_method
from localselect.cli._steps import write_json

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

__all__ = ["ROWS_FOLDER", "STAGES", "run_select_cluster"]

#: The folder of per-row answers ``select --cluster`` writes into ``--out``.
ROWS_FOLDER = "selected_features"

#: The stages of ``select --cluster``, each a status line and one step of its
#: progress task (the fit's own passes are progress tasks of the estimator).
STAGES = ("reading", "scaling", "fitting", "writing the per-row answers")


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
    from sklearn.pipeline import Pipeline

    from localselect._runtime import Reporter
    from localselect.cli._model_io import write_model
    from localselect.cli._progress import status

    for flag, given in (("--report", args.report), ("--stability", args.stability)):
        if given:
            raise CLIError(f"{flag} is not available with --cluster")
    cls = resolve_method(args.method)
    estimator = make_estimator(cls, args)
    out = Path(args.out)
    stages = Reporter(logging.getLogger("localselect.cli"), 0).task(
        len(STAGES), "select --cluster", unit="passes", quiet=True
    )
    with connect(args.cluster), stages:
        with status(console, f"{STAGES[0]} {args.input} on the cluster ..."):
            frame = read_lazy(args.input, args.na_values)
            features = feature_columns(frame, args)
            frame = frame.dropna(subset=[*features, args.target])
            stages.advance()
        with status(console, f"{STAGES[1]} on the cluster ..."):
            prep, n, head = prepared_pipeline(frame, features, scale=not args.no_scale)
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
    write_model(
        out,
        method=args.method,
        target=args.target,
        columns=features,
        feature_names=features,
        pipeline=Pipeline([*prep.steps, ("estimator", estimator)]),
        missing="drop",
    )
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

    out = Path(args.out)
    table.to_csv(out / "importances.csv", index=False)
    summary = {
        "method": args.method,
        "estimator": type(estimator).__name__,
        "params": params_record(estimator),
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
    write_json(out / "importances.json", summary)
    return summary
