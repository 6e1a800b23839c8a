"""``localselect select``: the library on a user's CSV or Parquet file.

``select`` reads a table, prepares it, fits a method and writes into ``--out``:

* ``selected_features.csv``: one row per sample used (its row number in the
  input), a 0/1 column per feature column of the input, ``n_selected`` and
  ``selected`` (names); a global selector's subset is repeated on every row.
  The subsets follow the per-method definitions of :mod:`localselect.base`
  (a column is selected when any of its one-hot levels is:
  :mod:`localselect.cli._columns`), and every other output (importances,
  summary line, report figures) is computed from them;
* ``importances.csv`` and ``importances.json``: per column, the importance
  (a local selector's selection frequency across rows; a global one's
  ``feature_importances_``), the selection frequency, the mean
  ``local_relevance`` and whether any row selects it (``get_support()``);
  the JSON adds the run, ``relevance_scope`` and the mean subset size;
* with ``--per-level``, ``selected_features_per_level.csv`` and
  ``importances_per_level.csv``: the same per encoded feature (one-hot level);
* ``model.skops``: the fitted preparation and estimator, for ``predict``
  (:mod:`localselect.cli._predict`; :mod:`localselect.cli._model_io`: skops,
  loaded only with trusted types);
* ``results.csv`` when the estimator has a ``results_`` table (LLDS);
* ``report.html`` with ``--report``: a page with the figures embedded.


Reading and preparing the table is :mod:`localselect.cli._table` (documented in
``docs/cli.md``); LLDS takes the table as it is (its declaration's ``raw_input``).
The steps ``select`` shares with ``predict`` and the ``--cluster`` forms are
:mod:`localselect.cli._steps` (and :mod:`localselect.cli._methods`, the
method named on the command line); the HTML report is
:mod:`localselect.cli._report`.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from localselect.cli._answers import feature_table
from localselect.cli._errors import note
from localselect.cli._evidence import add_evidence_columns, evidence_summary, run_stability
from localselect.cli._methods import jsonable, make_estimator, params_record, resolve_method
from localselect.cli._steps import (
    Fitted,
    Prepared,
    answer_rows,
    fit,
    prepare,
    read_input,
    write_json,
)
from localselect.cli._task import describe_task, regression_scores, resolve_task

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from rich.console import Console

    from localselect.cli._columns import ColumnView

# numpy, pandas and the table and report helpers are imported where they are used.

__all__ = [
    "Answer",
    "answer",
    "report",
    "run_select",
    "summarise",
    "write",
]

#: Every file ``select`` may write; those a run does not write are removed from
#: ``--out``, so a reused folder holds no stale report or results of another run.
OUTPUT_FILES = (
    "selected_features.csv",
    "importances.csv",
    "importances.json",
    "selected_features_per_level.csv",
    "importances_per_level.csv",
    "results.csv",
    "model.skops",
    "report.html",
)

#: Fitted attributes holding a choice a method made itself ("auto" parameters), shown in
#: the summary line, importances.json and the report.
CHOSEN_ATTRIBUTES = ("max_features_",)


class Answer(NamedTuple):
    """The answer step's result: per-row subsets and relevance, per-feature tables."""

    masks: np.ndarray | None
    relevance: np.ndarray | None
    stability: Any
    per_level: pd.DataFrame
    view: ColumnView


def answer(
    args: argparse.Namespace, prepared: Prepared, fitted: Fitted, console: Console
) -> Answer:
    """Answer step of ``select``: per-row subsets, stability, per-feature and per-column tables."""
    from localselect.cli._columns import by_column
    from localselect.cli._progress import status

    X = prepared.X
    with status(console, f"computing the per-row subsets of {len(X)} rows ..."):
        masks, relevance = answer_rows(fitted.estimator, fitted.X_model, len(X))
    stability = None
    if getattr(args, "stability", None):
        with status(console, f"stability selection: {args.stability} subsample fits ..."):
            stability = run_stability(
                fitted.estimator, fitted.X_model, prepared.y, args.stability, args
            )
    per_level = feature_table(fitted.estimator, fitted.names, masks, relevance)
    add_evidence_columns(per_level, fitted.estimator, fitted.names, stability)
    view = by_column(prepared.pipeline, fitted.names, per_level, masks, relevance, list(X.columns))
    return Answer(masks, relevance, stability, per_level, view)


def summarise(
    args: argparse.Namespace, cls: type, prepared: Prepared, fitted: Fitted, found: Answer
) -> dict[str, Any]:
    """The run in one dictionary: ``importances.json``, the report and the terminal lines."""
    from localselect.cli._columns import json_records

    estimator, importances, col_masks = fitted.estimator, found.view.importances, found.view.masks
    chosen = {k: getattr(estimator, k) for k in CHOSEN_ATTRIBUTES if hasattr(estimator, k)}
    return {
        "method": args.method,
        "estimator": cls.__name__,
        "task": getattr(estimator, "task_", "classification"),
        **regression_scores(estimator, fitted.X_model, prepared.y),
        "params": params_record(estimator),
        "missing": prepared.mode,
        "input": str(args.input),
        "target": args.target,
        "n_rows_used": len(prepared.X),
        "n_rows_dropped": int((~prepared.keep).sum()),
        "missing_values": prepared.missing,
        "fit_seconds": fitted.seconds,
        "relevance_scope": importances.attrs["relevance_scope"],
        "mean_subset_size": float(col_masks.sum(axis=1).mean()) if col_masks is not None else 0.0,
        "n_selected_any_row": int(importances["selected"].sum()),
        "n_columns": len(found.view.names),
        "n_model_features": len(fitted.names),
        **{k: jsonable(v) for k, v in chosen.items()},
        "importance_source": importances.attrs["importance_source"],
        **evidence_summary(estimator, found.stability),
        "features": json_records(importances),
    }


def write(
    out: Path,
    args: argparse.Namespace,
    prepared: Prepared,
    fitted: Fitted,
    found: Answer,
    summary: dict[str, Any],
) -> list[str]:
    """Write step: the tables, ``importances.json``, ``results.csv``, the model; names written."""
    import pandas as pd

    from localselect.cli._columns import write_tables
    from localselect.cli._model_io import write_model

    index = prepared.X.index
    written = write_tables(out, found.view, found.masks, index, per_level=args.per_level)
    write_json(out / "importances.json", summary)
    written.append("importances.json")
    results = getattr(fitted.estimator, "results_", None)
    if isinstance(results, pd.DataFrame):
        results.to_csv(out / "results.csv", index=False)
        written.append("results.csv")
    model = write_model(
        out,
        method=args.method,
        target=args.target,
        columns=list(prepared.X.columns),
        feature_names=fitted.names,
        pipeline=prepared.pipeline,
        missing=prepared.mode,
    )
    written.append(model)
    return written


def report(
    out: Path,
    args: argparse.Namespace,
    prepared: Prepared,
    fitted: Fitted,
    found: Answer,
    summary: dict[str, Any],
    console: Console,
) -> str:
    """Report step: ``report.html`` written into ``out``; its file name."""
    from localselect.cli._progress import status
    from localselect.cli._report import render_html_report

    with status(console, "drawing report.html ..."):
        page = render_html_report(
            title=f"localselect select: {summary['estimator']} on {Path(args.input).name}",
            summary=summary,
            estimator=fitted.estimator,
            feature_names=found.view.names,
            importances=found.view.importances,
            masks=found.view.masks,
            level_names=fitted.names,
            labels=prepared.y,
            warning_lines=prepared.warnings,
            data=prepared.X if prepared.raw else None,
            rows=None if prepared.raw else fitted.X_model,
            row_columns=None if prepared.raw else found.view.columns,
        )
    (out / "report.html").write_text(page)
    return "report.html"


def _remove_stale(out: Path, written: list[str]) -> None:
    """Remove the outputs of an earlier run that this run did not write (:data:`OUTPUT_FILES`)."""
    stale = [name for name in OUTPUT_FILES if name not in written and (out / name).exists()]
    for name in stale:
        (out / name).unlink()
    if stale:
        note(f"removed {', '.join(stale)} left in {out} by an earlier run")


def _print_summary(
    console: Console, summary: dict[str, Any], found: Answer, estimator: Any, written: list[str]
) -> None:
    """The terminal lines: the fit, the top features, the subset sizes and the files."""
    from rich.markup import escape

    from localselect.cli._terminal import cut

    name, columns = summary["estimator"], summary["n_columns"]
    top = escape(", ".join(found.view.importances["feature"].head(5)))
    console.print(
        cut(
            f"{name} fitted on {summary['n_rows_used']} rows x {columns} features in "
            f"{summary['fit_seconds']:.2f} s; top features: {top}",
            console.width,
        ),
        highlight=False,
    )
    console.print(
        cut(
            f"{summary['relevance_scope']} selection: {summary['mean_subset_size']:.1f} features "
            f"per row, {summary['n_selected_any_row']} of {columns} in some row's subset",
            console.width,
        ),
        highlight=False,
    )
    for key in CHOSEN_ATTRIBUTES:
        if hasattr(estimator, key):
            console.print(f"{name} chose {key} = {getattr(estimator, key)}", highlight=False)
    out = Path(summary["out"])
    console.print(f"wrote {', '.join(written)} to {out}", highlight=False, soft_wrap=True)


# -- select -----------------------------------------------------------------------------------


def run_select(args: argparse.Namespace, console: Console) -> int:
    """Fit ``args.method`` on ``args.input`` and write the outputs (see the module docstring).

    The steps: :func:`~localselect.cli._steps.read_input`,
    :func:`~localselect.cli._steps.prepare` and :func:`~localselect.cli._steps.fit`
    (shared with the other commands), then this module's :func:`answer` (and
    :func:`summarise`), :func:`write` and :func:`report`. Each stage that can take seconds on a
    loaded machine (importing the libraries and reading the table, the fit, the
    per-row subsets, the report) runs under its own status line
    (:func:`localselect.cli._progress.status`), so a terminal never sits blank.
    """
    from localselect.cli._progress import status

    with status(console, f"reading {Path(args.input).name} ..."):
        cls = resolve_method(args.method)
        estimator = make_estimator(cls, args)
        frame = read_input(args.input, args.na_values)
    task = resolve_task(frame, args.target, args, estimator)
    prepared = prepare(args, cls, estimator, frame, task)
    console.print(describe_task(task, prepared.y, args.task), highlight=False)
    fitted = fit(prepared, console, args.n_features)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    found = answer(args, prepared, fitted, console)
    summary = summarise(args, cls, prepared, fitted, found)
    written = write(out, args, prepared, fitted, found, summary)
    if args.report:
        written.append(report(out, args, prepared, fitted, found, summary, console))
    _remove_stale(out, written)
    _print_summary(console, {**summary, "out": str(out)}, found, fitted.estimator, written)
    return 0
