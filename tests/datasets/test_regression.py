"""The regression generators against scikit-learn and the LSPIN notebooks' formulas."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import make_friedman1, make_friedman2, make_friedman3

from localselect.datasets import (
    make_friedman_synthetic,
    make_lspin_synthetic,
    make_switch_regression,
)


@pytest.mark.parametrize("design", [1, 2, 3])
def test_friedman_is_scikit_learns_plus_noise_columns(design):
    X, y, relevant = make_friedman_synthetic(200, design, n_noise=6, random_state=0)
    n_relevant = 5 if design == 1 else 4
    assert X.shape == (200, n_relevant + 6)
    assert relevant.all(axis=0).tolist() == [True] * n_relevant + [False] * 6
    if design == 1:
        X_ref, y_ref = make_friedman1(200, n_features=11, noise=1.0, random_state=0)
        np.testing.assert_array_equal(X, X_ref)
    else:
        maker = make_friedman2 if design == 2 else make_friedman3
        X_ref, y_ref = maker(200, noise=125.0 if design == 2 else 0.1, random_state=0)
        np.testing.assert_array_equal(X[:, :4], X_ref)
        assert np.all((X[:, 4:] >= 0) & (X[:, 4:] <= 1))
    np.testing.assert_array_equal(y, y_ref)
    x, y0, _ = make_friedman_synthetic(200, design, n_noise=0, noise=0.0, random_state=1)
    if design == 1:
        expected = (
            10 * np.sin(np.pi * x[:, 0] * x[:, 1])
            + 20 * (x[:, 2] - 0.5) ** 2
            + 10 * x[:, 3]
            + 5 * x[:, 4]
        )
    elif design == 2:
        expected = np.sqrt(x[:, 0] ** 2 + (x[:, 1] * x[:, 2] - 1 / (x[:, 1] * x[:, 3])) ** 2)
    else:
        expected = np.arctan((x[:, 1] * x[:, 2] - 1 / (x[:, 1] * x[:, 3])) / x[:, 0])
    np.testing.assert_allclose(y0, expected)


def test_switch_regression_row_by_row():
    X, y, relevant = make_switch_regression(300, n_features=7, noise=0.0, random_state=3)
    for x, target, truth in zip(X, y, relevant):
        if x[0] < 0:
            assert np.isclose(target, 2 * x[1] + 2 * x[2])
            assert np.flatnonzero(truth).tolist() == [0, 1, 2]
        else:
            assert np.isclose(target, 2 * x[3] - 2 * x[4])
            assert np.flatnonzero(truth).tolist() == [0, 3, 4]
    _, noisy, _ = make_switch_regression(300, n_features=7, noise=0.5, random_state=3)
    assert 0.4 < np.std(noisy - y) < 0.6


def _group_of_linear(x):
    return 1 if x.mean() > 0 else 2  # N(1, 0.25) against N(-1, 0.25): no overlap in practice


@pytest.mark.parametrize("design", ["linear", "linear-shared"])
def test_lspin_linear_designs_follow_the_notebooks(design):
    X, y, relevant = make_lspin_synthetic(design=design, random_state=0)
    n, d = X.shape
    assert (n, d) == ((1000, 4) if design == "linear" else (600, 5))
    raw = []
    for x, truth in zip(X, relevant):
        group = _group_of_linear(x)
        if design == "linear":
            raw.append(-2 * x[0] + x[1] if group == 1 else x[2] - 2 * x[3])
            expected = [1, 1, 0, 0] if group == 1 else [0, 0, 1, 1]
        else:
            raw.append(
                -2 * x[0] + x[1] - 0.5 * x[2] if group == 1 else -0.5 * x[2] + x[3] - 2 * x[4]
            )
            expected = [1, 1, 1, 0, 0] if group == 1 else [0, 0, 1, 1, 1]
        assert truth.astype(int).tolist() == expected
    raw = np.asarray(raw)
    np.testing.assert_allclose(y, (raw - raw.min()) / (raw.max() - raw.min()))
    assert relevant[:, 0].sum() == n // 2


def test_lspin_e5_follows_the_notebook():
    X, y, relevant = make_lspin_synthetic(design="e5", random_state=1)
    assert X.shape == (1500, 21) and set(np.unique(X[:, :20])) == {-1.0, 1.0}
    assert np.bincount((X[:, 20] + 1).astype(int)).tolist() == [500, 500, 500]
    for x, target, truth in zip(X, y, relevant):
        g = int(x[20]) + 1  # the notebook's g_test: x1 x2, x2 x3 or x3 x4, and x21
        assert target == x[g] * x[g + 1] + 2 * x[20]
        assert np.flatnonzero(truth).tolist() == [g, g + 1, 20]


def test_generators_are_reproducible():
    for make in (
        lambda s: make_friedman_synthetic(50, random_state=s),
        lambda s: make_switch_regression(50, random_state=s),
        lambda s: make_lspin_synthetic(30, "e5", random_state=s),
    ):
        a, b = make(5), make(5)
        for left, right in zip(a, b):
            np.testing.assert_array_equal(left, right)
