"""Reading and preparing a user's table for ``localselect select`` and ``predict``.

Preparation (documented in ``docs/cli.md``): the target column becomes ``y``
(any labels); rows with a missing target are dropped. Numeric columns are
z-scored (the papers' protocol; ``--no-scale`` keeps them), boolean columns
(``true``/``false``, ``yes``/``no``, ``0``/``1`` as text) become one 0/1
feature, text and category columns are one-hot encoded, or handed over as
their levels to an estimator declared ``columns="native"`` (it reads them as
the library reads a data frame); the outputs name the user's columns
(:mod:`localselect.cli._columns`). A category never seen in training is
named by ``predict`` and treated as missing (:mod:`localselect.cli._new_rows`).
Missing feature values (``--missing``): ``keep`` them
for methods that take NaN (scikit-learn's ``allow_nan`` tag), ``impute``
them with scikit-learn's ``SimpleImputer`` inside the saved model (median of
numeric columns, most frequent category), ``drop`` the rows (reported with
the classes that lose rows; refused when a class would be left with fewer
rows than the method needs) or stop with an ``error``; ``auto`` keeps them
for the methods that take them and imputes for the others, so no row is
dropped by default. Methods that take the table as it is (raw input:
discrete data, missing values counted per feature subset, no encoding or
scaling) keep every row.

Files: CSV, TSV and text tables, compressed or not (``.gz``, ``.bz2``,
``.zip``, ``.xz``, ``.zst``: whatever pandas reads), and Parquet.
"""

from __future__ import annotations

import csv
import difflib
import shlex
import zipfile
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from localselect.cli._columns import AsBinary, AsBooleanLevels, boolean_values
from localselect.cli._errors import CLIError

__all__ = [
    "MAX_CATEGORIES",
    "MISSING_MODES",
    "PreparedTable",
    "check_columns",
    "looks_like_table",
    "preparation_steps",
    "prepare_table",
    "read_table",
]

#: Most distinct values a text column may have to be treated as categorical (the most
#: levels scikit-learn's gradient boosting takes as one categorical feature).
MAX_CATEGORIES = 255
#: A text column with more distinct values than this, most of them on one row each,
#: is an identifier (a name, an id), not a categorical feature.
IDENTIFIER_LEVELS = 50

#: What ``--missing`` may ask for (``keep``: the method takes NaN itself).
MISSING_MODES = ("keep", "impute", "drop", "error")

_TEXT_SUFFIXES = {".csv", ".tsv", ".txt", ".data", ".tab"}
_COMPRESSED = {".gz", ".bz2", ".zip", ".xz", ".zst"}


def _kind(path: Path) -> tuple[str, str | None]:
    """``(inner suffix, compression suffix)`` of a file name such as ``data.tsv.gz``."""
    suffixes = [s.lower() for s in path.suffixes]
    if suffixes and suffixes[-1] in _COMPRESSED:
        inner = suffixes[-2] if len(suffixes) > 1 and suffixes[-2] in _TEXT_SUFFIXES else ".csv"
        return inner, suffixes[-1]
    return (suffixes[-1] if suffixes else ""), None


def looks_like_table(path: Path) -> bool:
    """A data file by its name (``.csv``, ``.tsv.gz``, ``.parquet`` ...), or by text content."""
    suffix, _ = _kind(path)
    if suffix in _TEXT_SUFFIXES | {".parquet", ".pq"}:
        return True
    if suffix in {".joblib", ".pkl", ".pickle"}:
        return False
    with open(path, "rb") as handle:
        head = handle.read(512)
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c in "\r\n\t" for c in text)


def _check_unique_header(path: Path, sep: str | None) -> None:
    """pandas renames a repeated column name ``x`` to ``x.1``; refuse instead."""
    header = pd.read_csv(path, sep=sep, engine="python", header=None, nrows=1, dtype=str)
    names = [str(v) for v in header.iloc[0].tolist()] if len(header) else []
    _refuse_duplicates(names)


def _refuse_duplicates(names: list[str]) -> None:
    seen: dict[str, list[int]] = {}
    for k, name in enumerate(names, start=1):
        seen.setdefault(name, []).append(k)
    repeated = {name: cols for name, cols in seen.items() if len(cols) > 1}
    if repeated:
        name, cols = next(iter(repeated.items()))
        more = f" (and {len(repeated) - 1} other name(s))" if len(repeated) > 1 else ""
        raise CLIError(
            f"column name {name!r} appears {len(cols)} times (columns "
            f"{', '.join(map(str, cols))}){more}; column names must be unique: rename the copies"
        )


def read_table(path: str | Path, *, na_values: list[str] | None = None) -> pd.DataFrame:
    """Read a CSV/TSV/TXT (compressed or not) or Parquet file, with one-line errors."""
    path = Path(path)
    if not path.exists():
        raise CLIError(f"input file {str(path)!r} does not exist")
    if path.is_dir():
        raise CLIError(f"input {str(path)!r} is a folder, not a file")
    if path.stat().st_size == 0:
        raise CLIError(f"input file {str(path)!r} is empty")
    suffix, compression = _kind(path)
    try:
        if suffix in {".parquet", ".pq"} and compression is None:
            try:
                import pyarrow  # noqa: F401
            except ImportError as exc:
                raise CLIError(
                    "reading Parquet needs pyarrow: pip install pyarrow (or convert to CSV)"
                ) from exc
            frame = pd.read_parquet(path)
            _refuse_duplicates([str(c) for c in frame.columns])
        elif suffix in _TEXT_SUFFIXES:
            sep = "\t" if suffix in {".tsv", ".tab"} else None
            _check_unique_header(path, sep)
            frame = pd.read_csv(path, sep=sep, engine="python", na_values=na_values or None)
        else:
            raise CLIError(
                f"cannot read {path.name!r}: use a .csv, .tsv, .txt or .parquet file, or one "
                "of the text files compressed (.gz, .bz2, .zip, .xz, .zst)"
            )
    except CLIError:
        raise
    except pd.errors.EmptyDataError as exc:
        raise CLIError(f"input file {str(path)!r} is empty") from exc
    except (
        pd.errors.ParserError,
        csv.Error,
        UnicodeDecodeError,
        ValueError,
        OSError,
        EOFError,
        zipfile.BadZipFile,
    ) as exc:
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


Kinds = tuple[list[str], dict[str, tuple[list[str], list[str]]], list[str]]


def _column_kinds(frame: pd.DataFrame, categorical: list[str]) -> Kinds:
    """Split feature columns into numeric, boolean and categorical; refuse unusable text.

    Boolean columns map to their ``(true, false)`` spellings
    (:func:`~localselect.cli._columns.boolean_values`).
    """
    numeric: list[str] = []
    categ: list[str] = []
    boolean: dict[str, tuple[list[str], list[str]]] = {}
    for col in frame.columns:
        series = frame[col]
        declared = col in categorical or isinstance(series.dtype, pd.CategoricalDtype)
        text = not pd.api.types.is_numeric_dtype(series) or pd.api.types.is_bool_dtype(series)
        values = boolean_values(series) if declared or text else None
        if values is not None:
            boolean[col] = values
            continue
        if declared:
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
                f"(row {bad.index[0]}); fix them, or mark them missing with "
                f"--na-values {shlex.quote(str(example))}"
            )
        n_unique = present.nunique()
        if n_unique > MAX_CATEGORIES:
            raise CLIError(
                f"column {col!r} is text with {n_unique} distinct values, too many for a "
                f"categorical feature (at most {MAX_CATEGORIES}); drop it with "
                f"--drop {shlex.quote(str(col))}"
            )
        if n_unique > IDENTIFIER_LEVELS and n_unique > 0.5 * len(present):
            raise CLIError(
                f"column {col!r} is text with {n_unique} distinct values over {len(present)} "
                "rows, most of them on one row: an identifier, not a categorical feature; "
                f"drop it with --drop {shlex.quote(str(col))}"
            )
        categ.append(col)
    return numeric, boolean, categ


def _missing_report(frame: pd.DataFrame) -> dict[str, int]:
    counts = frame.isna().sum()
    return {str(k): int(v) for k, v in counts.items() if v > 0}


def as_level(value: Any) -> Any:
    """A categorical value as the text of its level; missing stays missing.

    An integer-valued float is written as the integer (``2.0`` -> ``"2"``): a
    numeric-coded column read with a missing value holds floats, without one
    integers, and both must name the same level.
    """
    if pd.isna(value):
        return value
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))
    return str(value)


class _AsText:
    """Cast categorical columns to text so one-hot encoding sees one type per column."""

    def __init__(self, columns: list[str]):
        self.columns = columns

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.copy()
        for col in self.columns:
            frame[col] = frame[col].map(as_level).astype(object)
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
    boolean: dict[str, tuple[list[str], list[str]]] = {}


def prepare_table(
    frame: pd.DataFrame,
    *,
    target: str,
    drop: list[str],
    categorical: list[str],
    raw: bool,
    missing: str = "impute",
    min_per_class: int = 2,
    method: str = "the method",
    classes: bool = True,
    reason: str = "",
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
    missing : {"keep", "impute", "drop", "error"}, default="impute"
        Rows with a missing feature value: kept for the method (which takes
        missing values) or for the imputer inside the model, dropped, or an
        error. Every mode but ``error`` adds a line saying what it did.
    min_per_class : int, default=2
        Fewest rows a class may be left with after dropping rows.
    method : str
        The method's name, for messages.
    classes : bool, default=True
        The target holds class labels; False for a continuous target, whose
        rows are dropped without a per-class account (no class can be lost).
    reason : str, default=""
        Why the mode was chosen (e.g. ``"FisherScore needs complete rows"``),
        appended to the line that says what was done.

    Raises
    ------
    CLIError
        A named column is absent, no feature column is left, ``missing="error"``
        meets a missing value, or dropping rows would leave a class with fewer
        than ``min_per_class`` rows.
    """
    check_columns(frame, [target], "target")
    check_columns(frame, drop + categorical, "--drop/--categorical")
    if target in drop:
        raise CLIError(f"--drop names the target column {target!r}")
    y_all = frame[target]
    X_all = frame.drop(columns=[target, *drop])
    if X_all.shape[1] == 0:
        raise CLIError("no feature columns left after removing the target and --drop columns")
    if missing not in MISSING_MODES:
        raise CLIError(f"--missing must be one of {', '.join(MISSING_MODES)}; got {missing!r}")
    missing_mode = missing
    warnings_out: list[str] = []
    counts = _missing_report(frame[[target, *X_all.columns]])
    keep = y_all.notna()
    if (~keep).any():
        warnings_out.append(f"dropping {int((~keep).sum())} row(s) with a missing target")
    numeric: list[str] = []
    categ: list[str] = []
    boolean: dict[str, tuple[list[str], list[str]]] = {}
    if not raw:
        numeric, boolean, categ = _column_kinds(X_all, categorical)
        incomplete = X_all.isna().any(axis=1) & keep
        if incomplete.any():
            per_col = ", ".join(f"{k} {v}" for k, v in counts.items() if k != target)
            n_rows = int(incomplete.sum())
            why = f" ({reason})" if reason else ""
            if missing_mode == "error":
                raise CLIError(
                    f"{n_rows} row(s) have missing values ({per_col}); pass --missing "
                    "impute (impute inside the model), drop (drop the rows) or keep "
                    "(methods that take missing values)"
                )
            if missing_mode == "keep":
                warnings_out.append(
                    f"keeping {n_rows} row(s) with missing values ({per_col}) as they are: "
                    f"{method} takes missing values{why}"
                )
            elif missing_mode == "impute":
                warnings_out.append(
                    f"imputing {n_rows} row(s) with missing values ({per_col}) inside the "
                    f"model{why}: median of a numeric column, most frequent value of the "
                    "others (predict fills new rows alike); --missing drop drops the rows instead"
                )
            elif missing_mode == "drop" and not classes:
                warnings_out.append(
                    f"dropping {n_rows} row(s) with missing values ({per_col}){why}; "
                    "--missing impute keeps them"
                )
                keep &= ~incomplete
            elif missing_mode == "drop":
                lost = _class_losses(y_all[keep], y_all[keep & ~incomplete])
                _refuse_thin_classes(lost, n_rows, min_per_class, method)
                changed = ", ".join(
                    f"{label!r} {before}->{after}" for label, (before, after) in lost.items()
                )
                warnings_out.append(
                    f"dropping {n_rows} row(s) with missing values ({per_col}){why}; rows "
                    f"per class {changed}; --missing impute keeps them"
                )
                keep &= ~incomplete
    return PreparedTable(
        X_all[keep], y_all[keep], keep, counts, numeric, categ, warnings_out, boolean
    )


def _class_losses(before: pd.Series, after: pd.Series) -> dict[Any, tuple[int, int]]:
    """``{label: (rows before, rows after)}`` of the classes that lose rows."""
    n_before = before.value_counts(sort=False)
    n_after = after.value_counts(sort=False).reindex(n_before.index, fill_value=0)
    return {
        label: (int(n_before[label]), int(n_after[label]))
        for label in n_before.index
        if n_after[label] < n_before[label]
    }


class ThinClassesError(CLIError):
    """Dropping incomplete rows would leave a class with too few rows (``--missing drop``).

    ``loss`` says which rows and classes, e.g. ``"the 3 row(s) with missing values
    would leave class(es) 'a' with 1 of its 4 row(s)"``.
    """

    def __init__(self, message: str, loss: str) -> None:
        super().__init__(message)
        self.loss = loss


def _refuse_thin_classes(
    lost: dict[Any, tuple[int, int]], n_rows: int, min_per_class: int, method: str
) -> None:
    thin = {k: v for k, v in lost.items() if v[1] < min_per_class}
    if not thin:
        return
    shown = ", ".join(f"{k!r} with {after} of its {before}" for k, (before, after) in thin.items())
    loss = f"the {n_rows} row(s) with missing values would leave class(es) {shown} row(s)"
    from localselect.cli._methods import nan_methods

    raise ThinClassesError(
        f"dropping {loss}; {method} needs at least {min_per_class} per class. Pass --missing "
        "impute (SimpleImputer inside the model), or use a method that takes missing values "
        f"({', '.join(nan_methods())})",
        loss,
    )


def preparation_steps(
    numeric: list[str],
    categorical: list[str],
    *,
    scale: bool,
    impute: bool = False,
    boolean: dict[str, tuple[list[str], list[str]]] | None = None,
    native: bool = False,
) -> list[tuple[str, Any]]:
    """The pipeline steps that turn the feature columns into what the estimator reads.

    ``boolean`` columns (name -> true and false spellings) become one 0/1
    feature each; ``categorical`` ones a 0/1 feature per level. With
    ``impute`` missing values are filled by ``SimpleImputer`` (median of a
    numeric column, most frequent category or boolean value), fitted with the
    model so that ``predict`` fills new rows the same way.

    With ``native`` (an estimator declared ``columns="native"``, which reads a
    table's nominal columns itself: :func:`localselect._tables.read_columns`)
    the output is a table with one column per input column: numeric columns
    as above, a categorical column as the text of its levels and a boolean
    column as ``"false"``/``"true"`` (:class:`~localselect.cli._columns.AsBooleanLevels`),
    nothing one-hot encoded.
    """
    from sklearn.compose import ColumnTransformer
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer, OneHotEncoder, StandardScaler

    parts: list[tuple[str, Any, list[str]]] = []
    if numeric:
        num: Any = StandardScaler() if scale else "passthrough"
        if impute:
            median = SimpleImputer(strategy="median", keep_empty_features=True)
            num = make_pipeline(median, num) if scale else median
        parts.append(("num", num, numeric))
    if boolean:
        as_binary = AsBooleanLevels(boolean) if native else AsBinary(boolean)
        binary: Any = FunctionTransformer(as_binary, feature_names_out="one-to-one")
        if impute:
            frequent = SimpleImputer(strategy="most_frequent", keep_empty_features=True)
            binary = make_pipeline(binary, frequent)
        parts.append(("bool", binary, list(boolean)))
    if categorical:
        levels: Any = (
            "passthrough"
            if native
            else OneHotEncoder(handle_unknown="ignore", sparse_output=False, dtype=np.float64)
        )
        if impute:
            frequent = SimpleImputer(strategy="most_frequent", keep_empty_features=True)
            levels = frequent if native else make_pipeline(frequent, levels)
        parts.append(("cat", levels, categorical))
    prep = ColumnTransformer(parts, verbose_feature_names_out=False)
    as_text = FunctionTransformer(_AsText(categorical), feature_names_out="one-to-one")
    return [("as_text", as_text), ("prepare", prep.set_output(transform="pandas"))]
