"""Fisher score: the FDA filter baseline of the LFS paper's Table 1."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_X_y

from localselect._docstrings import fill_doc
from localselect.base import Declaration, LabelledFitMixin, ScoreSelectorMixin

__all__ = ["FisherScore", "fisher_from_moments", "fisher_score", "fisher_score_permuted"]


def fisher_score(X: ArrayLike, y: ArrayLike) -> NDArray[np.float64]:
    """Fisher score of each feature.

    For feature ``j`` with overall mean ``mu_j`` and, in class ``c``, ``n_c``
    samples of mean ``mu_cj`` and (population) variance ``s_cj^2``,

    .. math:: F_j = \\frac{\\sum_c n_c (\\mu_{cj} - \\mu_j)^2}{\\sum_c n_c s_{cj}^2}

    (Duda, Hart and Stork, *Pattern Classification*, 2001, sec. 3.8; the "FDA"
    column of Armanfard et al. 2016, Table 1).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Class labels.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        Fisher score per feature. A feature constant within every class scores
        ``inf`` when its class means differ (it separates perfectly) and ``0``
        when it is constant overall: never NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.filters import fisher_score
    >>> X = np.array([[0.0, 1.0], [0.2, 5.0], [1.0, 1.2], [1.2, 4.8]])
    >>> fisher_score(X, [0, 0, 1, 1]).round(3)
    array([25.,  0.])
    """
    X_arr: NDArray[np.float64]
    X_arr, y_arr = check_X_y(X, y, dtype=np.float64)
    check_classification_targets(y_arr)
    X = X_arr
    _, y_idx = np.unique(y_arr, return_inverse=True)
    return fisher_score_permuted(X, y_idx[None, :])[0]


def fisher_score_permuted(X: NDArray[np.float64], codes: NDArray[np.intp]) -> NDArray[np.float64]:
    """Fisher scores of ``X`` for every labelling in ``codes``, vectorised.

    The null of ``FisherScore(n_features_to_select="auto")``: one matrix
    product per block of labellings instead of one fit per permutation.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data.
    codes : ndarray of shape (n_labellings, n_samples)
        Class codes ``0 .. C-1``, one labelling per row.

    Returns
    -------
    scores : ndarray of shape (n_labellings, n_features)
        Row ``b`` equals ``fisher_score(X, codes[b])``.
    """
    n, p = X.shape
    n_classes = int(codes.max()) + 1
    overall = X.mean(axis=0)
    X2 = X**2
    # Relative tolerance: a within-class spread this small next to the data's scale
    # is rounding noise, so the feature is treated as constant within classes.
    scale = np.maximum(np.abs(X).max(axis=0), 1.0) ** 2 * n
    out = np.empty((codes.shape[0], p))
    block = max(1, 2_000_000 // max(1, n * n_classes))  # bounded memory for the one-hot rows
    for start in range(0, codes.shape[0], block):
        part = codes[start : start + block]
        b = part.shape[0]
        cube = np.zeros((b, n_classes, n))
        cube[np.arange(b)[:, None], part, np.arange(n)[None, :]] = 1.0
        onehot = cube.reshape(b * n_classes, n)
        out[start : start + b] = fisher_from_moments(
            onehot.sum(axis=1).reshape(b, n_classes),
            (onehot @ X).reshape(b, n_classes, p),
            (onehot @ X2).reshape(b, n_classes, p),
            overall,
            scale,
        )
    return out


def fisher_from_moments(
    counts: NDArray[np.float64],
    sums: NDArray[np.float64],
    squares: NDArray[np.float64],
    overall: NDArray[np.float64],
    scale: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Fisher scores from per-class counts, sums and sums of squares (the sufficient statistics).

    The formula of :func:`fisher_score`, shared by the in-memory fit and the
    fit on a Dask collection (whose blocks add up these statistics).

    Parameters
    ----------
    counts : ndarray of shape (n_labellings, n_classes)
    sums, squares : ndarray of shape (n_labellings, n_classes, n_features)
        Per-class sums of ``x`` and of ``x ** 2``.
    overall : ndarray of shape (n_features,)
        Mean of each feature over all samples.
    scale : ndarray of shape (n_features,)
        ``max(max |x|, 1) ** 2 * n_samples``: a within-class spread below
        ``1e-14 * scale`` is rounding noise (the feature is constant within classes).

    Returns
    -------
    scores : ndarray of shape (n_labellings, n_features)
    """
    safe = np.maximum(counts, 1.0)[:, :, None]
    means = sums / safe
    between = np.einsum("bc,bcp->bp", counts, (means - overall) ** 2)
    second = squares / safe
    within = np.einsum("bc,bcp->bp", counts, second - means**2)
    within = np.maximum(within, 0.0)  # rounding can leave -1e-17 on constant features
    tiny = within <= 1e-14 * scale
    scores = np.divide(between, within, out=np.zeros_like(between), where=~tiny)
    scores[tiny] = np.where(
        between[tiny] > 1e-14 * np.broadcast_to(scale, tiny.shape)[tiny], np.inf, 0.0
    )
    return scores


@fill_doc
class FisherScore(LabelledFitMixin, ScoreSelectorMixin, BaseEstimator):
    """Select the features with the highest Fisher score.

    A global filter: one subset for all samples. It is the FDA baseline of the
    LFS paper (Armanfard et al. 2016, Table 1), where the top ``t`` features
    feed an RBF SVM.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=10
        Number of features to keep (an int), or a fraction of the features
        (a float in (0, 1]), or (None) every feature with a positive score.
        Capped at the number of features.

    fdr : float, default=0.1
        %(fdr)s

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features_in_,)
        Fisher score of each feature (see :func:`fisher_score`).
    n_features_to_select_ : int
        Number of features kept.
    %(fitted_classes_attributes)s

    See Also
    --------
    fisher_score : The score function, usable with ``SelectKBest``.

    Notes
    -----
    Time O(n_samples * n_features), memory O(n_classes * n_features). Ties are
    broken by a stable sort: the feature with the lower index wins.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from localselect.filters import FisherScore
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> selector = FisherScore(n_features_to_select=3).fit(X, y)
    >>> selector.get_support(indices=True)
    array([ 7, 22, 27])
    """

    _declaration = Declaration(
        "fisher",
        check={"n_features_to_select": 2},
        demo={"n_features_to_select": 5},
        collection_fit="localselect.filters._collections:fit_fisher_collection",
    )
    _parameter_constraints = {**ScoreSelectorMixin._parameter_constraints}

    def __init__(self, n_features_to_select=10, *, fdr=0.1):
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr

    _evidence_null = "permutation"

    def _fit(self, X, codes, log):
        self.feature_importances_ = fisher_score(X, codes)
        return self

    def _fit_evidence(self, X, codes):
        super()._fit_evidence(X, codes)
        self.n_features_to_select_ = int(self._get_support_mask().sum())

    def _set_collection_fit(self, fit, log):
        """The record of :func:`~localselect.filters._collections.fit_fisher_collection`."""
        super()._set_collection_fit(fit, log)
        self.n_features_to_select_ = int(self._get_support_mask().sum())

    def _permuted_scores(self, X, codes):
        """Fisher scores of every row of ``codes`` (permuted labels), shape (B, n_features)."""
        return fisher_score_permuted(X, codes)
