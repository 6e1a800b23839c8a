"""MahalanobisQuantileDiscretizer against a direct computation, with groups and missing values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect.lift import MahalanobisQuantileDiscretizer


def _reference_bins(Z, n_bins):
    """Loop over rows: d_i = sqrt(z_i' S^-1 z_i), bin = number of cut points <= d_i."""
    S_inv = np.linalg.inv(np.cov(Z, rowvar=False).reshape(Z.shape[1], Z.shape[1]))
    d = np.array([np.sqrt(z @ S_inv @ z) for z in Z])
    cuts = np.quantile(d, np.arange(1, n_bins) / n_bins)
    return np.array([sum(c <= di for c in cuts) for di in d], dtype=float)


@given(st.integers(0, 10_000), st.integers(2, 6), st.integers(1, 4))
def test_matches_reference(seed, n_bins, k):
    rng = np.random.default_rng(seed)
    Z = rng.gamma(2.0, size=(60, k)) * rng.uniform(0.5, 20, size=k)
    got = MahalanobisQuantileDiscretizer(n_bins=n_bins).fit_transform(Z).ravel()
    np.testing.assert_array_equal(got, _reference_bins(Z, n_bins))
    # Equal-frequency bins (continuous data: no ties).
    assert np.bincount(got.astype(int)).max() - np.bincount(got.astype(int)).min() <= 1


def test_scale_invariant_and_low_values_in_bin_zero():
    rng = np.random.default_rng(0)
    Z = rng.uniform(1, 10, size=(90, 2))
    a = MahalanobisQuantileDiscretizer(n_bins=3).fit_transform(Z)
    b = MahalanobisQuantileDiscretizer(n_bins=3).fit_transform(Z * [1000.0, 0.01])
    np.testing.assert_array_equal(a, b)
    one = MahalanobisQuantileDiscretizer(n_bins=3).fit_transform(Z[:, :1]).ravel()
    order = np.argsort(Z[:, 0])
    assert np.all(np.diff(one[order]) >= 0)  # one non-negative feature: the usual tertiles


def test_groups_discretise_within_each_group():
    rng = np.random.default_rng(1)
    Z = rng.uniform(1, 2, size=(60, 2))
    g = np.repeat([0.0, 1.0], 30)
    Z[g == 1] *= 100  # group 1 is far larger: it would fill the top bin without groups
    X = np.column_stack([Z, g])
    disc = MahalanobisQuantileDiscretizer(n_bins=3, groups=[2]).fit(X)
    bins = disc.transform(X).ravel()
    for grp in (0, 1):
        assert np.bincount(bins[g == grp].astype(int)).tolist() == [10, 10, 10]
    np.testing.assert_array_equal(bins[g == 0], _reference_bins(Z[g == 0], 3))
    with pytest.raises(ValueError, match="not seen in fit"):
        disc.transform(np.array([[1.0, 1.0, 5.0]]))


def test_missing_rows_get_missing_bins():
    Z = np.array([[1.0, 2.0], [2.0, 1.0], [np.nan, 5.0], [5.0, 4.0], [8.0, 9.0]])
    out = MahalanobisQuantileDiscretizer(n_bins=2).fit_transform(Z).ravel()
    assert np.isnan(out[2]) and not np.isnan(np.delete(out, 2)).any()


def test_bad_groups():
    X = np.ones((5, 2))
    with pytest.raises(ValueError, match="not a column index"):
        MahalanobisQuantileDiscretizer(groups=[7]).fit(X)
    with pytest.raises(ValueError, match="Every column is a group column"):
        MahalanobisQuantileDiscretizer(groups=[0, 1]).fit(X)
