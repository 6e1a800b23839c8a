"""Nulls: p-values uniform under a null table; the vectorised permutations equal refits."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from localselect.evidence import (
    NullResult,
    empirical_pvalues,
    feature_pvalues,
    permutation_null,
    shadow_null,
)
from localselect.filters import FisherScore, fisher_score
from localselect.filters._fisher import fisher_score_permuted
from localselect.margin import Relief

#: A KS test at this level fails by chance at most once in 1,000 runs.
KS_LEVEL = 1e-3


def randomised(p, n_draws, rng):
    """Spread a grid p-value (k / (n_draws + 1)) uniformly over its grid cell: exactly U(0, 1)
    under the null when the observed score is exchangeable with the draws (no ties)."""
    return p - rng.random(np.shape(p)) / (n_draws + 1)


def null_table_pvalues(null, n_tables, n_features, n_classes, seed):
    """Feature 0's p-value on ``n_tables`` independent null tables (labels ignore X):
    one feature per table, so the p-values are independent draws."""
    rng = np.random.default_rng(seed)
    pvals = []
    for t in range(n_tables):
        X = rng.normal(size=(30, n_features))
        y = rng.integers(0, n_classes, 30)
        y[: 2 * n_classes] = np.repeat(np.arange(n_classes), 2)  # every class present
        pvals.append(empirical_pvalues(null(X, y, t))[0])
    return np.array(pvals), rng


def test_permutation_pvalues_uniform_under_null():
    B = 99
    pvals, rng = null_table_pvalues(
        lambda X, y, t: permutation_null(FisherScore(), X, y, n_permutations=B, random_state=t),
        600, 3, 3, seed=0,
    )  # fmt: skip
    assert stats.kstest(randomised(pvals, B, rng), "uniform").pvalue > KS_LEVEL


def test_shadow_pvalues_uniform_under_null():
    # One round: a null feature's Relief weight is exchangeable with its p shadows' weights.
    pvals, rng = null_table_pvalues(
        lambda X, y, t: shadow_null(Relief(), X, y, n_rounds=1, random_state=t), 500, 4, 2, seed=1
    )
    assert stats.kstest(randomised(pvals, 4, rng), "uniform").pvalue > KS_LEVEL


def test_shadow_rounds_stay_valid():
    # Several rounds: P(p <= u) <= u (within a binomial 1-in-1000 margin) at a few levels.
    pvals, _ = null_table_pvalues(
        lambda X, y, t: shadow_null(Relief(), X, y, n_rounds=5, random_state=t), 300, 5, 2, seed=2
    )
    for level in (0.05, 0.1, 0.25, 0.5):
        bound = stats.binom.ppf(1 - KS_LEVEL, len(pvals), level)
        assert (pvals <= level).sum() <= bound


def test_fisher_permuted_equals_loop():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(25, 6))
    X[:, 5] = 1.0  # constant feature scores 0 for every labelling
    codes = np.stack([rng.permutation(np.arange(25) % 3) for _ in range(7)])
    fast = fisher_score_permuted(X, codes)
    slow = np.stack([fisher_score(X, c) for c in codes])
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=0)


def test_permutation_null_fast_path_equals_refits():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 5))
    y = rng.integers(0, 2, 40)

    class Refit(FisherScore):
        _permuted_scores = None  # forces one refit per permutation

    fast = permutation_null(FisherScore(), X, y, n_permutations=20, random_state=0)
    slow = permutation_null(Refit(), X, y, n_permutations=20, random_state=0)
    np.testing.assert_allclose(fast.null, slow.null, rtol=1e-12)
    np.testing.assert_allclose(fast.scores, slow.scores, rtol=1e-12)


def test_feature_pvalues_finds_signal_and_rejects_bad_null():
    rng = np.random.default_rng(5)
    y = np.repeat([0, 1], 40)
    X = np.c_[2 * y + rng.normal(size=80), rng.normal(size=(80, 4))]
    for null in ("permutation", "shadow"):
        p, result = feature_pvalues(Relief(), X, y, null=null, random_state=0)
        assert p[0] == p.min() and p[0] < 0.02
        assert result.method == null
    with pytest.raises(ValueError, match="null must be"):
        feature_pvalues(Relief(), X, y, null="knockoff")


def test_pvalue_formulas_by_hand():
    # Phipson and Smyth's (b + 1) / (B + 1), b = #{null draws >= observed}; counted by hand.
    scores = np.array([3.0, 0.0, 5.0])
    null = np.array([[1.0, 1.0, 1.0], [4.0, -1.0, 1.0], [2.0, 0.0, 1.0]])
    # per feature: b = (1, 2, 0) of B = 3 -> (2/4, 3/4, 1/4); a rule like max(b, 0.5) / B
    # gives (1/3, 2/3, 1/6) and fails here
    p = empirical_pvalues(NullResult(scores, null, "permutation"))
    np.testing.assert_allclose(p, [2 / 4, 3 / 4, 1 / 4], rtol=1e-12)
    # pooled over the 9 draws: b = (1, 8, 0) -> (2/10, 9/10, 1/10)
    p = empirical_pvalues(NullResult(scores, null, "pooled-permutation"))
    np.testing.assert_allclose(p, [2 / 10, 9 / 10, 1 / 10], rtol=1e-12)
    # shadows: each round's real score against that round's shadows, summed over rounds.
    # round 0: real (3, 0, 5) vs shadows (1, 1, 1): b = (0, 3, 0);
    # round 1: real (1, 2, 0) vs shadows (4, -1, 1): b = (2, 1, 2); R p = 6
    rounds = np.array([[3.0, 0.0, 5.0], [1.0, 2.0, 0.0]])
    shadow = NullResult(rounds.mean(axis=0), null[:2], "shadow", rounds)
    np.testing.assert_allclose(empirical_pvalues(shadow), [3 / 7, 5 / 7, 3 / 7], rtol=1e-12)


def test_incomplete_null_result_raises():
    # a shadow result without per-round scores must not fall back to the
    # permutation formula (the mean score against single-round draws)
    scores, null = np.array([3.0, 0.0]), np.array([[1.0, 1.0], [4.0, -1.0]])
    with pytest.raises(ValueError, match="'shadow' NullResult needs round_scores"):
        empirical_pvalues(NullResult(scores, null, "shadow"))
    with pytest.raises(ValueError, match="method must be"):
        empirical_pvalues(NullResult(scores, null, "knockoff"))


def test_pooled_permutation_null_pools_the_refits():
    rng = np.random.default_rng(6)
    y = np.repeat([0, 1], 30)
    X = np.c_[3 * y + rng.normal(size=60), rng.normal(size=(60, 4))]
    p, result = feature_pvalues(
        FisherScore(), X, y, null="pooled-permutation", n_draws=10, random_state=0
    )
    plain = permutation_null(FisherScore(), X, y, n_permutations=10, random_state=0)
    np.testing.assert_allclose(result.null, plain.null, rtol=1e-12)  # the same refits, pooled
    assert result.method == "pooled-permutation" and p[0] == 1 / 51  # beats all 50 draws
