"""Joint discretisation of continuous features by quantiles of a Mahalanobis distance."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from localselect._compat import Interval, fit_context
from localselect._docstrings import fill_doc
from localselect._magnitudes import check_magnitudes
from localselect._portable import PortableStateMixin

__all__ = ["MahalanobisQuantileDiscretizer", "quantile_bins"]


def quantile_bins(y, n_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """Cut a continuous target at its sample quantiles (LLDS on a continuous ``y``; ours).

    The cut points are the sample quantiles of ``y`` at ``1/n_bins``,
    ``2/n_bins``, ... (linear interpolation, ``numpy.quantile``'s default);
    bin ``b`` holds the values in ``(edge_b, edge_{b+1}]`` (the first bin also
    its lower end). Repeated cut points (ties in ``y``) are merged and empty
    bins dropped, so fewer bins may come back.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The continuous target (finite).
    n_bins : int
        Number of bins asked for (at least 2).

    Returns
    -------
    codes : ndarray of shape (n_samples,), dtype=int64
        Bin of each sample, ``0 .. n_kept - 1`` in increasing order of ``y``.
    edges : ndarray of shape (n_kept, 2)
        ``(low, high]`` of each kept bin.

    Raises
    ------
    ValueError
        ``y`` takes a single value.

    Examples
    --------
    >>> codes, edges = quantile_bins([0.1, 0.4, 0.2, 0.9, 0.7, 0.3], 3)
    >>> codes.tolist()
    [0, 1, 0, 2, 2, 1]
    """
    y = np.asarray(y, dtype=np.float64).ravel()
    inner = np.unique(np.quantile(y, np.linspace(0.0, 1.0, n_bins + 1)[1:-1]))
    raw = np.searchsorted(inner, y, side="left")
    used, codes = np.unique(raw, return_inverse=True)
    if used.size < 2:
        raise ValueError(
            f"y takes a single value ({y[0]!r}); a continuous target needs at least two "
            "distinct values to be cut into quantile bins."
        )
    bounds = np.r_[y.min(), inner, y.max()]
    edges = np.c_[bounds[used], bounds[used + 1]]
    return codes.astype(np.int64), edges


def _mahalanobis_to_zero(X: np.ndarray, precision: np.ndarray) -> np.ndarray:
    return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", X, precision, X), 0.0))


@fill_doc
class MahalanobisQuantileDiscretizer(TransformerMixin, PortableStateMixin, BaseEstimator):
    """Discretise several continuous features jointly into quantile bins of one distance.

    Each sample x gets the Mahalanobis distance to zero d(x) = sqrt(x' S^+ x),
    with S the sample covariance of the training features (S^+ its
    pseudo-inverse); the output is the bin of d(x) between the training
    quantiles of d at 1/n_bins, 2/n_bins, ... (tertiles for 3 bins, quintiles
    for 5), as in Marcondes et al., section 4.1 and 4.3. Optionally the whole
    fit (covariance and cut points) is done separately within groups of rows
    given by group columns of ``X`` (course and year in the paper).

    Read more in the :ref:`User Guide <lift>`.

    Parameters
    ----------
    n_bins : int, default=3
        Number of quantile bins (at least 2).
    groups : list of int or str, default=None
        Columns of ``X`` holding group labels (numbers); rows are discretised
        within their group and these columns are not part of the distance.
        ``None``: one group.

    Attributes
    ----------
    bin_edges_ : dict
        Group key (a tuple of group values, ``()`` without groups) to the
        inner cut points, an ndarray of shape (n_bins - 1,).
    precisions_ : dict
        Group key to the pseudo-inverse covariance used for the distance.
    distance_columns_ : ndarray of int
        Columns of ``X`` entering the distance.
    group_columns_ : ndarray of int
        Columns of ``X`` holding the group labels.
    %(fitted_input_attributes)s

    See Also
    --------
    LiftFeatureSelector : Uses a discretizer on continuous features.
    sklearn.preprocessing.KBinsDiscretizer : One feature at a time.

    Notes
    -----
    The distance is to zero, not to the mean: the paper ranks students by their
    joint performance, "close to zero" meaning low on every subject, and Table 7
    (Covertype) puts low elevations in quintile 1. Centring would put low and
    high values in the same bin. Since S is the covariance, d does not change
    when a feature is rescaled (the paper's "standardised" features). With one
    feature ``d = |x| / sd(x)``: the usual quantiles for non-negative data.
    Rows with a missing value get a missing (NaN) bin. Bins use
    ``np.quantile`` (linear interpolation) cut points; a distance equal to a
    cut point goes to the upper bin. Ties make bins of unequal size. Time
    O(n_samples * k^2 + k^3) per group for k features.

    %(references_llds)s

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.lift import MahalanobisQuantileDiscretizer
    >>> X = np.array([[1.0, 2.0], [2.0, 1.0], [4.0, 5.0], [5.0, 4.0], [8.0, 9.0], [9.0, 8.0]])
    >>> MahalanobisQuantileDiscretizer(n_bins=3).fit_transform(X).ravel()
    array([0., 0., 1., 1., 2., 2.])
    """

    _parameter_constraints = {
        "n_bins": [Interval(Integral, 2, None, closed="left")],
        "groups": [list, None],
    }

    def __init__(self, n_bins=3, *, groups=None):
        self.n_bins = n_bins
        self.groups = groups

    def _columns(self, n_features):
        if self.groups is None:
            group_cols = np.array([], dtype=int)
        else:
            names = list(getattr(self, "feature_names_in_", []))
            group_cols = []
            for g in self.groups:
                if isinstance(g, str):
                    if g not in names:
                        raise ValueError(
                            f"Group column {g!r} is not a column of X; columns are {names}."
                        )
                    group_cols.append(names.index(g))
                elif isinstance(g, Integral) and 0 <= g < n_features:
                    group_cols.append(int(g))
                else:
                    raise ValueError(
                        f"Group column {g!r} is not a column index in [0, {n_features})."
                    )
            group_cols = np.array(sorted(set(group_cols)), dtype=int)
        dist_cols = np.setdiff1d(np.arange(n_features), group_cols)
        if len(dist_cols) == 0:
            raise ValueError("Every column is a group column; leave features to discretise.")
        return dist_cols, group_cols

    def _group_keys(self, X):
        if len(self.group_columns_) == 0:
            return np.zeros(len(X), dtype=np.int64), [()]
        labels = X[:, self.group_columns_]
        if np.isnan(labels).any():
            raise ValueError("Group columns contain missing values; give every row a group.")
        uniq, inverse = np.unique(labels, axis=0, return_inverse=True)
        return inverse.ravel(), [tuple(row) for row in uniq.tolist()]

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Learn the covariance and distance quantiles (per group).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Continuous features (and the group columns); NaN marks missing.
        y : None
            Ignored.

        Returns
        -------
        self : MahalanobisQuantileDiscretizer
            The fitted discretizer.
        """
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan")
        check_magnitudes(self, X)
        self.distance_columns_, self.group_columns_ = self._columns(X.shape[1])
        inverse, keys = self._group_keys(X)
        self.bin_edges_, self.precisions_ = {}, {}
        quantiles = np.arange(1, self.n_bins) / self.n_bins
        for g, key in enumerate(keys):
            Z = X[inverse == g][:, self.distance_columns_]
            Z = Z[~np.isnan(Z).any(axis=1)]
            if len(Z) < 2:
                raise ValueError(
                    f"Group {key} has {len(Z)} sample(s) without missing values; the "
                    "covariance needs at least 2. Merge small groups or drop them."
                )
            cov = np.atleast_2d(np.cov(Z, rowvar=False))
            precision = np.linalg.pinv(cov, hermitian=True)
            self.precisions_[key] = precision
            self.bin_edges_[key] = np.quantile(_mahalanobis_to_zero(Z, precision), quantiles)
        return self

    def transform(self, X):
        """Bin of each row's distance: codes 0 .. n_bins - 1 (NaN where a value is missing).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data with the columns seen in ``fit``.

        Returns
        -------
        bins : ndarray of shape (n_samples, 1)
            The joint bin of each row, as float64.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite="allow-nan", reset=False)
        check_magnitudes(self, X, spread=False)
        inverse, keys = self._group_keys(X)
        out = np.full(len(X), np.nan)
        for g, key in enumerate(keys):
            if key not in self.bin_edges_:
                raise ValueError(f"Group {key} was not seen in fit; fit on data holding it.")
            rows = np.flatnonzero(inverse == g)
            Z = X[rows][:, self.distance_columns_]
            ok = ~np.isnan(Z).any(axis=1)
            d = _mahalanobis_to_zero(Z[ok], self.precisions_[key])
            out[rows[ok]] = np.searchsorted(self.bin_edges_[key], d, side="right")
        return out[:, None]

    def get_feature_names_out(self, input_features=None):
        """One output column, ``"mahalanobis_bin"``.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Ignored (the output is one joint column).

        Returns
        -------
        feature_names_out : ndarray of str objects
            ``["mahalanobis_bin"]``.
        """
        check_is_fitted(self)
        return np.asarray(["mahalanobis_bin"], dtype=object)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
