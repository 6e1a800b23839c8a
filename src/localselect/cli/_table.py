"""Reading and preparing a user's table for ``localselect select`` and ``predict``.

Preparation (documented in ``docs/cli.md``): the target column becomes ``y``
(any labels); rows with a missing target are dropped. Numeric columns are
z-scored (the papers' protocol; ``--no-scale`` keeps them), text, boolean and
category columns are one-hot encoded (new categories at prediction time
encode as all zeros). Rows with a missing value are dropped with a warning
line, except for methods that take the table as it is (raw input: discrete
data, missing values counted per feature subset, no encoding or scaling).
"""

from __future__ import annotations

import csv
import difflib
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from localselect.cli._errors import CLIError

__all__ = [
    "MAX_CATEGORIES",
    "PreparedTable",
    "check_columns",
    "preparation_steps",
    "prepare_table",
    "read_table",
]

#: Most distinct values a text column may have to be treated as categorical.
MAX_CATEGORIES = 50


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


def check_columns(frame: pd.DataFrame, names: list[str], what: str) -> None:
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


class PreparedTable(NamedTuple):
    """The rows and columns ``select`` fits on, and what was dropped on the way."""

    X: pd.DataFrame
    y: pd.Series
    keep: pd.Series  # bool, one per input row: used for the fit
    missing: dict[str, int]  # missing cells per column (target and features)
    numeric: list[str]
    categorical: list[str]
    warnings: list[str]


def prepare_table(
    frame: pd.DataFrame,
    *,
    target: str,
    drop: list[str],
    categorical: list[str],
    raw: bool,
) -> PreparedTable:
    """Split ``frame`` into features and target and drop the rows ``select`` cannot use.

    Parameters
    ----------
    frame : DataFrame
        The table as read by :func:`read_table`.
    target : str
        The label column; rows where it is missing are dropped.
    drop : list of str
        Columns to ignore.
    categorical : list of str
        Numeric-coded columns to treat as categorical.
    raw : bool
        The method takes the table as it is: no column kinds, rows with missing
        feature values are kept.

    Raises
    ------
    CLIError
        A named column is absent, or no feature column is left.
    """
    check_columns(frame, [target], "target")
    check_columns(frame, drop + categorical, "--drop/--categorical")
    if target in drop:
        raise CLIError(f"--drop names the target column {target!r}")
    y_all = frame[target]
    X_all = frame.drop(columns=[target, *drop])
    if X_all.shape[1] == 0:
        raise CLIError("no feature columns left after removing the target and --drop columns")
    warnings_out: list[str] = []
    missing = _missing_report(frame[[target, *X_all.columns]])
    keep = y_all.notna()
    if (~keep).any():
        warnings_out.append(f"dropping {int((~keep).sum())} row(s) with a missing target")
    numeric: list[str] = []
    categ: list[str] = []
    if not raw:
        numeric, categ = _column_kinds(X_all, categorical)
        incomplete = X_all.isna().any(axis=1) & keep
        if incomplete.any():
            per_col = ", ".join(f"{k} {v}" for k, v in missing.items() if k != target)
            warnings_out.append(
                f"dropping {int(incomplete.sum())} row(s) with missing values ({per_col}); "
                "impute them first to keep those rows"
            )
            keep &= ~incomplete
    return PreparedTable(X_all[keep], y_all[keep], keep, missing, numeric, categ, warnings_out)


def preparation_steps(
    numeric: list[str], categorical: list[str], *, scale: bool
) -> list[tuple[str, Any]]:
    """The pipeline steps that turn the feature columns into a float matrix."""
    from sklearn.preprocessing import FunctionTransformer

    return [
        ("as_text", FunctionTransformer(_AsText(categorical), feature_names_out="one-to-one")),
        ("prepare", _build_preparation(numeric, categorical, scale=scale)),
    ]
