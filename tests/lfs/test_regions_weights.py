"""Radii, leave-one-out scores, neighbour votes and eq. (10) weights against loops."""

from __future__ import annotations

import numpy as np
import pytest

from . import _reference as ref
from ._reference_numpy import (
    class_distances,
    lfs_weights,
    local_score,
    nearest_votes,
    nn_votes,
    sphere_radius,
    subspace_sq_distances,
)


def test_radius_by_hand():
    # Representative (index 0, class A) at 0; same class at 1, 2; other class at 3, 4.
    dist = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    same = np.array([True, True, True, False, False])
    # N_same - 1 = 2, N_opp = 2. At u=3: gamma * 2/2 = 0.2 < 1/2: first pass, so
    # r = (2 + 3) / 2.
    assert sphere_radius(dist, same, 0.2) == 2.5
    # gamma = 0: passes as soon as one other-class point is inside (u = 3) too.
    assert sphere_radius(dist, same, 0.0) == 2.5
    # gamma = 1: 1 * 2/2 < 2/2 never holds, the sphere holds everything.
    assert sphere_radius(dist, same, 1.0) == 4.0


def test_zero_radius_becomes_tiny():
    # An other-class point on top of the representative fails the test at u = 0.
    dist = np.array([0.0, 0.0, 1.0, 3.0])
    same = np.array([True, False, True, False])
    assert sphere_radius(dist, same, 0.2) == 1e-6


def test_nn_votes_ties_need_a_strict_majority():
    sq = np.array([[1.0, 1.0, 2.0], [1.0, 1.0, 1.0], [3.0, 0.5, np.inf]])
    same = np.array([True, False, True])
    # Row 0: one same, one other tied: no vote. Row 1: 2 same vs 1: vote. Row 2: other.
    np.testing.assert_array_equal(nn_votes(sq, same), [False, True, False])


@pytest.mark.parametrize("seed", range(3))
def test_local_score_matches_loops(seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_normal((25, 5)), 1)  # rounded: distance ties happen
    y = rng.integers(0, 3, 25)
    for i in range(0, 25, 4):
        feats = np.sort(rng.choice(5, size=int(rng.integers(1, 4)), replace=False))
        r, s = local_score(X, i, feats, y == y[i], 0.2)
        r_ref, s_ref = ref.score(X, list(y), i, list(feats), 0.2)
        assert r == pytest.approx(r_ref, rel=1e-12)
        assert s == pytest.approx(s_ref, abs=1e-12)


def test_first_iteration_weights_are_uniform():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((9, 4))
    y = np.array([0, 0, 0, 0, 1, 1, 1, 1, 1])
    same = y[:, None] == y[None, :]
    W = lfs_weights(X, same, np.zeros((9, 4), dtype=bool), sigma=1.0)
    np.testing.assert_allclose(W[0, 1:4], 1 / 3)
    np.testing.assert_allclose(W[0, 4:], 1 / 5)
    assert W[0, 0] == 0.0


@pytest.mark.parametrize("n_jobs", [None, 2])
def test_weights_match_loops(n_jobs):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((14, 6))
    y = rng.integers(0, 2, 14)
    y[:2] = [0, 1]
    support = rng.random((14, 6)) < 0.3
    support[3] = False  # an empty subset contributes weight 1 everywhere
    same = y[:, None] == y[None, :]
    W = lfs_weights(X, same, support, sigma=0.7, n_jobs=n_jobs)
    np.testing.assert_allclose(W, ref.weights(X, list(y), support, 0.7), atol=1e-12)
    a, b = class_distances(X, 2, same[2], W[2])
    same_j = [j for j in range(14) if y[j] == y[2] and j != 2]
    opp_j = [j for j in range(14) if y[j] != y[2]]
    a_ref = sum(W[2, j] * (X[2] - X[j]) ** 2 for j in same_j) / len(same_j)
    b_ref = sum(W[2, j] * (X[2] - X[j]) ** 2 for j in opp_j) / len(opp_j)
    np.testing.assert_allclose(a, a_ref, rtol=1e-12)
    np.testing.assert_allclose(b, b_ref, rtol=1e-12)


@pytest.mark.parametrize("kind", ["gaussian", "integer", "duplicates", "scaled"])
def test_nearest_votes_match_exact_differences(kind):
    """The Gram-screened votes equal votes on exactly computed distances, ties included."""
    rng = np.random.default_rng(["gaussian", "integer", "duplicates", "scaled"].index(kind))
    for k in (1, 4, 7, 19):
        if kind == "integer":  # binary/ternary data: many exact ties
            B = rng.integers(0, 3, (120, k)).astype(float)
        elif kind == "duplicates":
            B = np.repeat(rng.standard_normal((40, k)), 3, axis=0)
        elif kind == "scaled":  # large offset: Gram cancellation is severe
            B = 1e4 + rng.standard_normal((120, k)) * 1e-3
        else:
            B = rng.standard_normal((120, k))
        rows = rng.choice(len(B), 50, replace=False)
        same = rng.random(len(B)) < 0.5
        sq = subspace_sq_distances(B[rows], B)
        sq[np.arange(rows.size), rows] = np.inf
        expected = nn_votes(sq, same)
        got = nearest_votes(B[rows], B, same, exclude=rows)
        np.testing.assert_array_equal(got, expected)


def test_local_weights_over_all_points_match_lfs_weights():
    from ._reference_numpy import local_weights

    rng = np.random.default_rng(3)
    X = rng.standard_normal((25, 6))
    y = rng.integers(0, 3, 25)
    support = rng.random((25, 6)) < 0.4
    support[3] = False  # an empty subset among them
    same = y[:, None] == y[None, :]
    W = lfs_weights(X, same, support, sigma=0.7)
    for i in (0, 3, 17):
        w = local_weights(X, i, same[i], support, sigma=0.7)
        np.testing.assert_allclose(w, W[i], rtol=1e-10, atol=1e-14)


def test_weights_in_row_blocks_of_a_small_working_memory():
    """Eq. (10) weights do not depend on the working-memory budget (row blocks)."""
    import sklearn

    rng = np.random.default_rng(4)
    X = rng.standard_normal((300, 8))
    y = rng.integers(0, 3, 300)
    same = y[:, None] == y[None, :]
    support = rng.random((300, 8)) < 0.4
    whole = lfs_weights(X, same, support, sigma=1.0)
    with sklearn.config_context(working_memory=0.5):  # 0.5 MiB: 18-row blocks
        blocks = lfs_weights(X, same, support, sigma=1.0)
    np.testing.assert_allclose(blocks, whole, rtol=1e-12, atol=1e-15)
