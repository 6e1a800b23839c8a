"""INVASE's Syn1-Syn6 against a row-by-row reference of its public code."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from localselect.datasets import instancewise_score, make_instancewise_synthetic

DESIGNS = ("syn1", "syn2", "syn3", "syn4", "syn5", "syn6")


def _score_row(x, design):
    """``data_generation.py`` (jsyoon0823/INVASE) for one row, in scalar arithmetic."""
    syn1 = x[0] * x[1]
    syn2 = sum(v * v for v in x[2:6]) - 4.0
    syn3 = -10 * math.sin(0.2 * x[6]) + abs(x[7]) + x[8] + math.exp(-x[9]) - 2.4
    base = {"syn1": syn1, "syn2": syn2, "syn3": syn3}
    pairs = {"syn4": ("syn1", "syn2"), "syn5": ("syn1", "syn3"), "syn6": ("syn2", "syn3")}
    if design in base:
        return base[design]
    low, high = pairs[design]
    return base[low] if x[10] < 0 else base[high]


def _truth_row(x, design):
    """``generate_ground_truth`` for one row."""
    cols = {"syn1": [0, 1], "syn2": [2, 3, 4, 5], "syn3": [6, 7, 8, 9]}
    pairs = {"syn4": ("syn1", "syn2"), "syn5": ("syn1", "syn3"), "syn6": ("syn2", "syn3")}
    g = [0] * len(x)
    if design in cols:
        chosen = cols[design]
    else:
        chosen = cols[pairs[design][0] if x[10] < 0 else pairs[design][1]] + [10]
    for j in chosen:
        g[j] = 1
    return g


@pytest.mark.parametrize("design", DESIGNS)
@pytest.mark.parametrize("d", [11, 100])
def test_shapes_truth_and_score_match_the_reference(design, d):
    X, y, R = make_instancewise_synthetic(300, design, n_features=d, random_state=3)
    assert X.shape == R.shape == (300, d) and y.shape == (300,)
    assert X.dtype == np.float64 and R.dtype == bool and set(np.unique(y)) <= {0, 1}
    want = np.array([_truth_row(list(x), design) for x in X], dtype=bool)
    np.testing.assert_array_equal(R, want)
    assert not R[:, 11:].any()
    z = np.array([_score_row(list(x), design) for x in X])
    np.testing.assert_allclose(instancewise_score(X, design), z, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("design", DESIGNS)
def test_labels_follow_the_logistic_model(design):
    X, y, _ = make_instancewise_synthetic(20_000, design, random_state=5)
    p1 = expit(-instancewise_score(X, design))  # P(y = 1) = 1 / (1 + e^z)
    # Calibration in deciles of p1: observed frequency within 4 standard errors.
    edges = np.quantile(p1, np.linspace(0, 1, 11))
    bins = np.clip(np.searchsorted(edges, p1, side="right") - 1, 0, 9)
    for b in range(10):
        rows = bins == b
        se = math.sqrt(p1[rows].mean() * (1 - p1[rows].mean()) / rows.sum())
        assert abs(y[rows].mean() - p1[rows].mean()) < 4 * se + 1e-3


def test_seed_fixes_the_draw_and_seeds_differ():
    a = make_instancewise_synthetic(50, "syn5", random_state=1)
    b = make_instancewise_synthetic(50, "syn5", random_state=1)
    c = make_instancewise_synthetic(50, "syn5", random_state=2)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])


def test_switch_feature_is_relevant_on_both_sides():
    X, _, R = make_instancewise_synthetic(400, "syn4", random_state=0)
    assert R[:, 10].all()
    low = X[:, 10] < 0
    assert R[low][:, :2].all() and not R[low][:, 2:10].any()
    assert R[~low][:, 2:6].all() and not R[~low][:, [0, 1, 6, 7, 8, 9]].any()


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="design"):
        make_instancewise_synthetic(10, "syn7")
    with pytest.raises(ValueError, match="n_features"):
        make_instancewise_synthetic(10, "syn1", n_features=10)
