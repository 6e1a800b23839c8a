"""Shared pairwise kernels: blocks cover every pair once, softmax is stable and exact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect._pairwise import (
    PairDiffs,
    abs_diff,
    hit_miss_masks,
    masked_softmax,
    row_chunks,
)


@given(st.integers(1, 200), st.integers(1, 10_000), st.floats(1e-4, 2.0))
def test_row_chunks_cover_rows_in_order(n_rows, bytes_per_row, budget):
    slices = row_chunks(n_rows, bytes_per_row, budget)
    covered = np.concatenate([np.arange(s.start, s.stop) for s in slices])
    np.testing.assert_array_equal(covered, np.arange(n_rows))
    assert all(s.stop > s.start for s in slices)


def test_abs_diff_matches_loops():
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(4, 3)), rng.normal(size=(5, 3))
    D = abs_diff(X, Y)
    for i in range(4):
        for j in range(5):
            np.testing.assert_array_equal(D[i, j], np.abs(X[i] - Y[j]))


@given(st.integers(2, 40), st.integers(1, 6), st.floats(1e-5, 0.05), st.booleans())
def test_pair_blocks_visit_each_pair_once(n, a, block_mib, cache):
    rng = np.random.default_rng(n * 7 + a)
    X = rng.normal(size=(n, a))
    pairs = PairDiffs(X, block_memory=block_mib, working_memory=1.0 if cache else 0.0)
    seen = np.zeros((n, n), dtype=int)
    for k in range(len(pairs)):
        ii, jj = pairs.blocks[k]
        assert np.all(ii < jj)
        np.add.at(seen, (ii, jj), 1)
        np.testing.assert_array_equal(pairs.diffs(k), np.abs(X[ii] - X[jj]))
        # a second call returns the same values (from the cache when cached)
        np.testing.assert_array_equal(pairs.diffs(k), np.abs(X[ii] - X[jj]))
    np.testing.assert_array_equal(seen, np.triu(np.ones((n, n), dtype=int), 1))
    assert pairs.n_pairs == n * (n - 1) // 2
    assert pairs.cached == (cache and pairs.n_pairs * a * 8 <= 2**20)


def test_hit_miss_masks_exclude_self():
    codes = np.array([0, 1, 0, 2, 1])
    hits, misses = hit_miss_masks(codes, slice(1, 4))
    np.testing.assert_array_equal(hits, [[0, 0, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(misses, [[1, 0, 1, 1, 0], [0, 1, 0, 1, 1], [1, 1, 1, 0, 1]])


@given(
    st.lists(st.floats(-50, 50), min_size=2, max_size=8),
    st.lists(st.booleans(), min_size=8, max_size=8),
)
def test_masked_softmax_matches_naive(values, mask_bits):
    logits = np.array(values)[None, :]
    mask = np.array(mask_bits[: logits.shape[1]])[None, :]
    mask[0, 0] = True
    res = masked_softmax(logits, mask)
    e = np.where(mask, np.exp(logits), 0.0)
    p = e / e.sum()
    np.testing.assert_allclose(res.probs, p, rtol=1e-12, atol=1e-300)
    nz = p > 0
    np.testing.assert_allclose(res.entropy, [-(p[nz] * np.log(p[nz])).sum()], atol=1e-12)
    np.testing.assert_allclose(res.log_norm, [np.log(e.sum())], rtol=1e-12, atol=1e-12)


def test_masked_softmax_extreme_logits_stay_finite():
    # exp(-q / sigma) with q ~ 1e3 and sigma = 1e-3 underflows to 0 in a naive
    # softmax (0 / 0 = NaN, as in the R package); log-sum-exp keeps it exact.
    logits = -np.array([[1e6, 1e6 + 1.0, 2e6]])
    res = masked_softmax(logits, np.ones_like(logits, dtype=bool))
    assert np.all(np.isfinite(res.probs))
    np.testing.assert_allclose(
        res.probs, [[1 / (1 + np.exp(-1)), np.exp(-1) / (1 + np.exp(-1)), 0]]
    )
    assert np.isfinite(res.entropy).all() and np.isfinite(res.log_norm).all()


def test_masked_softmax_single_entry_has_zero_entropy():
    res = masked_softmax(np.array([[3.0, -1.0]]), np.array([[False, True]]))
    np.testing.assert_array_equal(res.probs, [[0.0, 1.0]])
    assert res.entropy[0] == pytest.approx(0.0)


def test_row_chunks_follow_sklearn_working_memory():
    from sklearn import config_context

    from localselect._pairwise import DEFAULT_BLOCK_MEMORY, default_block_memory

    row = 2**16  # 64 KiB per row
    default = row_chunks(10_000, row)
    assert default_block_memory() == DEFAULT_BLOCK_MEMORY
    assert default[0].stop == DEFAULT_BLOCK_MEMORY * 16
    with config_context(working_memory=1):
        small = row_chunks(10_000, row)
        assert default_block_memory() == 1
    assert small[0].stop == 16
    assert len(small) == -(-10_000 // 16) > len(default)
    # An explicit budget wins over the configuration.
    with config_context(working_memory=1):
        assert row_chunks(10_000, row, working_memory=4)[0].stop == 64


def test_pair_diffs_blocks_follow_sklearn_working_memory():
    from sklearn import config_context

    from localselect._pairwise import PairDiffs

    X = np.random.default_rng(0).normal(size=(300, 40))
    with config_context(working_memory=1):
        bounded = PairDiffs(X)
    unbounded = PairDiffs(X, block_memory=64)
    assert len(bounded.blocks) > len(unbounded.blocks)
