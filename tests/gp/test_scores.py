"""Eq. (3) scores and the KL discriminative power against loops and quadrature."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.integrate import quad
from scipy.stats import norm

from localselect.gp import discriminative_scores, gaussian_kl
from localselect.gp._scores import raw_discriminative_scores

from ._reference import scores_reference


@given(
    arrays(np.float64, (14, 3), elements=st.floats(-3, 3, allow_subnormal=False)),
    st.integers(2, 3),
)
def test_raw_scores_match_loops(X, n_classes):
    y = np.arange(14) % n_classes
    np.testing.assert_allclose(
        raw_discriminative_scores(X, y), scores_reference(X, y), rtol=1e-10, atol=1e-13
    )


def test_discrete_features_use_the_01_distance():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 3, 20) * 10.0, rng.normal(size=20)])
    y = np.arange(20) % 2
    discrete = np.array([True, False])
    np.testing.assert_allclose(
        raw_discriminative_scores(X, y, discrete), scores_reference(X, y, discrete), atol=1e-13
    )


def test_jobs_do_not_change_any_bit_and_blocks_only_the_summation_order():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 5)), np.arange(60) % 3
    one = raw_discriminative_scores(X, y, working_memory=0.01)
    # Promised on every machine: the row blocks depend on working_memory only, never on
    # n_jobs, so the same matrix products run whatever the number of jobs.
    np.testing.assert_array_equal(
        raw_discriminative_scores(X, y, n_jobs=2, working_memory=0.01), one
    )
    # Another block size multiplies matrices of another shape: the BLAS kernel of the CPU
    # may sum in another order (1 ulp apart on some machines), so only a tolerance holds.
    # A score is a difference of sums of order 1 that can cancel to 1e-6, so the rounding
    # of the terms (1e-16) is also allowed in absolute terms.
    np.testing.assert_allclose(raw_discriminative_scores(X, y), one, rtol=1e-12, atol=1e-14)


def test_hand_worked_discriminative_feature():
    # Feature 0 separates the classes (distance 0.1 within, about 3 across); feature 1
    # interleaves them. Raw score of point 0, feature 0:
    # sqrt(2 pi) * (K(0.1) - (K(3.0) + K(3.1)) / 2)
    #   = exp(-0.005) - (exp(-4.5) + exp(-4.805)) / 2 = 0.995012 - 0.009648 = 0.985364.
    X = np.array([[0.0, 5.0], [0.1, 3.0], [3.0, 4.0], [3.1, 6.0]])
    scores = discriminative_scores(X, np.array([0, 0, 1, 1]))
    np.testing.assert_allclose(scores[0, 0], 0.985364, atol=1e-6)
    np.testing.assert_array_equal(scores[:, 1], 0.0)  # negative raw scores clip to 0


@pytest.mark.parametrize("scaling", ["unit", "minmax"])
def test_constant_feature_scores_zero_and_range(scaling):
    rng = np.random.default_rng(2)
    X = np.column_stack([np.full(30, 7.0), rng.normal(size=(30, 2))])
    scores = discriminative_scores(X, np.arange(30) % 2, scaling=scaling)
    assert np.all(np.isfinite(scores))
    np.testing.assert_array_equal(scores[:, 0], 0.0)
    assert scores.min() >= 0.0 and scores.max() <= 1.0
    if scaling == "minmax":
        np.testing.assert_allclose(scores[:, 1:].max(axis=0), 1.0)


@pytest.mark.parametrize(
    ("mu", "var", "mu0", "var0"), [(0.3, 0.02, 0.0, 0.01), (1.0, 2.0, -1.0, 0.5)]
)
def test_gaussian_kl_matches_quadrature(mu, var, mu0, var0):
    p, q = norm(mu, np.sqrt(var)), norm(mu0, np.sqrt(var0))
    expected, _ = quad(lambda t: p.pdf(t) * (p.logpdf(t) - q.logpdf(t)), -20, 20, points=[mu])
    np.testing.assert_allclose(gaussian_kl(mu, var, mu0, var0), expected, rtol=1e-7)
    assert gaussian_kl(mu0, var0, mu0, var0) == 0.0


def test_many_labelings_match_separate_calls():
    # Several labelings share the kernel matrix; -1 leaves points out entirely.
    rng = np.random.default_rng(1)
    X = np.round(rng.normal(size=(24, 3)), 1)  # repeated values
    y = np.arange(24) % 3
    keep = np.arange(24) % 4 != 0
    part = np.where(keep, y, -1)
    perm = y[rng.permutation(24)]
    out = raw_discriminative_scores(X, np.vstack([y, part, perm]))
    assert out.shape == (3, 24, 3)
    np.testing.assert_allclose(out[0], scores_reference(X, y), rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(out[1][keep], scores_reference(X[keep], y[keep]), atol=1e-13)
    assert np.all(out[1][~keep] == 0)
    np.testing.assert_allclose(out[2], scores_reference(X, perm), rtol=1e-10, atol=1e-13)


@given(st.integers(0, 10_000), st.sampled_from(["normal", "heavy", "rounded"]))
def test_series_matches_the_kernel_matrix(seed, kind):
    # The fast Gauss transform of eq. (3)'s kernel sums against the (U, U) kernel
    # matrix: within 1e-16 of the kernel's peak per point (module constants), so
    # within 1e-13 on the averages of eq. (3), whatever the spread of the values.
    from localselect.gp._scores import _feature_scores

    rng = np.random.default_rng(seed)
    n = 600
    x = {
        "normal": rng.normal(size=n),
        "heavy": rng.standard_t(1.2, size=n) * 3.0,
        "rounded": np.round(rng.uniform(-6, 6, size=n), 1),
    }[kind]
    labels = rng.integers(0, 3, size=(3, n))
    labels[1, rng.random(n) < 0.3] = -1  # left-out points, as in the inner folds
    exact = _feature_scores(x, labels, 3, False, None, series_min_values=10**9)
    series = _feature_scores(x, labels, 3, False, None, series_min_values=0)
    np.testing.assert_allclose(series, exact, rtol=0, atol=1e-13)
    # and both against the loops of the reference, for the real labels
    ref = scores_reference(x[:80, None], labels[0, :80])[:, 0]
    small = _feature_scores(x[:80], labels[:1, :80], 3, False, None, series_min_values=0)
    np.testing.assert_allclose(small[0], ref, rtol=0, atol=1e-13)


def test_large_feature_takes_the_series_path(monkeypatch):
    # Past SERIES_MIN_VALUES distinct values the kernel matrix is never built.
    from localselect.gp import _scores

    def fail(*args, **kwargs):
        raise AssertionError("kernel matrix built")

    monkeypatch.setattr(_scores, "_gauss_sums_exact", fail)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(_scores.SERIES_MIN_VALUES + 1, 2))
    y = (X[:, 0] > 0).astype(np.intp)
    raw = raw_discriminative_scores(X, y)
    assert raw[:, 0].mean() > 0.05 > abs(raw[:, 1].mean())
