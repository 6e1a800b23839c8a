"""The steps ``select``, ``predict`` and their ``--cluster`` forms share.

Each command module (:mod:`~localselect.cli._select`,
:mod:`~localselect.cli._predict`, :mod:`~localselect.cli._select_cluster`,
:mod:`~localselect.cli._predict_cluster`) strings these steps together and
imports no other command:

* :func:`read_input`: the input file as a table (:mod:`localselect.cli._table`);
* :func:`takes_raw_table`: whether a method takes the table as it is (its
  declaration's ``raw_input``: LLDS), the one place the CLI asks;
* :func:`prepare` and :func:`fit`: rows with missing values handled, the
  preparation pipeline built and fitted with the estimator;
* :func:`answer_rows`: each row's subset and relevance
  (:mod:`localselect.cli._answers`);
* :func:`model_rows` and :func:`predict_rows`: a saved model's columns of
  new rows (unseen categories named and set missing, what happens to missing
  values said: :mod:`localselect.cli._new_rows`), and its answers, one per row;
* :func:`write_json`: ``importances.json``.

The model file is written and read by :mod:`localselect.cli._model_io`
(:func:`~localselect.cli._model_io.write_model`), the method resolved by
:mod:`localselect.cli._methods`.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from localselect._estimators import raw_input_methods
from localselect.cli._answers import row_masks, row_relevance
from localselect.cli._errors import CLIError, note, warn

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd
    from rich.console import Console
    from sklearn.pipeline import Pipeline

# numpy, pandas and the table helpers are imported where they are used,
# so building the parser (``localselect --help``) imports none of them.

__all__ = [
    "MIN_ROWS_PER_CLASS",
    "Fitted",
    "Prepared",
    "answer_rows",
    "fit",
    "model_rows",
    "predict_rows",
    "prepare",
    "read_input",
    "takes_raw_table",
    "write_json",
]

#: Fewest rows a class may keep when ``--missing drop`` removes incomplete rows.
MIN_ROWS_PER_CLASS = 2


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


def read_input(path: str | Path, na_values: list[str]) -> pd.DataFrame:
    """Read step: the input file as a table."""
    from localselect.cli._table import read_table

    return read_table(path, na_values=na_values)


def takes_raw_table(method: str) -> bool:
    """Whether the CLI method ``method`` takes the table as it is (no preparation, NaN kept).

    Its declaration's ``raw_input`` (:func:`localselect._estimators.raw_input_methods`).
    """
    return method.lower() in raw_input_methods()


def _missing_mode(args: argparse.Namespace, cls: type, raw: bool, takes_nan: bool) -> str:
    """``--missing`` resolved to keep, impute, drop or error.

    ``auto`` follows the estimator's declaration (:func:`~localselect.cli._methods.takes_nan`):
    ``keep`` when it takes missing values, else ``impute`` inside the model, so
    that no row is dropped without the user's say.
    """
    mode = getattr(args, "missing", "auto")
    if raw and mode not in ("auto", "keep"):
        note(f"--missing {mode} is unused: {cls.__name__} takes the table as it is")
        mode = "keep"
    if mode == "auto":
        return "keep" if takes_nan else "impute"
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
    An estimator that refuses NaN gets an imputer inside the model whatever the
    mode (with ``--missing drop`` or ``error`` it is fitted on complete rows and
    fills nothing), so that ``predict`` answers rows with missing values too.
    An estimator declared ``columns="native"`` gets the table with its
    categorical columns as they are (their levels as text), which it reads as
    the library reads a data frame; the others get them one-hot encoded.
    """
    from sklearn.pipeline import Pipeline

    from localselect.base import columns_kind
    from localselect.cli._methods import takes_nan as estimator_takes_nan
    from localselect.cli._table import preparation_steps, prepare_table

    raw = takes_raw_table(args.method)
    takes_nan = raw or estimator_takes_nan(estimator)
    mode = _missing_mode(args, cls, raw, takes_nan)
    if getattr(args, "missing", "auto") != "auto":
        reason = f"--missing {mode}"
    elif takes_nan:
        reason = "--missing auto"
    else:
        reason = f"{cls.__name__} needs complete rows; --missing auto"
    table = prepare_table(
        frame,
        target=args.target,
        drop=args.drop,
        categorical=args.categorical,
        raw=raw,
        missing="keep" if raw else mode,
        min_per_class=MIN_ROWS_PER_CLASS,
        method=cls.__name__,
        classes=task == "classification",
        reason=reason,
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
            impute=mode == "impute" or not takes_nan,
            boolean=table.boolean,
            native=columns_kind(estimator) == "native",
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
    """Answer step: per-row subsets and relevance.

    ``(masks, relevance)`` by :func:`localselect.cli._answers.row_masks` and
    :func:`~localselect.cli._answers.row_relevance` (``None`` for a model that
    selects nothing; relevance only when asked).
    """
    masks = row_masks(estimator, X_model, n_rows)
    return masks, (row_relevance(estimator, X_model, masks) if relevance else None)


def model_rows(frame: pd.DataFrame, bundle: dict[str, Any]) -> pd.DataFrame:
    """The model's columns of ``frame``, every row; what will be done to them said first.

    A category the fit never saw is named and set missing
    (:func:`localselect.cli._new_rows.unseen_as_missing`); then one line says
    how the rows with missing values are answered (imputed by the model,
    taken as they are by the method: :func:`~localselect.cli._new_rows.missing_account`).
    Both lines are printed here, before any output is written.
    """
    from localselect.cli._new_rows import describe_unseen, missing_account, unseen_as_missing
    from localselect.cli._table import check_columns

    check_columns(frame, bundle["columns"], "feature")
    X, unseen = unseen_as_missing(bundle["pipeline"], frame[bundle["columns"]])
    if unseen:
        warn(describe_unseen(unseen))
    account = missing_account(bundle, X)
    if account is not None:
        (warn if account.startswith("imputing") or "left empty" in account else note)(account)
    return X


def predict_rows(
    bundle: dict[str, Any], X: pd.DataFrame, *, per_level: bool = False
) -> pd.DataFrame:
    """A saved model's answers: predictions, probabilities and each row's selected columns.

    One row per row of ``X``; a row the model cannot answer (a missing value,
    and a model that neither imputes nor takes them:
    :func:`localselect.cli._new_rows.answerable`) gets empty answers.
    """
    import pandas as pd

    from localselect.cli._new_rows import answerable

    pipeline = bundle["pipeline"]
    fitted = pipeline.named_steps["estimator"]
    ok = answerable(bundle, X)
    rows = X if ok.all() else X[ok.to_numpy()]
    if len(rows) == 0:
        raise CLIError(
            "every row has a missing value and this model neither imputes nor takes them; "
            "run select again to save a model that imputes"
        )
    with warnings.catch_warnings():
        # unseen categories were named and set missing before (model_rows)
        warnings.filterwarnings("ignore", message="Found unknown categories")
        X_model = pipeline[:-1].transform(rows) if len(pipeline.steps) > 1 else rows
    out = pd.DataFrame(index=rows.index)
    regression = bundle.get("task", "classification") == "regression"
    if bundle["classifier"] or (regression and hasattr(fitted, "predict")):
        # class labels, or numbers where the model predicts a continuous target
        out["prediction"] = fitted.predict(X_model)
        if not regression and hasattr(fitted, "predict_proba"):
            proba = fitted.predict_proba(X_model)
            for k, label in enumerate(fitted.classes_):
                out[f"proba_{label}"] = proba[:, k]
    masks, _ = answer_rows(fitted, X_model, len(rows), relevance=False)
    if masks is not None:
        from localselect.cli._columns import column_masks, feature_columns, selected_frame

        names = bundle["feature_names"]
        owners = feature_columns(pipeline, len(names), names)
        col_masks, columns = column_masks(masks, owners, bundle["columns"])
        selected = selected_frame(col_masks, columns, rows.index)
        out[["n_selected", "selected"]] = selected[["n_selected", "selected"]]
        if per_level:
            levels = selected_frame(masks, names, rows.index)
            out[["n_selected_levels", "selected_levels"]] = levels[["n_selected", "selected"]]
    if out.shape[1] == 0:
        raise CLIError(f"the {bundle['method']} model neither predicts nor selects features")
    if len(rows) < len(X):
        out = out.reindex(X.index)
        for counts in ("n_selected", "n_selected_levels"):
            if counts in out:
                out[counts] = out[counts].astype("Int64")
    out.index.name = "row"
    return out


def write_json(path: Path, summary: dict[str, Any]) -> None:
    """``summary`` as indented JSON (``importances.json``), strict (no NaN or infinity)."""
    text = json.dumps(summary, indent=2, allow_nan=False)
    path.write_text(text + "\n")
