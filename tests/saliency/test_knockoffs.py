"""Gaussian knockoffs, the knockoff(+) threshold, the shrunk covariance and the
second-order statistic (localselect.saliency._knockoffs) against slow references."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.saliency._knockoffs import (
    gaussian_knockoffs,
    knockoff_threshold,
    knockoff_thresholds,
    second_order_statistic,
    shrunk_covariance,
)


def _threshold_slow(W, q, offset):
    for t in sorted({abs(w) for w in W if w != 0}):
        neg = sum(1 for w in W if w <= -t)
        pos = sum(1 for w in W if w >= t)
        if (offset + neg) / max(1, pos) <= q:
            return t
    return np.inf


@pytest.mark.parametrize("seed", range(30))
def test_knockoff_threshold_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    W = np.round(rng.normal(0.3, 1.0, size=rng.integers(1, 25)), 1)
    for q, offset in ((0.1, 0), (0.2, 0), (0.3, 1)):
        assert knockoff_threshold(W, q, offset=offset) == _threshold_slow(W, q, offset)


@pytest.mark.parametrize("seed", range(10))
def test_knockoff_thresholds_of_a_batch_are_each_rows_threshold(seed):
    # One implementation: the batch form row by row, ties and zeros included, and rows of
    # no statistics (nothing qualifies: inf)
    rng = np.random.default_rng(seed)
    W = np.round(rng.normal(0.3, 1.0, size=(12, int(rng.integers(1, 25)))), 1)
    for q, offset in ((0.1, 0), (0.3, 1)):
        t = knockoff_thresholds(W, q, offset=offset)
        assert t.shape == (12,)
        np.testing.assert_array_equal(t, [_threshold_slow(w, q, offset) for w in W])
    assert np.all(knockoff_thresholds(np.zeros((3, 0)), 0.1) == np.inf)
    assert knockoff_threshold(np.zeros(4), 0.1) == np.inf


def test_shrunk_covariance_is_ledoit_wolf_with_a_ridge():
    from sklearn.covariance import LedoitWolf

    Z = np.random.default_rng(0).standard_normal((50, 4))
    expected = LedoitWolf(store_precision=False).fit(Z).covariance_ + 1e-9 * np.eye(4)
    np.testing.assert_array_equal(shrunk_covariance(Z), expected)


def test_second_order_statistic_matches_the_loop():
    rng = np.random.default_rng(1)
    n, d = 60, 3
    X, K = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    Y = np.eye(3)[rng.integers(0, 3, n)]
    Z = np.hstack([X, K])
    Z = (Z - Z.mean(0)) / Z.std(0)
    Yc = Y - Y.mean(0)
    T = np.zeros(2 * d)
    for j in range(2 * d):
        best = 0.0
        for c in range(3):
            best = max(best, abs(np.mean(Yc[:, c] * Z[:, j])))
            for k in range(2 * d):
                if k != (j + d) % (2 * d):
                    best = max(best, abs(np.mean(Yc[:, c] * Z[:, j] * Z[:, k])))
        T[j] = best
    np.testing.assert_allclose(second_order_statistic(X, K, Y), T[:d] - T[d:], rtol=1e-12)


def test_knockoffs_have_the_knockoff_covariance():
    rng = np.random.RandomState(0)
    cov = np.array([[1.0, 0.5, 0.2], [0.5, 2.0, 0.3], [0.2, 0.3, 1.5]])
    X = rng.multivariate_normal(np.zeros(3), cov, size=200_000)
    K = gaussian_knockoffs(X, cov, rng)
    joint = np.cov(np.hstack([X, K]).T)
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    s = min(1.0, 2 * np.linalg.eigvalsh(corr)[0]) * 0.999
    D = np.diag(s * sd**2)
    np.testing.assert_allclose(joint[3:, 3:], cov, atol=0.03)
    np.testing.assert_allclose(joint[:3, 3:], cov - D, atol=0.03)
