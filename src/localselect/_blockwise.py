"""Estimators on Dask collections: the fit template and the per-row answers, block by block.

A ``dask.array`` or ``dask.dataframe`` holds its rows in blocks on a
cluster's workers; nothing here gathers them on the client.

* **Fit** (:class:`BlockwiseFitMixin`, a base of
  :class:`~localselect.base.LabelledFitMixin`): one template for every
  estimator whose :class:`~localselect._estimators.Declaration` names a
  ``collection_fit="module:function"``. The template makes the first pass
  (:func:`~localselect._runtime._collections.summarise`) and the checks of an
  in-memory ``fit`` (finite values, magnitudes, class labels and class
  sizes), sets ``n_features_in_``, ``feature_names_in_``, ``task_`` and
  ``classes_``, refuses ``n_features_to_select="auto"`` (its null permutes
  rows, :func:`auto_refusal`), then calls the declared function::

      fit_my_collection(estimator, blocks, summary, counts, log) -> record

  It reads the estimator's parameters and the attributes above, computes on
  the workers (:func:`~localselect._runtime._collections.reduce_blocks`) and
  returns a record (a ``NamedTuple``) of fitted values; it writes nothing on
  the estimator. The estimator then assigns the record itself, in its own
  class: :meth:`BlockwiseFitMixin._set_collection_fit`, whose default sets
  each field as the attribute of its name (fields named after fitted
  attributes) and which an estimator overrides when the record needs more
  than that. The attributes of ``"auto"`` (p-values, q-values, null) of an
  earlier in-memory fit are deleted, as no collection fit sets them. An
  estimator without a declared function refuses a collection with
  :func:`collection_refusal`, naming the ones that have one.
* **Per-row answers** (:class:`BlockwiseRowsMixin`, a base of every
  selector of :mod:`localselect.base`): ``predict``, ``transform``,
  ``get_local_support``, ``local_relevance`` and ``predict_proba`` of a
  fitted selector answer a collection block by block, lazily
  (:func:`rows_on_collections`); :func:`blockwise_support` does the same for
  any scikit-learn selector (every row gets ``get_support()``).
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from localselect._estimators import collection_fit, collection_fit_names
from localselect._fitted import FittedStateMixin
from localselect._magnitudes import check_magnitudes
from localselect._runtime import Reporter
from localselect._runtime._collections import is_collection, map_rows, row_blocks, summarise
from localselect._tables import InputColumns
from localselect._targets import check_class_counts
from localselect.evidence._mixin import EVIDENCE_ATTRIBUTES

__all__ = [
    "ROW_METHODS",
    "BlockwiseFitMixin",
    "BlockwiseRowsMixin",
    "auto_refusal",
    "blockwise_support",
    "collection_refusal",
    "is_blockwise",
    "rows_on_collections",
]

#: The per-row methods a fitted selector answers block by block on a Dask collection.
ROW_METHODS = ("get_local_support", "local_relevance", "transform", "predict", "predict_proba")


def is_blockwise(*values) -> bool:
    """Whether any of ``values`` is a Dask collection (rows held in blocks on a cluster)."""
    return any(is_collection(value) for value in values)


def collection_refusal(name: str) -> str:
    """The message of an estimator without a Dask fit, given a Dask collection."""
    return (
        f"{name} has no fit on Dask collections: X is a dask array or dataframe. "
        f"Estimators that fit one on the workers: {', '.join(collection_fit_names())}. "
        "For data that fits in memory, call .compute() on X and y first "
        "(or fit on a sample); every fitted selector answers predict, transform, "
        "get_local_support and local_relevance on Dask collections."
    )


def auto_refusal(estimator) -> str | None:
    """The message refusing ``n_features_to_select="auto"`` on a collection, or None.

    The null of ``"auto"`` (a permutation of the labels, or shadow features)
    draws over all rows, which row blocks on the workers do not give.

    Parameters
    ----------
    estimator : estimator instance
        Its ``n_features_to_select`` (if any) and its family's null (the
        class attribute ``_evidence_null`` of
        :class:`~localselect.evidence.EvidenceMixin`; a permutation null for
        an estimator without one, as MRMR's).

    Returns
    -------
    message : str or None
        None unless ``n_features_to_select == "auto"``.
    """
    if getattr(estimator, "n_features_to_select", None) != "auto":
        return None
    shadow = getattr(type(estimator), "_evidence_null", "permutation") == "shadow"
    draws = "draws shadow features" if shadow else "draws a permutation null"
    return (
        f"{type(estimator).__name__}(n_features_to_select='auto') {draws} over the rows, "
        "which a Dask collection does not give; pass a number or a fraction of features, "
        "or fit 'auto' on a sample in memory."
    )


class BlockwiseFitMixin(FittedStateMixin):
    """``fit`` on a Dask collection: the checks of ``fit``, then the declared collection fit.

    See the module docstring for the contract of the declared function and of
    :meth:`_set_collection_fit`. The first pass runs on the workers and gives
    the checks of ``fit``; the declared function then computes the fit from
    statistics reduced on the workers. Nothing of the table reaches the client.
    """

    _min_class_size: int
    _class_size_reason: str

    def _fit_blockwise(self, X, y):
        """``fit(X, y)`` when ``X`` or ``y`` is a Dask collection; returns ``self``."""
        name = type(self).__name__
        fit_blocks = collection_fit(type(self))
        if fit_blocks is None:
            raise ValueError(collection_refusal(name))
        if not is_collection(X):
            raise ValueError(
                f"{name}: y is a Dask collection but X is not; pass X as a dask array or "
                "dataframe too (or call .compute() on y)."
            )
        blocks = row_blocks(X, y)
        log = Reporter.for_estimator(self)
        summary = summarise(blocks, log)
        self.n_features_in_ = int(blocks.X.shape[1])
        self._discard(("feature_names_in_", "encoding_"))  # numeric columns: no encoding
        columns = InputColumns.numeric(self.n_features_in_)
        if blocks.feature_names is not None:
            self.feature_names_in_ = blocks.feature_names
            columns = columns._replace(names=np.asarray(blocks.feature_names, dtype=object))
        self.input_columns_ = columns
        classes, counts = self._checked_classes(summary)
        self.task_ = "classification"
        self.classes_ = classes
        refusal = auto_refusal(self)
        if refusal is not None:
            raise ValueError(refusal)
        fit = fit_blocks(self, blocks, summary, counts, log)
        self._discard(EVIDENCE_ATTRIBUTES)
        self._set_collection_fit(fit, log)
        return self

    def _checked_classes(self, summary):
        """``(classes, counts)`` of the first pass, after the checks of an in-memory ``fit``."""
        name = type(self).__name__
        if summary.n == 0:
            raise ValueError(f"{name}: X has 0 samples; a fit needs at least one.")
        if summary.nonfinite:
            raise ValueError(
                f"Input X contains NaN or infinity ({summary.nonfinite} cells); {name} on a "
                "Dask collection needs finite values."
            )
        check_magnitudes(self, np.vstack([summary.lo, summary.hi]))
        if summary.continuous:
            raise ValueError(
                f"{name} on a Dask collection takes class labels, and y is continuous "
                "(floats that are not all integers). Pass class labels."
            )
        labels = sorted(summary.labels)
        classes = np.asarray(labels)
        counts = np.asarray([summary.labels[c] for c in labels], dtype=np.int64)
        check_classification_targets(classes)
        check_class_counts(name, classes, counts, self._min_class_size, self._class_size_reason)
        return classes, counts

    def _set_collection_fit(self, fit, log) -> None:
        """Assign the record the declared collection fit returned.

        The default sets each field as the fitted attribute of its name
        (:meth:`~localselect._fitted.FittedStateMixin._assign`); an estimator
        whose record needs more overrides it in its own module.

        Parameters
        ----------
        fit : NamedTuple
            The record of fitted values.
        log : Reporter
            The fit's reporter.
        """
        self._assign(fit)


def _answer_block(estimator, name: str, args: tuple, kwargs: dict, block):
    """One row block's answer (on a worker): the estimator's in-memory method."""
    return getattr(estimator, name)(block, *args, **kwargs)


def _input_names(estimator) -> list:
    names = getattr(estimator, "feature_names_in_", None)
    if names is None:
        return [f"x{j}" for j in range(estimator.n_features_in_)]
    return [str(n) for n in names]


def _answer_spec(estimator, name: str, X) -> tuple[str, object, list]:
    """``(kind, dtype, columns)`` of the answer of method ``name`` (see ``map_rows``)."""
    if name == "get_local_support":
        return "matrix", np.dtype(bool), _input_names(estimator)
    if name == "predict":
        return "vector", np.asarray(estimator.classes_).dtype, ["prediction"]
    if name == "predict_proba":
        return "matrix", np.dtype(np.float64), [str(c) for c in estimator.classes_]
    columns = _input_names(estimator)
    if name == "transform":
        columns = [str(c) for c in estimator.get_feature_names_out()]
    return "matrix", np.dtype(np.float64), columns


def rows_on_collections(method):
    """``method(X, ...)`` answered block by block when ``X`` is a Dask collection.

    Any other ``X`` goes to ``method`` unchanged. On a ``dask.array`` or
    ``dask.dataframe``, ``method`` runs on every row block on the workers
    (:func:`~localselect._runtime._collections.map_rows`) and the answer is a
    lazy collection of the same rows: a dask array, or a dask dataframe
    (series for ``predict``) with the partitions' index. Nothing is gathered.
    """
    if getattr(method, "_rows_on_collections", False):
        return method
    name = method.__name__

    @functools.wraps(method)
    def answer(self, X=None, *args, **kwargs):
        if not is_collection(X):
            return method(self, X, *args, **kwargs)
        check_is_fitted(self)
        if kwargs.get("indices"):
            raise ValueError(
                f"{name}(indices=True) makes one Python list of index arrays, which a Dask "
                "collection cannot hold; use the boolean mask (indices=False)."
            )
        width = len(X.columns) if hasattr(X, "columns") else X.shape[1]
        if width != self.n_features_in_:
            raise ValueError(
                f"X has {width} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        kind, dtype, columns = _answer_spec(self, name, X)
        func = functools.partial(_answer_block, self, name, args, kwargs)
        return map_rows(func, X, kind=kind, dtype=dtype, columns=columns)

    answer._rows_on_collections = True  # type: ignore[attr-defined]
    return answer


class BlockwiseRowsMixin:
    """Per-row answers on Dask collections, for every selector below it.

    Each method of :data:`ROW_METHODS` that a subclass defines (or takes from
    a class it names in its body, as ``transform = SelectorMixin.transform``)
    is wrapped by :func:`rows_on_collections` when the class is created
    (scikit-learn's ``set_output`` wraps ``transform`` the same way), so
    ``predict`` of every local selector works on a ``dask.array`` or
    ``dask.dataframe`` with no code in the estimator.
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in ROW_METHODS:
            method = cls.__dict__.get(name)
            if callable(method):
                setattr(cls, name, rows_on_collections(method))


def _tile_rows(support, block):
    """``support`` repeated for every row of ``block`` (a plain selector's per-row answer)."""
    return np.tile(support, (len(block), 1))


def _names_of(X) -> list:
    columns = getattr(X, "columns", None)
    if columns is not None:
        return [str(c) for c in columns]
    return [f"x{j}" for j in range(X.shape[1])]


def blockwise_support(estimator, X, *, indices=False):
    """``get_support()`` of a plain scikit-learn selector for every row of a collection, lazily.

    Parameters
    ----------
    estimator : fitted selector
        Has ``get_support``.
    X : dask array or dask dataframe of shape (n_samples, n_features)
        Only its row blocks and column names are used.
    indices : bool, default=False
        Refused when True: a collection cannot hold a list of index arrays.

    Returns
    -------
    support : dask array or dask dataframe of shape (n_samples, n_features)
        Every row equals ``get_support()``.
    """
    if indices:
        raise ValueError("indices=True is not available on a Dask collection; use the mask.")
    support = np.asarray(estimator.get_support(), dtype=bool)
    func = functools.partial(_tile_rows, support)
    return map_rows(func, X, kind="matrix", dtype=np.dtype(bool), columns=_names_of(X))
