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
The HTML report is :mod:`localselect.cli._report`.

The CLI holds no algorithm logic: the method names are those the estimators
declare (:func:`methods`, from :mod:`localselect._estimators`), looked up when
``select`` runs, so building the parser imports no estimator.
"""

from __future__ import annotations

import argparse
import ast
import difflib
import functools
import json
import time
import warnings
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from localselect._estimators import cli_methods, raw_input_methods
from localselect.cli._answers import feature_table, row_masks, row_relevance
from localselect.cli._errors import CLIError, note, warn
from localselect.cli._evidence import (
    add_evidence_arguments,
    add_evidence_columns,
    evidence_params,
    evidence_summary,
    n_features_arg,
    run_stability,
)
from localselect.cli._task import (
    add_task_argument,
    describe_task,
    regression_scores,
    resolve_task,
)

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from rich.console import Console
    from sklearn.pipeline import Pipeline

    from localselect.cli._columns import ColumnView

# numpy, pandas and the table and report helpers are imported where they are used,
# so building the parser (``localselect --help``) imports none of them.

__all__ = [
    "Answer",
    "Fitted",
    "Prepared",
    "add_reading_arguments",
    "add_select_parser",
    "answer",
    "answer_rows",
    "fit",
    "methods",
    "prepare",
    "read_input",
    "report",
    "resolve_method",
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

_PER_LEVEL_HELP = (
    "also give the detail per encoded feature (one-hot level of a categorical column); "
    "by default every output names the input's columns"
)

#: ``--missing``'s help (the methods that take NaN: a test checks them against the registry).
_MISSING_HELP = (
    "rows with missing feature values: keep them (methods that take NaN: bim, im4e, "
    "immigrate, irelief, relief, relieff, simba; llds takes the table as it is), "
    "impute (SimpleImputer inside the saved model, so predict imputes too), drop "
    "(reports the classes that lose rows; refused if a class would keep fewer than 2 "
    "rows) or error. auto: keep when the method takes NaN, else drop, or impute when "
    "dropping would leave a class fewer than 2 rows"
)

#: Fitted attributes holding a choice a method made itself ("auto" parameters), shown in
#: the summary line, importances.json and the report.
CHOSEN_ATTRIBUTES = ("max_features_",)

#: Fewest rows a class may keep when ``--missing drop`` removes incomplete rows.
MIN_ROWS_PER_CLASS = 2


def _takes_nan(estimator: Any) -> bool:
    """Whether the estimator accepts NaN itself (scikit-learn's ``allow_nan`` tag)."""
    try:
        return bool(estimator.__sklearn_tags__().input_tags.allow_nan)
    except AttributeError:
        return False


def methods() -> dict[str, type]:
    """CLI method name -> estimator class: every estimator's declared name.

    Imports the estimators (:func:`localselect._estimators.cli_methods`).
    """
    return cli_methods()


class _MethodNames:
    """The method names for ``--method``'s help, listed when the help is shown."""

    def __str__(self) -> str:
        return ", ".join(sorted(methods()))


def resolve_method(name: str) -> type:
    """The estimator class for a CLI method name, or ``module:Class`` for any estimator.

    Raises
    ------
    CLIError
        Unknown name, or a ``module:Class`` that cannot be imported.
    """
    if ":" not in name:
        known = methods()
        cls = known.get(name.lower())
        if cls is None:
            close = difflib.get_close_matches(name.lower(), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise CLIError(
                f"unknown method {name!r}{hint}; choose from {', '.join(sorted(known))} "
                "or give module:Class"
            )
        return cls
    module_name, _, class_name = name.partition(":")
    try:
        return getattr(import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise CLIError(
            f"method {name!r} is not available in this version of localselect "
            f"({module_name}.{class_name} not found: {exc})"
        ) from exc


def add_select_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``select`` sub-command to ``sub`` (the sub-parsers of ``localselect``)."""
    p = sub.add_parser(
        "select",
        help="fit a method on a CSV or Parquet file and write selected features and a report",
        description=(
            "Fit a feature selection method on a table and write per-sample selected "
            "features, global importances, the fitted model and (--report) an HTML page. "
            "Numeric columns are z-scored, text and category columns one-hot encoded; "
            "missing values are kept for the methods that take them and otherwise "
            "handled as --missing says (LLDS takes the table as it is). Input: CSV, TSV "
            "or text, compressed or not (.gz, .bz2, .zip, .xz, .zst), or Parquet."
        ),
    )
    method = p.add_argument(
        "--method",
        required=True,
        help="one of %(names)s, or module:Class for any estimator",
    )
    method.names = _MethodNames()  # %(names)s: the declared names, listed when shown
    p.add_argument(
        "--input",
        required=True,
        help="CSV/TSV/TXT file, compressed or not (.csv.gz, .bz2, .zip, .xz, .zst), or Parquet; "
        "with --cluster also a folder or glob of Parquet or CSV files (read on the cluster)",
    )
    p.add_argument(
        "--target", required=True, help="name of the target column (class labels or a number)"
    )
    add_task_argument(p)
    p.add_argument(
        "--params",
        nargs="+",
        default=[],
        metavar="K=V",
        help="estimator parameters, e.g. max_features=10 sigma=0.5 (values parsed as Python "
        "literals or JSON); discretizer=mahalanobis:3, kbins:5 or auto for LLDS",
    )
    p.add_argument(
        "--n-features",
        type=n_features_arg,
        default=None,
        help="sets n_features_to_select: a count, or auto (the features significant at --fdr)",
    )
    add_evidence_arguments(p)
    p.add_argument(
        "--random-state",
        type=int,
        default=None,
        help="sets random_state (a method without randomness notes that it is unused)",
    )
    p.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="sets n_jobs (a method without parallel work notes that it is unused)",
    )
    p.add_argument(
        "--missing",
        choices=["auto", "keep", "impute", "drop", "error"],
        default="auto",
        help=_MISSING_HELP,
    )
    p.add_argument("--out", default="localselect-output", help="output folder")
    p.add_argument("--report", action="store_true", help="also write report.html with figures")
    p.add_argument("--drop", nargs="+", default=[], metavar="COLUMN", help="columns to ignore")
    p.add_argument(
        "--categorical",
        nargs="+",
        default=[],
        metavar="COLUMN",
        help="numeric-coded columns to treat as categorical",
    )
    p.add_argument("--no-scale", action="store_true", help="do not z-score numeric columns")
    add_reading_arguments(p)
    return p


def add_reading_arguments(p: argparse.ArgumentParser) -> None:
    """``--na-values`` and ``--per-level``: how ``select`` and ``predict`` read a table alike."""
    p.add_argument(
        "--na-values", nargs="+", default=[], metavar="TEXT", help="extra strings meaning missing"
    )
    p.add_argument("--per-level", action="store_true", help=_PER_LEVEL_HELP)


#: ``--params discretizer=NAME[:N_BINS]``: the discretizers a command line can name.
DISCRETIZERS = {
    "mahalanobis": ("localselect.lift:MahalanobisQuantileDiscretizer", {}),
    "kbins": ("sklearn.preprocessing:KBinsDiscretizer", {"encode": "ordinal"}),
}


def _discretizer(value: Any) -> Any:
    """``mahalanobis:3`` or ``{"name": "kbins", "n_bins": 5}`` -> a discretizer object."""
    if isinstance(value, dict):
        spec = dict(value)
        name = str(spec.pop("name", ""))
    elif isinstance(value, str) and value != "auto":
        name, _, bins = value.partition(":")
        spec = {}
        if bins:
            if not bins.isdigit():
                raise CLIError(f"discretizer={value!r}: the number of bins must be an integer")
            spec["n_bins"] = int(bins)
    else:
        return value
    if name.lower() not in DISCRETIZERS:
        raise CLIError(
            f"unknown discretizer {name!r}; use discretizer=auto, "
            + ", ".join(f"{n}:N_BINS" for n in DISCRETIZERS)
            + ' or JSON such as \'{"name": "mahalanobis", "n_bins": 3}\''
        )
    path, defaults = DISCRETIZERS[name.lower()]
    module_name, _, class_name = path.partition(":")
    cls = getattr(import_module(module_name), class_name)
    try:
        return cls(**{**defaults, **spec})
    except TypeError as exc:
        raise CLIError(f"discretizer={value!r}: {exc}") from exc


def _parse_params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"--params expects key=value pairs; got {item!r}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            try:
                value = json.loads(text)
            except ValueError:
                value = text  # a plain string such as rounding=exact
        key = key.strip()
        params[key] = _discretizer(value) if key == "discretizer" else value
    return params


def _jsonable(value: Any) -> Any:
    """Parameter values for importances.json: JSON types as they are, others as repr."""
    from localselect.cli._columns import json_value

    if value is None or isinstance(value, (bool, int, float, str)):
        return json_value(value)
    return repr(value)


def _make_estimator(cls: type, args: argparse.Namespace) -> Any:
    estimator = cls()
    valid = estimator.get_params(deep=False)
    params = _parse_params(args.params)
    for option, key in (
        ("n_features", "n_features_to_select"),
        ("random_state", "random_state"),
        ("n_jobs", "n_jobs"),
    ):
        value = getattr(args, option, None)
        if value is not None:
            flag = "--" + option.replace("_", "-")
            if key not in valid and option != "n_features":
                what = "randomness" if option == "random_state" else "parallel work"
                note(f"{flag} is unused: {cls.__name__} has no {what} (no {key} parameter)")
                continue
            if key not in valid:
                raise CLIError(f"{flag} does not apply: {cls.__name__} has no {key} parameter")
            params[key] = value
    params.update(evidence_params(cls, valid, args))
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise CLIError(
            f"{cls.__name__} has no parameter(s) {', '.join(unknown)}; "
            f"valid: {', '.join(sorted(valid))}"
        )
    return estimator.set_params(**params)


# -- the steps of select: read, prepare, fit, answer, write, report --------------------------


class Prepared(NamedTuple):
    """The prepare step's result: the rows used, their labels and the unfitted pipeline."""

    X: pd.DataFrame
    y: np.ndarray
    keep: pd.Series
    missing: dict[str, int]
    mode: str
    raw: bool
    pipeline: Pipeline
    warnings: list[str]


class Fitted(NamedTuple):
    """The fit step's result: the fitted estimator and the rows as it sees them."""

    estimator: Any
    X_model: Any
    names: list[str]
    seconds: float


class Answer(NamedTuple):
    """The answer step's result: per-row subsets and relevance, per-feature tables."""

    masks: np.ndarray | None
    relevance: np.ndarray | None
    stability: Any
    per_level: pd.DataFrame
    view: ColumnView


def read_input(path: str | Path, na_values: list[str]) -> pd.DataFrame:
    """Read step, shared by ``select`` and ``predict``: the input file as a table."""
    from localselect.cli._table import read_table

    return read_table(path, na_values=na_values)


def _missing_mode(args: argparse.Namespace, cls: type, raw: bool, takes_nan: bool) -> str:
    """``--missing`` resolved: keep, impute, drop or error (auto decided here)."""
    mode = getattr(args, "missing", "auto")
    if raw and mode not in ("auto", "keep"):
        note(f"--missing {mode} is unused: {cls.__name__} takes the table as it is")
        mode = "keep"
    if mode == "auto":
        return "auto"
    if mode == "keep" and not takes_nan:
        raise CLIError(
            f"{cls.__name__} does not take missing values; use --missing impute, drop or error"
        )
    return mode


def prepare(
    args: argparse.Namespace,
    cls: type,
    estimator: Any,
    frame: pd.DataFrame,
    task: str = "classification",
) -> Prepared:
    """Prepare step: rows with missing values handled, the preparation pipeline built.

    ``task``: for a continuous target (``"regression"``) dropping rows loses no class.
    """
    from sklearn.pipeline import Pipeline

    from localselect.cli._table import ThinClassesError, preparation_steps, prepare_table

    raw = args.method.lower() in raw_input_methods()
    takes_nan = raw or _takes_nan(estimator)
    mode = _missing_mode(args, cls, raw, takes_nan)
    auto = mode == "auto"
    if auto:
        mode = "keep" if takes_nan else "drop"
    prepare_rows = functools.partial(
        prepare_table,
        frame,
        target=args.target,
        drop=args.drop,
        categorical=args.categorical,
        raw=raw,
        min_per_class=MIN_ROWS_PER_CLASS,
        method=cls.__name__,
        classes=task == "classification",
    )
    try:
        table = prepare_rows(missing="keep" if raw else mode)
    except ThinClassesError as exc:
        if not auto:
            raise
        # --missing auto never loses a class: impute instead of dropping.
        mode = "impute"
        table = prepare_rows(missing=mode)
        table.warnings.append(
            f"dropping {exc.loss.replace('would leave', 'would have left')}; imputing them "
            "instead (--missing auto; --missing drop refuses, --missing error stops)"
        )
    warnings_out = list(table.warnings)
    for line in warnings_out:
        warn(line)
    if len(table.X) == 0:
        raise CLIError("no rows left after dropping rows with missing values")
    steps: list[tuple[str, Any]] = []
    if not raw:
        steps = preparation_steps(
            table.numeric,
            table.categorical,
            scale=not args.no_scale,
            impute=mode == "impute",
            boolean=table.boolean,
        )
    steps.append(("estimator", estimator))
    return Prepared(
        table.X,
        table.y.to_numpy(),
        table.keep,
        table.missing,
        mode,
        raw,
        Pipeline(steps),
        warnings_out,
    )


def fit(prepared: Prepared, console: Console, n_features: Any = None) -> Fitted:
    """Fit step: the pipeline fitted, its warnings shown once each, the model's features named."""
    from localselect.cli._progress import status

    X, pipeline = prepared.X, prepared.pipeline
    name = type(pipeline.named_steps["estimator"]).__name__
    start = time.perf_counter()
    with (
        status(console, f"fitting {name} on {len(X)} x {X.shape[1]} ..."),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        pipeline.fit(X, prepared.y)
    seconds = time.perf_counter() - start
    for message in dict.fromkeys(" ".join(str(w.message).split()) for w in caught):
        prepared.warnings.append(message)
        warn(message, cut_to_width=True)
    X_model = pipeline[:-1].transform(X) if len(pipeline.steps) > 1 else X
    names = [str(n) for n in getattr(X_model, "columns", [f"x{j}" for j in range(X.shape[1])])]
    if isinstance(n_features, int) and n_features > len(names):
        line = (
            f"--n-features {n_features} is more than the {len(names)} features; "
            f"all {len(names)} are kept"
        )
        prepared.warnings.append(line)
        warn(line)
    return Fitted(pipeline.named_steps["estimator"], X_model, names, seconds)


def answer_rows(
    estimator: Any, X_model: Any, n_rows: int, *, relevance: bool = True
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Answer step, shared by ``select`` and ``predict``: per-row subsets and relevance.

    ``(masks, relevance)`` by :func:`localselect.cli._answers.row_masks` and
    :func:`~localselect.cli._answers.row_relevance` (``None`` for a model that
    selects nothing; relevance only when asked).
    """
    masks = row_masks(estimator, X_model, n_rows)
    return masks, (row_relevance(estimator, X_model, masks) if relevance else None)


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
        "params": {k: _jsonable(v) for k, v in estimator.get_params(deep=False).items()},
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
        **{k: _jsonable(v) for k, v in chosen.items()},
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
    from sklearn.base import is_classifier

    import localselect
    from localselect.cli._columns import write_tables
    from localselect.cli._model_io import MODEL_FILE, MODEL_FORMAT, save_model

    index = prepared.X.index
    written = write_tables(out, found.view, found.masks, index, per_level=args.per_level)
    text = json.dumps(summary, indent=2, allow_nan=False)
    (out / "importances.json").write_text(text + "\n")
    written.append("importances.json")
    results = getattr(fitted.estimator, "results_", None)
    if isinstance(results, pd.DataFrame):
        results.to_csv(out / "results.csv", index=False)
        written.append("results.csv")
    bundle = {
        "format": MODEL_FORMAT,
        "localselect": localselect.__version__,
        "method": args.method,
        "target": args.target,
        "columns": list(prepared.X.columns),
        "feature_names": fitted.names,
        "classifier": is_classifier(fitted.estimator),
        "task": summary["task"],
        "missing": prepared.mode,
        "pipeline": prepared.pipeline,
    }
    save_model(bundle, out / MODEL_FILE)
    written.append(MODEL_FILE)
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

    The steps, each a function of this module: :func:`read_input`,
    :func:`prepare`, :func:`fit`, :func:`answer` (and :func:`summarise`),
    :func:`write` and :func:`report`. Each stage that can take seconds on a
    loaded machine (importing the libraries and reading the table, the fit, the
    per-row subsets, the report) runs under its own status line
    (:func:`localselect.cli._progress.status`), so a terminal never sits blank.
    """
    from localselect.cli._progress import status

    with status(console, f"reading {Path(args.input).name} ..."):
        cls = resolve_method(args.method)
        estimator = _make_estimator(cls, args)
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
