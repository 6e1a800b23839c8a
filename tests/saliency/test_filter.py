"""LocalKnockoffFilter: the per-row knockoff filter around any local selector (issue #36)."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.datasets import make_instancewise_synthetic
from localselect.gp import GPLocalFeatureSelection
from localselect.saliency import LocalKnockoffFilter


def _fit(design, n=600, fdr=0.2, seed=0):
    X, y, R = make_instancewise_synthetic(n, design, random_state=seed)
    inner = GPLocalFeatureSelection(max_iter=5, random_state=0)
    return LocalKnockoffFilter(inner, fdr=fdr, random_state=0).fit(X, y), X, R


def test_null_features_are_rarely_kept():
    est, X, R = _fit("syn2")
    S = est.get_local_support()
    assert S.shape == X.shape
    # syn2: x3..x6 matter; the seven others are null for every row
    assert S[:, ~R[0]].mean() <= 0.05
    assert S[:, R[0]].mean() > 0.5


def test_new_rows_deterministic_and_order_free():
    est, _, _ = _fit("syn1", n=300)
    Xn, _, _ = make_instancewise_synthetic(40, "syn1", random_state=5)
    a = est.get_local_support(Xn)
    perm = np.random.RandomState(0).permutation(40)
    np.testing.assert_array_equal(est.get_local_support(Xn[perm]), a[perm])
    np.testing.assert_array_equal(est.get_local_support(Xn), a)
    R = est.local_relevance(Xn)
    assert np.all(R[a] > 0) and R.max() <= 1.0


def test_swap_is_undone():
    est, X, _ = _fit("syn1", n=300)
    assert est.swap_.shape == (11,) and est.swap_.any() and not est.swap_.all()
    W = est.statistics_
    assert W.shape == X.shape and np.all(W[est.local_support_] > 0)


@pytest.mark.parametrize("bad", [{"fdr": 0.0}, {"fdr": 1.0}, {"knockoffs": "sdp"}])
def test_parameters_are_checked(bad):
    X, y, _ = make_instancewise_synthetic(60, "syn1", random_state=0)
    with pytest.raises(ValueError):
        LocalKnockoffFilter(GPLocalFeatureSelection(max_iter=2), **bad).fit(X, y)
