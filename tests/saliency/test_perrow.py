"""The per-row kernels (localselect.saliency._perrow) against slow references."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.saliency._knockoffs import knockoff_threshold
from localselect.saliency._perrow import row_statistics, select_rows


def _select_slow(a, b, q, neighbors, offset):
    W = row_statistics(a, b)
    mask = np.zeros((len(neighbors), W.shape[1]), dtype=bool)
    for i in range(len(neighbors)):
        pool = W[neighbors[i]].ravel()
        t = knockoff_threshold(pool, q, offset=offset)
        mask[i] = (W[i] > 0) & (W[i] >= t)
    return mask


@pytest.mark.parametrize("seed", range(20))
def test_select_rows_matches_the_threshold_of_each_pool(monkeypatch, seed):
    from localselect.saliency import _perrow

    monkeypatch.setattr(_perrow, "_BLOCK", 50)  # blocks of a few rows, the last shorter
    rng = np.random.default_rng(seed)
    n, d, k = 13, int(rng.integers(1, 8)), int(rng.integers(1, 6))
    # rounded, so that ties and zero statistics occur
    a = np.round(np.abs(rng.normal(0.3, 1.0, (n, d))), 1)
    b = np.round(np.abs(rng.normal(0.0, 1.0, (n, d))), 1)
    neighbors = rng.integers(0, n, (n, k))
    for q, offset in ((0.1, 0), (0.2, 1), (0.5, 1)):
        np.testing.assert_array_equal(
            select_rows(a, b, q, neighbors=neighbors, offset=offset),
            _select_slow(a, b, q, neighbors, offset),
        )
    np.testing.assert_array_equal(
        select_rows(a, b, 0.3), _select_slow(a, b, 0.3, np.arange(n)[:, None], 1)
    )


def test_statistics_flip_sign_under_a_swap():
    rng = np.random.default_rng(0)
    a, b = rng.random((5, 4)), rng.random((5, 4))
    np.testing.assert_array_equal(row_statistics(a, b), -row_statistics(b, a))
    assert np.all(row_statistics(a, a) == 0)


def test_pooled_null_rows_keep_about_nothing():
    # Every pair null: a selection happens only when the coin flips line up, and its
    # false discovery proportion (1 whenever anything is kept) has mean <= fdr.
    rng = np.random.default_rng(1)
    fdp = []
    for _ in range(200):
        a, b = rng.exponential(size=(2, 30, 6))
        m = select_rows(a, b, 0.2, neighbors=np.tile(np.arange(30), (30, 1)))
        fdp.append(float(m.any()))
    assert np.mean(fdp) <= 0.2


def test_rows_after_the_selected_ones_serve_only_in_pools():
    rng = np.random.default_rng(4)
    a, b = rng.exponential(size=(2, 40, 5))
    a[:, :2] += 3.0
    neighbors = rng.integers(0, 40, (10, 8))
    m = select_rows(a, b, 0.2, neighbors=neighbors)
    assert m.shape == (10, 5)
    np.testing.assert_array_equal(m, _select_slow(a, b, 0.2, neighbors, 1)[:10])
    W = row_statistics(a, b)  # statistics from elsewhere, through their two parts
    np.testing.assert_array_equal(row_statistics(np.maximum(W, 0), np.maximum(-W, 0)), W)


def test_bh_rows_matches_the_step_up_rule():
    from localselect.saliency._perrow import bh_rows

    rng = np.random.default_rng(5)
    p = np.round(rng.random((50, 7)) ** 2, 2)
    got = bh_rows(p, 0.2)
    for i in range(50):
        order = np.argsort(p[i], kind="stable")
        k = max([r + 1 for r in range(7) if p[i, order[r]] <= 0.2 * (r + 1) / 7], default=0)
        expected = np.zeros(7, dtype=bool)
        expected[order[:k]] = True
        expected |= k > 0 and p[i] <= p[i, order[k - 1]]  # ties with the last kept
        np.testing.assert_array_equal(got[i], expected)


def test_loss_change_pvalues_pool_the_neighbours():
    from scipy.stats import norm

    from localselect.saliency._perrow import loss_change_pvalues

    rng = np.random.default_rng(6)
    D = rng.normal(0.0, 1.0, (30, 3))
    D[:, 0] += 2.0
    D[:, 2] = 0.0  # constant and not positive: p = 1
    nb = rng.integers(0, 30, (4, 9))
    p = loss_change_pvalues(D, nb)
    for i in range(4):
        x = D[nb[i], 1]
        assert np.isclose(p[i, 1], norm.sf(x.mean() / (x.std(ddof=1) / 3)))
    assert np.all(p[:, 0] < 0.01) and np.all(p[:, 2] == 1.0)


def test_loss_change_pvalues_in_blocks_equal_one_block(monkeypatch):
    from localselect.saliency import _perrow

    rng = np.random.default_rng(7)
    D = rng.normal(0.2, 1.0, (40, 4))
    nb = rng.integers(0, 40, (23, 6))
    whole = _perrow.loss_change_pvalues(D, nb)
    monkeypatch.setattr(_perrow, "_BLOCK", 50)  # two rows a block, the last one shorter
    np.testing.assert_allclose(_perrow.loss_change_pvalues(D, nb), whole, rtol=1e-12)


def _pool_slow(profiles, reference, support, reference_support, k, c, min_jaccard):
    pools = []
    for i, q in enumerate(profiles):
        dist = np.linalg.norm(reference - q, axis=1)
        edge = np.sort(dist)[c - 1]
        own = set(np.flatnonzero(support[i]))
        first = []
        for r in range(len(reference)):
            other = set(np.flatnonzero(reference_support[r]))
            union = own | other
            agree = not union or len(own & other) / len(union) >= min_jaccard
            first.append(agree and dist[r] <= edge and min_jaccard > 0)
        order = sorted(range(len(reference)), key=lambda r: (not first[r], dist[r]))
        pools.append(sorted(order[:k]))
    return np.array(pools, dtype=np.intp)


def _unit(rng, shape):
    v = rng.normal(size=shape)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(20))
def test_pool_rows_match_a_row_by_row_ordering(monkeypatch, seed):
    from localselect.saliency import _perrow

    monkeypatch.setattr(_perrow, "_BLOCK", 60)  # blocks of two rows, the last shorter
    rng = np.random.default_rng(seed)
    n, m, d = 11, 30, int(rng.integers(2, 6))  # d = 1 puts every profile at +-1: ties
    c = int(rng.integers(1, m + 1))
    k = int(rng.integers(1, c + 1))
    profiles, reference = _unit(rng, (n, d)), _unit(rng, (m, d))
    support = rng.random((n, d)) < 0.5
    reference_support = rng.random((m, d)) < 0.5
    reference_support[0] = False  # empty supports occur, and agree with each other
    for q in (0.0, 0.5, 0.8, 1.0):
        got = _perrow.pool_rows(profiles, reference, support, reference_support, k, c, q)
        np.testing.assert_array_equal(
            np.sort(got, axis=1),
            _pool_slow(profiles, reference, support, reference_support, k, c, q),
        )


def test_pool_rows_keep_a_regime_apart():
    # Two regimes of reference rows interleaved by distance: a row of regime A pools A's
    # rows while enough are among its candidates, and the nearest others only to fill up.
    from localselect.saliency._perrow import pool_rows

    angle = np.linspace(0.0, 1.0, 12)
    reference = np.column_stack([np.cos(angle), np.sin(angle)])
    support = np.array([[True, True, False, False]])
    regimes = np.array([[True, True, False, False], [False, False, True, True]])
    got = pool_rows(reference[:1], reference, support, regimes[np.arange(12) % 2], 8, 12, 0.8)
    np.testing.assert_array_equal(np.sort(got[0]), [0, 1, 2, 3, 4, 6, 8, 10])
    # with 8 candidates only rows 0-7 can come first: 0 2 4 6, then the nearest others
    got = pool_rows(reference[:1], reference, support, regimes[np.arange(12) % 2], 6, 8, 0.8)
    np.testing.assert_array_equal(np.sort(got[0]), [0, 1, 2, 3, 4, 6])
