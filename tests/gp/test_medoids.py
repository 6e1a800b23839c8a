"""k-medoids candidates: medoids are optimal within their clusters and well spread."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import pairwise_distances

from localselect.gp import k_medoids


def test_recovers_separated_blobs_and_each_medoid_is_optimal():
    X, labels = make_blobs(300, centers=6, cluster_std=0.3, random_state=0)
    res = k_medoids(X, 6, np.random.RandomState(0))
    assert res.converged
    assert len(set(labels[res.medoids])) == 6  # one medoid per blob
    D = pairwise_distances(X)
    for c, m in enumerate(res.medoids):
        members = np.flatnonzero(res.labels == c)
        costs = D[np.ix_(members, members)].sum(axis=1)
        assert D[m, members].sum() <= costs.min() + 1e-9


def test_deterministic_given_the_seed_and_handles_duplicates():
    X = np.repeat(np.arange(4.0)[:, None], 5, axis=0)  # 4 distinct points, 20 rows
    a = k_medoids(X, 6, np.random.RandomState(3))
    b = k_medoids(X, 6, np.random.RandomState(3))
    np.testing.assert_array_equal(a.medoids, b.medoids)
    assert len(np.unique(a.medoids)) == 6
    assert len(np.unique(X[a.medoids, 0])) == 4  # every distinct value is a medoid
