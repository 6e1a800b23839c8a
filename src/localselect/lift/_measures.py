"""Local Lift Dependence Scale measures: the lift function, eta and mutual information.

Marcondes, Simonis and Barrera define, for a discrete feature vector X and a
class variable Y (ALGORITHMS.md section 4 restates the formulas the paper's
text lost):

* the lift function  L(x, y) = P(X = x, Y = y) / (P(X = x) P(Y = y)) = P(y | x) / P(y);
* the window coefficient, for a set W of profiles (eq. (3)),

  eta(W) = sum_{x in W} P(x) KL(P(Y | x) || P(Y)) / sum_{x in W} P(x) CE(P(Y | x), P(Y)),

  with CE(p, q) = -sum_y p(y) log q(y);
* the global coefficient eta(X) = I(X; Y) / H(Y) (eq. (2)), which is eta(W) for
  W the whole range of X.

All probabilities are relative frequencies among the *complete cases*: rows
with a missing value in X (on the features considered) or in y are left out,
as the paper's Table 5 does. Logarithms are natural; eta is unit-free.

The counting kernels work on integer codes (``-1`` marks a missing value) and
never loop over rows: a profile is one integer (mixed-radix code of its
values, compressed with ``np.unique`` when the radix product grows large), and
contingency tables come from ``np.bincount``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted

from localselect._typing import FloatArray, Int64Array

__all__ = [
    "Contingency",
    "EncodedData",
    "contingency",
    "dependence",
    "encode_discrete",
    "encode_target",
    "eta_from_counts",
    "fitted_lift_table",
    "joint_codes",
    "lift_frame",
    "lift_from_counts",
    "lift_table",
    "mutual_information",
    "mutual_information_from_counts",
]


#: A mixed-radix profile code is compressed to dense ranks once the radix
#: product exceeds this bound (int64 safety and bincount memory).
_MAX_RADIX = 1 << 24


class EncodedData(NamedTuple):
    """Discrete data as integer codes.

    codes : (n_samples, n_features) int64, ``-1`` where the value is missing.
    categories : one array of the observed values per feature (code -> value).
    feature_names : one name per column.
    """

    codes: Int64Array
    categories: list[np.ndarray]
    feature_names: list[str]


class Contingency(NamedTuple):
    """Counts of the observed profiles against the classes.

    profiles : (n_profiles, n_features) int64 codes of each observed profile,
        in increasing lexicographic order of the codes.
    counts : (n_profiles, n_classes) float64 joint counts n(x, y).
    n_complete : number of complete cases counted.
    """

    profiles: Int64Array
    counts: FloatArray
    n_complete: int


def _encode_column(values: Any) -> tuple[Int64Array, np.ndarray]:
    series = pd.Series(values)
    missing = series.isna().to_numpy()
    try:
        codes, uniques = pd.factorize(series, sort=True, use_na_sentinel=True)
    except TypeError:  # mixed, unorderable values: keep order of appearance
        codes, uniques = pd.factorize(series, sort=False, use_na_sentinel=True)
    codes = np.asarray(codes, dtype=np.int64)
    codes[missing] = -1
    return codes, np.asarray(uniques, dtype=object)


def encode_discrete(X: Any, feature_names: Sequence[str] | None = None) -> EncodedData:
    """Integer codes of discrete data (numbers, strings, categories; missing allowed).

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features) or DataFrame
        Discrete values. NaN, None and ``pd.NA`` are missing.
    feature_names : sequence of str, default=None
        Column names; default the DataFrame's columns or ``x0, x1, ...``.

    Returns
    -------
    encoded : EncodedData
        Codes in sorted order of each column's values (order of appearance when
        the values cannot be sorted).
    """
    if isinstance(X, pd.Series):
        X = X.to_frame()
    if isinstance(X, pd.DataFrame):
        names = [str(c) for c in X.columns]
        columns = [X.iloc[:, j] for j in range(X.shape[1])]
    else:
        arr = np.asarray(X)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"Expected X of 1 or 2 dimensions; got shape {arr.shape}.")
        names = [f"x{j}" for j in range(arr.shape[1])]
        columns = [arr[:, j] for j in range(arr.shape[1])]
    if feature_names is not None:
        names = [str(n) for n in feature_names]
    n = len(columns[0]) if columns else 0
    codes = np.empty((n, len(columns)), dtype=np.int64)
    categories = []
    for j, column in enumerate(columns):
        codes[:, j], cats = _encode_column(column)
        categories.append(cats)
    return EncodedData(codes, categories, names)


def encode_target(y: Any) -> tuple[Int64Array, np.ndarray]:
    """Codes of the class labels (``-1`` for missing) and the sorted classes."""
    arr = y.to_numpy() if isinstance(y, pd.Series) else np.asarray(y)
    if arr.ndim != 1:
        arr = arr.ravel() if arr.ndim == 2 and 1 in arr.shape else arr
    if arr.ndim != 1:
        raise ValueError(f"y must be one-dimensional; got shape {np.shape(y)}.")
    return _encode_column(arr)


def joint_codes(codes: Int64Array, cardinalities: Sequence[int]) -> tuple[Int64Array, int]:
    """One integer per row for the profile of several discrete columns.

    Parameters
    ----------
    codes : ndarray of shape (n_samples, k)
        Codes in ``[0, cardinalities[j])``, ``-1`` when missing.
    cardinalities : sequence of int
        Number of levels of each column.

    Returns
    -------
    joint : ndarray of shape (n_samples,)
        Profile code, ``-1`` for rows missing any of the ``k`` values.
    n_levels : int
        Upper bound (exclusive) of the codes.
    """
    n, k = codes.shape
    missing = np.zeros(n, dtype=bool)
    joint = np.zeros(n, dtype=np.int64)
    n_levels = 1
    # In place, column by column (codes may be column-major): one pass per column.
    for j in range(k):
        column = codes[:, j]
        card = max(int(cardinalities[j]), 1)
        missing |= column < 0
        if n_levels * card > _MAX_RADIX:
            # Compress to dense ranks among complete rows before the product overflows.
            ranks = np.full(n, -1, dtype=np.int64)
            uniq, inv = np.unique(joint[~missing], return_inverse=True)
            ranks[~missing] = inv
            joint, n_levels = ranks, len(uniq)
        joint *= card
        joint += column  # rows with a missing value are overwritten below
        n_levels *= card
    joint[missing] = -1
    return joint, n_levels


def contingency(codes: Int64Array, y_codes: Int64Array, n_classes: int) -> Contingency:
    """Joint counts of the observed profiles of ``codes`` with the classes.

    Rows missing a value of ``codes`` or of ``y_codes`` are not counted.
    """
    cards = [int(codes[:, j].max(initial=-1)) + 1 for j in range(codes.shape[1])]
    joint, _ = joint_codes(codes, cards)
    keep = (joint >= 0) & (y_codes >= 0)
    joint, yk = joint[keep], y_codes[keep]
    observed, first, inverse = np.unique(joint, return_index=True, return_inverse=True)
    counts = np.bincount(inverse * n_classes + yk, minlength=len(observed) * n_classes).reshape(
        len(observed), n_classes
    )
    profiles = codes[keep][first] if len(observed) else np.empty((0, codes.shape[1]), np.int64)
    return Contingency(profiles.astype(np.int64), counts.astype(np.float64), int(keep.sum()))


def lift_from_counts(counts: FloatArray) -> FloatArray:
    """Lift n(x, y) n / (n(x) n(y)) of every cell; 0 where n(x, y) = 0."""
    counts = np.asarray(counts, dtype=np.float64)
    total = counts.sum()
    row = counts.sum(axis=1, keepdims=True)
    col = counts.sum(axis=0, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lift = counts * total / (row * col)
    return np.where(counts > 0, lift, 0.0)


def _plogp_terms(counts: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Per-profile KL and CE numerators: P(x) KL(P(Y|x)||P(Y)) and P(x) CE(P(Y|x), P(Y))."""
    total = counts.sum()
    pxy = counts / total
    px = pxy.sum(axis=1, keepdims=True)
    py = pxy.sum(axis=0, keepdims=True)
    pos = pxy > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        kl = np.where(pos, pxy * np.log(np.where(pos, pxy / (px * py), 1.0)), 0.0).sum(axis=1)
        ce = np.where(pos, -pxy * np.log(np.where(pos, py, 1.0)), 0.0).sum(axis=1)
    return kl, ce


def eta_from_counts(counts: FloatArray, window: Any = None) -> float:
    """eta of a window (eq. (3)) from a contingency table.

    Parameters
    ----------
    counts : ndarray of shape (n_profiles, n_classes)
        Joint counts n(x, y).
    window : array-like of bool or int, default=None
        Rows of ``counts`` forming the window W (a mask or indices); ``None``
        is the whole range, giving eta(X) = I(X; Y) / H(Y).

    Returns
    -------
    eta : float
        In [0, 1]; 0 when only one class has complete cases (H(Y) = 0).
    """
    counts = np.asarray(counts, dtype=np.float64)
    if counts.sum() <= 0:
        return 0.0
    kl, ce = _plogp_terms(counts)
    if window is not None:
        kl, ce = kl[window], ce[window]
    den = ce.sum()
    if den <= 0:
        return 0.0
    return float(min(max(kl.sum() / den, 0.0), 1.0))


def mutual_information_from_counts(counts: FloatArray, normalize: bool = True) -> float:
    """I(X; Y) in nats, or I(X; Y) / H(Y) when ``normalize``, from a contingency table."""
    counts = np.asarray(counts, dtype=np.float64)
    if counts.sum() <= 0:
        return 0.0
    kl, ce = _plogp_terms(counts)
    mi = max(float(kl.sum()), 0.0)
    if not normalize:
        return mi
    h = float(ce.sum())
    return 0.0 if h <= 0 else min(mi / h, 1.0)


def _prepare(X: Any, y: Any) -> tuple[EncodedData, Int64Array, np.ndarray]:
    enc = encode_discrete(X)
    y_codes, classes = encode_target(y)
    if enc.codes.shape[0] != len(y_codes):
        raise ValueError(
            f"X has {enc.codes.shape[0]} rows but y has {len(y_codes)} labels; "
            "pass one label per row."
        )
    if enc.codes.shape[1] == 0:
        raise ValueError("X has no columns; pass at least one discrete feature.")
    complete = (enc.codes >= 0).all(axis=1) & (y_codes >= 0)
    if not complete.any():
        raise ValueError(
            "No row is complete (every row misses a value of X or y); "
            "the lift needs at least one complete case."
        )
    present = np.unique(y_codes[complete])
    if len(present) < 2:
        raise ValueError(
            f"y has 1 class among the complete cases ({classes[present[0]]!r}); "
            "the dependence scale needs at least 2 classes."
        )
    return enc, y_codes, classes


def _profile_label(values: Sequence[Any]) -> Any:
    return values[0] if len(values) == 1 else tuple(values)


def lift_table(X: Any, y: Any) -> pd.DataFrame:
    """The lift function of X and y with its counts, like the paper's Tables 1-3 and 7.

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features) or DataFrame
        Discrete features; NaN/None are missing. Each row's values form its
        profile.
    y : array-like of shape (n_samples,)
        Class labels; missing labels are left out.

    Returns
    -------
    table : DataFrame
        One row per observed profile (index: the profile, a MultiIndex named
        after the features when there are several), with column groups
        ``"lift"`` (L(x, y) per class), ``"count"`` (n(x, y) per class) and
        ``("frequency", "")`` (relative frequency of the profile). ``attrs``
        holds ``"class_frequency"`` (P(y) per class) and ``"n_complete"``.
        Only complete cases are counted.

    Examples
    --------
    >>> from localselect.lift import lift_table
    >>> t = lift_table(["a", "a", "b", "b"], [0, 0, 0, 1])
    >>> t["lift"].round(3)
            0    1
    x0
    a   1.333  0.0
    b   0.667  2.0
    """
    enc, y_codes, classes = _prepare(X, y)
    table = contingency(enc.codes, y_codes, len(classes))
    values = [[enc.categories[j][c] for j, c in enumerate(row)] for row in table.profiles.tolist()]
    return lift_frame(values, table.counts, enc.feature_names, list(classes))


def lift_frame(
    profiles: Sequence[Sequence[Any]],
    counts: Any,
    feature_names: Sequence[str],
    classes: Sequence[Any],
) -> pd.DataFrame:
    """The table of :func:`lift_table` from the counts of its profiles.

    Parameters
    ----------
    profiles : sequence of sequences
        The values of each observed profile, one per feature.
    counts : array-like of shape (n_profiles, n_classes)
        Joint counts ``n(x, y)`` of the complete cases.
    feature_names : sequence of str
        Names of the profile's features (the index's names).
    classes : sequence
        Class labels (the columns).

    Returns
    -------
    table : DataFrame
        As :func:`lift_table` returns.
    """
    counts = np.asarray(counts, dtype=np.float64).reshape(len(profiles), len(classes))
    n_complete = int(counts.sum())
    if len(feature_names) == 1:
        index = pd.Index([v[0] for v in profiles], name=feature_names[0])
    else:
        index = pd.MultiIndex.from_tuples([tuple(v) for v in profiles], names=list(feature_names))
    class_labels = list(classes)
    lift = lift_from_counts(counts)
    frame = pd.concat(
        {
            "lift": pd.DataFrame(lift, index=index, columns=class_labels),
            "count": pd.DataFrame(counts.astype(np.int64), index=index, columns=class_labels),
            "frequency": pd.DataFrame({"": counts.sum(axis=1) / n_complete}, index=index),
        },
        axis=1,
    )
    frame.attrs["class_frequency"] = dict(
        zip(class_labels, (counts.sum(axis=0) / n_complete).tolist())
    )
    frame.attrs["n_complete"] = n_complete
    return frame


def _window_mask(window: Any, enc: EncodedData, profiles: Int64Array) -> NDArray[np.bool_]:
    k = enc.codes.shape[1]
    if isinstance(window, (str, bytes)) or not isinstance(window, (Sequence, set, frozenset)):
        window = [window]
    wanted = set()
    for item in window:
        values = tuple(item) if isinstance(item, (tuple, list)) else (item,)
        if len(values) != k:
            raise ValueError(
                f"Window profile {item!r} has {len(values)} values; X has {k} features. "
                "Give each profile as a tuple of one value per feature."
            )
        wanted.add(values)
    labels = [tuple(enc.categories[j][c] for j, c in enumerate(row)) for row in profiles.tolist()]
    mask = np.array([lab in wanted for lab in labels], dtype=bool)
    if not mask.any():
        raise ValueError(
            f"No complete case has a profile in the window {sorted(map(str, wanted))}; "
            "give profiles that occur in X (see lift_table(X, y).index)."
        )
    return mask


def dependence(X: Any, y: Any, window: Any = None) -> float:
    """The LLDS coefficient eta: of the whole range (eq. (2)) or of a window (eq. (3)).

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features) or DataFrame
        Discrete features; missing values allowed (complete cases are used).
    y : array-like of shape (n_samples,)
        Class labels.
    window : profile or collection of profiles, default=None
        The window W: a set of profiles, each a tuple with one value per
        feature (a bare value for a single feature). ``None`` means the whole
        range, where eta(X) = I(X; Y) / H(Y).

    Returns
    -------
    eta : float
        In [0, 1]: 0 when X and Y are independent on W, 1 when Y is a
        function of X on W.

    Examples
    --------
    >>> from localselect.lift import dependence
    >>> x = ["a", "a", "b", "b"]
    >>> dependence(x, [0, 0, 1, 1]), dependence(x, [0, 1, 0, 1])
    (1.0, 0.0)
    """
    enc, y_codes, classes = _prepare(X, y)
    table = contingency(enc.codes, y_codes, len(classes))
    mask = None if window is None else _window_mask(window, enc, table.profiles)
    return eta_from_counts(table.counts, mask)


def mutual_information(X: Any, y: Any, normalize: bool = True) -> float:
    """Mutual information I(X; Y) of discrete data, in nats or normalised by H(Y).

    Parameters
    ----------
    X : array-like of shape (n_samples,) or (n_samples, n_features) or DataFrame
        Discrete features, taken jointly (one variable per profile); missing
        values allowed (complete cases are used).
    y : array-like of shape (n_samples,)
        Class labels.
    normalize : bool, default=True
        Return I(X; Y) / H(Y) (the paper's eq. (2), equal to ``dependence(X, y)``).

    Returns
    -------
    mi : float
        Plug-in estimate from relative frequencies.

    Examples
    --------
    >>> from localselect.lift import mutual_information
    >>> round(mutual_information(["a", "a", "b", "b"], [0, 0, 1, 1], normalize=False), 4)
    0.6931
    """
    enc, y_codes, classes = _prepare(X, y)
    table = contingency(enc.codes, y_codes, len(classes))
    return mutual_information_from_counts(table.counts, normalize)


def fitted_lift_table(estimator: Any):
    """The lift table of a fitted ``LiftFeatureSelector``'s best result on its training rows."""
    check_is_fitted(estimator, "best_features_")
    if not hasattr(estimator, "best_lift_counts_"):
        raise ValueError(
            "This LiftFeatureSelector was fitted on a Dask collection and keeps no lift "
            "table; draw one from the data: plot_lift_table(lift_table(X_discrete, y)) "
            "with the columns of best_features_."
        )
    best = [int(j) for j in estimator.best_features_]
    columns = getattr(estimator, "input_columns_", None)
    if columns is not None:
        names = [str(n) for n in columns.names]
    elif hasattr(estimator, "feature_names_in_"):
        names = [str(n) for n in estimator.feature_names_in_]
    else:
        names = [f"x{j}" for j in range(estimator.n_features_in_)]
    profiles = estimator.best_lift_profiles_
    features = [names[j] for j in best]
    if isinstance(estimator.discretizer_, dict):  # a joint discretizer: one joint bin
        features = ["joint bin of (" + ", ".join(features) + ")"]
    counts = np.asarray(estimator.best_lift_counts_)
    classes = getattr(estimator, "classes_", None)
    if classes is None:  # a continuous target: its quantile bins
        classes = np.arange(counts.shape[1])
    return lift_frame(profiles, counts, features, list(classes))
