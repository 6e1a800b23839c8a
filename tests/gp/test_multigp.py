"""The shared-kernel multi-output GP against scikit-learn and from-scratch references."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.optimize import check_grad
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from localselect.gp import (
    fit_hyperparameters,
    fit_posterior,
    greedy_max_variance,
    log_marginal_likelihood,
)
from localselect.gp._multigp import jittered_cholesky, se_kernel

from ._reference import greedy_reference, kernel_reference

hypers = st.tuples(st.floats(0.3, 5.0), st.floats(0.05, 3.0), st.floats(1e-3, 0.5)).map(np.array)


def _data(seed, n=25, d=3, m=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = np.column_stack([np.sin(X @ rng.normal(size=d)) for _ in range(m)])
    Y += 0.05 * rng.normal(size=Y.shape)
    return X, Y, rng.normal(size=(10, d))


def _sklearn_gpr(hyper):
    kernel = ConstantKernel(hyper[1], "fixed") * RBF(hyper[0], "fixed") + WhiteKernel(
        hyper[2], "fixed"
    )
    return GaussianProcessRegressor(kernel, alpha=0.0, optimizer=None, normalize_y=False)


def test_kernel_matches_loops():
    X, _, Xq = _data(0)
    hyper = np.array([1.3, 0.7, 0.1])
    np.testing.assert_allclose(se_kernel(Xq, X, hyper), kernel_reference(Xq, X, hyper), rtol=1e-12)


@given(st.integers(0, 10_000), hypers)
def test_posterior_matches_sklearn_feature_by_feature(seed, hyper):
    X, Y, Xq = _data(seed)
    mean = Y.mean(axis=0)
    gp = fit_posterior(X, Y, mean, hyper)
    means, variance = gp.predict(Xq)
    for j in range(Y.shape[1]):
        ref = _sklearn_gpr(hyper).fit(X, Y[:, j] - mean[j])
        mu, std = ref.predict(Xq, return_std=True)
        np.testing.assert_allclose(means[:, j], mu + mean[j], rtol=0, atol=1e-8)
        np.testing.assert_allclose(variance, std**2, rtol=0, atol=1e-8)


@given(st.integers(0, 10_000), hypers)
def test_summed_lml_matches_sklearn(seed, hyper):
    X, Y, _ = _data(seed)
    ours = log_marginal_likelihood(np.log(hyper), X, Y)
    ref = sum(_sklearn_gpr(hyper).fit(X, Y[:, j]).log_marginal_likelihood_value_ for j in range(4))
    np.testing.assert_allclose(ours, ref, rtol=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_lml_gradient(seed):
    X, Y, _ = _data(seed)
    x0 = np.log([1.1, 0.8, 0.05]) + 0.3 * np.random.default_rng(seed).normal(size=3)
    err = check_grad(
        lambda t: log_marginal_likelihood(t, X, Y),
        lambda t: log_marginal_likelihood(t, X, Y, eval_gradient=True)[1],
        x0,
    )
    scale = np.linalg.norm(log_marginal_likelihood(x0, X, Y, eval_gradient=True)[1])
    assert err < 1e-5 * max(scale, 1.0)


def test_fit_hyperparameters_increases_lml_and_matches_sklearn_optimum():
    X, Y, _ = _data(3, n=40)
    start = np.array([3.0, 0.2, 0.2])
    res = fit_hyperparameters(X, Y, start)
    assert res.lml > log_marginal_likelihood(np.log(start), X, Y) + 1.0
    # One output: sklearn's own optimiser (L-BFGS-B, log space) finds the same optimum.
    kernel = ConstantKernel(0.2, (1e-6, 1e2)) * RBF(3.0, (1e-2, 1e3)) + WhiteKernel(
        0.2, (1e-8, 1e1)
    )
    ref = GaussianProcessRegressor(kernel, alpha=0.0).fit(X, Y[:, 0])
    ours = fit_hyperparameters(X, Y[:, :1], start)
    np.testing.assert_allclose(ours.lml, ref.log_marginal_likelihood_value_, rtol=1e-5)


@given(st.integers(0, 10_000), hypers)
def test_incremental_greedy_matches_from_scratch(seed, hyper):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3))
    Y = rng.normal(size=(30, 2))
    Xh, Yh = rng.normal(size=(8, 3)), rng.normal(size=(8, 2))
    sel = greedy_max_variance(X, Y, Xh, Yh, hyper, max_observations=12, patience=10**6)
    order, mse = greedy_reference(X, Y, Xh, Yh, hyper, 12)
    np.testing.assert_array_equal(sel.order, order)
    np.testing.assert_allclose(sel.mse, mse, rtol=1e-7, atol=1e-10)
    assert sel.n_selected == 1 + int(np.argmin(mse[1:]))


def test_greedy_stops_and_keeps_the_best_prefix():
    # Pure-noise targets fitted with little noise: more observations only overfit.
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 3))
    Xh, Yh = X[::4], Y[::4]
    cand = np.setdiff1d(np.arange(200), np.arange(0, 200, 4))
    sel = greedy_max_variance(X[cand], Y[cand], Xh, Yh, np.array([1.0, 0.5, 0.01]))
    assert 20 <= sel.order.size < cand.size  # the doubling rule fired
    assert sel.n_selected <= sel.order.size // 2
    assert sel.mse[sel.n_selected] == sel.mse[1:].min()
    # Without held-out points every allowed candidate is taken.
    all_sel = greedy_max_variance(
        X[cand], Y[cand], Xh[:0], Yh[:0], np.array([1.0, 0.5, 0.01]), max_observations=7
    )
    assert all_sel.n_selected == all_sel.order.size == 7


def test_greedy_min_observations_bounds_the_kept_prefix():
    # Same pure-noise case: the rule alone keeps few points; with a floor of 60 the
    # rule is checked from 60 points on and at least 60 are kept.
    rng = np.random.default_rng(5)
    X, Y = rng.normal(size=(200, 2)), rng.normal(size=(200, 3))
    Xh, Yh = X[::4], Y[::4]
    cand = np.setdiff1d(np.arange(200), np.arange(0, 200, 4))
    hyper = np.array([1.0, 0.5, 0.01])
    free = greedy_max_variance(X[cand], Y[cand], Xh, Yh, hyper)
    assert free.n_selected < 30
    sel = greedy_max_variance(X[cand], Y[cand], Xh, Yh, hyper, min_observations=60)
    assert sel.n_selected == 60 == sel.order.size  # best prefix below 30: stop at 60
    np.testing.assert_array_equal(sel.order[: free.order.size], free.order)
    np.testing.assert_allclose(sel.mse[: free.mse.size], free.mse)
    # A floor above the candidates keeps them all.
    few = greedy_max_variance(X[cand[:30]], Y[cand[:30]], Xh, Yh, hyper, min_observations=500)
    assert few.n_selected == few.order.size == 30


def test_jittered_cholesky_handles_singular_matrix():
    X = np.zeros((5, 2))  # identical points: rank-one covariance without noise
    K = se_kernel(X, X, np.array([1.0, 1.0, 0.0]))
    L = jittered_cholesky(K)
    np.testing.assert_allclose(L @ L.T, K, atol=1e-6)
    assert np.all(np.isfinite(L))


@given(st.integers(0, 10_000), hypers)
def test_leave_one_out_posterior_matches_refits(seed, hyper):
    from localselect.gp import fit_posterior

    X, Y, _ = _data(seed, n=12)
    mean = Y.mean(axis=0)
    gp = fit_posterior(X, Y, mean, hyper)
    loo_means, loo_var = gp.predict_loo()
    for i in (0, 5, 11):
        keep = np.arange(12) != i
        m, v = fit_posterior(X[keep], Y[keep], mean, hyper).predict(X[i : i + 1])
        np.testing.assert_allclose(loo_means[i], m[0], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(loo_var[i], v[0], rtol=1e-6, atol=1e-10)
