"""A table as it comes: numeric and nominal input columns read into one float64 matrix.

Every estimator reads its ``X`` here (through :class:`~localselect.base.LabelledFitMixin`
and the per-row methods of :mod:`localselect.base`). :func:`read_columns` takes a pandas
or polars data frame (through `narwhals <https://narwhals-dev.github.io/narwhals/>`_,
the dataframe-agnostic layer) or an array, and returns

* a float64 matrix of shape ``(n_samples, n_features)``: a numeric column as its
  values, a nominal column as the code ``0 .. L-1`` of its level (the index of the
  value in the column's sorted levels), NaN where a value is missing;
* an :class:`InputColumns` record: the column names, which columns are nominal, and
  each nominal column's levels.

A column is **nominal** when its type says so: pandas ``category``, string and
``object`` columns, polars ``Categorical``, ``Enum`` and ``String`` columns, and
boolean columns of either. Numbers are numeric whatever their values (no threshold
on the number of distinct values decides a column's kind, see STYLE.md section 4).
A numeric ndarray gives exactly what ``check_array(X, dtype=np.float64)`` gives,
with no nominal column; an ndarray of strings or objects has its columns read one by
one (a column whose every value is a number is numeric, any other is nominal).

New rows are read with the columns of the fit (``columns``): a nominal column is
coded with the levels seen in the fit, whatever the new frame's dtype, and a value
never seen there becomes NaN (missing) with a warning naming the column and the
values. This is what scikit-learn's
``HistGradientBoostingClassifier(categorical_features="from_dtype")`` does for a
category it did not see.
"""

from __future__ import annotations

import warnings
from typing import Any, NamedTuple

import narwhals.stable.v1 as nw
import numpy as np
import pandas as pd
from numpy.typing import NDArray

__all__ = ["InputColumns", "frame_index", "is_frame", "read_columns"]

#: The narwhals dtypes read as nominal columns.
_NOMINAL_DTYPES = ("Categorical", "Enum", "String", "Object", "Boolean")
#: Unseen values named in the warning at most (then "...").
_NAMED_VALUES = 5


class InputColumns(NamedTuple):
    """What the fit's input columns are: names, kinds and levels.

    Attributes
    ----------
    names : ndarray of shape (n_features_in_,) of str objects
        The frame's column names (as str), or ``"x0", "x1", ...`` for an array.
    nominal : ndarray of shape (n_features_in_,) of bool
        True for a category, string, object or boolean column.
    levels : tuple of length n_features_in_
        Per input column, an object ndarray of its level labels (sorted) when
        nominal, else None. Code ``k`` of a nominal column is ``levels[j][k]``.
    """

    names: NDArray[np.object_]
    nominal: NDArray[np.bool_]
    levels: tuple

    @classmethod
    def numeric(cls, n_features: int) -> InputColumns:
        """The columns of a numeric array of ``n_features`` columns (``x0, x1, ...``)."""
        names = np.asarray([f"x{j}" for j in range(n_features)], dtype=object)
        return cls(names, np.zeros(n_features, dtype=bool), (None,) * n_features)


def is_frame(X) -> bool:
    """Whether ``X`` is an eager data frame narwhals reads (pandas, polars, ...)."""
    return nw.dependencies.is_into_dataframe(X) and not hasattr(X, "__dask_graph__")


def frame_index(X):
    """The row index of a pandas frame ``X``, or None (polars and arrays have none)."""
    return X.index if isinstance(X, pd.DataFrame) else None


def _sorted_levels(values: NDArray[np.object_]) -> NDArray[np.object_]:
    """The distinct values, sorted (mixed types: by type name, then text)."""
    distinct = list(pd.unique(values))
    try:
        distinct.sort()
    except TypeError:
        distinct.sort(key=lambda v: (type(v).__name__, str(v)))
    out = np.empty(len(distinct), dtype=object)
    out[:] = distinct
    return out


def _is_missing(values: NDArray[np.object_]) -> NDArray[np.bool_]:
    return np.asarray(pd.isna(values), dtype=bool)


def _code(
    name: str, values: NDArray[np.object_], levels: NDArray[np.object_] | None
) -> tuple[NDArray[np.float64], NDArray[np.object_]]:
    """``(codes, levels)`` of a nominal column; levels are fitted when None."""
    missing = _is_missing(values)
    present = values[~missing]
    if levels is None:
        levels = _sorted_levels(present)
    codes = np.full(values.shape[0], np.nan)
    index = pd.Index(levels, dtype=object).get_indexer(pd.Index(present, dtype=object))
    unseen = index < 0
    if unseen.any():
        shown = [repr(v) for v in _sorted_levels(present[unseen])]
        more = ", ..." if len(shown) > _NAMED_VALUES else ""
        warnings.warn(
            f"Column {name!r} has {int(unseen.sum())} value(s) not seen in fit "
            f"({', '.join(shown[:_NAMED_VALUES])}{more}); they are read as missing (NaN).",
            UserWarning,
            stacklevel=4,
        )
    codes[~missing] = np.where(unseen, np.nan, index)
    return codes, levels


def _numbers(name: str, values) -> NDArray[np.float64]:
    """A numeric column as float64; a ValueError naming the column if it is not numeric."""
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"Column {name!r} was numeric in fit but holds values that are not numbers "
            f"now ({exc}); pass the column as numbers, as in fit."
        ) from None


def _holds_numbers(values) -> bool:
    """Whether an object column's values are all numbers or missing (not bool, not text)."""
    inferred = pd.api.types.infer_dtype(values, skipna=True)
    return inferred in ("integer", "floating", "mixed-integer-float", "decimal")


def _frame_columns(X) -> tuple[list[str], list[Any], list[bool]]:
    """``(names, values, nominal)`` of a frame's columns (values as numpy arrays)."""
    frame = nw.from_native(X, eager_only=True)
    names, values, nominal = [], [], []
    for column in frame.columns:
        series = frame.get_column(column)
        dtype = series.dtype
        kind = type(dtype).__name__ if isinstance(dtype, nw.dtypes.DType) else str(dtype)
        if dtype.is_numeric():
            values.append(series.to_numpy())
            nominal.append(False)
        elif kind.startswith("Object") and _holds_numbers(series.to_numpy()):
            # an object column of numbers (and missing values) is numeric, as in an array
            numbers = pd.to_numeric(pd.Series(series.to_numpy()), errors="coerce")
            values.append(numbers.to_numpy(dtype=np.float64, na_value=np.nan))
            nominal.append(False)
        elif any(kind.startswith(k) for k in _NOMINAL_DTYPES):
            values.append(np.asarray(series.to_numpy(), dtype=object))
            nominal.append(True)
        else:
            raise ValueError(
                f"Column {column!r} has type {dtype}, which is neither numeric nor nominal "
                "(category, string, object, boolean); convert it to numbers or to a "
                "category first."
            )
        names.append(str(column))
    return names, values, nominal


def _array_columns(
    X, columns: InputColumns | None
) -> tuple[list[str], list[Any], list[bool]] | NDArray[np.float64]:
    """A numeric array as float64, or the columns of an array of strings and objects.

    With ``columns`` that hold nominal columns, each column is read as the fit's.
    """
    array = np.asarray(X)
    fitted = None if columns is None else np.asarray(columns.nominal, dtype=bool)
    fitted_nominal = fitted is not None and bool(fitted.any())
    if array.ndim != 2 or (array.dtype.kind in "biufc" and not fitted_nominal):
        return array
    names = [f"x{j}" for j in range(array.shape[1])]
    values, nominal = [], []
    for j in range(array.shape[1]):
        column = np.asarray(array[:, j], dtype=object)
        if fitted is not None and fitted_nominal and j < fitted.size:
            values.append(column)
            nominal.append(bool(fitted[j]))
            continue
        try:
            numbers = np.asarray(column, dtype=np.float64)
        except (TypeError, ValueError):
            values.append(column)
            nominal.append(True)
        else:
            values.append(numbers)
            nominal.append(False)
    return names, values, nominal


def _check_complete(names: list[str], matrix: NDArray[np.float64], missing: NDArray[np.bool_]):
    """Refuse missing values and infinities, naming the columns that hold them."""
    bad = missing | np.isinf(matrix)
    if not bad.any():
        return
    columns = [names[j] for j in np.flatnonzero(bad.any(axis=0))]
    raise ValueError(
        f"Input X contains NaN or infinity (missing values) in column(s) "
        f"{', '.join(repr(c) for c in columns)}; this estimator needs complete data: "
        "impute or drop the missing values first, or use an estimator that accepts NaN."
    )


def read_columns(
    X, columns: InputColumns | None = None, *, allow_nan: bool = True
) -> tuple[NDArray[np.float64], InputColumns]:
    """Read a frame or an array into float64 codes and its :class:`InputColumns`.

    Parameters
    ----------
    X : pandas or polars DataFrame, or array-like of shape (n_samples, n_features)
        The table. Numeric columns are read as numbers; category, string,
        object and boolean columns as the codes of their levels.
    columns : InputColumns or None, default=None
        The columns of the fit: new rows are read with them (a nominal column
        is coded with the fitted levels; an unseen value becomes NaN with a
        warning naming the column and the values). None: read the columns
        (fit).
    allow_nan : bool, default=True
        False refuses missing values (NaN, None, a missing category) and
        infinities present in ``X``, naming the columns. An unseen level is
        not refused: it is read as missing after the warning.

    Returns
    -------
    X_codes : ndarray of shape (n_samples, n_features)
        Numbers and level codes as float64, NaN where a value is missing.
    columns : InputColumns
        ``columns`` when given, else the columns read from ``X``.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"size": [1.5, 2.0, 3.0], "colour": ["red", "blue", "red"]})
    >>> codes, cols = read_columns(df)
    >>> codes
    array([[1.5, 1. ],
           [2. , 0. ],
           [3. , 1. ]])
    >>> cols.nominal, cols.levels[1]
    (array([False,  True]), array(['blue', 'red'], dtype=object))
    """
    read = _frame_columns(X) if is_frame(X) else _array_columns(X, columns)
    if isinstance(read, np.ndarray):  # a numeric array: exactly as before
        matrix = np.asarray(read, dtype=np.float64)
        if matrix.ndim != 2:
            raise ValueError(
                f"Expected a 2D array or a data frame, got an array of shape {matrix.shape}; "
                "reshape a single feature with X.reshape(-1, 1), a single sample with "
                "X.reshape(1, -1)."
            )
        if not allow_nan:
            _check_complete(
                list(InputColumns.numeric(matrix.shape[1]).names), matrix, np.isnan(matrix)
            )
        found = columns if columns is not None else InputColumns.numeric(matrix.shape[1])
        return matrix, found
    names, values, nominal = read
    if columns is not None:
        if len(names) != len(columns.names):
            raise ValueError(
                f"X has {len(names)} columns, but the estimator was fitted on "
                f"{len(columns.names)}; pass the columns of the fit."
            )
        nominal = list(columns.nominal)
    n_samples = len(values[0]) if values else np.shape(X)[0]
    matrix = np.empty((n_samples, len(names)), dtype=np.float64)
    missing = np.zeros(matrix.shape, dtype=bool)
    levels: list = []
    for j, name in enumerate(names):
        if nominal[j]:
            column = np.asarray(values[j], dtype=object)
            missing[:, j] = _is_missing(column)
            fitted = None if columns is None else columns.levels[j]
            matrix[:, j], coded = _code(name, column, fitted)
            levels.append(coded)
        else:
            matrix[:, j] = _numbers(name, values[j])
            missing[:, j] = np.isnan(matrix[:, j])
            levels.append(None)
    if not allow_nan:
        _check_complete(names, np.where(missing, 0.0, matrix), missing)
    if columns is None:
        columns = InputColumns(
            np.asarray(names, dtype=object), np.asarray(nominal, dtype=bool), tuple(levels)
        )
    return matrix, columns
