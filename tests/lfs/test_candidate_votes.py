"""The compiled votes of the nearest-candidate method against their numpy references."""

from __future__ import annotations

import numpy as np
import pytest

from localselect import LocalFeatureSelection
from localselect.datasets import make_lfs_synthetic
from localselect.lfs import _decide

from ._reference_numpy import block_candidates, similarities_candidates


def _fitted(seed, n_classes=2, n_candidates=10):
    X, y = make_lfs_synthetic(240, 6, random_state=seed)[:2]
    if n_classes == 3:  # a third class: the neighbour rule's "strictly more than the rest"
        y = np.where(np.arange(len(y)) % 5 == 0, 2, y)
    model = LocalFeatureSelection(n_candidates=n_candidates, random_state=seed).fit(X, y)
    rng = np.random.default_rng(seed)
    far = rng.normal(0, 6.0, (20, X.shape[1]))  # outside every sphere: the fallback
    near = X[rng.integers(0, len(X), 120)] + rng.normal(0, 0.3, (120, X.shape[1]))
    # Repeated training rows and rounded values: ties in the neighbour rule.
    Q = np.vstack([near, far, X[:40], np.round(X[40:80])])
    return model, Q


@pytest.mark.parametrize(("seed", "n_classes"), [(0, 2), (1, 2), (2, 3), (3, 3)])
def test_sphere_votes_equal_the_numpy_reference(seed, n_classes):
    model, Q = _fitted(seed, n_classes)
    active = np.asarray(model.local_support_).any(axis=1)
    eta = np.bincount(model.y_fit_[active], minlength=model.classes_.size).astype(float)
    expected = similarities_candidates(model, Q, eta)
    got = model._similarities_candidates(Q, eta)
    np.testing.assert_array_equal(got, expected)
    assert (expected > 0).any()


@pytest.mark.parametrize(("seed", "n_classes"), [(0, 2), (2, 3)])
def test_ratio_and_votes_equal_the_numpy_reference(seed, n_classes):
    model, Q = _fitted(seed, n_classes)
    groups = _decide.region_groups(np.asarray(model.local_support_, dtype=bool))
    ratio, votes = _decide._block_candidates(model, Q, groups)
    ratio_ref, votes_ref = block_candidates(model, Q, groups)
    np.testing.assert_array_equal(ratio, ratio_ref)
    np.testing.assert_array_equal(votes, votes_ref)
    assert votes.any() and (ratio <= 1.0).any()
