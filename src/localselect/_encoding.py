"""The encoding of a mixed table for the estimators that compare rows by a numeric distance.

LFS, IMMIGRATE, BoostedImmigrate, IM4E, GP local selection and the Fisher score
(``Declaration(columns="encoded")``) work on numbers. A table with nominal
columns (:func:`localselect._tables.read_columns`) reaches them encoded:

* a **numeric column** is scaled to unit range on the training rows,
  ``(x - min) / (max - min)`` (a constant column becomes 0), so two values
  one range apart differ by 1;
* a **nominal column** with ``L`` levels becomes ``L`` indicator columns scaled
  by ``s``: a row of level ``k`` has ``s`` in indicator ``k`` and 0 elsewhere.

The scale ``s`` is chosen so that **a level that differs adds to the method's
distance exactly what a numeric column one range apart adds** (Kononenko's
``diff`` of 1 for a differing nominal value and ``|a - b| / range`` for a
numeric one; Kononenko 1994, Robnik-Sikonja and Kononenko 2003). Two different
levels differ in two indicators by ``s`` each:

* **Manhattan distances** (IM4E's ``w^T |x - x'|``): ``2 s = 1``, ``s = 1/2``;
* **squared Euclidean distances and quadratic forms** (LFS's eq. (5) distance,
  IMMIGRATE's ``|x - x'|^T W |x - x'|``, the RBF kernel of the GP):
  ``2 s^2 = 1``, ``s = 1 / sqrt(2)``.

Plain one-hot columns (``s = 1``) would make a differing level count 2 in a
Manhattan distance against at most 1 for a numeric column, so neighbours would
be chosen by the nominal columns. A missing or unseen level is all zeros: it
differs from every level by half a differing level (one indicator of ``s``
instead of two), the expected difference of a value drawn from two equally
likely levels. The Fisher score is computed per column and does not depend on
scale; it uses the same encoding. GP local selection standardises its
continuous columns itself (z-scores) and leaves the indicator columns as they
are, declared discrete (its eq. (3) scores them by 0/1 mismatch), so there a
differing level weighs as much as one standard deviation.

A table without nominal columns is not encoded (no scaling either): numeric
input reaches every estimator unchanged.

Answers come back to one per input column (:func:`to_input_columns`): an input
column is selected for a row when any of its encoded columns is, and its
relevance or importance is the largest of its encoded columns' (its p-value the
smallest).
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._tables import InputColumns

__all__ = ["DISTANCES", "ColumnEncoding", "encode", "fit_encoding", "to_input_columns"]

#: The indicator scale ``s`` for the distance a method compares rows by.
DISTANCES: dict[str, float] = {
    "manhattan": 0.5,
    "squared_euclidean": float(np.sqrt(0.5)),
}


class ColumnEncoding(NamedTuple):
    """How input columns become the encoded columns an estimator is fitted on.

    Attributes
    ----------
    source : ndarray of shape (n_encoded,) of int
        The input column of each encoded column (non-decreasing: the encoded
        columns of an input column are contiguous, in input order).
    starts : ndarray of shape (n_features_in_,) of int
        The first encoded column of each input column.
    nominal : ndarray of shape (n_features_in_,) of bool
        The nominal input columns.
    offset : ndarray of shape (n_features_in_,)
        Training minimum of each numeric column (0 for a nominal one).
    scale : ndarray of shape (n_features_in_,)
        Training range of each numeric column (1 for a constant or nominal one).
    indicator_scale : float
        ``s``: the value of a nominal column's indicator for its level.
    distance : str
        The distance ``s`` was chosen for (a key of :data:`DISTANCES`).
    """

    source: NDArray[np.intp]
    starts: NDArray[np.intp]
    nominal: NDArray[np.bool_]
    offset: NDArray[np.float64]
    scale: NDArray[np.float64]
    indicator_scale: float
    distance: str

    @property
    def n_encoded(self) -> int:
        """Number of encoded columns."""
        return int(self.source.shape[0])

    def discrete(self, input_mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """A mask over input columns as a mask over encoded columns, indicators True."""
        return np.asarray(input_mask, dtype=bool)[self.source] | self.nominal[self.source]


def fit_encoding(
    X: NDArray[np.float64], columns: InputColumns, distance: str
) -> ColumnEncoding | None:
    """The encoding of coded training data ``X``; None when no column is nominal.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features_in_)
        Codes from :func:`~localselect._tables.read_columns` (NaN missing).
    columns : InputColumns
        Their columns.
    distance : {"manhattan", "squared_euclidean"}
        The distance of the method (sets the indicator scale, module docstring).

    Returns
    -------
    encoding : ColumnEncoding or None
    """
    if distance not in DISTANCES:
        raise ValueError(f"distance must be one of {sorted(DISTANCES)}; got {distance!r}.")
    nominal = np.asarray(columns.nominal, dtype=bool)
    if not nominal.any():
        return None
    width = np.array(
        [len(columns.levels[j]) if nominal[j] else 1 for j in range(nominal.size)], dtype=np.intp
    )
    width = np.maximum(width, 1)
    source = np.repeat(np.arange(nominal.size, dtype=np.intp), width)
    starts = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(np.intp)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column: nanmin warns
        lo = np.where(nominal, 0.0, np.nanmin(X, axis=0))
        hi = np.where(nominal, 1.0, np.nanmax(X, axis=0))
    lo = np.where(np.isfinite(lo), lo, 0.0)
    span = hi - lo
    scale = np.where(nominal | ~(span > 0) | ~np.isfinite(span), 1.0, span)
    return ColumnEncoding(source, starts, nominal, lo, scale, DISTANCES[distance], distance)


def encode(encoding: ColumnEncoding, X: NDArray[np.float64]) -> NDArray[np.float64]:
    """Codes ``X`` (n_samples, n_features_in_) -> the encoded matrix (n_samples, n_encoded).

    Numeric columns scaled to unit range (NaN kept), nominal columns as scaled
    indicators (a missing level all zeros).
    """
    out = np.zeros((X.shape[0], encoding.n_encoded), dtype=np.float64)
    numeric = np.flatnonzero(~encoding.nominal)
    scaled = (X[:, numeric] - encoding.offset[numeric]) / encoding.scale[numeric]
    out[:, encoding.starts[numeric]] = scaled
    for j in np.flatnonzero(encoding.nominal):  # loop over columns, not rows
        codes = X[:, j]
        rows = np.flatnonzero(~np.isnan(codes))
        out[rows, encoding.starts[j] + codes[rows].astype(np.intp)] = encoding.indicator_scale
    return out


def to_input_columns(encoding: ColumnEncoding, values, how: str = "max") -> NDArray:
    """Answers on encoded columns (last axis) -> one per input column.

    Parameters
    ----------
    encoding : ColumnEncoding
    values : ndarray of shape (..., n_encoded)
        Booleans or numbers.
    how : {"max", "min"}, default="max"
        ``"max"``: the largest of an input column's encoded columns (for
        booleans, any); ``"min"``: the smallest (p-values).

    Returns
    -------
    values : ndarray of shape (..., n_features_in_)
        Same dtype.
    """
    values = np.asarray(values)
    if values.shape[-1] != encoding.n_encoded:
        raise ValueError(
            f"expected {encoding.n_encoded} encoded columns on the last axis, got "
            f"{values.shape[-1]}."
        )
    if values.dtype == bool:
        logical = np.logical_or if how == "max" else np.logical_and
        return logical.reduceat(values, encoding.starts, axis=-1)
    ufunc = np.maximum if how == "max" else np.minimum
    return ufunc.reduceat(values, encoding.starts, axis=-1)
