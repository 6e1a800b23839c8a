"""K-NN accuracy of Algorithm 2's subspaces for many ``gamma`` at once.

The subspaces of a query are nested in ``gamma`` (:func:`subspace_path`): the
subspace for ``gamma`` is a prefix of one order of features, so one path gives
the subspaces of every ``gamma`` of a grid. Distances in a subspace are two
matrix products (:func:`masked_sq_dists`), and the ``k`` nearest come from a
partition with the ties of a stable sort (:func:`nearest_mask`). This is the
validation behind ``gamma="auto"`` and the safety net of
:class:`~localselect.GPLocalFeatureSelection`.

Nothing here validates user input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._pairwise import row_chunks

__all__ = ["NestedKNNScores", "knn_votes", "masked_sq_dists", "nearest_mask", "nested_knn_correct"]

Float = NDArray[np.float64]


class NestedKNNScores(NamedTuple):
    """Result of :func:`nested_knn_correct`.

    ``correct[g]`` counts the queries whose K-NN vote in the subspace of
    ``gammas[g]`` is their own label; ``correct_all`` the same with all
    features; ``sizes[g]`` the mean subspace size for ``gammas[g]``. With
    several K, ``correct`` has a leading axis over them and ``correct_all``
    is an array.
    """

    correct: Float
    correct_all: float | Float
    sizes: Float


def masked_sq_dists(Q: Float, mask: Float, X: Float, X_sq: Float) -> Float:
    """Squared Euclidean distances from each query to every row of ``X`` in its subspace.

    ``sum_j m_j (q_j - x_j)^2 = sum_j m_j q_j^2 - 2 sum_j m_j q_j x_j + sum_j m_j x_j^2``:
    two matrix products (``X_sq = X * X``), clipped at 0.
    """
    mq = mask * Q
    sq = (mq * Q).sum(axis=1)[:, None] - 2.0 * (mq @ X.T)
    sq += mask @ X_sq.T
    return np.maximum(sq, 0.0, out=sq)


def nearest_mask(sq: Float, k: int) -> NDArray[np.bool_]:
    """The ``k`` smallest entries of each row; ties at the k-th value go to lower indices.

    Selects the same sets as a stable sort, in O(n_rows n_cols) (a partition).
    """
    kth = np.partition(sq, k - 1, axis=1)[:, k - 1 : k]
    below = sq < kth
    tied = sq == kth
    room = k - below.sum(axis=1, keepdims=True)
    return below | (tied & (np.cumsum(tied, axis=1) <= room))


def knn_votes(sq: Float, onehot: Float, k: int) -> Float:
    """Class counts among the ``k`` nearest (smallest ``sq``) of each row.

    ``onehot`` is the ``(n_train, n_classes)`` indicator of the training labels.
    """
    return nearest_mask(sq, k).astype(np.float64) @ onehot


def nested_knn_correct(
    Xq: Float,
    yq: NDArray[np.intp],
    self_index: NDArray[np.intp] | None,
    order: NDArray[np.intp],
    critical: Float,
    X_train: Float,
    y_train: NDArray[np.intp],
    gammas: Float,
    n_neighbors: int | NDArray[np.intp],
    *,
    working_memory: float | None = None,
) -> NestedKNNScores:
    """K-NN hits of labelled queries in their nested subspaces.

    Parameters
    ----------
    Xq : ndarray of shape (n_queries, n_features)
        Labelled queries.
    yq : ndarray of shape (n_queries,)
        Their class codes.
    self_index : ndarray of shape (n_queries,) or None
        Row of each query in ``X_train`` (left out of its own neighbours), or
        None when the queries are not among the training points.
    order, critical : ndarray of shape (n_queries, n_features)
        The path of :func:`~localselect.gp._subspace.subspace_path`, computed
        down to at most ``min(gammas)``.
    X_train : ndarray of shape (n_train, n_features)
        Training points.
    y_train : ndarray of shape (n_train,)
        Their class codes ``0 .. n_classes - 1``.
    gammas : ndarray of shape (n_gammas,)
        Values of ``gamma`` to score.
    n_neighbors : int or ndarray of shape (n_k,)
        K of the K-NN, at most ``n_train - 1``; several values are scored on
        the same distances.
    working_memory : float, default=None
        MiB for one ``(queries, n_train)`` block of distances.

    Returns
    -------
    NestedKNNScores

    Notes
    -----
    Time O(P n_train n_features) in matrix products for the P <= n_gammas
    n_queries distinct (query, subspace size) pairs (nested subspaces of
    equal size are equal, so each pair's K-NN serves every ``gamma`` that
    gives it), memory one block of the working memory. Vote ties go to the
    lower class code.
    """
    from localselect.gp._subspace import subspace_sizes

    n_q, m = Xq.shape
    n_classes = int(y_train.max()) + 1
    onehot = np.eye(n_classes)[y_train]
    X_sq = X_train * X_train
    gammas = np.asarray(gammas, dtype=np.float64)
    ks = np.atleast_1d(np.asarray(n_neighbors, dtype=np.intp))
    correct = np.zeros((ks.size, gammas.size))
    correct_all = np.zeros(ks.size)
    n_train = X_train.shape[0]
    # Every gamma's subspace of a query is a prefix of its path: its size says
    # which. The K-NN runs once per distinct (query, size) pair, not per gamma.
    sizes = np.stack([subspace_sizes(critical, g) for g in gammas], axis=1)
    step = np.arange(m)
    for rows in row_chunks(n_q, 8 * 4 * n_train, working_memory):
        qi = np.arange(rows.stop - rows.start)
        sq = masked_sq_dists(Xq[rows], np.ones((qi.size, m)), X_train, X_sq)
        if self_index is not None:
            sq[qi, self_index[rows]] = np.inf
        for i, k in enumerate(ks):
            pred = np.argmax(knn_votes(sq, onehot, int(k)), axis=1)
            correct_all[i] += float(np.sum(pred == yq[rows]))
        chunk = sizes[rows]
        pairs, inverse = np.unique(
            np.column_stack([np.repeat(qi, gammas.size), chunk.ravel()]),
            axis=0,
            return_inverse=True,
        )
        hit = np.empty((ks.size, pairs.shape[0]), dtype=bool)
        for block in row_chunks(pairs.shape[0], 8 * 4 * n_train, working_memory):
            q, size = pairs[block, 0], pairs[block, 1]
            r, c = np.nonzero(step[None, :] < size[:, None])
            mask = np.zeros((q.size, m))
            mask[r, order[rows][q[r], c]] = 1.0
            sq = masked_sq_dists(Xq[rows][q], mask, X_train, X_sq)
            if self_index is not None:
                sq[np.arange(q.size), self_index[rows][q]] = np.inf
            for i, k in enumerate(ks):
                pred = np.argmax(knn_votes(sq, onehot, int(k)), axis=1)
                hit[i, block] = pred == yq[rows][q]
        correct += hit[:, inverse.ravel()].reshape(ks.size, *chunk.shape).sum(axis=1)
    size_sum = sizes.sum(axis=0).astype(np.float64)
    sizes_mean = size_sum / max(n_q, 1)
    if np.ndim(n_neighbors) == 0:
        return NestedKNNScores(correct[0], float(correct_all[0]), sizes_mean)
    return NestedKNNScores(correct, correct_all, sizes_mean)
