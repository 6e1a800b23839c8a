"""Base classes shared by every local feature selector.

A *local* selector chooses a feature subset per sample rather than one subset
for the whole data set. :class:`LocalSelectorMixin` turns a per-sample mask,
returned by the subclass's ``_local_support_mask(X)``, into the scikit-learn
selector API:

* :meth:`~LocalSelectorMixin.get_local_support` -- boolean mask (or index lists)
  of shape ``(n_samples, n_features)`` for any ``X``;
* :meth:`~LocalSelectorMixin.get_support` -- the features chosen for at least one
  training sample (a global summary, so ``SelectFromModel``-style code works);
* :meth:`~LocalSelectorMixin.transform` -- keeps the column count and zeroes the
  entries a sample's subset leaves out, so pipelines still see a fixed-width
  matrix.

The design follows ``imblearn.base.SamplerMixin``: the mixin does the
validation and bookkeeping, the subclass supplies one private method.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np
from sklearn.base import TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from localselect._compat import check_feature_names_in

__all__ = ["LocalSelectorMixin"]


class LocalSelectorMixin(TransformerMixin):
    """Mixin for estimators that select a feature subset per sample.

    Subclasses implement ``_local_support_mask(X)`` returning a boolean array of
    shape ``(n_samples, n_features_in_)`` for validated float input, and set a
    fitted attribute ``local_support_`` holding the masks of the training
    samples (or override ``_training_local_support``).

    Notes
    -----
    ``transform`` keeps the number of columns and multiplies each row by its
    mask: a downstream estimator sees zeros where a sample's subset leaves a
    feature out. This is the only fixed-width representation of per-sample
    subsets; use :meth:`get_local_support` when you need the masks themselves.
    """

    @abstractmethod
    def _local_support_mask(self, X):
        """Boolean mask of shape (n_samples, n_features) for validated ``X``."""

    def _training_local_support(self):
        check_is_fitted(self)
        return np.asarray(self.local_support_, dtype=bool)

    def _validate_for_local(self, X):
        return validate_data(self, X, reset=False, dtype=np.float64, ensure_all_finite=True)

    def get_local_support(self, X=None, *, indices=False):
        """Per-sample feature subsets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            Samples to select features for. ``None`` returns the subsets of the
            training samples.
        indices : bool, default=False
            If True, return a list of integer index arrays (one per sample)
            instead of a boolean matrix.

        Returns
        -------
        support : ndarray of shape (n_samples, n_features) or list of ndarray
            ``support[i, j]`` is True when feature ``j`` is selected for sample
            ``i``.
        """
        check_is_fitted(self)
        if X is None:
            mask = self._training_local_support()
        else:
            mask = np.asarray(self._local_support_mask(self._validate_for_local(X)), dtype=bool)
        if indices:
            return [np.flatnonzero(row) for row in mask]
        return mask

    def get_support(self, indices=False):
        """Features selected for at least one training sample.

        Parameters
        ----------
        indices : bool, default=False
            If True, return integer indices instead of a boolean mask.

        Returns
        -------
        support : ndarray
            Boolean mask of shape (n_features_in_,) or the selected indices.
        """
        mask = self._training_local_support().any(axis=0)
        return np.flatnonzero(mask) if indices else mask

    def transform(self, X):
        """Zero, in each row, the features its local subset leaves out.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        X_masked : ndarray of shape (n_samples, n_features)
            A copy of ``X`` with unselected entries set to 0; the column count
            is unchanged so downstream estimators see a fixed width.
        """
        check_is_fitted(self)
        X = self._validate_for_local(X)
        mask = np.asarray(self._local_support_mask(X), dtype=bool)
        return np.where(mask, X, 0.0)

    def get_feature_names_out(self, input_features=None):
        """Output feature names: the input names, since the width is kept.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input feature names; defaults to ``feature_names_in_`` or
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
            The same names as the input.
        """
        check_is_fitted(self)
        return check_feature_names_in(self, input_features)
