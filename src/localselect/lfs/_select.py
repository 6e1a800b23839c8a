"""Candidate points of the nearest-candidate method (``n_candidates``).

The per-representative work itself (lines 5-11 of Algorithm 1) is the compiled
core, :mod:`localselect.lfs._regions`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.neighbors import NearestNeighbors

from localselect._runtime import local_threads
from localselect._typing import FloatArray

__all__ = ["nearest_candidates"]


def nearest_candidates(
    X: FloatArray, y: NDArray[np.intp], n_candidates: int, n_jobs: int | None = None
) -> NDArray[np.intp]:
    """Each sample's candidate points: its ``n_candidates`` nearest of every class.

    Nearest in the full feature space (Euclidean), found per class with
    :class:`~sklearn.neighbors.NearestNeighbors` (memory bounded by
    scikit-learn's ``working_memory``). A sample is never its own candidate;
    a class with fewer members contributes all of them; equal distances are
    ordered as the neighbour search returns them (deterministic for given data).

    Returns
    -------
    universe : ndarray of shape (n_samples, n_universe), dtype=int
        Row ``i`` holds ``i`` and its candidates in increasing order, padded
        with -1 at the end (rows of classes of different sizes differ in length).
    """
    n = X.shape[0]
    classes = np.unique(y)
    parts = []
    for c in classes:
        members = np.flatnonzero(y == c)
        k = min(n_candidates + 1, members.size)
        nn = NearestNeighbors(n_neighbors=k, n_jobs=n_jobs).fit(X[members])
        with local_threads():
            idx = members[nn.kneighbors(X, return_distance=False)]
        # Rows of class c drop themselves (or, among more than k duplicates, the last
        # neighbour); other rows drop the extra (k-th) neighbour when c has more.
        own = y == c
        drop = np.zeros(idx.shape, dtype=bool)
        drop[own] = idx[own] == np.flatnonzero(own)[:, None]
        drop[own & ~drop.any(axis=1), -1] = True
        if members.size > n_candidates:
            drop[~own, -1] = True
        parts.append((idx, drop))
    width = 1 + sum(p[0].shape[1] for p in parts)
    universe = np.full((n, width), -1, dtype=np.intp)
    universe[:, 0] = np.arange(n)
    col = 1
    for idx, drop in parts:
        vals = np.where(drop, -1, idx)
        universe[:, col : col + idx.shape[1]] = vals
        col += idx.shape[1]
    # Sort each row ascending with the -1 padding moved to the end.
    key = np.where(universe < 0, n, universe)
    universe = np.take_along_axis(universe, np.argsort(key, axis=1, kind="stable"), axis=1)
    used = (universe >= 0).sum(axis=0) > 0
    return universe[:, used]
