"""``localselect predict``: a model saved by ``localselect select`` applied to new rows.

The rows are read and prepared as ``select`` prepared its table (the fitted
preparation is part of the saved model); the output has one row per input row
with the prediction (classifiers; a number where the model predicts a
continuous target), the class probabilities (classifiers) and the row's
selected columns (local selectors), as :mod:`localselect.cli._select` defines them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localselect._estimators import raw_input_methods
from localselect.cli._errors import CLIError, warn
from localselect.cli._select import (
    add_reading_arguments,
    answer_rows,
    read_input,
)

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

__all__ = ["add_predict_parser", "load_bundle", "model_rows", "predict_rows", "run_predict"]


def add_predict_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``predict`` sub-command to ``sub``."""
    p = sub.add_parser(
        "predict",
        help="apply a model saved by `localselect select` to new data",
        description=(
            "Predict labels (classifiers) and per-sample selected features (local "
            "selectors) for new rows, prepared as in `select`. model.skops files load only "
            "localselect's estimators and the scikit-learn/numpy types they hold; a pickle "
            "or joblib file, which can run any code, is refused."
        ),
    )
    p.add_argument("--model", required=True, help="model.skops written by `localselect select`")
    p.add_argument(
        "--input",
        required=True,
        help="CSV or Parquet file with the same columns (with --cluster also a folder or glob)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="output CSV (default: print to the terminal); with --cluster a folder of Parquet "
        "partitions",
    )
    add_reading_arguments(p)
    return p


def load_bundle(path: Path) -> dict[str, Any]:
    """The model saved by ``select`` (its bundle), or a :class:`CLIError` saying what it is."""
    from localselect.cli._model_io import MODEL_FORMAT, load_model
    from localselect.cli._table import looks_like_table

    if not path.is_file():
        raise CLIError(f"model file {str(path)!r} does not exist")
    not_a_model = (
        f"{str(path)!r} is not a localselect model; --model takes the model.skops that "
        "`localselect select` writes into its --out folder"
    )
    if looks_like_table(path):
        raise CLIError(f"{not_a_model} (this looks like a data table: pass it as --input)")
    bundle = load_model(path, what=not_a_model)
    if not isinstance(bundle, dict) or bundle.get("format") != MODEL_FORMAT:
        raise CLIError(f"{not_a_model} (it holds another kind of object)")
    return bundle


def model_rows(frame: pd.DataFrame, bundle: dict[str, Any]) -> pd.DataFrame:
    """The model's columns of ``frame``; rows with missing values left out when it needs that."""
    from localselect.cli._table import check_columns

    check_columns(frame, bundle["columns"], "feature")
    X = frame[bundle["columns"]]
    raw = bundle["method"].lower() in raw_input_methods()
    # Models that keep or impute missing values predict every row.
    fills = bundle.get("missing", "drop") in {"keep", "impute"}
    if not raw and not fills and X.isna().any(axis=None):
        incomplete = X.isna().any(axis=1)
        warn(
            f"skipping {int(incomplete.sum())} row(s) with missing values "
            f"(first: row {X.index[incomplete][0]}); the model was fitted on complete rows"
        )
        X = X[~incomplete]
        if len(X) == 0:
            raise CLIError("every row has a missing value; impute them first")
    return X


def predict_rows(
    bundle: dict[str, Any], X: pd.DataFrame, *, per_level: bool = False
) -> pd.DataFrame:
    """Answer step of ``predict``: predictions, probabilities and each row's selected columns."""
    import pandas as pd

    pipeline = bundle["pipeline"]
    fitted = pipeline.named_steps["estimator"]
    X_model = pipeline[:-1].transform(X) if len(pipeline.steps) > 1 else X
    out = pd.DataFrame(index=X.index)
    out.index.name = "row"
    regression = bundle.get("task", "classification") == "regression"
    if bundle["classifier"] or (regression and hasattr(fitted, "predict")):
        # class labels, or numbers where the model predicts a continuous target
        out["prediction"] = fitted.predict(X_model)
        if not regression and hasattr(fitted, "predict_proba"):
            proba = fitted.predict_proba(X_model)
            for k, label in enumerate(fitted.classes_):
                out[f"proba_{label}"] = proba[:, k]
    masks, _ = answer_rows(fitted, X_model, len(X), relevance=False)
    if masks is not None:
        from localselect.cli._columns import column_masks, feature_columns, selected_frame

        names = bundle["feature_names"]
        owners = feature_columns(pipeline, len(names), names)
        col_masks, columns = column_masks(masks, owners, bundle["columns"])
        selected = selected_frame(col_masks, columns, X.index)
        out[["n_selected", "selected"]] = selected[["n_selected", "selected"]]
        if per_level:
            levels = selected_frame(masks, names, X.index)
            out[["n_selected_levels", "selected_levels"]] = levels[["n_selected", "selected"]]
    if out.shape[1] == 0:
        raise CLIError(f"the {bundle['method']} model neither predicts nor selects features")
    return out


def run_predict(args: argparse.Namespace, console: Console) -> int:
    """Apply a saved model to new rows; write predictions and per-sample selected features.

    The steps: :func:`load_bundle`, :func:`~localselect.cli._select.read_input`
    (shared with ``select``), :func:`model_rows`, :func:`predict_rows` (whose
    subsets come from :func:`~localselect.cli._select.answer_rows`, shared with
    ``select``), then the output written.
    """
    bundle = load_bundle(Path(args.model))
    X = model_rows(read_input(args.input, args.na_values), bundle)
    out = predict_rows(bundle, X, per_level=args.per_level)
    if args.out:
        out.to_csv(args.out)
        console.print(f"wrote {len(out)} rows to {args.out}", highlight=False)
    else:
        console.print(out.to_csv(), end="", markup=False, highlight=False, soft_wrap=True)
    return 0
