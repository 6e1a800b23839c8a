"""Per-query feature subsets of a few samples, and recovery of known relevant features."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from localselect._docstrings import fill_doc
from localselect.base import is_selector
from localselect.plotting._axes import feature_names_for, is_local, local_masks, new_axes

__all__ = ["RecoveryScores", "plot_feature_recovery", "plot_local_subspaces", "subspace_recovery"]


@fill_doc
def plot_local_subspaces(
    source: Any,
    X: Any = None,
    *,
    samples: Any = None,
    n_samples: int = 10,
    sample_labels: Any = None,
    feature_names: Any = None,
    ax: Any = None,
    title: str | None = None,
):
    """The feature subset chosen for each of a few samples, as a samples x features grid.

    Parameters
    ----------
    source : estimator or array-like of shape (n_samples, n_features)
        A fitted local selector (its training subsets, or those of ``X``) or a
        boolean mask matrix.
    X : array-like of shape (n_queries, n_features), default=None
        Query points; their subsets come from ``source.get_local_support(X)``.
    samples : array-like of int, default=None
        Rows to show; default the first ``n_samples``.
    n_samples : int, default=10
        How many rows to show when ``samples`` is None.
    sample_labels : sequence, default=None
        A label per row of the mask (for example its class, or its value of a
        continuous target), shown on the y axis; non-integer numbers are
        shown to 3 significant digits.
    feature_names : sequence of str, default=None
        Column labels; default the estimator's ``feature_names_in_``, the
        columns of a frame ``X``, else ``x0``, ``x1``, ...
        (:func:`localselect.regimes.column_names`).
    %(plot_ax_title_returns)s

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.plotting import plot_local_subspaces
    >>> mask = np.array([[1, 0, 0], [0, 1, 1]], dtype=bool)
    >>> fig = plot_local_subspaces(mask, sample_labels=["a", "b"])
    >>> fig.axes[0].images[0].get_array().tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    """
    mask = local_masks(source, X)
    rows = np.arange(min(n_samples, mask.shape[0])) if samples is None else np.asarray(samples)
    shown = mask[rows].astype(float)
    names = feature_names_for(source, mask.shape[1], feature_names, X)
    fig, ax = new_axes(
        ax, figsize=(max(4.0, 0.3 * mask.shape[1] + 2), max(2.5, 0.3 * rows.size + 1.5))
    )
    ax.imshow(shown, cmap="Greys", vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    labels = [f"#{r}" for r in rows]
    if sample_labels is not None:
        sample_labels = np.asarray(sample_labels)
        labels = [f"#{r} ({_label(sample_labels[r])})" for r in rows]
    ax.set_yticks(np.arange(rows.size), labels)
    if mask.shape[1] <= 60:
        ax.set_xticks(np.arange(mask.shape[1]), names, rotation=90)
    ax.set_xlabel("feature (black: selected)")
    ax.set_ylabel("sample")
    ax.set_title(title or "Local feature subsets")
    return fig


def _label(value: Any) -> str:
    """A class label as it is; a continuous target's value to 3 significant digits."""
    if isinstance(value, (float, np.floating)) and not float(value).is_integer():
        return f"{float(value):.3g}"
    return str(value)


class RecoveryScores(NamedTuple):
    """Precision, recall and F1 of found features against the known relevant ones."""

    precision: float
    recall: float
    f1: float


def subspace_recovery(true_mask: Any, found_mask: Any) -> RecoveryScores:
    """Micro-averaged precision and recall of selected features (the GP paper's Table 5).

    Parameters
    ----------
    true_mask, found_mask : array-like of bool, same shape
        Relevant and selected features, per sample (2-D) or overall (1-D).

    Returns
    -------
    scores : RecoveryScores
        Over all (sample, feature) cells: precision = TP / (TP + FP) and
        recall = TP / (TP + FN), 0 when the denominator is 0.

    Examples
    --------
    >>> from localselect.plotting import subspace_recovery
    >>> subspace_recovery([1, 1, 0, 0], [1, 0, 1, 0])
    RecoveryScores(precision=0.5, recall=0.5, f1=0.5)
    """
    true = np.asarray(true_mask).astype(bool)
    found = np.asarray(found_mask).astype(bool)
    if true.shape != found.shape:
        raise ValueError(f"Masks differ in shape: {true.shape} and {found.shape}.")
    tp = int((true & found).sum())
    n_found, n_true = int(found.sum()), int(true.sum())
    precision = tp / n_found if n_found else 0.0
    recall = tp / n_true if n_true else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return RecoveryScores(precision, recall, f1)


@fill_doc
def plot_feature_recovery(
    true_mask: Any,
    found: Any,
    X: Any = None,
    *,
    samples: Any = None,
    n_samples: int = 20,
    feature_names: Any = None,
    ax: Any = None,
    title: str | None = None,
):
    """Known relevant features against found ones: hits, misses and false alarms per cell.

    Parameters
    ----------
    true_mask : array-like of bool, shape (n_samples, n_features) or (n_features,)
        Truly relevant features (from a ``localselect.datasets`` generator).
    found : estimator or array-like of bool of the same shape
        Selected features: a fitted local selector (training subsets, or those
        of ``X``), a global selector (``get_support()``) or a mask.
    X : array-like, default=None
        Query points for a local selector's ``get_local_support(X)``.
    samples : array-like of int, default=None
        Rows to show; default the first ``n_samples``.
    n_samples : int, default=20
        Rows shown when ``samples`` is None.
    feature_names : sequence of str, default=None
        Column labels; default the selector's ``feature_names_in_``, the
        columns of a frame ``X``, ``found`` or ``true_mask``, else ``x0``,
        ``x1``, ... (:func:`localselect.regimes.column_names`), as in
        ``get_feature_names_out`` and :func:`~localselect.regimes.find_regimes`.
    ax : matplotlib Axes, default=None
        Axes to draw into; a new figure otherwise.
    title : str, default=None
        Axes title; default gives precision and recall over all cells.

    %(plot_returns)s
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    true = np.asarray(true_mask).astype(bool)
    if true.ndim == 1:
        true = true[None, :]
    if is_selector(found) and (X is not None or is_local(found)):
        got = local_masks(found, X)
    elif is_selector(found):
        got = np.broadcast_to(np.asarray(found.get_support(), dtype=bool), true.shape)
    else:
        got = np.asarray(found).astype(bool)
        if got.ndim == 1:
            got = np.broadcast_to(got, true.shape)
    if got.shape != true.shape:
        raise ValueError(f"found has shape {got.shape}; true_mask has {true.shape}.")
    scores = subspace_recovery(true, got)
    rows = np.arange(min(n_samples, true.shape[0])) if samples is None else np.asarray(samples)
    # 0 true negative, 1 hit, 2 missed (relevant, not found), 3 false alarm.
    codes = np.where(true & got, 1, np.where(true, 2, np.where(got, 3, 0)))[rows]
    colors = ["white", "tab:green", "tab:orange", "tab:red"]
    named = found if is_selector(found) or hasattr(found, "columns") else true_mask
    names = feature_names_for(named, true.shape[1], feature_names, X)
    fig, ax = new_axes(
        ax, figsize=(max(4.5, 0.3 * true.shape[1] + 3), max(2.5, 0.25 * rows.size + 1.5))
    )
    ax.imshow(
        codes, cmap=ListedColormap(colors), vmin=0, vmax=3, aspect="auto", interpolation="nearest"
    )
    if true.shape[1] <= 60:
        ax.set_xticks(np.arange(true.shape[1]), names, rotation=90)
    ax.set_yticks(np.arange(rows.size), [f"#{r}" for r in rows])
    labels = ["relevant, found", "relevant, missed", "irrelevant, selected"]
    ax.legend(
        handles=[Patch(facecolor=c, edgecolor="grey") for c in colors[1:]],
        labels=labels,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
    )
    ax.set_xlabel("feature")
    ax.set_ylabel("sample")
    ax.set_title(
        title or f"Recovery: precision {scores.precision:.2f}, recall {scores.recall:.2f}"
    )
    return fig
