"""What ``localselect predict`` does to new rows before the saved model answers them.

``predict`` answers every input row and says, before it writes, what it did
to the rows the model was not fitted on (documented in ``docs/cli.md``):

* **a category never seen in training** (a level of a categorical column
  absent from the fit, a third spelling in a boolean column) is named
  (column, values, rows) and treated as a missing value of its column
  (:func:`unseen_as_missing`), not encoded silently as no level;
* **missing values** (those of the input and the unseen categories) are
  filled by the model's own imputer when the method needs complete rows
  (``select`` fits one inside the model for such methods), or kept for a
  method that takes them (:func:`missing_account`). A model without an
  imputer whose method refuses missing values leaves those rows' answers
  empty and says so (:func:`answerable`).

The fitted preparation is read from the saved pipeline: its ``"prepare"``
step (a ``ColumnTransformer`` with the parts ``"num"``, ``"bool"`` and
``"cat"``; :func:`localselect.cli._table.preparation_steps`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from localselect._estimators import raw_input_methods
from localselect.cli._columns import AsBinary
from localselect.cli._methods import takes_nan
from localselect.cli._table import as_level

__all__ = [
    "Unseen",
    "answerable",
    "describe_unseen",
    "has_imputer",
    "missing_account",
    "unseen_as_missing",
]


class Unseen(NamedTuple):
    """The values of one column that the fit never saw."""

    column: str
    values: list[str]  # as the input spells them, sorted
    n_rows: int
    how: str  # what the model does with them (imputed, encoded as no level ...)


def _parts(pipeline: Any) -> list[tuple[str, Any, list[str]]]:
    """``(part, fitted transformer, columns)`` of the saved preparation; [] without one."""
    steps = getattr(pipeline, "named_steps", {})
    prep = steps.get("prepare") if hasattr(steps, "get") else None
    if prep is None:
        return []
    return [(name, tr, list(cols)) for name, tr, cols in prep.transformers_ if name != "remainder"]


def _steps_of(transformer: Any) -> list[Any]:
    return (
        [step for _, step in transformer.steps] if hasattr(transformer, "steps") else [transformer]
    )


def _imputes(transformer: Any) -> bool:
    from sklearn.impute import SimpleImputer

    return any(isinstance(step, SimpleImputer) for step in _steps_of(transformer))


def has_imputer(pipeline: Any) -> bool:
    """Whether the saved preparation fills missing values (a ``SimpleImputer`` in a part)."""
    return any(_imputes(transformer) for _, transformer, _ in _parts(pipeline))


def _native_levels(pipeline: Any, columns: list[str], imputes: bool) -> dict[str, tuple[Any, str]]:
    """The levels an estimator that reads nominal columns itself saw (``input_columns_``)."""
    fitted = pipeline.named_steps["estimator"]
    read = getattr(fitted, "input_columns_", None)
    if read is None:
        return {}
    how = (
        "imputed with the column's most frequent level (the model's imputer)"
        if imputes
        else f"read as missing by {type(fitted).__name__}"
    )
    found: dict[str, tuple[Any, str]] = {}
    for name, nominal, levels in zip(read.names, read.nominal, read.levels, strict=True):
        if nominal and name in columns:
            seen = {str(v) for v in levels}
            found[str(name)] = (lambda v, seen=seen: as_level(v) in seen, how)
    return found


def _known_levels(
    pipeline: Any, transformer: Any, columns: list[str]
) -> dict[str, tuple[Any, str]]:
    """Column -> (test of a present value being a fitted level, what happens to others)."""
    found: dict[str, tuple[Any, str]] = {}
    imputes = _imputes(transformer)
    steps = _steps_of(transformer)
    if not any(hasattr(s, "categories_") or getattr(s, "func", None) for s in steps):
        return _native_levels(pipeline, columns, imputes)
    for step in steps:
        if hasattr(step, "categories_"):  # the one-hot encoder
            for col, levels in zip(columns, step.categories_, strict=True):
                seen = {v for v in levels if not pd.isna(v)}
                nan_level = len(seen) < len(levels)
                how = (
                    "imputed with the column's most frequent level (the model's imputer)"
                    if imputes
                    else "encoded as the column's missing level"
                    if nan_level
                    else "encoded as no level of the column (all its indicators 0)"
                )
                found[col] = (lambda v, seen=seen: as_level(v) in seen, how)
        elif isinstance(getattr(step, "func", None), AsBinary):  # boolean columns
            for col, (true, false) in step.func.columns.items():
                spellings = set(true) | set(false)
                how = (
                    "imputed with the column's most frequent value (the model's imputer)"
                    if imputes
                    else "passed on as missing (the method takes missing values)"
                )
                found[col] = (lambda v, s=spellings: str(v).strip().lower() in s, how)
    return found


def unseen_as_missing(pipeline: Any, X: pd.DataFrame) -> tuple[pd.DataFrame, list[Unseen]]:
    """``X`` with every value of a categorical or boolean column the fit never saw set missing.

    Parameters
    ----------
    pipeline : Pipeline
        The saved model (its fitted ``"prepare"`` step); a model without one
        (a method that takes the table as it is) changes nothing.
    X : DataFrame
        The model's columns of the new rows.

    Returns
    -------
    X : DataFrame
        A copy with the unseen values missing (``X`` itself when there are none).
    unseen : list of Unseen
        One record per column that held unseen values, in column order.
    """
    found: list[Unseen] = []
    out = X
    for part, transformer, columns in _parts(pipeline):
        if part == "num":
            continue
        for col, (known, how) in _known_levels(pipeline, transformer, columns).items():
            present = X[col].notna()
            is_known = X[col][present].map(known).astype(bool)
            bad = is_known.index[~is_known.to_numpy()]
            if len(bad) == 0:
                continue
            if out is X:
                out = X.copy()
            values = sorted({str(v) for v in X.loc[bad, col]})
            if not pd.api.types.is_numeric_dtype(out[col]):
                out[col] = out[col].astype(object)
            out.loc[bad, col] = np.nan
            found.append(Unseen(col, values, len(bad), how))
    return out, found


def describe_unseen(unseen: list[Unseen]) -> str:
    """One line naming the unseen values per column and what the model does with them."""
    shown = []
    for item in unseen:
        values = ", ".join(repr(v) for v in item.values[:5])
        more = f" and {len(item.values) - 5} more" if len(item.values) > 5 else ""
        shown.append(f"column {item.column!r}: {values}{more} ({item.n_rows} row(s)), {item.how}")
    return "categories not seen in training, treated as missing values: " + "; ".join(shown)


def answerable(bundle: dict[str, Any], X: pd.DataFrame) -> pd.Series:
    """Bool per row: the model can answer it (complete, or missing values it fills or takes)."""
    pipeline = bundle["pipeline"]
    estimator = pipeline.named_steps["estimator"]
    raw = bundle["method"].lower() in raw_input_methods()
    if raw or has_imputer(pipeline) or takes_nan(estimator):
        return pd.Series(True, index=X.index)
    return ~X.isna().any(axis=1)


def missing_account(bundle: dict[str, Any], X: pd.DataFrame) -> str | None:
    """The line saying what happens to the rows of ``X`` with missing values (None: none)."""
    incomplete = X.isna().any(axis=1)
    if not incomplete.any():
        return None
    counts = X.isna().sum()
    per_col = ", ".join(f"{k} {int(v)}" for k, v in counts.items() if v > 0)
    n_rows = int(incomplete.sum())
    pipeline = bundle["pipeline"]
    name = type(pipeline.named_steps["estimator"]).__name__
    if not answerable(bundle, X).all():
        return (
            f"{n_rows} row(s) have missing values ({per_col}) and this model has no imputer "
            f"({name} needs complete rows; the model was saved by an older localselect): "
            "their answers are left empty; run select again to save a model that imputes"
        )
    if has_imputer(pipeline):
        why = (
            "the model was fitted with --missing impute"
            if takes_nan(pipeline.named_steps["estimator"])
            else f"{name} needs complete rows"
        )
        return (
            f"imputing {n_rows} row(s) with missing values ({per_col}) with the model's "
            "imputer (median of a numeric column, most frequent value of the others, as "
            f"fitted by select): {why}"
        )
    return f"{n_rows} row(s) have missing values ({per_col}): {name} takes them as they are"
