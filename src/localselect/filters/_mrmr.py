"""mRMR (minimum redundancy, maximum relevance), the MID criterion of Peng, Long and Ding.

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

Complexity: O(N M) per added feature (one contingency product of the newly
selected feature against all others), O(N M k) in total, memory O(N M).
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted

from localselect._compat import Interval
from localselect._docstrings import fill_doc
from localselect.base import (
    N_FEATURES_CONSTRAINT,
    Declaration,
    GlobalRelevanceMixin,
    LabelledFitMixin,
    resolve_n_features,
)
from localselect.evidence import NullResult, bh_qvalues, empirical_pvalues
from localselect.evidence._mixin import AUTO, FDR_CONSTRAINT, NULL_SEED

__all__ = ["MRMR", "discretize_three_states", "mrmr_order", "relevance_permuted"]


def discretize_three_states(X: ArrayLike, scale: float = 1.0) -> NDArray[np.int64]:
    """State 0 below ``mean - scale*std``, 2 above ``mean + scale*std``, 1 between."""
    X = np.asarray(X, dtype=np.float64)
    low = X.mean(axis=0) - scale * X.std(axis=0)
    high = X.mean(axis=0) + scale * X.std(axis=0)
    return np.greater(X, low).astype(np.int64) + np.greater(X, high)


def _mi_from_joint(joint: NDArray[np.float64]) -> NDArray[np.float64]:
    """Mutual information of the last two axes' joint count tables, batched over the first."""
    n = joint.sum(axis=(-2, -1), keepdims=True)
    p = joint / n
    pa = p.sum(axis=-1, keepdims=True)
    pb = p.sum(axis=-2, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(p / (pa * pb)), 0.0)
    return np.maximum(terms.sum(axis=(-2, -1)), 0.0)


def relevance_permuted(states: NDArray[np.int64], codes: NDArray[np.intp]) -> NDArray[np.float64]:
    """Relevance ``I(x_j; y)`` of every feature for every labelling in ``codes``.

    The score and the label-permutation null of ``MRMR(n_features_to_select="auto")``,
    vectorised: one contingency product per block of labellings.

    Parameters
    ----------
    states : ndarray of shape (n_samples, n_features)
        Discrete features coded 0..S-1.
    codes : ndarray of shape (n_labellings, n_samples)
        Class codes ``0 .. C-1``, one labelling per row.

    Returns
    -------
    relevance : ndarray of shape (n_labellings, n_features)
    """
    n, m = states.shape
    n_states = int(states.max()) + 1
    n_classes = int(codes.max()) + 1
    onehot = np.zeros((n, m, n_states))
    onehot[np.arange(n)[:, None], np.arange(m)[None, :], states] = 1.0
    flat = onehot.reshape(n, m * n_states)
    out = np.empty((codes.shape[0], m))
    block = max(1, 2_000_000 // max(1, n * n_classes))
    for start in range(0, codes.shape[0], block):
        part = codes[start : start + block]
        y_onehot = np.zeros((part.shape[0], n, n_classes))
        y_onehot[np.arange(part.shape[0])[:, None], np.arange(n)[None, :], part] = 1.0
        joint = np.einsum("nk,bnc->bkc", flat, y_onehot)
        out[start : start + part.shape[0]] = _mi_from_joint(
            joint.reshape(part.shape[0], m, n_states, n_classes)
        )
    return out


def mrmr_order(
    states: NDArray[np.int64], y: ArrayLike, n_features_to_select: int
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

    Returns
    -------
    order : ndarray of shape (n_features_to_select,)
    """
    n, m = states.shape
    _, y_idx = np.unique(np.asarray(y), return_inverse=True)
    n_states = int(states.max()) + 1
    # One-hot (n, m, S): a contingency table of any column against all columns is one product.
    onehot = np.zeros((n, m, n_states))
    onehot[np.arange(n)[:, None], np.arange(m)[None, :], states] = 1.0
    y_onehot = np.eye(y_idx.max() + 1)[y_idx]
    relevance = _mi_from_joint(np.einsum("nms,nc->msc", onehot, y_onehot))
    k = min(n_features_to_select, m)
    order = [int(np.argmax(relevance))]
    redundancy_sum = np.zeros(m)
    chosen = np.zeros(m, dtype=bool)
    chosen[order[0]] = True
    while len(order) < k:
        last = onehot[:, order[-1], :]  # (n, S)
        joint = np.einsum("ns,nmt->mst", last, onehot)
        redundancy_sum += _mi_from_joint(joint)
        score = relevance - redundancy_sum / len(order)
        score[chosen] = -np.inf
        best = int(np.argmax(score))
        order.append(best)
        chosen[best] = True
    return np.asarray(order, dtype=np.int64)


@fill_doc
class MRMR(LabelledFitMixin, GlobalRelevanceMixin, SelectorMixin, BaseEstimator):
    """Minimum-redundancy maximum-relevance (mRMR) selection on three-state features.

    The MID criterion of Peng, Long and Ding on features discretised into
    three states.

    Parameters
    ----------
    n_features_to_select : int, float or "auto", default=10
        Number of features to keep (an int, capped at the number of
        features), a fraction of the features (a float in (0, 1]), or
        ``"auto"``: the features whose relevance ``I(x_j; y)`` is significant
        at false discovery rate ``fdr`` (Benjamini-Hochberg q-values against
        1000 label permutations, exact for this univariate score), in mRMR
        order.
    fdr : float, default=0.1
        Target false discovery rate of ``"auto"``; unused otherwise.
    scale : float, default=1.0
        Discretisation thresholds at ``mean -+ scale * std`` per feature.

    Attributes
    ----------
    ranking_ : ndarray of shape (n_selected,)
        Selected feature indices in the order mRMR added them.
    pvalues_, qvalues_ : ndarray of shape (n_features_in_,)
        Only with ``"auto"``: permutation p-values of each feature's
        relevance and their Benjamini-Hochberg q-values.
    null_ : NullResult
        Only with ``"auto"``: the relevances and their permuted draws.
    %(fitted_classes_attributes)s

    References
    ----------
    H. Peng, F. Long and C. Ding, "Feature selection based on mutual information:
    criteria of max-dependency, max-relevance, and min-redundancy", IEEE TPAMI
    27(8), 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.filters import MRMR
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 200)
    >>> X = np.c_[rng.normal(size=200), y + 0.3 * rng.normal(size=200), rng.normal(size=200)]
    >>> MRMR(n_features_to_select=1).fit(X, y).get_support(indices=True)
    array([1])
    """

    _declaration = Declaration("mrmr")  # fast enough with its defaults
    _parameter_constraints = {
        # a count or a fraction: mRMR has no score that None could threshold
        "n_features_to_select": [*N_FEATURES_CONSTRAINT[:2], AUTO],
        "fdr": FDR_CONSTRAINT,
        "scale": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, n_features_to_select=10, *, fdr=0.1, scale=1.0):
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.scale = scale

    def _fit(self, X, codes, log):
        for name in ("pvalues_", "qvalues_", "null_"):
            self.__dict__.pop(name, None)
        states = discretize_three_states(X, self.scale)
        if self.n_features_to_select != "auto":
            k = resolve_n_features(self.n_features_to_select, X.shape[1])
            self.ranking_ = mrmr_order(states, codes, k)
            return self
        rng = np.random.default_rng(NULL_SEED)
        perms = np.stack([rng.permutation(codes) for _ in range(1000)])
        scores = relevance_permuted(states, codes[None, :])[0]
        self.null_ = NullResult(scores, relevance_permuted(states, perms), "permutation")
        self.pvalues_ = empirical_pvalues(self.null_)
        self.qvalues_ = bh_qvalues(self.pvalues_)
        keep = np.flatnonzero(self.qvalues_ <= self.fdr)
        order = mrmr_order(states[:, keep], codes, keep.size) if keep.size else keep
        self.ranking_ = keep[order].astype(np.int64)
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.ranking_] = True
        return mask
