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

The module also holds the rules every estimator shares:

* :func:`check_classification_data`: the target checks (at least 2 classes,
  and for the methods that compare a sample with its own class, at least 2
  samples per class);
* :func:`resolve_n_features` and :func:`top_k_support`: the one meaning of
  ``n_features_to_select`` (an int, a fraction in (0, 1], or None for the
  features with a positive score), with :data:`N_FEATURES_CONSTRAINT`;
* :class:`ScoreSelectorMixin`: a global selector on ``feature_importances_``
  whose ``_parameter_constraints`` each family extends;
* :func:`verbose_log`: ``verbose`` to log messages, without touching any
  logger's level;
* :class:`LabelledFitMixin`: the one ``fit(X, y)`` of the estimators trained
  on class labels, which hands validated data to the subclass's ``_fit``.
"""

from __future__ import annotations

import logging
from abc import abstractmethod
from collections.abc import Callable
from numbers import Integral, Real

import numpy as np
from numpy.typing import NDArray
from sklearn.base import TransformerMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from localselect._compat import Interval, RealNotInt, check_feature_names_in, fit_context
from localselect._docstrings import fill_doc

__all__ = [
    "N_FEATURES_CONSTRAINT",
    "LabelledFitMixin",
    "LocalSelectorMixin",
    "ScoreSelectorMixin",
    "check_classification_data",
    "resolve_n_features",
    "top_k_support",
    "verbose_log",
]

#: Parameter constraint of ``n_features_to_select``: a count, a fraction or None.
N_FEATURES_CONSTRAINT: list = [
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="right"),
    None,
]


def check_classification_data(
    name: str, y, *, min_class_size: int = 1, why: str = ""
) -> tuple[np.ndarray, NDArray[np.intp]]:
    """Classes and integer codes of a classification target, with the shared checks.

    Parameters
    ----------
    name : str
        The estimator's name, for the messages.
    y : array-like of shape (n_samples,)
        Validated labels (any type ``numpy.unique`` sorts).
    min_class_size : int, default=1
        Smallest number of samples a class may have; 2 for the methods that
        compare a sample with the other samples of its class.
    why : str, default=""
        Why ``min_class_size`` is needed, shown in the message.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        Sorted class labels.
    codes : ndarray of shape (n_samples,), dtype=intp
        ``classes[codes] == y``.

    Raises
    ------
    ValueError
        ``y`` is not a classification target, has one class, or a class has
        fewer than ``min_class_size`` samples.
    """
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"{name} needs at least 2 classes in y; got 1 class ({classes.tolist()[0]!r}). "
            "Pass labels of two or more classes."
        )
    counts = np.bincount(codes, minlength=len(classes))
    small = counts < min_class_size
    if small.any():
        reason = f" ({why})" if why else ""
        have = "1 sample" if (counts[small] == 1).all() else f"under {min_class_size} samples"
        raise ValueError(
            f"{name} needs at least {min_class_size} samples in every class{reason}; "
            f"class(es) {classes[small].tolist()!r} have {have}. "
            "Remove them or add samples."
        )
    return classes, codes.astype(np.intp)


def resolve_n_features(n_features_to_select, n_features: int) -> int | None:
    """The number of features ``n_features_to_select`` asks for, out of ``n_features``.

    An int ``k`` gives ``min(k, n_features)``; a fraction ``f`` in (0, 1] gives
    ``max(1, round(f * n_features))``; None stays None (every feature with a
    positive score, see :func:`top_k_support`).
    """
    k = n_features_to_select
    if k is None:
        return None
    if isinstance(k, Real) and not isinstance(k, Integral):
        k = max(1, round(float(k) * n_features))
    return min(int(k), n_features)


def top_k_support(scores: NDArray[np.float64], n_features_to_select) -> NDArray[np.bool_]:
    """The one selection rule: the ``k`` highest scores, or the positive ones.

    ``k`` comes from :func:`resolve_n_features`; ties go to the lower feature
    index (stable sort). ``n_features_to_select=None`` keeps every feature
    whose score is positive (> 0).
    """
    k = resolve_n_features(n_features_to_select, scores.shape[0])
    if k is None:
        return scores > 0
    order = np.argsort(-scores, kind="stable")
    mask = np.zeros(scores.shape[0], dtype=bool)
    mask[order[:k]] = True
    return mask


def verbose_log(logger: logging.Logger, verbose: int) -> Callable[..., None]:
    """A function ``log(depth, message, *args)`` for an estimator's ``verbose``.

    Depth 1 (stages) is logged at INFO when ``verbose >= 1``, depth 2
    (iterations) at DEBUG when ``verbose >= 2``; other calls do nothing. The
    messages go to ``logger`` as usual, so the application's logging
    configuration decides where they appear (e.g.
    ``logging.basicConfig(level=logging.INFO)``); no logger's level is changed.

    Examples
    --------
    >>> import logging
    >>> log = verbose_log(logging.getLogger("localselect.example"), verbose=1)
    >>> log(1, "fitting %d samples", 10)  # INFO record
    >>> log(2, "iteration %d", 1)  # verbose < 2: nothing
    """
    verbose = int(verbose or 0)

    def log(depth: int, message: str, *args) -> None:
        if verbose >= depth:
            logger.log(logging.INFO if depth <= 1 else logging.DEBUG, message, *args)

    return log


class ScoreSelectorMixin(SelectorMixin):
    """Global selector keeping the features of highest ``feature_importances_``.

    ``n_features_to_select`` follows :func:`top_k_support`. Subclasses extend
    ``_parameter_constraints`` (``{**ScoreSelectorMixin._parameter_constraints,
    ...}``, as scikit-learn's ``_BaseFilter`` subclasses do) and set
    ``feature_importances_`` in ``fit``.
    """

    _parameter_constraints: dict = {"n_features_to_select": N_FEATURES_CONSTRAINT}

    def _get_support_mask(self):
        check_is_fitted(self)
        return top_k_support(self.feature_importances_, self.n_features_to_select)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


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
    @fill_doc
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

        %(query_parameters)s

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


class LabelledFitMixin:
    """One ``fit(X, y)`` for the estimators trained on class labels.

    ``fit`` validates ``X`` (float64, finite; sets ``n_features_in_`` and
    ``feature_names_in_``) and ``y``, checks the target with
    :func:`check_classification_data` (``_min_class_size`` samples per class,
    for the reason ``_class_size_reason``), sets ``classes_`` and calls the
    subclass's ``_fit(X, codes, log)`` with the integer class codes and the
    :func:`verbose_log` of the subclass's module. ``_fit`` returns ``self``.
    """

    _min_class_size = 1
    _class_size_reason = ""

    def _fit(self, X, codes, log):
        raise NotImplementedError

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the estimator on labelled data (the class docstring gives the method).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data, finite; the distance-based methods expect
            standardised features, as their papers use.
        y : array-like of shape (n_samples,)
            Class labels of any type (at least 2 classes; see the estimator for
            the samples each class needs).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = check_classification_data(
            type(self).__name__,
            y,
            min_class_size=self._min_class_size,
            why=self._class_size_reason,
        )
        log = verbose_log(logging.getLogger(type(self).__module__), getattr(self, "verbose", 0))
        return self._fit(X, codes, log)
