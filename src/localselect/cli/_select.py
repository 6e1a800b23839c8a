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
``docs/cli.md``); LLDS takes the table as it is (:data:`RAW_INPUT_METHODS`).
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
from typing import TYPE_CHECKING, Any

from localselect._estimators import cli_methods
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

if TYPE_CHECKING:
    from rich.console import Console

# numpy, pandas and the table and report helpers are imported where they are used,
# so building the parser (``localselect --help``) imports none of them.

__all__ = [
    "RAW_INPUT_METHODS",
    "add_reading_arguments",
    "add_select_parser",
    "methods",
    "resolve_method",
    "run_select",
]

#: Methods that take the table as it is (discrete values, missing values allowed).
RAW_INPUT_METHODS = frozenset({"llds"})

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
        help="CSV/TSV/TXT file, compressed or not (.csv.gz, .bz2, .zip, .xz, .zst), or Parquet",
    )
    p.add_argument("--target", required=True, help="name of the label column")
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
        help="rows with missing feature values: keep them (methods that take NaN: the "
        "Relief family, immigrate, bim), impute (SimpleImputer inside the saved model, "
        "so predict imputes too), drop (reports the classes that lose rows; refused if "
        "a class would keep fewer than 2 rows) or error. auto: keep when the method "
        "takes NaN, else drop, or impute when dropping would leave a class fewer than 2 rows",
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


# -- what a fitted estimator tells ------------------------------------------------------------


# -- select -----------------------------------------------------------------------------------


def run_select(args: argparse.Namespace, console: Console) -> int:
    """Fit ``args.method`` on ``args.input`` and write the outputs (see the module docstring).

    Each stage that can take seconds on a loaded machine (importing the
    libraries and reading the table, the fit, the per-row subsets, the report)
    runs under its own status line (:func:`localselect.cli._progress.status`),
    so a terminal never sits blank.
    """
    from localselect.cli._progress import status

    with status(console, f"reading {Path(args.input).name} ..."):
        import pandas as pd
        from rich.markup import escape
        from sklearn.base import is_classifier
        from sklearn.pipeline import Pipeline

        import localselect
        from localselect.cli._columns import by_column, json_records, write_tables
        from localselect.cli._model_io import MODEL_FILE, MODEL_FORMAT, save_model
        from localselect.cli._report import render_html_report
        from localselect.cli._table import (
            ThinClassesError,
            preparation_steps,
            prepare_table,
            read_table,
        )

        cls = resolve_method(args.method)
        estimator = _make_estimator(cls, args)
        frame = read_table(args.input, na_values=args.na_values)
    raw = args.method.lower() in RAW_INPUT_METHODS
    takes_nan = raw or _takes_nan(estimator)
    mode = getattr(args, "missing", "auto")
    if raw and mode not in ("auto", "keep"):
        note(f"--missing {mode} is unused: {cls.__name__} takes the table as it is")
        mode = "keep"
    auto = mode == "auto"
    if auto:
        mode = "keep" if takes_nan else "drop"
    if mode == "keep" and not takes_nan:
        raise CLIError(
            f"{cls.__name__} does not take missing values; use --missing impute, drop or error"
        )
    prepare = functools.partial(
        prepare_table,
        frame,
        target=args.target,
        drop=args.drop,
        categorical=args.categorical,
        raw=raw,
        min_per_class=MIN_ROWS_PER_CLASS,
        method=cls.__name__,
    )
    try:
        table = prepare(missing="keep" if raw else mode)
    except ThinClassesError as exc:
        if not auto:
            raise
        # --missing auto never loses a class: impute instead of dropping.
        mode = "impute"
        table = prepare(missing=mode)
        table.warnings.append(
            f"dropping {exc.loss.replace('would leave', 'would have left')}; imputing them "
            "instead (--missing auto; --missing drop refuses, --missing error stops)"
        )
    X, y, keep, missing = table.X, table.y, table.keep, table.missing
    warnings_out = list(table.warnings)
    for line in warnings_out:
        warn(line)
    if len(X) == 0:
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
    pipeline = Pipeline(steps)
    y_values = y.to_numpy()
    start = time.perf_counter()
    with (
        status(console, f"fitting {cls.__name__} on {len(X)} x {X.shape[1]} ..."),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        pipeline.fit(X, y_values)
    seconds = time.perf_counter() - start
    for message in dict.fromkeys(" ".join(str(w.message).split()) for w in caught):
        warnings_out.append(message)
        warn(message, cut_to_width=True)
    fitted = pipeline.named_steps["estimator"]
    X_model = pipeline[:-1].transform(X) if len(steps) > 1 else X
    names = [str(n) for n in getattr(X_model, "columns", [f"x{j}" for j in range(X.shape[1])])]
    if isinstance(args.n_features, int) and args.n_features > len(names):
        line = (
            f"--n-features {args.n_features} is more than the {len(names)} features; "
            f"all {len(names)} are kept"
        )
        warnings_out.append(line)
        warn(line)

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with status(console, f"computing the per-row subsets of {len(X)} rows ..."):
        masks = row_masks(fitted, X_model, len(X))
        relevance = row_relevance(fitted, X_model, masks)
    stability = None
    if getattr(args, "stability", None):
        with status(console, f"stability selection: {args.stability} subsample fits ..."):
            stability = run_stability(fitted, X_model, y_values, args.stability, args)
    per_level = feature_table(fitted, names, masks, relevance)
    add_evidence_columns(per_level, fitted, names, stability)
    view = by_column(pipeline, names, per_level, masks, relevance, list(X.columns))
    importances, col_masks, columns = view.importances, view.masks, view.names
    written = write_tables(out, view, masks, X.index, per_level=args.per_level)
    scope = importances.attrs["relevance_scope"]
    mean_size = float(col_masks.sum(axis=1).mean()) if col_masks is not None else 0.0
    n_selected = int(importances["selected"].sum())
    chosen = {k: getattr(fitted, k) for k in CHOSEN_ATTRIBUTES if hasattr(fitted, k)}
    summary = {
        "method": args.method,
        "estimator": cls.__name__,
        "params": {k: _jsonable(v) for k, v in fitted.get_params(deep=False).items()},
        "missing": mode,
        "input": str(args.input),
        "target": args.target,
        "n_rows_used": len(X),
        "n_rows_dropped": int((~keep).sum()),
        "missing_values": missing,
        "fit_seconds": seconds,
        "relevance_scope": scope,
        "mean_subset_size": mean_size,
        "n_selected_any_row": n_selected,
        "n_columns": len(columns),
        "n_model_features": len(names),
        **{k: _jsonable(v) for k, v in chosen.items()},
        "importance_source": importances.attrs["importance_source"],
        **evidence_summary(fitted, stability),
        "features": json_records(importances),
    }
    text = json.dumps(summary, indent=2, allow_nan=False)
    (out / "importances.json").write_text(text + "\n")
    written.append("importances.json")
    results = getattr(fitted, "results_", None)
    if isinstance(results, pd.DataFrame):
        results.to_csv(out / "results.csv", index=False)
        written.append("results.csv")
    bundle = {
        "format": MODEL_FORMAT,
        "localselect": localselect.__version__,
        "method": args.method,
        "target": args.target,
        "columns": list(X.columns),
        "feature_names": names,
        "classifier": is_classifier(fitted),
        "missing": mode,
        "pipeline": pipeline,
    }
    save_model(bundle, out / MODEL_FILE)
    written.append(MODEL_FILE)
    if args.report:
        with status(console, "drawing report.html ..."):
            page = render_html_report(
                title=f"localselect select: {cls.__name__} on {Path(args.input).name}",
                summary=summary,
                estimator=fitted,
                feature_names=columns,
                importances=importances,
                masks=col_masks,
                level_names=names,
                labels=y_values,
                warning_lines=warnings_out,
                data=X if raw else None,
            )
        (out / "report.html").write_text(page)
        written.append("report.html")
    stale = [name for name in OUTPUT_FILES if name not in written and (out / name).exists()]
    for name in stale:
        (out / name).unlink()
    if stale:
        note(f"removed {', '.join(stale)} left in {out} by an earlier run")
    from localselect.cli._terminal import cut

    top = escape(", ".join(importances["feature"].head(5)))
    console.print(
        cut(
            f"{cls.__name__} fitted on {len(X)} rows x {len(columns)} features in "
            f"{seconds:.2f} s; top features: {top}",
            console.width,
        ),
        highlight=False,
    )
    console.print(
        cut(
            f"{scope} selection: {mean_size:.1f} features per row, {n_selected} of "
            f"{len(columns)} in some row's subset",
            console.width,
        ),
        highlight=False,
    )
    for key, value in chosen.items():
        console.print(f"{cls.__name__} chose {key} = {value}", highlight=False)
    console.print(f"wrote {', '.join(written)} to {out}", highlight=False, soft_wrap=True)
    return 0
