"""``localselect select`` and ``localselect predict``: the library on a user's CSV or Parquet file.

``select`` reads a table, prepares it, fits a method and writes into ``--out``:

* ``selected_features.csv``: one row per sample used (its row number in the
  input), a 0/1 column per feature, ``n_selected`` and ``selected`` (names);
  a global selector's subset is repeated on every row;
* ``importances.csv`` and ``importances.json``: per feature, the method's
  ``feature_importances_`` (or the selection frequency across samples), the
  selection frequency and whether it is in the global subset;
* ``model.joblib``: the fitted preparation and estimator, for ``predict``;
* ``results.csv`` when the estimator has a ``results_`` table (LLDS);
* ``report.html`` with ``--report``: a page with the figures embedded.

Preparation (documented in ``docs/cli.md``): the target column becomes ``y``
(any labels); rows with a missing target are dropped. Numeric columns are
z-scored (the papers' protocol; ``--no-scale`` keeps them), text, boolean and
category columns are one-hot encoded (new categories at prediction time
encode as all zeros). Rows with a missing value are dropped with a warning
line, except for methods that take the table as it is (LLDS: discrete data,
missing values counted per feature subset, no encoding or scaling).

The CLI holds no algorithm logic: methods are looked up by name in
:data:`METHODS` and imported lazily, so a method that has not landed yet gives
one clear line.
"""

from __future__ import annotations

import argparse
import ast
import base64
import csv
import difflib
import html
import io
import json
import time
import warnings
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from rich.console import Console

from localselect.cli._main import CLIError

__all__ = ["METHODS", "RAW_INPUT_METHODS", "resolve_method", "run_predict", "run_select"]

#: CLI method names -> ``module:Class`` of the public estimator.
METHODS: dict[str, str] = {
    "bim": "localselect.margin:BoostedImmigrate",
    "fisher": "localselect.filters:FisherScore",
    "gp": "localselect.gp:GPLocalFeatureSelection",
    "im4e": "localselect.margin:IM4E",
    "immigrate": "localselect.margin:Immigrate",
    "irelief": "localselect.margin:IRelief",
    "lfs": "localselect.lfs:LocalFeatureSelection",
    "llds": "localselect.lift:LiftFeatureSelector",
    "relief": "localselect.margin:Relief",
    "relieff": "localselect.margin:ReliefF",
    "simba": "localselect.margin:Simba",
}

#: Methods that take the table as it is (discrete values, missing values allowed).
RAW_INPUT_METHODS = frozenset({"llds"})

#: Most distinct values a text column may have to be treated as categorical.
MAX_CATEGORIES = 50

_MODEL_FORMAT = 1


def resolve_method(name: str) -> type:
    """The estimator class for a CLI method name, or ``module:Class`` for any estimator.

    Raises
    ------
    CLIError
        Unknown name, or a method not available in this version.
    """
    path = METHODS.get(name.lower())
    if path is None and ":" in name:
        path = name
    if path is None:
        close = difflib.get_close_matches(name.lower(), METHODS, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise CLIError(
            f"unknown method {name!r}{hint}; choose from {', '.join(sorted(METHODS))} "
            "or give module:Class"
        )
    module_name, _, class_name = path.partition(":")
    try:
        cls = getattr(import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise CLIError(
            f"method {name!r} is not available in this version of localselect "
            f"({module_name}.{class_name} not found: {exc})"
        ) from exc
    return cls


def add_select_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``select`` sub-command to ``sub`` (the sub-parsers of ``localselect``)."""
    p = sub.add_parser(
        "select",
        help="fit a method on a CSV or Parquet file and write selected features and a report",
        description=(
            "Fit a feature selection method on a table and write per-sample selected "
            "features, global importances, the fitted model and (--report) an HTML page. "
            "Numeric columns are z-scored, text and category columns one-hot encoded, "
            "rows with missing values dropped (LLDS takes the table as it is)."
        ),
    )
    p.add_argument(
        "--method",
        required=True,
        help=f"one of {', '.join(sorted(METHODS))}, or module:Class for any estimator",
    )
    p.add_argument("--input", required=True, help="CSV (.csv, .tsv, .txt) or Parquet file")
    p.add_argument("--target", required=True, help="name of the label column")
    p.add_argument(
        "--params",
        nargs="+",
        default=[],
        metavar="K=V",
        help="estimator parameters, e.g. alpha=10 sigma=0.5 (values parsed as Python literals)",
    )
    p.add_argument("--n-features", type=int, default=None, help="sets n_features_to_select")
    p.add_argument("--random-state", type=int, default=None, help="sets random_state")
    p.add_argument("--n-jobs", type=int, default=None, help="sets n_jobs")
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
    p.add_argument(
        "--na-values", nargs="+", default=[], metavar="TEXT", help="extra strings meaning missing"
    )
    p.add_argument("--no-scale", action="store_true", help="do not z-score numeric columns")
    return p


def add_predict_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``predict`` sub-command to ``sub``."""
    p = sub.add_parser(
        "predict",
        help="apply a model saved by `localselect select` to new data",
        description=(
            "Predict labels (classifiers) and per-sample selected features (local "
            "selectors) for new rows, prepared as in `select`. Only load model files you "
            "trust: joblib files can run code."
        ),
    )
    p.add_argument("--model", required=True, help="model.joblib written by `localselect select`")
    p.add_argument("--input", required=True, help="CSV or Parquet file with the same columns")
    p.add_argument("--out", default=None, help="output CSV (default: print to the terminal)")
    p.add_argument(
        "--na-values", nargs="+", default=[], metavar="TEXT", help="extra strings meaning missing"
    )
    return p


def _warn(line: str) -> None:
    """One warning line on stderr (stdout may carry CSV)."""
    Console(stderr=True).print(
        f"[yellow]warning:[/yellow] {line}", highlight=False, soft_wrap=True
    )


# -- reading and preparing the table ----------------------------------------------------------


def read_table(path: str | Path, *, na_values: list[str] | None = None) -> pd.DataFrame:
    """Read a CSV/TSV/TXT or Parquet file, with one-line errors."""
    path = Path(path)
    if not path.exists():
        raise CLIError(f"input file {str(path)!r} does not exist")
    if path.is_dir():
        raise CLIError(f"input {str(path)!r} is a folder, not a file")
    if path.stat().st_size == 0:
        raise CLIError(f"input file {str(path)!r} is empty")
    suffix = path.suffix.lower()
    try:
        if suffix in {".parquet", ".pq"}:
            try:
                import pyarrow  # noqa: F401
            except ImportError as exc:
                raise CLIError(
                    "reading Parquet needs pyarrow: pip install pyarrow (or convert to CSV)"
                ) from exc
            frame = pd.read_parquet(path)
        elif suffix in {".csv", ".tsv", ".txt", ".data"}:
            sep = "\t" if suffix == ".tsv" else None
            frame = pd.read_csv(path, sep=sep, engine="python", na_values=na_values or None)
        else:
            raise CLIError(f"cannot read {path.name!r}: use a .csv, .tsv, .txt or .parquet file")
    except CLIError:
        raise
    except pd.errors.EmptyDataError as exc:
        raise CLIError(f"input file {str(path)!r} is empty") from exc
    except (pd.errors.ParserError, csv.Error, UnicodeDecodeError, ValueError, OSError) as exc:
        raise CLIError(f"cannot parse {str(path)!r}: {exc}") from exc
    if frame.shape[1] < 2 or frame.shape[0] == 0:
        raise CLIError(
            f"{str(path)!r} has {frame.shape[0]} rows and {frame.shape[1]} columns; need a "
            "label column and at least one feature column with some rows"
        )
    frame.columns = [str(c) for c in frame.columns]
    return frame


def _check_columns(frame: pd.DataFrame, names: list[str], what: str) -> None:
    for name in names:
        if name not in frame.columns:
            close = difflib.get_close_matches(name, list(frame.columns), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            shown = ", ".join(list(frame.columns)[:12]) + (" ..." if frame.shape[1] > 12 else "")
            raise CLIError(f"{what} column {name!r} not found{hint} (columns: {shown})")


def _column_kinds(frame: pd.DataFrame, categorical: list[str]) -> tuple[list[str], list[str]]:
    """Split feature columns into numeric and categorical; refuse unusable text columns."""
    numeric, categ = [], []
    for col in frame.columns:
        series = frame[col]
        if col in categorical or isinstance(series.dtype, pd.CategoricalDtype):
            categ.append(col)
            continue
        if pd.api.types.is_bool_dtype(series):
            categ.append(col)
            continue
        if pd.api.types.is_numeric_dtype(series):
            values = series.to_numpy(dtype=float, na_value=np.nan)
            if np.isinf(values).any():
                raise CLIError(f"column {col!r} holds infinite values; replace or drop them")
            numeric.append(col)
            continue
        present = series.dropna()
        as_number = pd.to_numeric(present, errors="coerce")
        bad = present[as_number.isna()]
        if len(present) and len(bad) <= 0.1 * len(present):
            example = bad.iloc[0]
            raise CLIError(
                f"column {col!r} is numeric except {len(bad)} value(s) such as {example!r} "
                f"(row {bad.index[0]}); fix them, or mark them missing with --na-values {example}"
            )
        n_unique = present.nunique()
        if n_unique > MAX_CATEGORIES:
            raise CLIError(
                f"column {col!r} is text with {n_unique} distinct values, too many for a "
                f"categorical feature (at most {MAX_CATEGORIES}); drop it with --drop {col}"
            )
        categ.append(col)
    return numeric, categ


def _missing_report(frame: pd.DataFrame) -> dict[str, int]:
    counts = frame.isna().sum()
    return {str(k): int(v) for k, v in counts.items() if v > 0}


def _build_preparation(numeric: list[str], categorical: list[str], scale: bool):
    from sklearn.compose import ColumnTransformer
    from sklearn.preprocessing import OneHotEncoder, StandardScaler

    parts = []
    if numeric:
        parts.append(("num", StandardScaler() if scale else "passthrough", numeric))
    if categorical:
        parts.append(
            (
                "cat",
                OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float64),
                categorical,
            )
        )
    prep = ColumnTransformer(parts, verbose_feature_names_out=False)
    return prep.set_output(transform="pandas")


class _AsText:
    """Cast categorical columns to text so one-hot encoding sees one type per column."""

    def __init__(self, columns: list[str]):
        self.columns = columns

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.copy()
        for col in self.columns:
            frame[col] = frame[col].map(lambda v: v if pd.isna(v) else str(v)).astype(object)
        return frame


def _parse_params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"--params expects key=value pairs; got {item!r}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = text  # a plain string such as rounding=exact
        params[key.strip()] = value
    return params


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
            if key not in valid:
                flag = "--" + option.replace("_", "-")
                raise CLIError(f"{flag} does not apply: {cls.__name__} has no {key} parameter")
            params[key] = value
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise CLIError(
            f"{cls.__name__} has no parameter(s) {', '.join(unknown)}; "
            f"valid: {', '.join(sorted(valid))}"
        )
    return estimator.set_params(**params)


# -- what a fitted estimator tells ------------------------------------------------------------


def _masks(estimator: Any, X: Any, n_rows: int) -> np.ndarray | None:
    """Per-sample masks: local subsets, or the global subset on every row."""
    from localselect.base import LocalSelectorMixin

    if isinstance(estimator, LocalSelectorMixin):
        return np.asarray(estimator.get_local_support(X), dtype=bool)
    if hasattr(estimator, "get_support"):
        support = np.asarray(estimator.get_support(), dtype=bool)
        return np.broadcast_to(support, (n_rows, support.size))
    return None


def _importances(estimator: Any, names: list[str], masks: np.ndarray | None) -> pd.DataFrame:
    frequency = masks.mean(axis=0) if masks is not None else np.full(len(names), np.nan)
    importance = getattr(estimator, "feature_importances_", None)
    source = "feature_importances_"
    if importance is None:
        importance, source = frequency, "selection frequency"
    selected = (
        np.asarray(estimator.get_support(), dtype=bool)
        if hasattr(estimator, "get_support")
        else np.zeros(len(names), dtype=bool)
    )
    table = pd.DataFrame(
        {
            "feature": names,
            "importance": np.asarray(importance, dtype=float),
            "selection_frequency": frequency,
            "selected": selected,
        }
    )
    table.attrs["importance_source"] = source
    return table.sort_values("importance", ascending=False, kind="stable")


def _selected_frame(masks: np.ndarray, names: list[str], index: pd.Index) -> pd.DataFrame:
    frame = pd.DataFrame(masks.astype(np.int8), columns=names, index=index)
    frame.index.name = "row"
    frame["n_selected"] = masks.sum(axis=1)
    name_array = np.asarray(names, dtype=object)
    frame["selected"] = [";".join(name_array[m]) for m in masks]
    return frame


# -- select -----------------------------------------------------------------------------------


def run_select(args: argparse.Namespace, console: Console) -> int:
    """Fit ``args.method`` on ``args.input`` and write the outputs (see the module docstring)."""
    import joblib
    from sklearn.base import is_classifier
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import FunctionTransformer

    import localselect

    cls = resolve_method(args.method)
    estimator = _make_estimator(cls, args)
    frame = read_table(args.input, na_values=args.na_values)
    _check_columns(frame, [args.target], "target")
    _check_columns(frame, args.drop + args.categorical, "--drop/--categorical")
    if args.target in args.drop:
        raise CLIError(f"--drop names the target column {args.target!r}")
    y_all = frame[args.target]
    X_all = frame.drop(columns=[args.target, *args.drop])
    if X_all.shape[1] == 0:
        raise CLIError("no feature columns left after removing the target and --drop columns")
    warnings_out: list[str] = []
    missing = _missing_report(frame[[args.target, *X_all.columns]])
    keep = y_all.notna()
    if (~keep).any():
        warnings_out.append(f"dropping {int((~keep).sum())} row(s) with a missing target")
    raw = args.method.lower() in RAW_INPUT_METHODS
    if not raw:
        numeric, categorical = _column_kinds(X_all, args.categorical)
        incomplete = X_all.isna().any(axis=1) & keep
        if incomplete.any():
            per_col = ", ".join(f"{k} {v}" for k, v in missing.items() if k != args.target)
            warnings_out.append(
                f"dropping {int(incomplete.sum())} row(s) with missing values ({per_col}); "
                "impute them first to keep those rows"
            )
            keep &= ~incomplete
    X, y = X_all[keep], y_all[keep]
    for line in warnings_out:
        _warn(line)
    if len(X) == 0:
        raise CLIError("no rows left after dropping rows with missing values")
    if raw:
        steps = [("estimator", estimator)]
        numeric, categorical = [], []
    else:
        steps = [
            ("as_text", FunctionTransformer(_AsText(categorical), feature_names_out="one-to-one")),
            ("prepare", _build_preparation(numeric, categorical, scale=not args.no_scale)),
            ("estimator", estimator),
        ]
    pipeline = Pipeline(steps)
    y_values = y.to_numpy()
    start = time.perf_counter()
    with (
        console.status(f"fitting {cls.__name__} on {len(X)} x {X.shape[1]} ..."),
        warnings.catch_warnings(record=True) as caught,
    ):
        warnings.simplefilter("always")
        pipeline.fit(X, y_values)
    seconds = time.perf_counter() - start
    for message in dict.fromkeys(" ".join(str(w.message).split()) for w in caught):
        warnings_out.append(message)
        _warn(message)
    fitted = pipeline.named_steps["estimator"]
    X_model = pipeline[:-1].transform(X) if len(steps) > 1 else X
    names = [str(n) for n in getattr(X_model, "columns", [f"x{j}" for j in range(X.shape[1])])]

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    masks = _masks(fitted, X_model, len(X))
    written = []
    if masks is not None:
        _selected_frame(masks, names, X.index).to_csv(out / "selected_features.csv")
        written.append("selected_features.csv")
    importances = _importances(fitted, names, masks)
    importances.to_csv(out / "importances.csv", index=False)
    summary = {
        "method": args.method,
        "estimator": cls.__name__,
        "params": {k: repr(v) for k, v in fitted.get_params(deep=False).items()},
        "input": str(args.input),
        "target": args.target,
        "n_rows_used": len(X),
        "n_rows_dropped": int((~keep).sum()),
        "missing_values": missing,
        "fit_seconds": seconds,
        "importance_source": importances.attrs["importance_source"],
        "features": json.loads(importances.to_json(orient="records")),
    }
    (out / "importances.json").write_text(json.dumps(summary, indent=2) + "\n")
    written += ["importances.csv", "importances.json"]
    results = getattr(fitted, "results_", None)
    if isinstance(results, pd.DataFrame):
        results.to_csv(out / "results.csv", index=False)
        written.append("results.csv")
    bundle = {
        "format": _MODEL_FORMAT,
        "localselect": localselect.__version__,
        "method": args.method,
        "target": args.target,
        "columns": list(X.columns),
        "feature_names": names,
        "classifier": is_classifier(fitted),
        "pipeline": pipeline,
    }
    joblib.dump(bundle, out / "model.joblib")
    written.append("model.joblib")
    if args.report:
        page = render_html_report(
            title=f"localselect select: {cls.__name__} on {Path(args.input).name}",
            summary=summary,
            estimator=fitted,
            feature_names=names,
            importances=importances,
            labels=y_values,
            warning_lines=warnings_out,
            data=X if raw else None,
        )
        (out / "report.html").write_text(page)
        written.append("report.html")
    top = ", ".join(importances["feature"].head(5))
    console.print(
        f"{cls.__name__} fitted on {len(X)} rows x {len(names)} features in {seconds:.2f} s; "
        f"top features: {top}",
        highlight=False,
        soft_wrap=True,
    )
    console.print(f"wrote {', '.join(written)} to {out}", highlight=False, soft_wrap=True)
    return 0


# -- predict ----------------------------------------------------------------------------------


def run_predict(args: argparse.Namespace, console: Console) -> int:
    """Apply a saved model to new rows; write predictions and per-sample selected features."""
    import joblib

    path = Path(args.model)
    if not path.is_file():
        raise CLIError(f"model file {str(path)!r} does not exist")
    try:
        bundle = joblib.load(path)
    except Exception as exc:
        raise CLIError(f"cannot load {str(path)!r} as a localselect model: {exc}") from exc
    if not isinstance(bundle, dict) or bundle.get("format") != _MODEL_FORMAT:
        raise CLIError(f"{str(path)!r} was not written by `localselect select`")
    frame = read_table(args.input, na_values=args.na_values)
    _check_columns(frame, bundle["columns"], "feature")
    X = frame[bundle["columns"]]
    pipeline = bundle["pipeline"]
    raw = bundle["method"].lower() in RAW_INPUT_METHODS
    if not raw and X.isna().any(axis=None):
        incomplete = X.isna().any(axis=1)
        _warn(
            f"skipping {int(incomplete.sum())} row(s) with missing values "
            f"(first: row {X.index[incomplete][0]}); the model was fitted on complete rows"
        )
        X = X[~incomplete]
        if len(X) == 0:
            raise CLIError("every row has a missing value; impute them first")
    fitted = pipeline.named_steps["estimator"]
    X_model = pipeline[:-1].transform(X) if len(pipeline.steps) > 1 else X
    out = pd.DataFrame(index=X.index)
    out.index.name = "row"
    if bundle["classifier"]:
        out["prediction"] = fitted.predict(X_model)
        if hasattr(fitted, "predict_proba"):
            proba = fitted.predict_proba(X_model)
            for k, label in enumerate(fitted.classes_):
                out[f"proba_{label}"] = proba[:, k]
    masks = _masks(fitted, X_model, len(X))
    if masks is not None:
        selected = _selected_frame(masks, bundle["feature_names"], X.index)
        out["n_selected"] = selected["n_selected"]
        out["selected"] = selected["selected"]
    if out.shape[1] == 0:
        raise CLIError(f"the {bundle['method']} model neither predicts nor selects features")
    if args.out:
        out.to_csv(args.out)
        console.print(f"wrote {len(out)} rows to {args.out}", highlight=False)
    else:
        console.print(out.to_csv(), end="", markup=False, highlight=False, soft_wrap=True)
    return 0


# -- the HTML report ----------------------------------------------------------------------------


def figure_to_html(fig: Any, alt: str) -> str:
    """An ``<img>`` tag holding the figure as a base64 PNG."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _lift_figure(estimator: Any, data: Any, labels: Any) -> list[tuple[str, Any]]:
    """LLDS: the lift table of the best result with at most 3 features, as a heat map."""
    results = getattr(estimator, "results_", None)
    if data is None or not isinstance(results, pd.DataFrame) or "features" not in results:
        return []
    small = [f for f in results["features"] if isinstance(f, tuple) and 0 < len(f) <= 3]
    if not small or not set(small[0]) <= set(data.columns):
        return []
    from localselect import plotting
    from localselect.lift import lift_table

    features = list(small[0])
    table = lift_table(data[features], labels)
    caption = f"Lift table of {', '.join(features)}"
    return [(caption, plotting.plot_lift_table(table))]


def _figures(
    estimator: Any, names: list[str], labels: Any, data: Any = None
) -> list[tuple[str, Any]]:
    """The figures that apply to this estimator, by duck typing."""
    from localselect import plotting

    figures = []
    has_local = hasattr(estimator, "get_local_support")
    if has_local or hasattr(estimator, "feature_importances_"):
        what = "Selection frequency across regions" if has_local else "Feature importances"
        highlight = None
        if not has_local and hasattr(estimator, "get_support"):
            highlight = np.asarray(estimator.get_support(), dtype=bool)
            what += " (red: selected)"
        figures.append(
            (
                what,
                plotting.plot_selection_frequency(
                    estimator,
                    feature_names=names,
                    top=min(40, len(names)),
                    highlight=highlight,
                    title=what,
                ),
            )
        )
    if has_local:
        masks = np.asarray(estimator.get_local_support(), dtype=bool)
        rows = np.linspace(0, masks.shape[0] - 1, min(12, masks.shape[0])).astype(int)
        figures.append(
            (
                "Local subsets of a few training samples",
                plotting.plot_local_subspaces(
                    masks,
                    samples=np.unique(rows),
                    sample_labels=labels,
                    feature_names=names,
                ),
            )
        )
    weights = getattr(estimator, "weights_", None)
    if weights is not None and np.ndim(weights) == 2:
        figures.append(
            (
                "Weight matrix W",
                plotting.plot_weight_matrix(weights, feature_names=names, top=min(30, len(names))),
            )
        )
    return figures + _lift_figure(estimator, data, labels)


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _table_html(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, border=0, classes="table", float_format=lambda v: f"{v:.4g}")


def render_html_report(
    *,
    title: str,
    summary: dict[str, Any],
    estimator: Any,
    feature_names: list[str],
    importances: pd.DataFrame | None = None,
    labels: Any = None,
    warning_lines: list[str] | None = None,
    extra_html: str = "",
    data: Any = None,
) -> str:
    """A self-contained HTML page: run summary, tables and the figures as base64 PNG."""
    rows = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_fmt(v))}</td></tr>"
        for k, v in summary.items()
        if k not in {"features", "params"}
    )
    params = ", ".join(f"{k}={v}" for k, v in summary.get("params", {}).items())
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{padding:2px 8px;text-align:left;"
        "border-bottom:1px solid #ddd}img{max-width:100%;display:block;margin:1em 0}"
        ".warn{color:#a60}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    for line in warning_lines or []:
        parts.append(f'<p class="warn">warning: {html.escape(line)}</p>')
    parts.append(f"<h2>Run</h2><table>{rows}</table>")
    if params:
        parts.append(f"<p>Parameters: <code>{html.escape(params)}</code></p>")
    if labels is not None:
        counts = pd.Series(np.asarray(labels)).value_counts(sort=False)
        parts.append(
            "<p>Classes: "
            + html.escape(", ".join(f"{k} ({v})" for k, v in counts.items()))
            + "</p>"
        )
    if extra_html:
        parts.append(extra_html)
    if importances is not None:
        parts.append("<h2>Top features</h2>")
        parts.append(_table_html(importances.head(20)))
    results = getattr(estimator, "results_", None)
    if isinstance(results, pd.DataFrame):
        parts.append("<h2>Best results</h2>")
        parts.append(_table_html(results.head(10)))
    try:
        figures = _figures(estimator, feature_names, labels, data)
    except ImportError as exc:
        figures = []
        parts.append(f'<p class="warn">No figures: {html.escape(str(exc))}</p>')
    for caption, fig in figures:
        parts.append(f"<h2>{html.escape(caption)}</h2>")
        parts.append(figure_to_html(fig, caption))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
