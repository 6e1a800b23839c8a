"""The user's own columns in every output of ``localselect select`` and ``predict``.

Inside the model a categorical column is one 0/1 feature per level (one-hot)
and a boolean column one 0/1 feature (:class:`AsBinary`). The user asked
which of *their* columns matter, so the outputs are aggregated back
(documented in ``docs/cli.md``):

* **selection**: a column is selected for a row when any of its levels is
  (:func:`column_masks`);
* **importance**: a local selector's importance is the column's selection
  frequency (the fraction of rows that select any of its levels); a global
  selector's is the largest importance of its levels, as is the mean
  relevance (per row, the largest of the levels'); p- and q-values take the
  smallest (:func:`column_importances`).

The per-level tables are written beside them with ``--per-level``.
Infinite scores are written ``inf`` / ``-inf`` in every file
(:func:`json_value`): JSON has no infinity, so ``importances.json`` holds
the strings ``"inf"`` and ``"-inf"``, which ``float()`` and pandas read back.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

__all__ = [
    "BOOLEAN_VALUES",
    "AsBinary",
    "AsBooleanLevels",
    "ColumnView",
    "boolean_values",
    "by_column",
    "column_importances",
    "column_masks",
    "feature_columns",
    "json_records",
    "json_value",
    "selected_frame",
    "write_tables",
]

#: Pairs of (true, false) spellings a boolean column may use, compared lower-cased.
BOOLEAN_VALUES: tuple[tuple[frozenset[str], frozenset[str]], ...] = (
    (frozenset({"true", "t"}), frozenset({"false", "f"})),
    (frozenset({"yes", "y"}), frozenset({"no", "n"})),
    (frozenset({"1", "1.0"}), frozenset({"0", "0.0"})),
)


def _spelled(values: Any) -> set[str]:
    return {str(v).strip().lower() for v in values}


def boolean_values(series: pd.Series) -> tuple[list[str], list[str]] | None:
    """``(true spellings, false spellings)`` when ``series`` is a two-valued boolean column.

    Booleans, and text (or ``--categorical``) columns whose two distinct
    values are ``true``/``false``, ``yes``/``no`` (or ``y``/``n``,
    ``t``/``f``) or ``0``/``1`` in any case; missing values aside.
    """
    present = series.dropna().unique()
    seen = _spelled(present)
    if len(seen) != 2:
        return None
    for true, false in BOOLEAN_VALUES:
        if seen <= true | false and seen & true and seen & false:
            return sorted(true), sorted(false)
    return None


class AsBinary:
    """Boolean columns as one 0/1 feature each (1 = true/yes/1); missing stays NaN.

    ``columns`` maps a column to its ``(true spellings, false spellings)``
    (:func:`boolean_values`). A value of neither spelling at prediction time
    is an error naming the column.
    """

    def __init__(self, columns: dict[str, tuple[list[str], list[str]]]):
        self.columns = columns

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        out = pd.DataFrame(index=frame.index)
        for col, (true, false) in self.columns.items():
            text = frame[col].map(lambda v: v if pd.isna(v) else str(v).strip().lower())
            code = text.map({**dict.fromkeys(true, 1.0), **dict.fromkeys(false, 0.0)})
            bad = text.notna() & code.isna()
            if bad.any():
                raise ValueError(
                    f"column {col!r} is boolean ({'/'.join(true)} or {'/'.join(false)}) but "
                    f"row {bad.index[bad][0]} holds {frame[col][bad].iloc[0]!r}"
                )
            out[col] = code.astype(np.float64)
        return out


class AsBooleanLevels(AsBinary):
    """Boolean columns as the levels ``"false"`` and ``"true"`` (a nominal column); missing stays.

    For an estimator that reads nominal columns itself (``columns="native"``).
    """

    def __call__(self, frame: pd.DataFrame) -> pd.DataFrame:
        codes = super().__call__(frame)
        out = pd.DataFrame(index=frame.index)
        for col in codes.columns:
            out[col] = codes[col].map({0.0: "false", 1.0: "true"}).astype(object)
        return out


def feature_columns(pipeline: Any, n_features: int, names: list[str]) -> list[str]:
    """The user's column behind each of the ``n_features`` features the estimator sees.

    Read from the fitted ``"prepare"`` step (a ``ColumnTransformer``): one
    column per output of the numeric and boolean parts, one per level of
    the one-hot part. Without it (LLDS, raw input) every feature is its own
    column, named ``names``.
    """
    steps = getattr(pipeline, "named_steps", {})
    prep = steps.get("prepare") if hasattr(steps, "get") else None
    if prep is None:
        return list(names)
    owners: list[str | None] = [None] * n_features
    for part, transformer, columns in prep.transformers_:
        if part not in prep.output_indices_ or transformer == "drop":
            continue
        out = prep.output_indices_[part]
        encoder = transformer[-1] if hasattr(transformer, "steps") else transformer
        if hasattr(encoder, "categories_"):
            cols = [c for c, levels in zip(columns, encoder.categories_) for _ in levels]
        else:
            cols = list(columns)
        if len(cols) != out.stop - out.start:
            raise RuntimeError(f"part {part!r} gives {out.stop - out.start} features, not {cols}")
        owners[out] = cols
    if any(owner is None for owner in owners):
        raise RuntimeError("some features come from no column of the preparation")
    return [str(owner) for owner in owners]


def _groups(columns: list[str], table: list[str] | None = None) -> tuple[list[str], np.ndarray]:
    """Distinct columns (in the order of ``table``, else of first appearance) and the
    group index of each feature."""
    seen = set(columns)
    order = [c for c in table if c in seen] if table is not None else list(dict.fromkeys(columns))
    order += [c for c in dict.fromkeys(columns) if c not in set(order)]
    where = {name: k for k, name in enumerate(order)}
    return order, np.array([where[c] for c in columns], dtype=np.int64)


def column_masks(
    masks: np.ndarray, columns: list[str], table: list[str] | None = None
) -> tuple[np.ndarray, list[str]]:
    """Per-row subsets of the user's columns: a column is selected when any level is.

    Columns come in the order of ``table`` (the input's columns) when given.
    """
    order, group = _groups(columns, table)
    out = np.zeros((masks.shape[0], len(order)), dtype=bool)
    for k in range(len(order)):
        out[:, k] = masks[:, group == k].any(axis=1)
    return out, order


def column_importances(
    per_level: pd.DataFrame,
    columns: list[str],
    names: list[str],
    masks: np.ndarray | None,
    relevance: np.ndarray | None,
    table_columns: list[str] | None = None,
) -> pd.DataFrame:
    """The importances table by column (see the module docstring for the rules).

    ``per_level`` is the table of the encoded features ``names`` (in any
    order, as ``_importances`` sorts it); ``masks`` and ``relevance`` are
    per row and feature. The result adds ``n_levels`` (1 for a numeric or
    boolean column) and keeps any other numeric column of ``per_level`` by
    its largest value (``p_value``/``q_value`` columns by their smallest).
    """
    order, group = _groups(columns, table_columns)
    level = per_level.set_index("feature").loc[names]
    local = per_level.attrs.get("relevance_scope") == "local"
    col_masks = column_masks(masks, columns, table_columns)[0] if masks is not None else None
    table = pd.DataFrame({"feature": order})
    for name in level.columns:
        values = level[name]
        if name == "selected":
            table[name] = [bool(values.to_numpy()[group == k].any()) for k in range(len(order))]
        elif pd.api.types.is_numeric_dtype(values):
            by = values.groupby(group.tolist(), sort=True)
            small = "p_value" in name or "q_value" in name
            table[name] = (by.min() if small else by.max()).to_numpy(dtype=float)
        else:
            table[name] = values.groupby(group.tolist(), sort=True).first().to_numpy()
    table["n_levels"] = np.bincount(group, minlength=len(order))
    if col_masks is not None:
        table["selection_frequency"] = col_masks.mean(axis=0)
        table["selected"] = col_masks.any(axis=0)
        if local or per_level.attrs.get("importance_source", "").startswith("selection freq"):
            table["importance"] = table["selection_frequency"]
    if relevance is not None:
        per_row = np.stack(
            [relevance[:, group == k].max(axis=1) for k in range(len(order))], axis=1
        )
        table["mean_relevance"] = per_row.mean(axis=0) if len(per_row) else np.nan
    table.attrs.update(per_level.attrs)
    return table.sort_values("importance", ascending=False, kind="stable")


def json_value(value: Any) -> Any:
    """A value for ``importances.json``: infinity as ``"inf"``/``"-inf"``, NaN as null.

    NumPy scalars become Python ones; every other value is returned as is.
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


def json_records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """Rows of ``frame`` as JSON-ready dicts (:func:`json_value` on every cell)."""
    return [{k: json_value(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


class ColumnView(NamedTuple):
    """The outputs of ``select`` in the user's columns, and the per-level detail."""

    names: list[str]  # the user's feature columns, in table order
    masks: np.ndarray | None  # per row and column (any level selected)
    importances: pd.DataFrame  # by column, sorted by importance
    per_level: pd.DataFrame  # by encoded feature, sorted by importance
    columns: list[str]  # the column of each encoded feature


def by_column(
    pipeline: Any,
    names: list[str],
    per_level: pd.DataFrame,
    masks: np.ndarray | None,
    relevance: np.ndarray | None,
    table_columns: list[str] | None = None,
) -> ColumnView:
    """Aggregate the per-level masks and importances of ``names`` to the user's columns.

    Columns come in the order of ``table_columns`` (the input's feature columns).
    """
    columns = feature_columns(pipeline, len(names), names)
    table = column_importances(per_level, columns, names, masks, relevance, table_columns)
    if masks is None:
        order = _groups(columns, table_columns)[0]
        return ColumnView(order, None, table, per_level, columns)
    col_masks, order = column_masks(masks, columns, table_columns)
    return ColumnView(order, col_masks, table, per_level, columns)


def selected_frame(masks: np.ndarray, names: list[str], index: pd.Index) -> pd.DataFrame:
    """``selected_features.csv``: a 0/1 column per name, ``n_selected`` and ``selected``."""
    frame = pd.DataFrame(masks.astype(np.int8), columns=names, index=index)
    frame.index.name = "row"
    frame["n_selected"] = masks.sum(axis=1)
    name_array = np.asarray(names, dtype=object)
    frame["selected"] = [";".join(name_array[m]) for m in masks]
    return frame


def write_tables(
    out: Path, view: ColumnView, masks: np.ndarray | None, index: pd.Index, *, per_level: bool
) -> list[str]:
    """Write ``selected_features.csv`` and ``importances.csv`` by column (and per level).

    ``masks`` are the per-level subsets; ``per_level`` adds
    ``selected_features_per_level.csv`` and ``importances_per_level.csv``
    (with the ``column`` each level belongs to). Returns the names written.
    """
    written = []
    if view.masks is not None:
        selected_frame(view.masks, view.names, index).to_csv(out / "selected_features.csv")
        written.append("selected_features.csv")
    view.importances.to_csv(out / "importances.csv", index=False)
    written.append("importances.csv")
    if per_level:
        names = list(view.per_level.sort_index()["feature"])
        if masks is not None:
            level_masks = selected_frame(masks, names, index)
            level_masks.to_csv(out / "selected_features_per_level.csv")
            written.append("selected_features_per_level.csv")
        owner = dict(zip(names, view.columns))
        table = view.per_level.assign(column=view.per_level["feature"].map(owner))
        table.to_csv(out / "importances_per_level.csv", index=False)
        written.append("importances_per_level.csv")
    return written
