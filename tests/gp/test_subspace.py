"""Algorithm 2, vectorised over queries, against a per-query loop."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from localselect.gp import select_subspaces

from ._reference import subspace_reference


def _problem(seed, n=12, m=7):
    rng = np.random.default_rng(seed)
    power = rng.gamma(1.0, 3.0, size=(n, m))
    A = rng.normal(size=(40, m))
    A[:, 1] = A[:, 0] + 0.3 * rng.normal(size=40)  # a correlated pair
    corr = np.abs(np.corrcoef(A, rowvar=False))
    return power, corr


OVER = st.sampled_from(["all", "remaining"])


@given(st.integers(0, 10_000), st.floats(-0.5, 3.0), OVER)
def test_matches_per_query_loop(seed, gamma, over):
    power, corr = _problem(seed)
    np.testing.assert_array_equal(
        select_subspaces(power, corr, gamma, over=over),
        subspace_reference(power, corr, gamma, over),
    )


@given(st.integers(0, 10_000), OVER)
def test_subspaces_are_nested_in_gamma(seed, over):
    power, corr = _problem(seed)
    masks = [select_subspaces(power, corr, g, over=over) for g in (0.0, 0.5, 1.0, 2.0, 4.0)]
    for wide, narrow in itertools.pairwise(masks):
        assert np.all(narrow <= wide)
    assert np.all(masks[-1].sum(axis=1) >= 1)  # never empty


def test_correlation_penalty_skips_a_redundant_feature():
    # Features 0 and 1 are perfectly correlated. After feature 0, the scores are
    # 9 - 10 * 1 = -1 for feature 1 and 8 for feature 2: mean 1.23, std 3.0, so feature
    # 2 passes T = 1.23 + 2.1 * 3.0 = 7.5. Then feature 1 scores 9 - 10 * 1 / 2 = 4 < T =
    # 0.88 + 2.1 * 1.56 = 4.16 and selection stops.
    power = np.array([[10.0, 9.0, 8.0, 0.1, 0.2, 0.1, 0.0]])
    corr = np.eye(7)
    corr[0, 1] = corr[1, 0] = 1.0
    np.testing.assert_array_equal(
        select_subspaces(power, corr, 2.1, over="remaining")[0], [1, 0, 1, 0, 0, 0, 0]
    )
    # Without the correlation, feature 1's 9 and feature 2's 8 leave T = 2.9 + 2.1 * 3.9
    # above both: only feature 0.
    np.testing.assert_array_equal(
        select_subspaces(power, np.eye(7), 2.1, over="remaining")[0], [1, 0, 0, 0, 0, 0, 0]
    )


def test_printed_threshold_keeps_added_features_in_the_statistics():
    # eta = |L| / 10 and no correlations but each feature's own: a chosen feature scores
    # D - 10 / |L|, the others D. After feature 0 both readings use (9, 8, 5, 0.1, 0.2,
    # 0.1): T = 3.733 + 1.2 * 3.795 = 8.29 and feature 1 (9) joins; then feature 2 (8)
    # passes T = 6.52 (as printed: 4, 8, 5, ...) and 6.59 (remaining). With L = {0, 1, 2}
    # feature 3 (5) meets T = 2.622 + 1.2 * 2.506 = 5.63 as printed (the chosen features'
    # 5.667 and 4.667 stay in the statistics) and stops there, but passes the remaining
    # features' T = 3.88; that reading then runs to the end.
    power = np.array([[10.0, 9.0, 8.0, 5.0, 0.1, 0.2, 0.1]])
    corr = np.eye(7)
    np.testing.assert_array_equal(
        select_subspaces(power, corr, 1.2, over="all")[0], [1, 1, 1, 0, 0, 0, 0]
    )
    np.testing.assert_array_equal(
        select_subspaces(power, corr, 1.2, over="remaining")[0], [1, 1, 1, 1, 1, 1, 1]
    )
    # Many weak features: the remaining features' statistics keep admitting them, the
    # printed threshold (the chosen ones raise the mean and spread) stops early.
    rng = np.random.default_rng(0)
    power = np.concatenate([[10.0, 9.5, 9.0], rng.uniform(0.0, 1.0, 200)])[None, :]
    corr = np.eye(power.shape[1])
    printed = select_subspaces(power, corr, 1.5, over="all").sum()
    remaining = select_subspaces(power, corr, 1.5, over="remaining").sum()
    assert printed == 3
    assert remaining > 150


@given(st.integers(0, 10_000))
def test_path_gives_every_gamma_of_algorithm2(seed):
    # One path (down to gamma_min) holds the subspace of every gamma >= gamma_min.
    from localselect.gp._subspace import path_mask, subspace_path, subspace_sizes

    power, corr = _problem(seed)
    order, critical = subspace_path(power, corr, 0.0)
    assert np.all(np.diff(critical, axis=1) <= 0) or np.all(
        np.isnan(np.diff(critical, axis=1)) | (np.diff(critical, axis=1) <= 0)
    )
    for gamma in (0.0, 0.7, 1.5, 2.5):
        mask = path_mask(order, critical, gamma)
        np.testing.assert_array_equal(mask, subspace_reference(power, corr, gamma))
        np.testing.assert_array_equal(subspace_sizes(critical, gamma), mask.sum(axis=1))


def test_floor_stops_the_path_for_every_gamma():
    power, corr = _problem(3, n=20, m=9)
    floor = np.quantile(power, 0.6, axis=1)
    for gamma in (-np.inf, 0.0, 1.0):
        mask = select_subspaces(power, corr, gamma, floor)
        assert mask.any(axis=1).all()
        # Beyond the first (most powerful) feature, nothing below the floor joins.
        rest = mask.copy()
        rest[np.arange(20), np.argmax(power, axis=1)] = False
        assert np.all(power[rest] >= np.repeat(floor, rest.sum(axis=1)))
        # The floor only shortens Algorithm 2's subspaces.
        if np.isfinite(gamma):
            assert np.all(mask <= select_subspaces(power, corr, gamma))
    np.testing.assert_array_equal(
        select_subspaces(power, corr, -np.inf), np.ones_like(power, bool)
    )
