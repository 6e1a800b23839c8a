"""The per-column cuts of LLDS on a table: tertiles of its numeric columns
(``discretizer="auto"``) or a given per-feature discretizer on them, the other columns
kept as their levels; the fitted cuts cut new rows alike."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.base import clone

__all__ = ["NUMBER_KINDS", "DiscretizedColumns", "TertileBins", "as_numbers", "numeric_column"]


class TertileBins:
    """``discretizer="auto"``: ``columns`` replaced by their sample tertile bin (0, 1, 2).

    The edges are those of the training data, so new rows are binned alike; NaN is kept.
    """

    def __init__(self, columns):
        self.columns = list(columns)

    def fit(self, X):
        X = np.asarray(X)
        sub = X[:, self.columns]
        sub = as_numbers(sub) if sub.dtype == object else sub  # numbers in a text table too
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN column stays NaN
            self.edges_ = np.nanquantile(sub, [1 / 3, 2 / 3], axis=0)
        return self

    def with_edges(self, edges):
        """These bins at tertile ``edges`` computed elsewhere (on row blocks); returns self."""
        self.edges_ = edges
        return self

    def transform(self, X):
        """Numbers: a float copy with the columns binned; a table with text columns (an
        object array): an object copy whose binned columns hold 0.0, 1.0, 2.0 or NaN."""
        X = np.asarray(X)
        out = np.array(X, dtype=object if X.dtype == object else np.float64, copy=True)
        sub = out[:, self.columns]
        sub = as_numbers(sub) if sub.dtype == object else sub
        binned = (sub > self.edges_[0]).astype(np.float64) + (sub > self.edges_[1])
        out[:, self.columns] = np.where(np.isnan(sub), np.nan, binned)
        return out


class DiscretizedColumns:
    """A per-feature ``discretizer`` fitted on ``columns`` (the numeric columns of a table
    with nominal ones); the other columns pass through, so new rows are cut alike."""

    def __init__(self, discretizer, columns):
        self.discretizer = discretizer
        self.columns = list(columns)

    def _numbers(self, X):
        sub = np.asarray(X)[:, self.columns]
        return as_numbers(sub) if sub.dtype == object else sub.astype(np.float64)

    def fit(self, X):
        sub = self._numbers(X)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-missing column
            self.fill_ = np.nan_to_num(np.nanmedian(sub, axis=0))
        self.fitted_ = clone(self.discretizer).fit(self._filled(sub))
        out = self._cut(sub)
        if out.shape != sub.shape:
            raise ValueError(
                f"The discretizer returned {out.shape} for the {sub.shape[1]} numeric columns "
                "of a table with nominal columns; there it must cut each column on its own (a "
                "joint discretizer needs an all-numeric X)."
            )
        return self

    def _filled(self, sub):
        return np.where(np.isnan(sub), self.fill_, sub)

    def _cut(self, sub):
        """The discretizer's codes; a missing cell (given to it as its column's training
        median, which most discretizers need) stays missing."""
        out = self.fitted_.transform(self._filled(sub))
        out = np.asarray(out.toarray() if hasattr(out, "toarray") else out, dtype=np.float64)
        return np.where(np.isnan(sub), np.nan, out) if out.shape == sub.shape else out

    def transform(self, X):
        """A copy of ``X`` (object for a table with text) with ``columns`` discretized."""
        X = np.asarray(X)
        out = np.array(X, dtype=object if X.dtype == object else np.float64, copy=True)
        out[:, self.columns] = self._cut(self._numbers(X))
        return out


NUMBER_KINDS = frozenset({"floating", "integer", "mixed-integer-float", "decimal", "empty"})


def numeric_column(column):
    """A column of an object array as float64 (None, NaN and pandas' NA missing), or None
    when it holds text or booleans (a nominal column)."""
    series = pd.Series(column, dtype=object)
    if pd.api.types.infer_dtype(series, skipna=True) not in NUMBER_KINDS:
        return None
    return pd.to_numeric(series).to_numpy(dtype=np.float64, na_value=np.nan)


def as_numbers(block):
    """The columns of an object array that hold numbers, as float64 (missing as NaN)."""
    return np.column_stack(
        [
            pd.to_numeric(pd.Series(block[:, j], dtype=object)).to_numpy(
                dtype=np.float64, na_value=np.nan
            )
            for j in range(block.shape[1])
        ]
    ).reshape(block.shape)
