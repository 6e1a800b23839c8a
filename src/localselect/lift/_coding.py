"""What an LLDS search reads, and its records read back as values.

A search sees the data as integer codes per feature subset (``columns(subset)``
returns the codes of the subset's profile variables and their cardinalities,
-1 for missing). Two codings:

* :class:`FeatureCodes` -- one code table for all features (discrete data, or
  a per-column discretizer): a subset's profile variables are its columns;
* :class:`JointCodes` -- a joint discretizer refitted on every subset searched
  (the paper's Mahalanobis bins): a subset has one profile variable, its joint
  bin, and the fitted discretizers are kept per subset.

:func:`decode_ranking` turns the search's records (column indices and codes)
into the estimator's ranking: a data frame of names and values, the best
subset, and the regions a row must match.

Nothing here validates user input.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.base import clone

from localselect._typing import Int64Array
from localselect.lift._measures import EncodedData, encode_discrete

__all__ = ["FeatureCodes", "JointCodes", "Ranking", "decode_ranking", "plain"]

#: Columns of the ranking (``results_``).
RESULT_COLUMNS = [
    "features",
    "profile",
    "window",
    "score",
    "lift",
    "support",
    "n_complete",
    "target_class",
]


def plain(value: Any) -> Any:
    """Numbers as Python scalars (integral floats as int) for readable profiles."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class FeatureCodes:
    """One code table for every feature.

    Parameters
    ----------
    encoded : EncodedData
        The codes and categories of each feature.
    fitted : object
        The fitted per-column discretizer the codes come from (None for data
        that were discrete already); the estimator's ``discretizer_``.
    """

    def __init__(self, encoded: EncodedData, fitted: Any = None) -> None:
        self.codes: Int64Array | None = encoded.codes
        self.categories = encoded.categories
        self.fitted = fitted
        self._by_column = np.asfortranarray(encoded.codes)  # fast column gathers

    def columns(self, subset: tuple[int, ...]) -> tuple[Int64Array, list[int]]:
        """Codes of the subset's columns and their cardinalities."""
        return self._by_column[:, list(subset)], [len(self.categories[j]) for j in subset]

    def decode(self, subset: tuple[int, ...], codes: tuple[int, ...]) -> tuple:
        """The values of a profile of ``subset``, one per feature."""
        return tuple(plain(self.categories[j][c]) for j, c in zip(subset, codes))


class JointCodes:
    """A joint discretizer refitted on the columns of every subset searched.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Continuous data.
    discretizer : transformer
        Unfitted; returns one column (the joint bin) for any set of columns.
    """

    codes: Int64Array | None = None

    def __init__(self, X: NDArray[np.float64], discretizer: Any) -> None:
        self.X = X
        self.discretizer = discretizer
        self.categories: list[np.ndarray] = []
        #: The discretizer fitted on each subset searched (the estimator's
        #: ``discretizer_``, filled while the search runs).
        self.fitted: dict[tuple[int, ...], Any] = {}
        self._bins: dict[tuple[int, ...], np.ndarray] = {}

    def columns(self, subset: tuple[int, ...]) -> tuple[Int64Array, list[int]]:
        """The joint bin of ``subset``'s columns (one profile variable) and its cardinality."""
        joint = clone(self.discretizer)
        binned = joint.fit_transform(self.X[:, list(subset)])
        self.fitted[tuple(subset)] = joint
        enc = encode_discrete(np.asarray(binned, dtype=np.float64))
        self._bins[subset] = enc.categories[0]
        return enc.codes, [len(enc.categories[0])]

    def decode(self, subset: tuple[int, ...], codes: tuple[int, ...]) -> tuple:
        """The joint bins of a profile of ``subset`` (refitted if the search ran elsewhere)."""
        if subset not in self._bins:
            self.columns(subset)
        return tuple(plain(self._bins[subset][c]) for c in codes)


class Ranking(NamedTuple):
    """Result of :func:`decode_ranking`: ``results_``, ``best_features_`` and ``regions_``."""

    results: pd.DataFrame
    best_features: NDArray[np.int64]
    regions: list[tuple[tuple[int, ...], list[tuple] | None]]


def _row(rec: dict, coding: FeatureCodes | JointCodes, names: list[str], classes) -> dict:
    subset = rec["features"]
    window = rec["window"]
    return {
        "features": tuple(names[j] for j in subset),
        "profile": None if rec["profile"] is None else coding.decode(subset, rec["profile"]),
        "window": None if window is None else tuple(coding.decode(subset, p) for p in window),
        "score": rec["score"],
        "lift": rec["lift"],
        "support": rec["support"],
        "n_complete": rec["n_complete"],
        "target_class": None if rec["target"] < 0 else classes[rec["target"]],
    }


def _region(rec: dict, coding: FeatureCodes | JointCodes) -> tuple:
    """``(feature indices, profiles)`` of a record; profiles None for a whole range."""
    subset = tuple(int(j) for j in rec["features"])
    if rec["profile"] is not None:
        return subset, [coding.decode(rec["features"], rec["profile"])]
    if rec["window"] is not None:
        return subset, [coding.decode(rec["features"], p) for p in rec["window"]]
    return subset, None


def decode_ranking(
    records: list[dict],
    coding: FeatureCodes | JointCodes,
    names: list[str],
    classes: np.ndarray,
) -> Ranking:
    """The search's records, best first, as names and values.

    Parameters
    ----------
    records : list of dict
        :attr:`~localselect.lift._search.SearchResult.records`; not empty.
    coding : FeatureCodes or JointCodes
        The coding the search read.
    names : list of str
        Column names.
    classes : ndarray
        Class labels, indexed by the records' ``target`` codes.

    Returns
    -------
    Ranking
        The regions are those of the records with a lift above 1, and every
        record of a whole range (``"features"``).
    """
    rows = [_row(rec, coding, names, classes) for rec in records]
    regions = [
        _region(rec, coding)
        for rec in records
        if (rec["profile"] is None and rec["window"] is None) or rec["lift"] > 1.0
    ]
    return Ranking(
        pd.DataFrame(rows, columns=RESULT_COLUMNS),
        np.array(records[0]["features"], dtype=np.int64),
        regions,
    )
