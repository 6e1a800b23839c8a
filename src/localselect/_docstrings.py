"""Docstring sections that many estimators share, written once.

A docstring line holding only ``%(name)s`` is replaced by the block
``DOCS[name]``, indented like that line (the scheme of MNE-Python's
``fill_doc`` and SciPy's ``doccer``), so ``help()``, numpydoc and the docs
show the full text.
"""

from __future__ import annotations

import re
from typing import TypeVar

__all__ = ["DOCS", "fill_doc"]

T = TypeVar("T")

_FITTED_INPUT = """\
n_features_in_ : int
    Number of features seen during ``fit``.
feature_names_in_ : ndarray of shape (n_features_in_,)
    Names of features seen during ``fit``, when ``X`` has string column
    names."""

_QUERY = """\
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Query samples."""

DOCS: dict[str, str] = {
    "null_data": """\
estimator : selector
    Unfitted (it is cloned); a score as in :func:`selector_scores`.
X : ndarray of shape (n_samples, n_features)
    Training data.
y : array-like of shape (n_samples,)
    Labels, or a continuous target for an estimator that takes one.""",
    "n_candidates_vector": """\
n_candidates : int, "auto" or None, default="auto"
    Neighbour truncation: each sample's softmax runs over its
    ``n_candidates`` nearest hits and nearest misses (Euclidean, found
    once), O(N k A) per iteration instead of O(N^2 A). ``None`` is the
    exact all-pairs method. ``"auto"``: exact up to 1,000 samples while
    ``N^2 A <= 2e8``, else ``k = 1e8 / (N A)`` clipped to [10, 100] (see
    :class:`Immigrate` for the dropped-weight bound). Data with missing
    values run exact; when ``"auto"`` would truncate and the exact fit needs
    more than 2e11 multiply-adds (``max_iter * N^2 A``), ``fit`` refuses at
    once and says what to change.""",
    "fitted_input_attributes": _FITTED_INPUT,
    "fitted_classes_attributes": "classes_ : ndarray of shape (n_classes,)\n"
    "    Class labels seen in ``fit``.\n" + _FITTED_INPUT,
    "references_lfs": """\
References
----------
.. [1] N. Armanfard, J. P. Reilly and M. Komeili, "Local feature selection
   for data classification", IEEE Trans. Pattern Analysis and Machine
   Intelligence, 38(6), 1217-1227, 2016.""",
    "references_gp": """\
References
----------
.. [1] K. Pichara and A. Soto, "Local feature selection using Gaussian
   process regression", Intelligent Data Analysis, 18(3), 319-336, 2014.""",
    "references_llds": """\
References
----------
Marcondes, D., Simonis, A. and Barrera, J. (2017). Feature selection based
on the Local Lift Dependence Scale. arXiv:1711.04181.""",
    "plot_returns": """\
Returns
-------
fig : matplotlib.figure.Figure
    The figure drawn on: ``ax``'s figure when ``ax`` is given, else a new
    pyplot-free ``Figure`` (save it with ``fig.savefig``).""",
    "query_parameters": _QUERY,
    "predict_docs": _QUERY
    + """

Returns
-------
y_pred : ndarray of shape (n_samples,)
    Predicted class labels.""",
    "predict_proba_docs": _QUERY
    + """

Returns
-------
proba : ndarray of shape (n_samples, n_classes)
    Rows sum to 1, columns ordered as ``classes_``.""",
    "local_selector_parameter": """\
Parameters
----------
estimator : estimator instance
    A local selector (subclass of ``LocalSelectorMixin``).""",
    "n_features_to_select": """\
Features kept by ``transform``: that many of the highest weights (an
int), that fraction of the features (a float in (0, 1]), (None)
every feature with a positive weight, or (``"auto"``) the features whose
Benjamini-Hochberg q-value against the family's null is at most ``fdr``
(sets ``pvalues_``, ``qvalues_``, ``null_``; see :mod:`localselect.evidence`).
A count is a maximum: a feature whose weight is not positive (a constant
column weighs 0) is never kept, so fewer features than asked may be kept,
with a :class:`~localselect.base.FewerFeaturesWarning` saying how many.
Ties go to the lower index.""",
    "task": """\
What ``y`` is. ``"auto"``: class labels, unless ``y`` is numeric and either
not all integers or an integer quantity by measurement (many distinct values,
few rows per value, not class codes; see
:func:`~localselect._targets.describe_task`), which is read as a continuous
target with a :class:`~localselect._targets.QuantityTargetWarning` giving the
reason. ``"regression"`` and ``"classification"`` override the reading.""",
    "fdr": """\
Target false discovery rate of ``n_features_to_select="auto"``; unused
otherwise.""",
    "missing_values_notes": """\
Missing values (NaN) are allowed: a difference with an unknown value is
its expected value over the known values of the sample's class
(Kononenko's rule for unknown values; queries at prediction time use all
training values), see :mod:`localselect.margin._missing`.""",
    "scores_data": """\
Parameters
----------
X : ndarray of shape (n_samples, n_features)
    Training data (continuous features on a common scale).
y : ndarray of shape (n_samples,)
    Class codes; every class has at least two samples.
discrete : ndarray of shape (n_features,) of bool, default=None
    Features compared by the 0/1 distance of eq. (3).""",
    "scores_resources": """\
n_jobs : int, default=None
    Parallel jobs over blocks of features.
working_memory : float, default=None
    MiB for one block of the kernel matrix of a feature's distinct values.""",
}
DOCS["plot_ax_title_returns"] = """\
ax : matplotlib Axes, default=None
    Axes to draw into; a new figure otherwise.
title : str, default=None
    Axes title.

""" + DOCS["plot_returns"]

_PLACEHOLDER = re.compile(r"^([ \t]*)%\((\w+)\)s[ \t]*$", re.M)


def fill_doc(obj: T) -> T:
    """Fill the ``%(name)s`` lines of ``obj.__doc__`` from :data:`DOCS`; returns ``obj``."""

    def block(match: re.Match) -> str:
        indent, name = match.groups()
        return "\n".join(indent + line if line else line for line in DOCS[name].splitlines())

    if obj.__doc__:
        obj.__doc__ = _PLACEHOLDER.sub(block, obj.__doc__)
    return obj
