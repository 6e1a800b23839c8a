"""KnockoffSampler, knockoff_s and RowKeyedRandom."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.saliency._knockoffs import (
    KnockoffSampler,
    NoKnockoffPowerWarning,
    RowKeyedRandom,
    gaussian_knockoffs,
    knockoff_s,
)


def test_maxent_s_is_feasible_and_beats_equicorrelated_off_the_collinear_pair():
    C = np.eye(8)
    C[0, 1] = C[1, 0] = 0.95
    eq, me = knockoff_s(C, "equicorrelated"), knockoff_s(C, "maxent")
    assert np.allclose(eq, eq[0]) and eq[0] == pytest.approx(0.1 * 0.999)
    assert np.linalg.eigvalsh(2 * C - np.diag(me))[0] >= -1e-10
    assert me[2:].min() > 0.99  # independent columns keep s = 1
    assert me[:2].max() < 0.1  # the pair cannot do better than 2 (1 - r)


def test_equicorrelated_default_unchanged():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((50, 4))
    cov = np.cov(X.T)
    a = gaussian_knockoffs(X, cov, np.random.RandomState(1))
    b = gaussian_knockoffs(X, cov, np.random.RandomState(1), s=knockoff_s(cov, "equicorrelated"))
    np.testing.assert_allclose(a, b, rtol=1e-12)


def test_copula_knockoffs_keep_marginals_and_covariance():
    rng = np.random.RandomState(0)
    n = 20000
    G = rng.multivariate_normal(np.zeros(4), 0.5 * np.eye(4) + 0.5, n)
    X = np.column_stack([G[:, 0], np.exp(G[:, 1]), (G[:, 2] > 0.3).astype(float), G[:, 3]])
    sampler = KnockoffSampler().fit(X, rng)
    K = sampler.sample(X, rng)
    assert set(np.unique(K[:, 2])) <= {0.0, 1.0}
    assert K[:, 2].mean() == pytest.approx(X[:, 2].mean(), abs=0.02)
    assert np.median(K[:, 1]) == pytest.approx(np.median(X[:, 1]), rel=0.05)
    Cj = np.corrcoef(np.hstack([X, K]).T)
    # exchangeability of the second moments: corr(x0, x3) ~ corr(k0, k3) ~ corr(x0, k3)
    assert Cj[0, 3] == pytest.approx(Cj[4, 7], abs=0.03)
    assert Cj[0, 3] == pytest.approx(Cj[0, 7], abs=0.03)


def test_exact_collinearity_warns_no_power():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((500, 5))
    X[:, 0] = -(X[:, 1] + X[:, 2])
    with pytest.warns(NoKnockoffPowerWarning, match="nearly determined"):
        sampler = KnockoffSampler().fit(X, rng)
    assert {0, 1, 2} >= set(sampler.no_power_.tolist()) and sampler.no_power_.size >= 1


def test_row_keyed_draws_follow_the_rows():
    X = np.random.RandomState(0).standard_normal((30, 3))
    perm = np.random.RandomState(1).permutation(30)
    a = RowKeyedRandom(X, 5).standard_normal((30, 4))
    b = RowKeyedRandom(X[perm], 5).standard_normal((30, 4))
    np.testing.assert_array_equal(a[perm], b)
    assert not np.array_equal(a, RowKeyedRandom(X, 6).standard_normal((30, 4)))
    assert abs(a.mean()) < 0.4 and 0.6 < a.std() < 1.4
