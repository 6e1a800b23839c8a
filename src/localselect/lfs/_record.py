"""The fitted regions of LFS: all that prediction sees.

A fitted :class:`~localselect.lfs.LocalFeatureSelection` holds one region per
training point ``x_i``: its class ``y_i``, feature subset ``f_i``
(``local_support_``) and radius ``r_i`` (``radii_``). Eq. (11) classifies a
query by the votes of these regions, each judged by a nearest-neighbour rule
over the query's candidate pool of training points. :class:`Regions` gathers
exactly that, once per fitted estimator (:func:`regions_of`, cached outside the
estimator so that ``predict`` leaves its ``__dict__`` unchanged):

* the training points and class codes, as the compiled kernels take them;
* the radii and the regions grouped by identical subset
  (:func:`~localselect.lfs._candidate_votes.subset_groups`);
* the pools: every training point for the exact method, else each query's
  ``n_candidates_ * n_classes`` nearest training points (full-space Euclidean
  distance; all of them when there are fewer), so the pool keeps the classes'
  local proportions as the exact rule's search over every point does.
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.neighbors import NearestNeighbors

from localselect._runtime import kernel_input, local_threads
from localselect._typing import FloatArray, IntArray
from localselect.lfs._candidate_votes import subset_groups

__all__ = ["Regions", "regions_of"]


class Regions(NamedTuple):
    """The fitted regions of LFS, as the prediction kernels take them.

    Attributes
    ----------
    X_fit : ndarray of shape (n_train, n_features)
        Training points (float64, writable, C-contiguous).
    y_fit : ndarray of shape (n_train,)
        Class codes (int64).
    radii : ndarray of shape (n_train,)
        Radius ``r_i`` of each region.
    support : ndarray of shape (n_train, n_features) of bool
        Subset ``f_i`` of each region.
    n_classes : int
        Number of classes.
    groups : tuple of ndarray
        ``(group_ptr, reps, feat_ptr, feats)``: the regions with a non-empty
        subset grouped by subset (:func:`~localselect.lfs._candidate_votes.subset_groups`).
    pool_index : NearestNeighbors or None
        Index of the training points for the pools; None for the exact method
        (every training point is in every pool).
    pool_width : int
        Training points in each query's pool.
    """

    X_fit: FloatArray
    y_fit: IntArray
    radii: FloatArray
    support: NDArray[np.bool_]
    n_classes: int
    groups: tuple
    pool_index: NearestNeighbors | None
    pool_width: int

    def pools(self, Q: FloatArray) -> IntArray:
        """Each query's candidate pool (training indices), shape (n_queries, pool_width)."""
        n_fit = self.X_fit.shape[0]
        if self.pool_index is None:  # a read-only broadcast view, no copy
            return np.broadcast_to(np.arange(n_fit, dtype=np.int64), (Q.shape[0], n_fit))
        with local_threads():
            pools = self.pool_index.kneighbors(
                Q, n_neighbors=self.pool_width, return_distance=False
            )
        return pools

    def kernel_args(self, Q: FloatArray) -> tuple:
        """The arguments of the compiled vote kernels for a block of queries."""
        return (
            kernel_input(Q),
            self.X_fit,
            self.y_fit,
            kernel_input(self.pools(Q), np.int64),
            self.radii,
            *self.groups,
            self.n_classes,
        )


#: Each fitted estimator's regions, with the fitted arrays they were made from.
_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _fitted(est: Any) -> tuple:
    return (est.X_fit_, est.y_fit_, est.radii_, est.local_support_, est.candidates_)


def regions_of(est: Any) -> Regions:
    """The :class:`Regions` of a fitted ``LocalFeatureSelection`` (made once, cached).

    Reads only its public fitted attributes (``X_fit_``, ``y_fit_``,
    ``radii_``, ``local_support_``, ``candidates_``, ``n_candidates_``,
    ``classes_``) and ``n_jobs`` (threads of the pool index); made again when
    one of those arrays is replaced.
    """
    fitted = _fitted(est)
    cached = _CACHE.get(est)
    if cached is not None and all(a is b for a, b in zip(cached[0], fitted)):
        return cached[1]
    support = np.asarray(est.local_support_, dtype=bool)
    X_fit = kernel_input(est.X_fit_)
    n_fit = X_fit.shape[0]
    n_classes = int(est.classes_.size)
    if est.candidates_ is None:
        pool_index, width = None, n_fit
    else:
        width = min(n_fit, int(est.n_candidates_) * n_classes)
        pool_index = NearestNeighbors(n_jobs=est.n_jobs).fit(X_fit)
    regions = Regions(
        X_fit,
        kernel_input(est.y_fit_, np.int64),
        kernel_input(est.radii_),
        support,
        n_classes,
        subset_groups(support),
        pool_index,
        width,
    )
    _CACHE[est] = (fitted, regions)
    return regions
