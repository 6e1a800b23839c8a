"""Base classes and helpers shared by every feature selector.

"Which features matter where" has one answer per method, written here once
and used alike by the API, the command line files and the HTML report:

* :meth:`get_local_support(X) <LocalSelectorMixin.get_local_support>` -- a
  boolean matrix of shape ``(n_samples, n_features)``: the subset the method
  selects for each row;
* :meth:`local_relevance(X) <LocalSelectorMixin.local_relevance>` -- a real
  matrix of the same shape, in [0, 1], that grades the same answer (1 for a
  feature every part of the method's decision for that row uses, 0 for one
  no part uses);
* :meth:`get_support() <LocalSelectorMixin.get_support>` -- the global
  summary: the features selected for at least one training row by that same
  per-row rule (for a global selector, its one subset);
* ``relevance_scope`` -- ``"local"`` when rows may get different subsets,
  ``"global"`` when every row gets the same one.

Per method (details in each estimator's Notes and in ``docs/index.md``):

* **LFS** -- a row's subset is that of the region that decides it: of the
  regions voting for the predicted class in eq. (11), the one nearest
  relative to its radius; its relevance is the fraction of those deciding
  regions that use each feature.
* **GP** -- the row's subspace (Algorithm 2); relevance is the same as 0/1.
* **LLDS** (``"profiles"``, ``"windows"``) -- the union of the features of
  the ranked profiles (windows) the row matches, none matched giving an empty
  subset; relevance is the fraction of the matched ones that use each
  feature.
* **Global methods** (Relief family, IMMIGRATE, Fisher, MRMR, LLDS
  ``"features"``) -- the selector's one subset for every row, as 0/1 for the
  relevance, with ``relevance_scope == "global"``.

**Tables.** Every method takes a pandas or polars frame with numeric,
category, string and boolean columns (:mod:`localselect._tables`), and every
answer is per input column, named after it: ``get_local_support(df)`` and
``local_relevance(df)`` of a frame are frames with its column names and index
(an array in gives an array out, as always), ``transform(df)`` a frame, and
``get_feature_names_out()`` the input's names. The estimators declared
``columns="encoded"`` are fitted on an encoding of the nominal columns
(:mod:`localselect._encoding`); their answers are mapped back here, an input
column being selected for a row when any of its encoded columns is, its
relevance the largest of theirs.

Training rows and new rows go through the same rule:
``get_local_support()`` (no ``X``) equals ``get_local_support(X_train)`` for
every local selector that keeps its training data.

:class:`LocalSelectorMixin` turns a per-sample mask, returned by the
subclass's ``_local_support_mask(X)``, into the scikit-learn selector API
(the design follows ``imblearn.base.SamplerMixin``: the mixin does the
validation and bookkeeping, the subclass supplies one private method).
:class:`GlobalRelevanceMixin` gives a global selector the same per-row
methods, and :func:`local_support` / :func:`local_relevance` work on any
fitted scikit-learn selector. Data held in row blocks on a cluster is fitted
and answered block by block by the mixins of :mod:`localselect._blockwise`,
which these classes build on.

The module also holds the rules every estimator shares:

* :func:`resolve_n_features` and :func:`top_k_support`: the one meaning of
  ``n_features_to_select`` (an int, a fraction in (0, 1], or None for the
  features with a positive score), with :data:`N_FEATURES_CONSTRAINT`;
* :class:`ScoreSelectorMixin`: a global selector on ``feature_importances_``
  whose ``_parameter_constraints`` each family extends;
* :func:`verbose_log`: ``verbose`` to log messages, without touching any
  logger's level;
* :class:`LabelledFitMixin`: the one ``fit(X, y)`` of the estimators trained
  on class labels, which checks the target
  (:func:`~localselect._targets.check_classification_data`) and hands
  validated data to the subclass's ``_fit``;
* :func:`shared_constraints`: the one constraint of the parameters every
  estimator spells alike (``n_jobs``, ``random_state``, ``verbose``), and
  :class:`TargetRequiredMixin`: the one "fit needs ``y``" tag;
* :class:`~localselect._estimators.Declaration` (re-exported): what a public
  estimator declares on its class for the front ends (CLI name, fast test
  parameters, the types its fitted state holds).
"""

from __future__ import annotations

import logging
import warnings
from abc import ABCMeta, abstractmethod
from numbers import Integral, Real

import numpy as np
from numpy.typing import NDArray
from sklearn.base import TransformerMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_array, check_is_fitted, check_X_y, validate_data

from localselect._blockwise import (
    BlockwiseFitMixin,
    BlockwiseRowsMixin,
    blockwise_support,
    is_blockwise,
)
from localselect._compat import Interval, RealNotInt, check_feature_names_in, fit_context
from localselect._encoding import encode, fit_encoding, to_input_columns
from localselect._estimators import Declaration, declared
from localselect._magnitudes import check_magnitudes
from localselect._runtime import Reporter
from localselect._runtime._size import check_scale
from localselect._tables import InputColumns, frame_index, is_frame, read_columns
from localselect._targets import TASK_CONSTRAINT, check_classification_data, check_target
from localselect.evidence._mixin import AUTO, FDR_CONSTRAINT, EvidenceMixin

__all__ = [
    "N_FEATURES_CONSTRAINT",
    "SHARED_CONSTRAINTS",
    "Declaration",
    "GlobalRelevanceMixin",
    "LabelledFitMixin",
    "LocalSelectorMixin",
    "ScoreSelectorMixin",
    "TargetRequiredMixin",
    "local_relevance",
    "local_support",
    "relevance_scope",
    "resolve_n_features",
    "shared_constraints",
    "top_k_support",
    "verbose_log",
]


#: Parameter constraint of ``n_features_to_select``: a count, a fraction or None.
N_FEATURES_CONSTRAINT: list = [
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="right"),
    None,
]

#: Constraints of the parameters every estimator spells alike (STYLE.md, section 2);
#: an estimator merges the ones it takes with :func:`shared_constraints`.
SHARED_CONSTRAINTS: dict[str, list] = {
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
    "task": TASK_CONSTRAINT,
    "verbose": ["verbose"],
}


def shared_constraints(*names: str) -> dict[str, list]:
    """The entries of :data:`SHARED_CONSTRAINTS` for ``names``, to merge into constraints.

    ``_parameter_constraints = {..., **shared_constraints("n_jobs", "verbose")}``.

    Parameters
    ----------
    *names : str
        Keys of :data:`SHARED_CONSTRAINTS`.

    Returns
    -------
    constraints : dict
        ``name -> list of constraints`` (fresh lists).

    Examples
    --------
    >>> shared_constraints("random_state", "verbose")
    {'random_state': ['random_state'], 'verbose': ['verbose']}
    """
    return {name: list(SHARED_CONSTRAINTS[name]) for name in names}


class TargetRequiredMixin:
    """Tags the estimator as needing ``y`` in ``fit`` (``target_tags.required``).

    Every estimator trained on class labels has it, through
    :class:`LabelledFitMixin` or :class:`ScoreSelectorMixin`.
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


class FewerFeaturesWarning(UserWarning):
    """A count-based ``n_features_to_select`` kept fewer features than asked.

    Only features with a positive score are selected (:func:`top_k_support`);
    the message says how many were asked for and how many had a positive score.
    """


def resolve_n_features(n_features_to_select, n_features: int) -> int | None:
    """Resolve ``n_features_to_select`` into a number of features out of ``n_features``.

    An int ``k`` gives ``min(k, n_features)``; a fraction ``f`` in (0, 1] gives
    ``max(1, round(f * n_features))``; None stays None (every feature with a
    positive score, see :func:`top_k_support`). This is the most a selection
    keeps: :func:`top_k_support` keeps only the features with a positive score
    among them.

    Parameters
    ----------
    n_features_to_select : int, float or None
        The estimator's parameter, already validated.
    n_features : int
        Number of features of the data.

    Returns
    -------
    k : int or None
        How many features to keep at most; None for "every positive score".
    """
    k = n_features_to_select
    if k is None:
        return None
    if isinstance(k, Real) and not isinstance(k, Integral):
        k = max(1, round(float(k) * n_features))
    return min(int(k), n_features)


def top_k_support(scores: NDArray[np.float64], n_features_to_select) -> NDArray[np.bool_]:
    """Select the ``k`` highest scores that are positive, or every positive one (the one rule).

    ``k`` comes from :func:`resolve_n_features`; ties go to the lower feature
    index (stable sort). A feature whose score is not positive (<= 0, or NaN)
    is never selected: a weight of 0 (a constant column) or below is no
    evidence that the feature matters, so a count asks for *at most* ``k``
    features, and when fewer than ``k`` scores are positive the selection
    keeps those and warns (:class:`FewerFeaturesWarning`, once per message).
    ``n_features_to_select=None`` keeps every feature whose score is positive.

    Parameters
    ----------
    scores : ndarray of shape (n_features,)
        One score per feature, higher is better.
    n_features_to_select : int, float or None
        As in :func:`resolve_n_features`.

    Returns
    -------
    mask : ndarray of shape (n_features,) of bool
        The selected features.

    Warns
    -----
    FewerFeaturesWarning
        Fewer than ``k`` scores are positive.

    Examples
    --------
    >>> import warnings
    >>> scores = np.array([0.5, 0.0, -0.2, 0.1])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     top_k_support(scores, 3).tolist()
    [True, False, False, True]
    >>> print(caught[0].message)
    n_features_to_select=3 kept 2 features: only 2 of 4 have a positive score (a score <= 0, such as a constant column's 0, is no evidence of relevance).
    """  # noqa: E501
    positive = scores > 0
    k = resolve_n_features(n_features_to_select, scores.shape[0])
    if k is None:
        return positive
    order = np.argsort(-scores, kind="stable")
    mask = np.zeros(scores.shape[0], dtype=bool)
    mask[order[:k]] = True
    mask &= positive
    kept = int(np.count_nonzero(mask))
    if kept < k:
        warn_fewer_features(n_features_to_select, kept, scores.shape[0], stacklevel=3)
    return mask


def warn_fewer_features(n_features_to_select, kept: int, n_features: int, stacklevel=2) -> None:
    """Warn that a count-based ``n_features_to_select`` kept only the ``kept`` features
    with a positive score (:class:`FewerFeaturesWarning`)."""
    warnings.warn(
        f"n_features_to_select={n_features_to_select!r} kept {kept} feature"
        f"{'s' if kept != 1 else ''}: only {kept} of {n_features} have a positive "
        "score (a score <= 0, such as a constant column's 0, is no evidence of relevance).",
        FewerFeaturesWarning,
        stacklevel=stacklevel + 1,
    )


def mask_or_indices(
    mask: NDArray[np.bool_], indices: bool
) -> NDArray[np.bool_] | list[NDArray[np.intp]]:
    """``mask`` (n_samples, n_features), or with ``indices`` one index array per row:
    the two forms of ``get_local_support``."""
    return [np.flatnonzero(row) for row in mask] if indices else mask


def verbose_log(logger: logging.Logger, verbose: int) -> Reporter:
    """The fit's reporter for ``verbose``: ``log(depth, message, *args)`` and ``log.task``.

    Depth 1 (stages) is logged at INFO when ``verbose >= 1``, depth 2
    (iterations) at DEBUG when ``verbose >= 2``; other calls do nothing. The
    messages go to ``logger`` as usual, so the application's logging
    configuration decides where they appear (e.g.
    ``logging.basicConfig(level=logging.INFO)``); no logger's level is changed.
    Progress of long work goes through the same object (``log.task(total,
    description, unit=...)``; see :class:`localselect._runtime.Reporter`).

    Parameters
    ----------
    logger : logging.Logger
        Where the records go (usually ``logging.getLogger(__name__)``).
    verbose : int
        The estimator's ``verbose`` parameter (None counts as 0).

    Returns
    -------
    log : Reporter
        Callable as ``log(depth, message, *args)``, with ``message % args`` formatting.

    Examples
    --------
    >>> import logging
    >>> log = verbose_log(logging.getLogger("localselect.example"), verbose=1)
    >>> log(1, "fitting %d samples", 10)  # INFO record
    >>> log(2, "iteration %d", 1)  # verbose < 2: nothing
    """
    return Reporter(logger, verbose)


def columns_kind(estimator) -> str:
    """``"encoded"`` or ``"native"``: how ``fit`` hands ``estimator`` nominal columns.

    The ``columns`` field of the governing
    :class:`~localselect._estimators.Declaration` (``"encoded"`` for a class
    that declares nothing).
    """
    found = declared(type(estimator))
    return found.columns if found is not None else "encoded"


def read_rows(estimator, X, *, allow_nan: bool):
    """New rows ``X`` as the fitted ``estimator``'s own methods take them.

    A numeric array goes through ``validate_data`` exactly as before (float64,
    finite unless ``allow_nan``). A pandas or polars frame (or any input when
    the fit had nominal columns) is checked against the fit's width and names,
    then read with the fit's columns
    (:func:`~localselect._tables.read_columns`: a level not seen in fit becomes
    NaN with a warning naming it). When the estimator was fitted on an
    encoding (``encoding_``), the rows are encoded alike
    (:func:`~localselect._encoding.encode`).

    Parameters
    ----------
    estimator : fitted estimator
        Has ``n_features_in_`` and, when fitted on a table, ``input_columns_``.
    X : array-like or DataFrame of shape (n_samples, n_features_in_)
        New rows.
    allow_nan : bool
        Whether missing values (and, for arrays, NaN) are accepted.

    Returns
    -------
    X_rows : ndarray of shape (n_samples, n_features_fit)
        Float64 rows in the space the estimator was fitted in.
    """
    columns = getattr(estimator, "input_columns_", None)
    if is_frame(X) or (columns is not None and columns.nominal.any()):
        validate_data(estimator, X, reset=False, skip_check_array=True)
        X, _ = read_columns(X, columns, allow_nan=allow_nan)
        X = check_array(X, dtype=np.float64, ensure_all_finite=False)
    else:
        X = validate_data(
            estimator,
            X,
            reset=False,
            dtype=np.float64,
            ensure_all_finite="allow-nan" if allow_nan else True,
        )
    encoding = getattr(estimator, "encoding_", None)
    return X if encoding is None else encode(encoding, X)


def per_input_column(estimator, values, how: str = "max"):
    """Answers on the columns ``estimator`` was fitted on, as one per input column.

    The identity unless the estimator was fitted on an encoding
    (``encoding_``); then an input column's answer is the largest of its
    encoded columns' (``how="max"``: for a mask, selected when any of them
    is) or the smallest (``how="min"``: p-values). See
    :mod:`localselect._encoding`.
    """
    encoding = getattr(estimator, "encoding_", None)
    if encoding is None:
        return values
    return to_input_columns(encoding, values, how)


def _column_labels(estimator, X) -> list:
    """The labels of the answer's columns: those of the frame ``X`` (its own labels)."""
    return list(X.columns) if hasattr(X, "columns") else list(estimator.input_columns_.names)


def as_frame_like(estimator, answer, X):
    """``answer`` (n_samples, n_features_in_) as a frame of ``X``'s kind when ``X`` is one.

    A pandas frame gives a pandas frame with ``X``'s column labels and index, a
    polars frame a polars frame with its column names; any other ``X`` gives
    ``answer`` unchanged.
    """
    if not is_frame(X):
        return answer
    labels = _column_labels(estimator, X)
    index = frame_index(X)
    if index is not None:
        import pandas as pd

        return pd.DataFrame(answer, index=index, columns=labels)
    import narwhals.stable.v1 as nw

    native = nw.get_native_namespace(nw.from_native(X, eager_only=True))
    return native.DataFrame({str(label): answer[:, j] for j, label in enumerate(labels)})


def _masked_frame(X, mask):
    """The frame ``X`` with the cells outside ``mask`` replaced (``transform`` of a frame).

    A numeric column gets 0 there, as ``transform`` of an array; a nominal
    column a missing value (its dtype is kept, but a pandas ``bool`` column
    becomes the nullable ``boolean``, which can hold one).
    """
    if frame_index(X) is not None:  # pandas
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        out = X.copy()
        for j in range(X.shape[1]):
            column = X.iloc[:, j]
            if is_bool_dtype(column.dtype):
                column = column.astype("boolean")  # can hold a missing value
            numeric = is_numeric_dtype(column.dtype) and not is_bool_dtype(column.dtype)
            out.isetitem(j, column.where(mask[:, j], 0) if numeric else column.where(mask[:, j]))
        return out
    import polars as pl

    replaced = []
    for j, name in enumerate(X.columns):
        numeric = X.schema[name].is_numeric()
        keep = pl.lit(pl.Series(mask[:, j]))
        value = pl.lit(0, dtype=X.schema[name]) if numeric else pl.lit(None)
        replaced.append(pl.when(keep).then(pl.col(name)).otherwise(value).alias(name))
    return X.with_columns(replaced)


class LocalSelectorMixin(BlockwiseRowsMixin, TransformerMixin, metaclass=ABCMeta):
    """Mixin for estimators that select a feature subset per sample.

    Subclasses implement ``_local_support_mask(X)`` returning a boolean array of
    shape ``(n_samples, n_features_in_)`` for validated float input, and set a
    fitted attribute ``local_support_`` holding the masks of the training
    samples (or override ``_training_local_support``). They may implement
    ``_local_relevance(X)`` (real, same shape) for a graded answer; the
    default is the mask as 0/1.

    Notes
    -----
    ``transform`` keeps the number of columns and multiplies each row by its
    mask: a downstream estimator sees zeros where a sample's subset leaves a
    feature out. This is the only fixed-width representation of per-sample
    subsets; use :meth:`get_local_support` when you need the masks themselves.

    ``get_support()`` is the union of the training rows' masks, so
    ``get_support()[j]`` says "feature ``j`` matters for at least one training
    row"; ``get_local_support().mean(axis=0)`` (the selection frequency) says
    for how many. Both come from the same per-row rule as new rows.

    A method whose global answer is its own best subset rather than that union
    (LLDS: ``best_features_``) also subclasses scikit-learn's ``SelectorMixin``
    and keeps its ``get_support``, ``transform`` and ``get_feature_names_out``;
    the per-row methods are this mixin's all the same.
    """

    #: Rows may get different subsets.
    relevance_scope = "local"

    @abstractmethod
    def _local_support_mask(self, X):
        """Boolean mask of shape (n_samples, n_features) for validated ``X``.

        Every local selector implements it (a class without it cannot be
        instantiated).
        """

    def _local_relevance(self, X):
        """Real relevance of shape (n_samples, n_features) for validated ``X``."""
        return np.asarray(self._local_support_mask(X), dtype=bool).astype(np.float64)

    def _training_local_support(self):
        check_is_fitted(self)
        return np.asarray(self.local_support_, dtype=bool)

    def _training_local_relevance(self):
        return self._training_local_support().astype(np.float64)

    def _validate_for_local(self, X):
        """New rows as ``_local_support_mask`` takes them (:func:`read_rows`).

        Finite unless the estimator's tags allow NaN.
        """
        allow_nan = self.__sklearn_tags__().input_tags.allow_nan  # type: ignore[attr-defined]
        return check_magnitudes(self, read_rows(self, X, allow_nan=allow_nan), spread=False)

    def get_local_support(self, X=None, *, indices=False):
        """Per-sample feature subsets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            Samples to select features for. ``None`` returns the subsets of the
            training samples (the same rule applied to the training data).
        indices : bool, default=False
            If True, return a list of integer index arrays (one per sample)
            instead of a boolean matrix.

        Returns
        -------
        support : ndarray or DataFrame of shape (n_samples, n_features), or list of ndarray
            ``support[i, j]`` is True when feature ``j`` is selected for sample
            ``i``. A pandas (polars) frame ``X`` gives a frame of its column
            names (and index).
        """
        check_is_fitted(self)
        if X is None:
            mask = self._training_local_support()
        else:
            mask = np.asarray(self._local_support_mask(self._validate_for_local(X)), dtype=bool)
        mask = per_input_column(self, mask)
        if indices:
            return mask_or_indices(mask, indices)
        return as_frame_like(self, mask, X)

    def local_relevance(self, X=None):
        """Per-sample relevance of each feature, in [0, 1].

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), default=None
            Samples to grade features for. ``None``: the training samples.

        Returns
        -------
        relevance : ndarray or DataFrame of shape (n_samples, n_features)
            Real-valued companion of :meth:`get_local_support`: every feature
            that mask selects has positive relevance. See the estimator's
            Notes for what the value means. A frame ``X`` gives a frame.
        """
        check_is_fitted(self)
        if X is None:
            relevance = self._training_local_relevance()
        else:
            relevance = self._local_relevance(self._validate_for_local(X))
        relevance = per_input_column(self, np.asarray(relevance, dtype=np.float64))
        return as_frame_like(self, relevance, X)

    def get_support(self, indices=False):
        """Get the features selected for at least one training sample.

        Parameters
        ----------
        indices : bool, default=False
            If True, return integer indices instead of a boolean mask.

        Returns
        -------
        support : ndarray
            Boolean mask of shape (n_features_in_,) or the selected indices:
            the union of ``get_local_support()``'s rows.
        """
        mask = per_input_column(self, self._training_local_support()).any(axis=0)
        return np.flatnonzero(mask) if indices else mask

    def transform(self, X):
        """Zero, in each row, the features its local subset leaves out.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples.

        Returns
        -------
        X_masked : ndarray or DataFrame of shape (n_samples, n_features)
            A copy of ``X`` with unselected entries set to 0; the column count
            is unchanged so downstream estimators see a fixed width. A pandas
            or polars frame gives a frame of the same columns and dtypes: an
            unselected numeric cell is 0, an unselected nominal cell (category,
            string, boolean) is missing (a pandas ``bool`` column becomes the
            nullable ``boolean`` to hold it).
        """
        check_is_fitted(self)
        rows = self._validate_for_local(X)
        mask = per_input_column(self, np.asarray(self._local_support_mask(rows), dtype=bool))
        if is_frame(X):
            return _masked_frame(X, mask)
        if getattr(self, "encoding_", None) is not None:
            rows = read_columns(X, self.input_columns_)[0]
        return np.where(mask, rows, 0.0)

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


class GlobalRelevanceMixin(BlockwiseRowsMixin):
    """Per-row methods for a global selector: every row gets ``get_support()``.

    Put it left of ``SelectorMixin``. It adds :meth:`get_local_support` and
    :meth:`local_relevance` with the signatures of
    :class:`LocalSelectorMixin`, so code comparing methods row by row treats
    global and local selectors alike; ``relevance_scope`` is ``"global"``.
    """

    #: Every row gets the same subset.
    relevance_scope = "global"

    def _n_rows(self, X):
        if X is None:
            raise ValueError(
                f"{type(self).__name__} is a global selector and keeps no training rows; "
                "pass X to get_local_support(X) / local_relevance(X) (every row gets "
                "get_support())."
            )
        if is_frame(X):
            validate_data(self, X, reset=False, skip_check_array=True)
            return int(X.shape[0])
        X = validate_data(self, X, reset=False, dtype=None, ensure_all_finite=False)
        return int(np.shape(X)[0])

    def get_local_support(self, X=None, *, indices=False):
        """The global subset, repeated for every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; only their number is used. Required.
        indices : bool, default=False
            If True, return a list of integer index arrays, one per sample.

        Returns
        -------
        support : ndarray or DataFrame of shape (n_samples, n_features), or list of ndarray
            Every row equals ``get_support()``; a frame ``X`` gives a frame.
        """
        mask = self._rows_support(X)
        if indices:
            return mask_or_indices(mask, indices)
        return as_frame_like(self, mask, X)

    def _rows_support(self, X):
        check_is_fitted(self)
        n = self._n_rows(X)
        return np.tile(np.asarray(self.get_support(), dtype=bool), (n, 1))

    def local_relevance(self, X=None):
        """The global subset as 0/1, repeated for every row of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples; only their number is used. Required.

        Returns
        -------
        relevance : ndarray or DataFrame of shape (n_samples, n_features)
            ``get_local_support(X)`` as float (a frame for a frame ``X``).
        """
        return as_frame_like(self, self._rows_support(X).astype(np.float64), X)

    def transform(self, X):
        """Keep the selected columns (``SelectorMixin.transform``, block by block too).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Input samples; rows held in blocks on a cluster are answered block
            by block, lazily (:mod:`localselect._blockwise`).

        Returns
        -------
        X_selected : array or DataFrame of shape (n_samples, n_selected_features)
            The columns of ``get_support()``; a pandas or polars frame gives a
            frame of those columns, as they are.
        """
        if is_frame(X):
            check_is_fitted(self)
            validate_data(self, X, reset=False, skip_check_array=True)
            import narwhals.stable.v1 as nw

            frame = nw.from_native(X, eager_only=True)
            keep = np.flatnonzero(self.get_support())
            return frame.select([frame.columns[j] for j in keep]).to_native()
        return super().transform(X)


class ScoreSelectorMixin(EvidenceMixin, GlobalRelevanceMixin, SelectorMixin, TargetRequiredMixin):
    """Global selector keeping the features of highest ``feature_importances_``.

    Every row gets the one subset (:class:`GlobalRelevanceMixin`).
    ``n_features_to_select`` follows :func:`top_k_support`, or with ``"auto"``
    keeps the features whose q-value is at most ``fdr``
    (:class:`~localselect.evidence.EvidenceMixin`). Subclasses extend
    ``_parameter_constraints`` (``{**ScoreSelectorMixin._parameter_constraints,
    ...}``, as scikit-learn's ``_BaseFilter`` subclasses do) and set
    ``feature_importances_`` in ``fit``.
    """

    _parameter_constraints: dict = {
        "n_features_to_select": [*N_FEATURES_CONSTRAINT, AUTO],
        "fdr": FDR_CONSTRAINT,
    }

    def _get_support_mask(self):
        check_is_fitted(self)
        if self.n_features_to_select == "auto":
            return self._auto_support()
        return top_k_support(self.feature_importances_, self.n_features_to_select)


def is_selector(estimator) -> bool:
    """Whether ``estimator`` selects features: a local selector or any scikit-learn selector.

    Parameters
    ----------
    estimator : object
        Anything: an estimator, an array, ...

    Returns
    -------
    selector : bool
        True for a :class:`LocalSelectorMixin` or a scikit-learn
        ``SelectorMixin`` (every global selector here is one).
    """
    return isinstance(estimator, (LocalSelectorMixin, SelectorMixin))


def relevance_scope(estimator) -> str:
    """``"local"`` or ``"global"``: whether rows of ``estimator`` may get different subsets.

    Parameters
    ----------
    estimator : fitted selector
        A localselect selector or any scikit-learn selector (``get_support``).

    Returns
    -------
    scope : str
        The estimator's ``relevance_scope``; ``"global"`` for a selector
        without one.
    """
    return str(getattr(estimator, "relevance_scope", "global"))


def local_support(estimator, X, *, indices=False):
    """Per-row subsets of any fitted selector (the rule of :mod:`localselect.base`).

    Parameters
    ----------
    estimator : fitted selector
        Has ``get_local_support`` (local or :class:`GlobalRelevanceMixin`) or
        at least ``get_support`` (any scikit-learn selector: every row gets it).
    X : array-like of shape (n_samples, n_features) or None
        Rows; ``None`` for a local selector's training rows.
    indices : bool, default=False
        Return a list of index arrays instead of the mask.

    Returns
    -------
    support : ndarray of shape (n_samples, n_features) or list of ndarray
        The features of each row: a boolean mask, or one index array per row.
    """
    if hasattr(estimator, "get_local_support"):
        return estimator.get_local_support(X, indices=indices)
    if not hasattr(estimator, "get_support"):
        raise ValueError(
            f"{type(estimator).__name__} has neither get_local_support nor get_support; "
            "pass a fitted feature selector."
        )
    if X is None:
        raise ValueError(f"{type(estimator).__name__} is a global selector; pass X.")
    if is_blockwise(X):
        return blockwise_support(estimator, X, indices=indices)
    mask = np.tile(np.asarray(estimator.get_support(), dtype=bool), (len(X), 1))
    return mask_or_indices(mask, indices)


def local_relevance(estimator, X):
    """Per-row relevance of any fitted selector, in [0, 1].

    Parameters
    ----------
    estimator : fitted selector
        As for :func:`local_support`.
    X : array-like of shape (n_samples, n_features) or None
        Rows; ``None`` for a local selector's training rows.

    Returns
    -------
    relevance : ndarray of shape (n_samples, n_features)
        ``estimator.local_relevance(X)`` when it has one, else the per-row
        subsets as 0/1.
    """
    if is_blockwise(X):  # lazy: no np.asarray, which would compute it
        if hasattr(estimator, "local_relevance"):
            return estimator.local_relevance(X)
        return local_support(estimator, X).astype(np.float64)
    if hasattr(estimator, "local_relevance"):
        return np.asarray(estimator.local_relevance(X), dtype=np.float64)
    return np.asarray(local_support(estimator, X), dtype=bool).astype(np.float64)


class LabelledFitMixin(BlockwiseFitMixin, TargetRequiredMixin, metaclass=ABCMeta):
    """One ``fit(X, y)`` for the estimators trained on class labels.

    ``fit`` validates ``X`` (float64, or as given when the estimator's tags
    accept strings; finite unless its tags allow NaN; sets ``n_features_in_``
    and ``feature_names_in_``) and ``y``, checks the target with
    :func:`~localselect._targets.check_classification_data` (``_min_class_size`` samples per class,
    for the reason ``_class_size_reason``), sets ``classes_`` and calls the
    subclass's ``_fit(X, codes, log)`` with the integer class codes and the
    :class:`~localselect._runtime.Reporter` of this fit (``log``, from
    ``verbose``, to the subclass's module logger). ``_fit`` returns ``self``.
    Then a subclass's ``_fit_evidence(X, codes)``, if any, runs (the null of
    ``"auto"``, see :class:`~localselect.evidence.EvidenceMixin`).
    ``_fit`` is abstract: a class without it cannot be instantiated.

    The target: :func:`~localselect._targets.check_target` sets ``task_``. An
    estimator whose declaration takes a continuous target (``targets=("classes",
    "continuous")``, and a ``task`` parameter) gets ``y`` as float64 in place of
    the codes when ``task_ == "regression"`` (and no ``classes_``); every other
    estimator refuses a continuous ``y`` with a message naming the estimators
    that take one. The mixin also tags the estimator as needing ``y``
    (:class:`TargetRequiredMixin`).

    ``X`` and ``y`` held in row blocks on a cluster go to the fit template of
    :class:`~localselect._blockwise.BlockwiseFitMixin` instead.

    **Tables.** A pandas or polars frame is read by
    :func:`~localselect._tables.read_columns`: numeric columns as numbers,
    category, string, object and boolean columns as level codes, NaN where a
    value is missing (refused, naming the columns, unless the estimator's tags
    allow NaN; a complete string column is always fine). ``feature_names_in_``
    are the frame's column names and the fitted attribute ``input_columns_``
    (an :class:`~localselect._tables.InputColumns`: names, the nominal mask,
    the levels) is set before ``_fit``; a numeric array gives exactly the
    array it gave before and no nominal column. What ``_fit`` then receives
    depends on the estimator's declaration (``Declaration.columns``):
    ``"native"`` estimators get the codes and read
    ``input_columns_.nominal``; ``"encoded"`` ones, when a column is nominal,
    get the encoding of :mod:`localselect._encoding` (scaled indicators,
    numeric columns in unit range), kept in the fitted attribute
    ``encoding_``, with the scale set by the class attribute
    ``_column_distance`` (``"squared_euclidean"`` or ``"manhattan"``). During
    ``_fit`` (and the null of ``"auto"``) ``n_features_in_`` is the width of
    what ``_fit`` sees; afterwards it is the input's again, and
    ``feature_importances_`` (largest over an input column's encoded columns),
    ``pvalues_`` and ``qvalues_`` (smallest) are per input column. The other
    fitted attributes of an encoded fit stay on the encoded columns. New rows
    are read alike by :func:`read_rows`.
    """

    #: The records a fit on a table keeps (model files load them).
    _declaration = Declaration(
        holds=("localselect._tables.InputColumns", "localselect._encoding.ColumnEncoding")
    )
    _min_class_size = 1
    _class_size_reason = ""
    #: The distance the method compares rows by, which sets the scale of the
    #: indicator columns of an encoded nominal column (:mod:`localselect._encoding`).
    _column_distance = "squared_euclidean"

    @abstractmethod
    def _fit(self, X, codes, log):
        """Fit on validated ``X`` and integer class ``codes``; return ``self``."""

    @fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Fit the estimator on labelled data (the class docstring gives the method).

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data: numbers, finite unless the estimator accepts missing
            values (NaN), or a pandas or polars frame whose category, string
            and boolean columns are read as nominal (the class docstring of
            :class:`~localselect.base.LabelledFitMixin`); the distance-based
            methods expect standardised numeric features, as their papers use.
        y : array-like of shape (n_samples,)
            Class labels of any type (at least 2 classes; see the estimator for
            the samples each class needs), or a continuous target for the
            estimators that take one (their ``task`` parameter).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if is_blockwise(X, y):
            return self._fit_blockwise(X, y)
        X, y = self._read_fit_data(X, y)
        check_magnitudes(self, X)
        encoding = None
        if columns_kind(self) == "encoded" and X.dtype != object:
            encoding = fit_encoding(X, self.input_columns_, self._column_distance)
        self._discard(("encoding_",))
        if encoding is not None:
            self.encoding_ = encoding
            X = encode(encoding, X)
        check_scale(self, X)
        self.task_, target = check_target(self, y)
        if self.task_ == "classification":
            self.classes_, target = check_classification_data(
                type(self).__name__,
                target,
                min_class_size=self._min_class_size,
                why=self._class_size_reason,
            )
        n_features_in = self.n_features_in_
        self.n_features_in_ = X.shape[1]  # the width of what _fit sees (encoded columns)
        try:
            self._fit(X, target, Reporter.for_estimator(self))
            evidence = getattr(self, "_fit_evidence", None)
            if evidence is not None:
                evidence(X, target)
        finally:
            self.n_features_in_ = n_features_in
        if encoding is not None:
            self._answers_per_input_column()
        return self

    def _read_fit_data(self, X, y):
        """Validated ``(X, y)`` of ``fit``; sets ``input_columns_`` (and the sklearn names).

        A numeric array is validated as always (float64, finite unless the
        tags allow NaN); an estimator whose tags accept strings and that does
        not declare ``columns="native"`` gets the raw values (dtype object). A
        pandas or polars frame is read by :func:`~localselect._tables.read_columns`
        (nominal columns as level codes) after scikit-learn has taken its width
        and column names.
        """
        input_tags = self.__sklearn_tags__().input_tags
        allow_nan = input_tags.allow_nan
        if is_frame(X) and not (input_tags.string and columns_kind(self) != "native"):
            validate_data(self, X, skip_check_array=True)  # n_features_in_, feature_names_in_
            codes, self.input_columns_ = read_columns(X, allow_nan=allow_nan)
            X, y = check_X_y(codes, y, dtype=np.float64, ensure_all_finite=False)
            return X, y
        X, y = validate_data(
            self,
            X,
            y,
            dtype=None if input_tags.string else np.float64,
            ensure_all_finite="allow-nan" if allow_nan else True,
        )
        columns = InputColumns.numeric(X.shape[1])
        if X.dtype == object:  # a raw table (strings and categories kept as they are)
            columns = read_columns(X)[1]
        names = getattr(self, "feature_names_in_", None)
        if names is not None:
            columns = columns._replace(names=np.asarray(names, dtype=object))
        self.input_columns_ = columns
        return X, y

    def _answers_per_input_column(self) -> None:
        """After a fit on an encoding: the per-feature scores per input column.

        ``feature_importances_`` becomes the largest of each input column's
        encoded columns', ``pvalues_`` and ``qvalues_`` the smallest; every
        other fitted attribute stays on the encoded columns (``encoding_``).
        """
        for name, how in (
            ("feature_importances_", "max"),
            ("pvalues_", "min"),
            ("qvalues_", "min"),
        ):
            value = getattr(self, name, None)
            if value is not None:
                setattr(self, name, per_input_column(self, np.asarray(value), how))
        if hasattr(self, "n_features_to_select_"):  # a count the fit took on encoded columns
            self.n_features_to_select_ = int(np.sum(self.get_support()))  # type: ignore[attr-defined]
