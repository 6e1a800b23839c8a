"""ReliefF weights of sampled reference rows on a Dask collection (the DiReliefF design).

Palma-Mendoza, Rodriguez and de-Marcos's DiReliefF (Spark, 2018) computes
ReliefF with ``m`` reference rows over data spread across machines: the few
reference rows are broadcast, every partition finds its own ``k`` nearest
rows of each class for every reference row, and the partial neighbour lists
are merged. Here, on a ``dask.array`` / ``dask.dataframe``:

1. a first pass (:func:`~localselect._runtime._collections.summarise`) gives
   each feature's range and the class counts (the priors);
2. the ``m`` reference rows are gathered (they are few) and scaled to [0, 1]
   by the ranges, as the in-memory kernel scales every row;
3. every block returns, for each reference row and class, its ``K`` nearest
   rows (Manhattan distance of the scaled features, the reference row itself
   excluded), as distances and global row indices; a tree reduction merges
   two lists by keeping the ``K`` best under ``(distance, index)``, so ties go
   to the lower row index as in memory;
4. a second pass adds, block by block, the weighted differences ``coef / k *
   |x_nb - x_ref|`` of the merged neighbours that live in the block.

The weight is Kononenko's update averaged over the reference rows,

.. math:: W = \\frac{1}{m} \\sum_{i \\in R} \\Big(-\\bar d_{hits}(i)
   + \\sum_{c \\neq y_i} \\frac{P(c)}{1 - P(y_i)} \\bar d_{misses\\ c}(i)\\Big),

with neighbours searched among all rows and priors ``P`` from all rows;
with every row a reference it is :func:`~localselect.margin.relieff`. The
client receives the reference rows, the ``m x C x K`` neighbour lists and
vectors of length ``n_features``; no worker holds more than a block.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.distance import cdist

from localselect._runtime._collections import reduce_blocks, row_blocks, summarise

__all__ = [
    "ReliefFCollectionFit",
    "fit_relieff_collection",
    "relieff_weights_dask",
    "weights_from_blocks",
]

#: Distances held at once per block slice (floats): bounds a worker's memory.
_SLICE_FLOATS = 2**22

#: Index of a padding entry (no row): sorts after every real row.
_NO_ROW = np.iinfo(np.int64).max


class ReliefFCollectionFit(NamedTuple):
    """What :func:`fit_relieff_collection` fits (fields named after the attributes)."""

    #: ``k``: nearest hits and misses of each class per reference row.
    n_neighbors_: int
    #: Number of reference rows.
    max_samples_: int
    #: ReliefF weight of each feature.
    feature_importances_: NDArray[np.float64]


def _k_smallest(d: NDArray[np.float64], idx: NDArray[np.int64], k: int):
    """Per row, the ``k`` smallest of ``d`` under ``(distance, index)``; ``idx`` ascending.

    Returns ``(distances, indices)`` of shape ``(rows, k)``, padded with ``inf``
    and the largest index when a row has fewer than ``k`` finite candidates.
    """
    rows, s = d.shape
    if s <= k:
        pad = k - s
        d = np.pad(d, ((0, 0), (0, pad)), constant_values=np.inf)
        cols = np.pad(np.broadcast_to(idx, (rows, s)), ((0, 0), (0, pad)),
                      constant_values=_NO_ROW)  # fmt: skip
    else:
        kth = np.partition(d, k - 1, axis=1)[:, k - 1 : k]
        less = d < kth
        equal = d == kth
        needed = k - less.sum(axis=1, keepdims=True)
        keep = less | (equal & (np.cumsum(equal, axis=1) <= needed))
        r, c = np.nonzero(keep)  # k per row, columns ascending
        d = d[r, c].reshape(rows, k)
        cols = idx[c].reshape(rows, k)
    order = np.argsort(d, axis=1, kind="stable")  # ties: the lower index (columns ascend)
    return np.take_along_axis(d, order, 1), np.take_along_axis(cols, order, 1)


def _merge_neighbours(a, b):
    """Two ``(distances, indices)`` lists of shape (m, C, K) into the ``K`` best of both."""
    d = np.concatenate([a[0], b[0]], axis=-1)
    i = np.concatenate([a[1], b[1]], axis=-1)
    order = np.lexsort((i, d), axis=-1)[..., : a[0].shape[-1]]
    return np.take_along_axis(d, order, -1), np.take_along_axis(i, order, -1)


def _block_neighbours(x, y, offset, refs, ref_index, lo, scale, classes, k):
    """The ``k`` nearest rows of each class in one block, for every reference row."""
    m, n_classes = refs.shape[0], len(classes)
    codes = np.searchsorted(classes, np.asarray(y))
    best_d = np.full((m, n_classes, k), np.inf)
    best_i = np.full((m, n_classes, k), _NO_ROW)
    step = max(1, _SLICE_FLOATS // max(1, m))
    for start in range(0, x.shape[0], step):
        xs = (x[start : start + step] - lo) * scale
        d = cdist(refs, xs, metric="cityblock")
        index = np.arange(offset + start, offset + start + xs.shape[0], dtype=np.int64)
        d[ref_index[:, None] == index[None, :]] = np.inf  # a reference row is not its neighbour
        part = codes[start : start + step]
        found_d, found_i = np.full_like(best_d, np.inf), np.full_like(best_i, _NO_ROW)
        for c in range(n_classes):
            cols = np.flatnonzero(part == c)
            found_d[:, c], found_i[:, c] = _k_smallest(d[:, cols], index[cols], k)
        best_d, best_i = _merge_neighbours((best_d, best_i), (found_d, found_i))
    return best_d, best_i


def _block_diffs(x, y, offset, refs, neighbours, weights, lo, scale):
    """``sum weight * |x_nb - x_ref|`` over the merged neighbours that lie in this block."""
    ref_rows, nb = neighbours[:, 0], neighbours[:, 1]
    inside = (nb >= offset) & (nb < offset + x.shape[0])
    if not inside.any():
        return np.zeros(x.shape[1])
    rows = (x[nb[inside] - offset] - lo) * scale
    diffs = np.abs(rows - refs[ref_rows[inside]])
    return weights[inside] @ diffs


def _sum(a, b):
    return a + b


def relieff_weights_dask(
    X, y, reference_indices: ArrayLike, n_neighbors: int
) -> NDArray[np.float64]:
    """ReliefF weights of ``reference_indices`` on a Dask collection, computed on the workers.

    Parameters
    ----------
    X : dask array or dask dataframe of shape (n_samples, n_features)
        Finite numbers; each feature is scaled to [0, 1] by its range over all
        rows (0 if constant).
    y : dask array or series of shape (n_samples,)
        Class labels, aligned with ``X``'s rows (rechunked to them otherwise).
    reference_indices : array-like of int
        Global row indices of the reference rows (distinct).
    n_neighbors : int
        ``k``: nearest hits, and nearest misses of each other class, per
        reference row, capped per class at the rows available.

    Returns
    -------
    weights : ndarray of shape (n_features,)
        See the module docstring; with every row a reference, equal to
        ``localselect.margin.relieff(X, codes, n_neighbors)`` (to rounding).
    """
    blocks = row_blocks(X, y)
    summary = summarise(blocks)
    if summary.nonfinite or summary.continuous:
        raise ValueError("relieff_weights_dask needs finite X and class labels y.")
    classes = np.asarray(sorted(summary.labels))
    counts = np.asarray([summary.labels[c] for c in classes], dtype=np.int64)
    return weights_from_blocks(blocks, summary, classes, counts, reference_indices, n_neighbors)


def weights_from_blocks(
    blocks, summary, classes, counts, reference_indices, n_neighbors, log=None
):
    """:func:`relieff_weights_dask` on checked row blocks and their first-pass summary.

    ``log`` (the fit's reporter, or None) counts the blocks of both passes as progress.
    """
    ref = np.asarray(reference_indices, dtype=np.int64)
    if ref.ndim != 1 or ref.size == 0 or np.unique(ref).size != ref.size:
        raise ValueError("reference_indices must be distinct row indices (at least one).")
    if ref.min() < 0 or ref.max() >= summary.n:
        raise ValueError(f"reference_indices must lie in [0, {summary.n}).")
    span = summary.hi - summary.lo
    ok = span > 0
    scale = np.divide(1.0, span, out=np.zeros_like(span), where=ok)
    lo = np.where(ok, summary.lo, 0.0)
    refs = (np.asarray(blocks.X[ref].compute()) - lo) * scale
    ref_codes = np.searchsorted(classes, np.asarray(blocks.y[ref].compute()))
    k = int(min(n_neighbors, counts.max()))
    _, index = reduce_blocks(
        blocks, _block_neighbours, _merge_neighbours, refs, ref, lo, scale, classes, k,
        name="localselect-relieff-neighbours", log=log,
    )  # fmt: skip
    priors = counts / summary.n
    same = np.eye(len(classes), dtype=bool)
    k_per = np.minimum(n_neighbors, counts[None, :] - same)
    coef = np.where(same, -1.0, priors[None, :] / (1.0 - priors[:, None]))
    r, c, t = np.nonzero(np.arange(k)[None, None, :] < k_per[ref_codes][:, :, None])
    kc = k_per[ref_codes[r], c]
    pairs = np.column_stack([r, index[r, c, t]])
    weights = coef[ref_codes[r], c] / kc
    total = reduce_blocks(
        blocks, _block_diffs, _sum, refs, pairs, weights, lo, scale,
        name="localselect-relieff-diffs", log=log,
    )  # fmt: skip
    return total / ref.size


def fit_relieff_collection(estimator, blocks, summary, counts, log) -> ReliefFCollectionFit:
    """``ReliefF.fit`` on a Dask collection (declared by :class:`~localselect.ReliefF`).

    The reference rows are those the in-memory fit draws
    (``max_samples``, ``random_state``), so the weights equal the in-memory
    weights on the same rows (to rounding). A continuous target and
    ``n_features_to_select="auto"`` (a shadow null over the rows) are refused
    before this runs (:class:`~localselect._blockwise.BlockwiseFitMixin`),
    which also assigns the returned record.
    """
    from sklearn.utils import check_random_state

    from localselect.margin import _rrelieff

    name = type(estimator).__name__
    n = summary.n
    n_neighbors = min(estimator.n_neighbors, n - 1)
    refs = _rrelieff.reference_rows(
        estimator.max_samples, n, check_random_state(estimator.random_state)
    )
    log(0, "%s: %d of %d rows as reference rows, on the workers", name, len(refs), n)
    weights = weights_from_blocks(
        blocks, summary, estimator.classes_, counts, refs, n_neighbors, log
    )
    return ReliefFCollectionFit(n_neighbors, len(refs), weights)
