"""Fisher score and mRMR on a Dask collection, from statistics summed on the workers.

Both filters depend on the data only through small tables that row blocks
add up, so a fit on a ``dask.array`` / ``dask.dataframe`` sums them block by
block (:func:`localselect._runtime._collections.reduce_blocks`) and finishes
with the in-memory formulas; the client receives the tables, never rows.

* **Fisher** (:func:`~localselect.filters.fisher_score`): per class the
  count, the sum and the sum of squares of every feature; the overall mean
  and the scale of the near-constant test come from the first pass
  (:func:`~localselect._runtime._collections.summarise`). The scores are
  :func:`~localselect.filters._fisher.fisher_from_moments` of these sums,
  equal to the in-memory scores to rounding.
* **mRMR** (Peng et al. 2005, MID): the three-state thresholds ``mean -+
  scale * std`` from the first pass (population std, from the centred sums
  merged pairwise); then one pass counting, for every feature, state and
  class, ``n(x_j = s, y = c)`` (the relevance tables) and, for every pair of
  features and states, ``n(x_j = s, x_l = t)`` (the redundancy tables of
  :func:`~localselect.filters.mrmr_order`: ``m^2 * 9`` counts). The greedy
  order is then the in-memory code's own (``_greedy`` of
  :mod:`localselect.filters._mrmr`) on the same counts: mutual information
  by the same function, redundancies added in the same order, so the ranking
  is the in-memory one (counts are integers, exact in float64).

Each function returns a record of fitted values (:class:`FisherCollectionFit`,
:class:`MRMRCollectionFit`) that the estimator assigns
(:class:`~localselect._blockwise.BlockwiseFitMixin`, which also refuses
``n_features_to_select="auto"``: its permutation null would permute labels
across every row).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._runtime._collections import RowBlocks, Summary, reduce_blocks
from localselect.base import resolve_n_features
from localselect.filters._fisher import fisher_from_moments
from localselect.filters._mrmr import _greedy, _mi_from_joint, one_hot

__all__ = [
    "FisherCollectionFit",
    "MRMRCollectionFit",
    "fit_fisher_collection",
    "fit_mrmr_collection",
    "mrmr_from_counts",
]

#: States of mRMR's discretisation (below, between, above the thresholds).
_STATES = 3


class FisherCollectionFit(NamedTuple):
    """What :func:`fit_fisher_collection` fits (fields named after the attributes)."""

    #: Fisher score of each feature.
    feature_importances_: NDArray[np.float64]


class MRMRCollectionFit(NamedTuple):
    """What :func:`fit_mrmr_collection` fits (fields named after the attributes)."""

    #: Selected feature indices in the order mRMR added them.
    ranking_: NDArray[np.int64]


def _onehot_classes(y, classes) -> NDArray[np.float64]:
    return one_hot(np.searchsorted(classes, np.asarray(y)), len(classes))


def _class_moments(x, y, offset, classes):
    """Per-class count, sum and sum of squares of one block (Fisher's statistics)."""
    onehot = _onehot_classes(y, classes).T
    return onehot.sum(axis=1), onehot @ x, onehot @ (x**2)


def _add(a, b):
    return tuple(u + v for u, v in zip(a, b, strict=True))


def fit_fisher_collection(
    estimator, blocks: RowBlocks, summary: Summary, counts, log
) -> FisherCollectionFit:
    """``FisherScore.fit`` on a Dask collection (see the module docstring)."""
    log(1, "FisherScore on a Dask collection: %d samples, %d features", *blocks.X.shape)
    classes = estimator.classes_
    n_counts, sums, squares = reduce_blocks(
        blocks, _class_moments, _add, classes, name="localselect-fisher", log=log
    )
    absmax = np.maximum(np.abs(summary.lo), np.abs(summary.hi))
    scale = np.maximum(absmax, 1.0) ** 2 * summary.n
    scores = fisher_from_moments(n_counts[None], sums[None], squares[None], summary.mean, scale)
    return FisherCollectionFit(scores[0])


def _state_counts(x, y, offset, low, high, classes):
    """One block's contingency counts of three-state features: with y, and pairwise."""
    states = np.greater(x, low).astype(np.int64) + np.greater(x, high)
    n, m = states.shape
    flat = one_hot(states, _STATES).reshape(n, m * _STATES)
    return flat.T @ _onehot_classes(y, classes), flat.T @ flat


def mrmr_from_counts(
    relevance_joint: NDArray[np.float64],
    pair_joint: NDArray[np.float64],
    k: int,
    n_states: int = _STATES,
) -> NDArray[np.int64]:
    """mRMR (MID) order from the summed contingency tables.

    Parameters
    ----------
    relevance_joint : ndarray of shape (m * 3, n_classes)
        ``n(x_j = s, y = c)`` at row ``3 j + s``.
    pair_joint : ndarray of shape (m * 3, m * 3)
        ``n(x_j = s, x_l = t)`` at ``[3 j + s, 3 l + t]``.
    k : int
        Features to rank.
    n_states : int, default=3
        States present in the data (the in-memory code's ``states.max() + 1``):
        the tables are cut to them, so the sums of mutual information run
        over the same cells as in memory.

    Returns
    -------
    order : ndarray of shape (k,)
        The greedy order of :func:`~localselect.filters.mrmr_order` (eq. (6)-(7)).
    """
    m = pair_joint.shape[0] // _STATES
    relevance = _mi_from_joint(relevance_joint.reshape(m, _STATES, -1)[:, :n_states])
    pairs = pair_joint.reshape(m, _STATES, m, _STATES)[:, :n_states, :, :n_states]

    def redundancy_to(j):
        return _mi_from_joint(pairs[j].transpose(1, 0, 2))  # (m, S, T): n(x_j = s, x_l = t)

    return _greedy(relevance, redundancy_to, min(k, m), quotient=False)


def fit_mrmr_collection(
    estimator, blocks: RowBlocks, summary: Summary, counts, log
) -> MRMRCollectionFit:
    """``MRMR.fit`` on a Dask collection (see the module docstring): MID on class labels."""
    if estimator.criterion != "mid" or estimator.task == "regression":
        raise ValueError(
            f"MRMR(criterion={estimator.criterion!r}, task={estimator.task!r}) on a Dask "
            "collection: only criterion='mid' on class labels fits from block counts; fit "
            "the F-statistic criteria or a continuous target on a sample in memory."
        )
    log(1, "MRMR on a Dask collection: %d samples, %d features", *blocks.X.shape)
    std = np.sqrt(summary.m2 / summary.n)
    low = summary.mean - estimator.scale * std
    high = summary.mean + estimator.scale * std
    relevance_joint, pair_joint = reduce_blocks(
        blocks,
        _state_counts,
        _add,
        low,
        high,
        estimator.classes_,
        name="localselect-mrmr",
        log=log,
    )
    k = resolve_n_features(estimator.n_features_to_select, blocks.X.shape[1])
    k = blocks.X.shape[1] if k is None else k  # None is not a value of MRMR's parameter
    n_states = 3 if np.any(summary.hi > high) else 2 if np.any(summary.hi > low) else 1
    return MRMRCollectionFit(mrmr_from_counts(relevance_joint, pair_joint, k, n_states))
