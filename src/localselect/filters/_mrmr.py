"""mRMR (minimum redundancy, maximum relevance): MID (Peng et al.), FCD and FCQ (Ding, Peng).

Why our own: the LFS paper's mRMR column (Armanfard et al. 2016, Table 1) is
Peng's mutual-information mRMR; the PyPI package ``mrmr-selection`` scores
relevance by an F-statistic and redundancy by Pearson correlation (its "FCQ"
variant), which is a different method, and pulls in polars and
category-encoders. This is the short MID version: the mRMR column of the LFS
benchmarks, and a global filter in its own right.

Algorithm (Peng et al. 2005, eq. (6) and (7), "MID"): discretise each feature
into three states at ``mean -+ scale * std`` (their setting for continuous
data), then greedily add the feature maximising
``I(x_j; y) - mean_{s in S} I(x_j; x_s)``, starting from the most relevant one.
Mutual information uses natural logarithms and plug-in frequencies. Ties go to
the lowest feature index (``argmax`` takes the first).

For a continuous target (``task_ == "regression"``) the MID criterion
discretises ``y`` into the same three states as the features (Peng et al.'s
treatment of every continuous variable), so relevance and redundancy stay
plug-in mutual informations on one scale. Ding and Peng's (2005) criteria for
continuous data score relevance by the F-statistic ``F(x_j, y)`` (the one-way
ANOVA F of the classes, or for a continuous ``y`` the F of the univariate
linear regression, ``(n - 2) r^2 / (1 - r^2)``, scikit-learn's
``f_regression``) and redundancy by the mean absolute Pearson correlation
``c_j = mean_{s in S} |corr(x_j, x_s)|``: FCD adds the feature maximising
``F_j - c_j``, FCQ the one maximising ``F_j / c_j`` (their Table 1;
``c_j`` floored at :data:`FCQ_FLOOR`, ours, so a feature uncorrelated with
the selected ones gets a finite score).

Nominal columns and missing values (MID only). A nominal column (a
``category``, string or boolean column of a table, ``input_columns_.nominal``)
enters every mutual information as the discrete variable it is: its states
are its levels, not three cuts of its level codes and not one indicator
column per level. A missing value (NaN) is a state of its own in its column
(after the cuts of a numeric column, whose mean and standard deviation are
those of its present values): plug-in mutual information on the column with
"missing" as one more value, so missingness that tells about ``y`` counts as
relevance, and two columns missing on the same rows as redundant. Peng et al.
do not treat missing values; this is the usual treatment of a discrete
variable with a missing level. FCD and FCQ score a nominal column by the F of
its levels (:func:`nominal_f_statistic`: the one-way ANOVA F of a continuous
``y`` across them, or for classes Pearson's ``chi^2`` over its degrees of
freedom) and its redundancy by the correlation ratio with a numeric column
and Cramer's V with a nominal one (both ``|r|`` for two binary columns); they
refuse missing values (use MID).

Complexity: O(N M) per added feature (one contingency product of the newly
selected feature against all others), O(N M k) in total, memory O(N M).
"""

from __future__ import annotations

from numbers import Real
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from localselect._compat import Interval, StrOptions
from localselect._docstrings import fill_doc
from localselect.base import (
    N_FEATURES_CONSTRAINT,
    Declaration,
    GlobalRelevanceMixin,
    LabelledFitMixin,
    resolve_n_features,
    shared_constraints,
    warn_fewer_features,
)
from localselect.evidence import NullResult, bh_qvalues, empirical_pvalues
from localselect.evidence._mixin import AUTO, EVIDENCE_ATTRIBUTES, FDR_CONSTRAINT, NULL_SEED

__all__ = [
    "CRITERIA",
    "MRMR",
    "discretize_three_states",
    "f_statistic",
    "fstat_order",
    "mixed_states",
    "mrmr_order",
    "nominal_f_statistic",
    "one_hot",
    "relevance_permuted",
]

#: The criteria of :class:`MRMR`: Peng et al.'s MID, Ding and Peng's FCD and FCQ.
CRITERIA = ("mid", "fcd", "fcq")
#: Smallest mean absolute correlation FCQ divides by (ours; Ding and Peng give none).
FCQ_FLOOR = 1e-3


def discretize_three_states(X: ArrayLike, scale: float = 1.0) -> NDArray[np.int64]:
    """State 0 below ``mean - scale*std``, 2 above ``mean + scale*std``, 1 between."""
    X = np.asarray(X, dtype=np.float64)
    low = X.mean(axis=0) - scale * X.std(axis=0)
    high = X.mean(axis=0) + scale * X.std(axis=0)
    return np.greater(X, low).astype(np.int64) + np.greater(X, high)


def mixed_states(
    X: ArrayLike, nominal: ArrayLike, scale: float = 1.0
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """MID states of a table with nominal columns and missing values.

    A numeric column is cut into three states as :func:`discretize_three_states`
    does (its mean and standard deviation over its present values); a nominal
    column's states are its level codes ``0 .. L-1``; in either, a missing
    value (NaN) takes one more state of its own (the column's last).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Numeric values, and the level codes (as float) of the nominal columns;
        NaN where a value is missing.
    nominal : array-like of bool, shape (n_features,)
        Which columns are nominal.
    scale : float, default=1.0
        Cuts of the numeric columns at ``mean -+ scale * std``.

    Returns
    -------
    states : ndarray of shape (n_samples, n_features)
        State of each entry, ``0 .. n_levels[j] - 1`` in column ``j``.
    n_levels : ndarray of shape (n_features,)
        Number of states of each column (3 for a numeric column, the largest
        code plus one for a nominal one, plus one when the column has a
        missing value).
    """
    X = np.asarray(X, dtype=np.float64)
    nominal = np.asarray(nominal, dtype=bool)
    missing = np.isnan(X)
    states = np.zeros(X.shape, dtype=np.int64)
    n_levels = np.full(X.shape[1], 3, dtype=np.int64)
    numeric = ~nominal
    if numeric.any():
        V = X[:, numeric]
        present = ~missing[:, numeric]
        count = np.maximum(present.sum(axis=0), 1)
        mean = np.where(present, V, 0.0).sum(axis=0) / count
        std = np.sqrt(np.where(present, (V - mean) ** 2, 0.0).sum(axis=0) / count)
        with np.errstate(invalid="ignore"):
            cut = np.greater(V, mean - scale * std).astype(np.int64) + np.greater(
                V, mean + scale * std
            )
        states[:, numeric] = cut
    if nominal.any():
        codes = np.where(missing[:, nominal], 0.0, X[:, nominal])
        if (codes < 0).any() or (codes != np.round(codes)).any():
            raise ValueError(
                "a nominal column must hold level codes 0, 1, ... (or NaN); got negative or "
                "fractional values: pass the table itself, whose columns the fit codes."
            )
        states[:, nominal] = codes.astype(np.int64)
        n_levels[nominal] = states[:, nominal].max(axis=0, initial=0) + 1
    has_missing = missing.any(axis=0)
    states = np.where(missing, n_levels[None, :], states)
    n_levels = n_levels + has_missing
    return states, n_levels


def one_hot(codes: ArrayLike, n_levels: int) -> NDArray[np.float64]:
    """0/1 indicators of integer ``codes`` (``0 .. n_levels - 1``) along a new last axis.

    The contingency tables of mRMR are products of these: ``flat.T @ y_onehot``
    counts ``n(x_j = s, y = c)`` for every feature and state at once.

    Parameters
    ----------
    codes : array-like of int, any shape
        Level of each entry.
    n_levels : int
        Number of levels.

    Returns
    -------
    indicators : ndarray of shape ``codes.shape + (n_levels,)``
    """
    return (np.asarray(codes)[..., None] == np.arange(n_levels)).astype(np.float64)


def _mi_from_joint(joint: NDArray[np.float64]) -> NDArray[np.float64]:
    """Mutual information of the last two axes' joint count tables, batched over the first."""
    n = joint.sum(axis=(-2, -1), keepdims=True)
    p = joint / n
    pa = p.sum(axis=-1, keepdims=True)
    pb = p.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p / (pa * pb)), 0.0)
    return np.maximum(terms.sum(axis=(-2, -1)), 0.0)


def _indicators(
    states: NDArray[np.int64], n_levels: NDArray[np.int64]
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """0/1 indicators of every column's states side by side, ``(n, sum(n_levels))``, and
    the offset of each column's block (columns of different numbers of states)."""
    offsets = np.concatenate([[0], np.cumsum(n_levels)[:-1]]).astype(np.intp)
    flat = np.zeros((states.shape[0], int(n_levels.sum())))
    np.put_along_axis(flat, states + offsets[None, :], 1.0, axis=1)
    return flat, offsets


def _segment_mi(
    joint: NDArray[np.float64], offsets: NDArray[np.intp], n_levels: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Mutual information of each column's block of a stacked joint count table.

    ``joint`` has shape ``(..., K, C)``: rows ``offsets[j] .. offsets[j] + n_levels[j]``
    of the ``K`` axis are the states of column ``j`` against ``C`` states of the other
    variable; every column counts the same rows. Returns shape ``(..., n_columns)``.
    """
    n = joint[..., : n_levels[0], :].sum(axis=(-2, -1), keepdims=True)
    p = joint / n
    pa = p.sum(axis=-1, keepdims=True)
    pb = np.repeat(np.add.reduceat(p, offsets, axis=-2), n_levels, axis=-2)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p / (pa * pb)), 0.0).sum(axis=-1)
    return np.maximum(np.add.reduceat(terms, offsets, axis=-1), 0.0)


def relevance_permuted(
    states: NDArray[np.int64], codes: NDArray[np.intp], n_levels: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Relevance ``I(x_j; y)`` of every feature for every labelling in ``codes``.

    The score and the label-permutation null of ``MRMR(n_features_to_select="auto")``,
    vectorised: one contingency product per block of labellings.

    Parameters
    ----------
    states : ndarray of shape (n_samples, n_features)
        Discrete features coded 0..S-1.
    codes : ndarray of shape (n_labellings, n_samples)
        Class codes ``0 .. C-1``, one labelling per row.
    n_levels : array-like of int, shape (n_features,), optional
        Number of states of each column (:func:`mixed_states`); None: every
        column has ``states.max() + 1``.

    Returns
    -------
    relevance : ndarray of shape (n_labellings, n_features)
    """
    n, m = states.shape
    n_classes = int(codes.max()) + 1
    if n_levels is None:
        n_states = int(states.max()) + 1
        flat = one_hot(states, n_states).reshape(n, m * n_states)
    else:
        n_levels = np.asarray(n_levels, dtype=np.int64)
        flat, offsets = _indicators(states, n_levels)
    out = np.empty((codes.shape[0], m))
    block = max(1, 2_000_000 // max(1, n * n_classes))
    for start in range(0, codes.shape[0], block):
        part = codes[start : start + block]
        joint = np.einsum("nk,bnc->bkc", flat, one_hot(part, n_classes))
        out[start : start + part.shape[0]] = (
            _mi_from_joint(joint.reshape(part.shape[0], m, n_states, n_classes))
            if n_levels is None
            else _segment_mi(joint, offsets, n_levels)
        )
    return out


def mrmr_order(
    states: NDArray[np.int64],
    y: ArrayLike,
    n_features_to_select: int,
    n_levels: ArrayLike | None = None,
) -> NDArray[np.int64]:
    """Indices of the first ``n_features_to_select`` features in mRMR (MID) order.

    Parameters
    ----------
    states : ndarray of shape (n_samples, n_features)
        Discrete features coded 0..S-1.
    y : array-like of shape (n_samples,)
        Class labels.
    n_features_to_select : int
        How many features to rank.
    n_levels : array-like of int, shape (n_features,), optional
        Number of states of each column (:func:`mixed_states`: nominal columns
        and missing values); None: every column has ``states.max() + 1``.

    Returns
    -------
    order : ndarray of shape (n_features_to_select,)
    """
    m = states.shape[1]
    _, y_idx = np.unique(np.asarray(y), return_inverse=True)
    k = min(n_features_to_select, m)
    if n_levels is not None:
        n_levels = np.asarray(n_levels, dtype=np.int64)
        flat, offsets = _indicators(states, n_levels)
        ends = offsets + n_levels
        relevance = _segment_mi(flat.T @ one_hot(y_idx, y_idx.max() + 1), offsets, n_levels)
        return _greedy(
            relevance,
            lambda j: _segment_mi(flat.T @ flat[:, offsets[j] : ends[j]], offsets, n_levels),
            k,
            quotient=False,
        )
    n_states = int(states.max()) + 1
    # One-hot (n, m, S): a contingency table of any column against all columns is one product.
    onehot = one_hot(states, n_states)
    y_onehot = one_hot(y_idx, y_idx.max() + 1)
    relevance = _mi_from_joint(np.einsum("nms,nc->msc", onehot, y_onehot))

    def redundancy_to(j):
        return _mi_from_joint(np.einsum("ns,nmt->mst", onehot[:, j, :], onehot))

    return _greedy(relevance, redundancy_to, k, quotient=False)


def _greedy(
    relevance: NDArray[np.float64], redundancy_to: Any, k: int, quotient: bool
) -> NDArray[np.int64]:
    """Greedy mRMR: start at the most relevant feature, then add the best ``relevance``
    minus (or, with ``quotient``, over) the mean redundancy to the chosen ones.

    ``redundancy_to(j)`` returns the redundancy of every feature with feature ``j``.
    Ties go to the lowest index (``argmax`` takes the first).
    """
    m = relevance.shape[0]
    order = [int(np.argmax(relevance))]
    redundancy_sum = np.zeros(m)
    chosen = np.zeros(m, dtype=bool)
    chosen[order[0]] = True
    while len(order) < k:
        redundancy_sum += redundancy_to(order[-1])
        mean = redundancy_sum / len(order)
        score = relevance / np.maximum(mean, FCQ_FLOOR) if quotient else relevance - mean
        score[chosen] = -np.inf
        best = int(np.argmax(score))
        order.append(best)
        chosen[best] = True
    return np.asarray(order, dtype=np.int64)


def f_statistic(X: ArrayLike, labellings: ArrayLike, regression: bool) -> NDArray[np.float64]:
    """F-statistic of every feature for every labelling (Ding and Peng's relevance).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Continuous features.
    labellings : array-like of shape (n_labellings, n_samples)
        Class codes ``0 .. C-1`` (one-way ANOVA F with ``C - 1`` and ``n - C``
        degrees of freedom, as scikit-learn's ``f_classif``) or, with
        ``regression``, continuous targets (``(n - 2) r^2 / (1 - r^2)`` of the
        Pearson correlation ``r``, as ``f_regression``).
    regression : bool
        Whether the labellings are continuous.

    Returns
    -------
    F : ndarray of shape (n_labellings, n_features)
        Finite and non-negative: a constant feature (or target) scores 0, a
        perfect fit a large finite value (denominators floored at machine
        epsilon).
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.atleast_2d(np.asarray(labellings))
    n = X.shape[0]
    Xc = X - X.mean(axis=0)
    sst = np.einsum("nm,nm->m", Xc, Xc)
    tiny = np.finfo(np.float64).eps
    flat = sst <= n * (1e-12 * (1.0 + np.abs(X.mean(axis=0)))) ** 2  # constant columns
    if regression:
        Yc = Y.astype(np.float64) - Y.mean(axis=1, keepdims=True)
        denom = np.sqrt(np.outer(np.einsum("bn,bn->b", Yc, Yc), sst))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(denom > 0, (Yc @ Xc) / denom, 0.0)
        r2 = np.where(flat[None, :], 0.0, np.minimum(r * r, 1.0))
        return (n - 2) * r2 / np.maximum(1.0 - r2, tiny)
    codes = Y.astype(np.intp)
    n_classes = int(codes.max()) + 1
    out = np.empty((codes.shape[0], X.shape[1]))
    block = max(1, 2_000_000 // max(1, n * n_classes))
    for start in range(0, codes.shape[0], block):
        part = codes[start : start + block]
        onehot = one_hot(part, n_classes)
        counts = onehot.sum(axis=1)  # (B, C)
        sums = np.einsum("bnc,nm->bcm", onehot, Xc)
        with np.errstate(divide="ignore", invalid="ignore"):
            ssb = np.where(counts[:, :, None] > 0, sums**2 / counts[:, :, None], 0.0).sum(axis=1)
        ssw = np.maximum(sst[None, :] - ssb, 0.0)
        df_between = np.maximum((counts > 0).sum(axis=1) - 1, 1)[:, None]
        df_within = max(n - n_classes, 1)
        F = (ssb / df_between) / np.maximum(ssw / df_within, tiny)
        out[start : start + part.shape[0]] = np.where(flat[None, :], 0.0, F)
    return out


def fstat_order(
    X: ArrayLike,
    relevance: NDArray[np.float64],
    n_features_to_select: int,
    quotient: bool,
    nominal: ArrayLike | None = None,
) -> NDArray[np.int64]:
    """Indices of the first ``n_features_to_select`` features in FCD (or FCQ) order.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Continuous features (redundancy: absolute Pearson correlations; a
        constant feature is uncorrelated with every other).
    relevance : ndarray of shape (n_features,)
        The F-statistics (:func:`f_statistic`).
    n_features_to_select : int
        How many features to rank.
    quotient : bool
        FCQ (``F / c``) instead of FCD (``F - c``).
    nominal : array-like of bool, shape (n_features,), optional
        Columns holding level codes: their redundancy with a numeric column
        is the correlation ratio, with a nominal one Cramer's V
        (:func:`nominal_f_statistic` gives their relevance).

    Returns
    -------
    order : ndarray of shape (n_features_to_select,)
    """
    X = np.asarray(X, dtype=np.float64)
    Z = X - X.mean(axis=0)
    norm = np.sqrt(np.einsum("nm,nm->m", Z, Z))
    Z = np.divide(Z, norm, out=np.zeros_like(Z), where=norm > 0)
    k = min(n_features_to_select, X.shape[1])
    if nominal is not None and np.any(nominal):
        association = _association_to(Z, X, np.asarray(nominal, dtype=bool))
        return _greedy(relevance, association, k, quotient)
    return _greedy(relevance, lambda j: np.abs(Z.T @ Z[:, j]), k, quotient)


def _level_indicators(codes: NDArray[np.float64]) -> NDArray[np.float64]:
    """0/1 indicators ``(n, L)`` of a nominal column's level codes (complete)."""
    return one_hot(codes.astype(np.intp), int(codes.max()) + 1)


def nominal_f_statistic(
    codes: ArrayLike, labellings: ArrayLike, regression: bool
) -> NDArray[np.float64]:
    """F-type relevance of nominal columns for every labelling (FCD/FCQ on a table).

    For a continuous target, the one-way ANOVA F of ``y`` across the
    column's levels, ``(SSB / (L - 1)) / (SSW / (n - L))``: the F of the
    linear model of ``y`` on the level indicators, as ``f_regression`` is
    that of a numeric column. For classes, Pearson's ``chi^2`` of the level
    by class table over its degrees of freedom ``(L - 1)(C - 1)``: the large
    sample form of an F with those numerator degrees of freedom (no F of a
    nominal column against classes exists). ``L`` and ``C`` count the levels
    and classes present. A column with one level scores 0.

    Parameters
    ----------
    codes : array-like of shape (n_samples, n_nominal)
        Level codes ``0 .. L-1`` (complete).
    labellings : array-like of shape (n_labellings, n_samples)
        Class codes, or continuous targets with ``regression``.
    regression : bool
        Whether the labellings are continuous.

    Returns
    -------
    F : ndarray of shape (n_labellings, n_nominal)
    """
    codes = np.asarray(codes, dtype=np.float64)
    Y = np.atleast_2d(np.asarray(labellings))
    n = codes.shape[0]
    tiny = np.finfo(np.float64).eps
    out = np.zeros((Y.shape[0], codes.shape[1]))
    if regression:
        Yc = Y.astype(np.float64) - Y.mean(axis=1, keepdims=True)
        sst = np.einsum("bn,bn->b", Yc, Yc)
    else:
        n_classes = int(Y.max()) + 1
        y_onehot = one_hot(Y.astype(np.intp), n_classes)  # (B, n, C)
    for q in range(codes.shape[1]):
        O = _level_indicators(codes[:, q])
        counts = O.sum(axis=0)
        present = counts > 0
        n_levels = int(present.sum())
        if n_levels < 2:
            continue
        O, counts = O[:, present], counts[present]
        if regression:
            ssb = ((Yc @ O) ** 2 / counts).sum(axis=1)
            ssw = np.maximum(sst - ssb, 0.0)
            out[:, q] = (ssb / (n_levels - 1)) / np.maximum(ssw / max(n - n_levels, 1), tiny)
            continue
        table = np.einsum("nl,bnc->blc", O, y_onehot)  # (B, L, C)
        col = table.sum(axis=1, keepdims=True)
        expected = counts[None, :, None] * col / n
        with np.errstate(divide="ignore", invalid="ignore"):
            cells = np.where(expected > 0, (table - expected) ** 2 / expected, 0.0)
        df = (n_levels - 1) * np.maximum((col[:, 0, :] > 0).sum(axis=1) - 1, 1)
        out[:, q] = cells.sum(axis=(1, 2)) / df
    return out


def _association_to(Z: NDArray[np.float64], X: NDArray[np.float64], nominal: NDArray[np.bool_]):
    """``association(j)``: the redundancy of every column with column ``j`` in [0, 1].

    Two numeric columns: ``|r|``; a numeric and a nominal column: the correlation
    ratio ``eta`` (the square root of the share of the numeric column's variance
    between the levels); two nominal columns: Cramer's V. Each equals ``|r|`` for
    two binary columns. ``Z`` holds the centred unit-norm columns.
    """
    indicators = {int(j): _level_indicators(X[:, j]) for j in np.flatnonzero(nominal)}

    def eta(O):
        counts = O.sum(axis=0)
        S = O.T @ Z
        return np.sqrt(np.minimum((S**2 / np.maximum(counts, 1)[:, None]).sum(axis=0), 1.0))

    def cramer(O, P):
        table = O.T @ P
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
        if min(table.shape) < 2:
            return 0.0
        n = table.sum()
        expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
        chi2 = ((table - expected) ** 2 / expected).sum()
        return float(np.sqrt(min(chi2 / (n * (min(table.shape) - 1)), 1.0)))

    def association(j):
        if nominal[j]:
            out = eta(indicators[j])
        else:
            out = np.abs(Z.T @ Z[:, j])
            for k, O in indicators.items():
                out[k] = eta(O)[j]
        for k, O in indicators.items():
            if nominal[j]:
                out[k] = cramer(indicators[j], O)
        return out

    return association


@fill_doc
class MRMR(LabelledFitMixin, GlobalRelevanceMixin, SelectorMixin, BaseEstimator):
    """Minimum-redundancy maximum-relevance (mRMR) selection, for classes or a continuous target.

    The MID criterion of Peng, Long and Ding on features discretised into
    three states (default), or Ding and Peng's FCD / FCQ criteria on the
    continuous features (F-statistic relevance, correlation redundancy). A
    continuous ``y`` is detected (``task="auto"``) and scored as in the
    module docstring: MID on ``y`` cut into the same three states, FCD/FCQ
    with the F-statistic of the univariate regression.

    Parameters
    ----------
    n_features_to_select : int, float or "auto", default=10
        Number of features to keep (an int, capped at the number of
        features), a fraction of the features (a float in (0, 1]), or
        ``"auto"``: the features whose relevance (``I(x_j; y)`` for MID, the
        F-statistic for FCD/FCQ) is significant at false discovery rate
        ``fdr`` (Benjamini-Hochberg q-values against 1000 label
        permutations, exact for this univariate score), in mRMR order.
    fdr : float, default=0.1
        Target false discovery rate of ``"auto"``; unused otherwise.
    scale : float, default=1.0
        Discretisation thresholds at ``mean -+ scale * std`` per feature (and
        of a continuous ``y`` for MID); unused by FCD/FCQ.
    criterion : {"mid", "fcd", "fcq"}, default="mid"
        ``"mid"``: mutual-information difference on three-state features
        (Peng et al. 2005, eq. (6), (7)); ``"fcd"``: F-statistic minus mean
        absolute correlation; ``"fcq"``: their quotient (Ding and Peng 2005,
        Table 1).
    task : {"auto", "classification", "regression"}, default="auto"
        What ``y`` is: ``"auto"`` reads it (floats that are not all integers
        are a continuous target); pass ``"regression"`` for an integer target
        that is a quantity, ``"classification"`` for float class labels.

    Attributes
    ----------
    ranking_ : ndarray of shape (n_selected,)
        Selected feature indices in the order mRMR added them.
    pvalues_, qvalues_ : ndarray of shape (n_features_in_,)
        Only with ``"auto"``: permutation p-values of each feature's
        relevance and their Benjamini-Hochberg q-values.
    null_ : NullResult
        Only with ``"auto"``: the relevances and their permuted draws.
    task_ : {"classification", "regression"}
        The task of the fit.
    classes_ : ndarray of shape (n_classes,)
        Class labels seen in ``fit`` (not set for a continuous target).
    %(fitted_input_attributes)s

    Notes
    -----
    A table's nominal columns (``category``, string, boolean) enter MID's
    mutual informations as discrete variables with their own levels, and a
    missing value (NaN) is a state of its own in its column (the module
    docstring, :func:`mixed_states`). FCD and FCQ score a nominal column by
    the F of its levels and its redundancy by the correlation ratio or
    Cramer's V (:func:`nominal_f_statistic`), and refuse missing values.
    Plain numeric arrays without NaN are scored exactly as before.

    References
    ----------
    H. Peng, F. Long and C. Ding, "Feature selection based on mutual information:
    criteria of max-dependency, max-relevance, and min-redundancy", IEEE TPAMI
    27(8), 2005.

    C. Ding and H. Peng, "Minimum redundancy feature selection from microarray
    gene expression data", Journal of Bioinformatics and Computational Biology
    3(2), 185-205, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.filters import MRMR
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = np.c_[rng.normal(size=200), y + 0.3 * rng.normal(size=200), rng.normal(size=200)]
    >>> MRMR(n_features_to_select=1).fit(X, y).get_support(indices=True)
    array([1])
    >>> target = X[:, 2] + 0.1 * rng.normal(size=200)  # a continuous y
    >>> MRMR(n_features_to_select=1, criterion="fcq").fit(X, target).get_support(indices=True)
    array([2])
    """

    _declaration = Declaration(
        "mrmr",
        targets=("classes", "continuous"),
        columns="native",
        collection_fit="localselect.filters._collections:fit_mrmr_collection",
    )
    _parameter_constraints = {
        # a count or a fraction: mRMR has no score that None could threshold
        "n_features_to_select": [*N_FEATURES_CONSTRAINT[:2], AUTO],
        "fdr": FDR_CONSTRAINT,
        "scale": [Interval(Real, 0, None, closed="neither")],
        "criterion": [StrOptions(set(CRITERIA))],
        **shared_constraints("task"),
    }

    def __init__(
        self, n_features_to_select=10, *, fdr=0.1, scale=1.0, criterion="mid", task="auto"
    ):
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.scale = scale
        self.criterion = criterion
        self.task = task

    def _labelling(self, target):
        """What relevance is computed against: class codes, ``y``'s three states (MID on a
        continuous ``y``) or ``y`` itself (FCD/FCQ on a continuous ``y``)."""
        if self.task_ == "regression" and self.criterion == "mid":
            return discretize_three_states(target[:, None], self.scale)[:, 0]
        return target

    def _relevance(self, X, states, labellings, n_levels=None, nominal=None):
        """Relevance of every feature for every row of ``labellings``."""
        if self.criterion == "mid":
            return relevance_permuted(states, labellings, n_levels)
        regression = self.task_ == "regression"
        F = f_statistic(X, labellings, regression)
        if nominal is not None and nominal.any():
            F[:, nominal] = nominal_f_statistic(X[:, nominal], labellings, regression)
        return F

    def _order(self, X, states, labelling, k, n_levels=None, nominal=None):
        if self.criterion == "mid":
            return mrmr_order(states, labelling, k, n_levels)
        relevance = self._relevance(X, states, labelling[None, :], nominal=nominal)[0]
        return fstat_order(X, relevance, k, quotient=self.criterion == "fcq", nominal=nominal)

    def _states(self, X, nominal):
        """MID states and, for a table with nominal columns or missing values, the number
        of states of each column (None: every column has three, as in Peng et al.)."""
        if self.criterion != "mid":
            return None, None
        if nominal.any() or np.isnan(X).any():
            return mixed_states(X, nominal, self.scale)
        return discretize_three_states(X, self.scale), None

    def _fit(self, X, target, log):
        self._discard(EVIDENCE_ATTRIBUTES)
        columns = getattr(self, "input_columns_", None)
        nominal = (
            np.zeros(X.shape[1], dtype=bool)
            if columns is None
            else np.asarray(columns.nominal, dtype=bool)
        )
        states, n_levels = self._states(X, nominal)
        labelling = self._labelling(target)
        if self.n_features_to_select != "auto":
            asked = resolve_n_features(self.n_features_to_select, X.shape[1])
            relevance = self._relevance(X, states, labelling[None, :], n_levels, nominal)[0]
            keep = np.flatnonzero(relevance > 0)
            if keep.size == X.shape[1]:
                self.ranking_ = self._order(X, states, labelling, asked, n_levels, nominal)
                return self
            # a column with no relevance (a constant one) is never selected by a count
            k = keep.size if asked is None else min(asked, keep.size)
            if asked is not None and k < asked:
                warn_fewer_features(self.n_features_to_select, k, X.shape[1])
            self.ranking_ = self._ranked_among(X, states, labelling, keep, k, n_levels, nominal)
            return self
        rng = np.random.default_rng(NULL_SEED)
        perms = np.stack([rng.permutation(labelling) for _ in range(1000)])
        scores = self._relevance(X, states, labelling[None, :], n_levels, nominal)[0]
        self.null_ = NullResult(
            scores, self._relevance(X, states, perms, n_levels, nominal), "permutation"
        )
        self.pvalues_ = empirical_pvalues(self.null_)
        self.qvalues_ = bh_qvalues(self.pvalues_)
        keep = np.flatnonzero(self.qvalues_ <= self.fdr)
        self.ranking_ = self._ranked_among(
            X, states, labelling, keep, keep.size, n_levels, nominal
        )
        return self

    def _ranked_among(self, X, states, labelling, keep, k, n_levels, nominal):
        """The greedy order of ``k`` of the columns ``keep`` (indices into ``X``)."""
        if not keep.size or not k:
            return keep[:0].astype(np.int64)
        order = self._order(
            X[:, keep],
            None if states is None else states[:, keep],
            labelling,
            k,
            None if n_levels is None else n_levels[keep],
            nominal[keep],
        )
        return keep[order].astype(np.int64)

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # MID takes a missing value as a state of its own; FCD/FCQ need complete columns
        tags.input_tags.allow_nan = self.criterion == "mid"
        return tags
