"""The compiled votes of eq. (11) against their numpy references, both methods."""

from __future__ import annotations

import numpy as np
import pytest

from localselect import LocalFeatureSelection
from localselect.datasets import make_lfs_synthetic
from localselect.lfs import _decide

from ._reference_numpy import (
    block_candidates,
    block_exact,
    region_groups,
    similarities_candidates,
    similarities_exact,
)


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
    eta[eta == 0] = np.inf
    got = model._similarities(Q)
    np.testing.assert_array_equal(got, expected)
    assert (expected > 0).any()


@pytest.mark.parametrize(("seed", "n_classes"), [(0, 2), (2, 3)])
def test_ratio_and_votes_equal_the_numpy_reference(seed, n_classes):
    model, Q = _fitted(seed, n_classes)
    groups = region_groups(np.asarray(model.local_support_, dtype=bool))
    ratio, votes = _decide._block_votes(_decide.prediction_regions(model), Q)
    ratio_ref, votes_ref = block_candidates(model, Q, groups)
    np.testing.assert_array_equal(ratio, ratio_ref)
    np.testing.assert_array_equal(votes, votes_ref)
    assert votes.any() and (ratio <= 1.0).any()


@pytest.mark.parametrize(("seed", "n_classes"), [(0, 2), (2, 3)])
def test_exact_method_through_the_kernels_equals_the_numpy_rule(seed, n_classes):
    """The exact method's pool is every training point: same S_c, ratios and votes."""
    model, Q = _fitted(seed, n_classes, n_candidates=None)
    assert model.candidates_ is None
    np.testing.assert_array_equal(model._similarities(Q), similarities_exact(model, Q))
    groups = region_groups(np.asarray(model.local_support_, dtype=bool))
    ratio, votes = _decide._block_votes(_decide.prediction_regions(model), Q)
    ratio_ref, votes_ref = block_exact(model, Q, groups)
    np.testing.assert_array_equal(ratio, ratio_ref)
    sphere = votes & (ratio <= 1.0)
    sphere_ref = votes_ref & (ratio_ref <= 1.0)
    np.testing.assert_array_equal(sphere, sphere_ref)
    # Votes outside the spheres are computed where the fallback needs them.
    fallback = ~sphere_ref.any(axis=1)
    np.testing.assert_array_equal(votes[fallback], votes_ref[fallback])
    assert sphere.any() and fallback.any()


def test_predict_leaves_the_instance_dict_unchanged():
    """Both methods cache their prediction indexes outside the estimator."""
    for n_candidates in (None, 10):
        model, Q = _fitted(0, n_candidates=n_candidates)
        before = dict(model.__dict__)
        model.predict(Q)
        assert model.__dict__.keys() == before.keys()
