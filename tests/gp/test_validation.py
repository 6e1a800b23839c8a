"""K-NN kernels of the inner validation against direct computations."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from localselect.gp._subspace import path_mask, subspace_path
from localselect.gp._validation import (
    knn_votes,
    masked_sq_dists,
    nearest_mask,
    nested_knn_correct,
)


@given(st.integers(0, 10_000))
def test_masked_distances_match_elementwise(seed):
    rng = np.random.default_rng(seed)
    Q, X = rng.normal(size=(6, 5)), rng.normal(size=(9, 5))
    mask = (rng.random((6, 5)) < 0.5).astype(float)
    direct = (((Q[:, None, :] - X[None]) ** 2) * mask[:, None, :]).sum(axis=2)
    np.testing.assert_allclose(masked_sq_dists(Q, mask, X, X * X), direct, atol=1e-12)


@given(st.integers(0, 10_000), st.integers(1, 7))
def test_nearest_mask_is_a_stable_sort(seed, k):
    rng = np.random.default_rng(seed)
    sq = rng.integers(0, 4, size=(5, 8)).astype(float)  # many ties
    expected = np.zeros_like(sq, dtype=bool)
    for i, row in enumerate(sq):
        expected[i, np.argsort(row, kind="stable")[:k]] = True
    np.testing.assert_array_equal(nearest_mask(sq, k), expected)


def test_nested_knn_correct_matches_a_loop():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    y = (X[:, 0] > 0).astype(np.intp) + (X[:, 1] > 0)
    Q, yq = X[:10] + 0.1, y[:10]
    power = rng.gamma(1.0, 2.0, size=(10, 6))
    corr = np.abs(np.corrcoef(X, rowvar=False))
    gammas = np.array([-np.inf, 0.5, 1.5])
    order, critical = subspace_path(power, corr, -np.inf)
    res = nested_knn_correct(Q, yq, None, order, critical, X, y, gammas, 3)
    onehot = np.eye(3)[y]
    for g, gamma in enumerate(gammas):
        mask = path_mask(order, critical, gamma)
        hits = 0
        for q in range(10):
            d = (((Q[q] - X) ** 2) * mask[q]).sum(axis=1)
            votes = onehot[np.argsort(d, kind="stable")[:3]].sum(axis=0)
            hits += int(np.argmax(votes) == yq[q])
        assert res.correct[g] == hits
        np.testing.assert_allclose(res.sizes[g], mask.sum(axis=1).mean())
    sq_all = ((Q[:, None, :] - X[None]) ** 2).sum(axis=2)
    assert res.correct_all == np.sum(np.argmax(knn_votes(sq_all, onehot, 3), axis=1) == yq)


def test_nested_knn_correct_with_self_index_and_floor():
    # Queries among the training points (left out of their own neighbours), paths
    # stopped by a floor, many gammas sharing subspace sizes: the same counts as a loop.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 7))
    y = (X[:, 2] + 0.5 * rng.normal(size=60) > 0).astype(np.intp)
    queries = np.arange(0, 60, 3)
    power = rng.gamma(1.0, 2.0, size=(queries.size, 7))
    floor = np.quantile(power, 0.5, axis=1)
    corr = np.abs(np.corrcoef(X, rowvar=False))
    gammas = np.array([-np.inf, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0])
    order, critical = subspace_path(power, corr, -np.inf, floor, "all")
    res = nested_knn_correct(
        X[queries], y[queries], queries, order, critical, X, y, gammas, 5, working_memory=0.01
    )
    onehot = np.eye(2)[y]
    for g, gamma in enumerate(gammas):
        mask = path_mask(order, critical, gamma)
        hits = 0
        for i, q in enumerate(queries):
            d = (((X[q] - X) ** 2) * mask[i]).sum(axis=1)
            d[q] = np.inf
            votes = onehot[np.argsort(d, kind="stable")[:5]].sum(axis=0)
            hits += int(np.argmax(votes) == y[q])
        assert res.correct[g] == hits
        np.testing.assert_allclose(res.sizes[g], mask.sum(axis=1).mean())


def test_several_k_are_scored_on_the_same_distances():
    # n_neighbors as an array: each K's counts equal a separate call with that K.
    rng = np.random.default_rng(2)
    X = rng.normal(size=(50, 5))
    y = (X[:, 0] + X[:, 3] > 0).astype(np.intp)
    Q, yq = X[:12] + 0.05, y[:12]
    power = rng.gamma(1.0, 2.0, size=(12, 5))
    corr = np.abs(np.corrcoef(X, rowvar=False))
    gammas = np.array([-np.inf, 0.5, 1.0, 2.0])
    order, critical = subspace_path(power, corr, -np.inf)
    ks = np.array([1, 3, 5, 8])
    res = nested_knn_correct(Q, yq, None, order, critical, X, y, gammas, ks)
    assert res.correct.shape == (4, 4) and res.correct_all.shape == (4,)
    for i, k in enumerate(ks):
        one = nested_knn_correct(Q, yq, None, order, critical, X, y, gammas, int(k))
        np.testing.assert_array_equal(res.correct[i], one.correct)
        assert res.correct_all[i] == one.correct_all


def test_fold_observations_move_to_the_nearest_training_point():
    from localselect.gp._inner_cv import _fold_observations

    rng = np.random.default_rng(3)
    Xs = rng.normal(size=(40, 3))
    in_obs = np.zeros(40, bool)
    in_obs[[2, 5, 11, 30]] = True
    train = np.setdiff1d(np.arange(40), [5, 6, 30, 31])  # 5 and 30 are held out
    pos = _fold_observations(Xs, train, in_obs)
    expected = {2, 11}
    for o in (5, 30):
        d = ((Xs[train] - Xs[o]) ** 2).sum(axis=1)
        expected.add(int(train[np.argmin(d)]))
    assert set(train[pos].tolist()) == expected
