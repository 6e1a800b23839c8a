"""k-medoids centres: the candidate observation points for large data sets (sec. 4.5).

Alternating k-medoids (Park and Jun, 2009) seeded by k-means++ (D^2 sampling on
the data points): assign every point to its nearest medoid, then move each
medoid to the member of its cluster with the smallest sum of distances to the
other members; stop when no medoid moves. Pairwise work is chunked, so memory
stays bounded whatever the number of points.

Why our own: the maintained PyPI packages for k-medoids (``kmedoids``
FasterPAM, ``banditpam``) take a full n x n dissimilarity matrix or add a
compiled dependency, and scikit-learn-extra does not build for numpy 2. The
alternating scheme is a few vectorised lines and only needs to give well-spread
candidate points, not the optimal clustering.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.metrics import pairwise_distances_argmin_min, pairwise_distances_chunked

__all__ = ["KMedoidsResult", "k_medoids"]


class KMedoidsResult(NamedTuple):
    """Medoid indices (into the data), cluster labels, iterations, convergence."""

    medoids: NDArray[np.intp]
    labels: NDArray[np.intp]
    n_iter: int
    converged: bool


def _kmeanspp_seeds(
    X: NDArray[np.float64], k: int, rng: np.random.RandomState
) -> NDArray[np.intp]:
    n = X.shape[0]
    seeds = np.empty(k, dtype=np.intp)
    seeds[0] = rng.randint(n)
    sq_norms = np.einsum("ij,ij->i", X, X)
    closest = np.maximum(sq_norms - 2.0 * X @ X[seeds[0]] + sq_norms[seeds[0]], 0.0)
    for c in range(1, k):
        total = closest.sum()
        if total > 0:
            seeds[c] = rng.choice(n, p=closest / total)
        else:  # fewer distinct points than clusters: take the next unused index
            seeds[c] = np.setdiff1d(np.arange(n), seeds[:c])[0]
        d = np.maximum(sq_norms - 2.0 * X @ X[seeds[c]] + sq_norms[seeds[c]], 0.0)
        np.minimum(closest, d, out=closest)
        closest[seeds[: c + 1]] = 0.0
    return seeds


def _cluster_medoid(members: NDArray[np.float64]) -> int:
    sums = np.concatenate(
        [chunk.sum(axis=1) for chunk in pairwise_distances_chunked(members, members)]
    )
    return int(np.argmin(sums))


def k_medoids(
    X: NDArray[np.float64],
    n_clusters: int,
    rng: np.random.RandomState,
    *,
    max_iter: int = 100,
) -> KMedoidsResult:
    """Alternating k-medoids with k-means++ seeds (Euclidean distance).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Data; ``n_clusters <= n_samples``.
    n_clusters : int
        Number of medoids.
    rng : RandomState
        Source of the seeding draws.
    max_iter : int, default=100
        Assignment/update rounds.

    Returns
    -------
    KMedoidsResult
        ``medoids`` sorted increasingly. Ties (equal distance sums) go to the
        lowest index.

    Notes
    -----
    Time per round O(n_samples n_clusters n_features + sum_c n_c^2 n_features),
    memory bounded by scikit-learn's working memory.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.gp._medoids import k_medoids
    >>> X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.3]])
    >>> k_medoids(X, 2, np.random.RandomState(0)).medoids
    array([1, 4])
    """
    seeds = _kmeanspp_seeds(X, n_clusters, rng)
    medoids = np.sort(seeds)
    labels = np.zeros(X.shape[0], dtype=np.intp)
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007 - n_iter is reported
        labels, _ = pairwise_distances_argmin_min(X, X[medoids])
        new = medoids.copy()
        for c in range(n_clusters):
            members = np.flatnonzero(labels == c)
            if members.size:
                new[c] = members[_cluster_medoid(X[members])]
        new = np.sort(new)
        if np.array_equal(new, medoids):
            converged = True
            break
        medoids = new
    labels, _ = pairwise_distances_argmin_min(X, X[medoids])
    return KMedoidsResult(medoids, labels.astype(np.intp), n_iter, converged)
