"""n_features_to_select="auto" on every global selector: BH on the family's null."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from localselect.evidence import bh_qvalues
from localselect.filters import FisherScore
from localselect.margin import IM4E, BoostedImmigrate, Immigrate, IRelief, Relief, ReliefF, Simba

SELECTORS = [
    FisherScore(),
    Relief(),
    ReliefF(n_neighbors=5),
    IRelief(),
    Simba(),
    IM4E(),
    Immigrate(random_state=0),
    BoostedImmigrate(n_estimators=3, random_state=0),
]


@pytest.fixture(scope="module")
def strong_signal():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    X = np.c_[
        3 * y + rng.normal(size=120), 3 * y + rng.normal(size=120), rng.normal(size=(120, 10))
    ]
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("selector", SELECTORS, ids=lambda s: type(s).__name__)
def test_auto_selects_at_fdr(selector, strong_signal):
    X, y = strong_signal
    est = clone(selector).set_params(n_features_to_select="auto", fdr=0.1).fit(X, y)
    assert est.pvalues_.shape == (12,) and np.all((est.pvalues_ > 0) & (est.pvalues_ <= 1))
    np.testing.assert_array_equal(est.qvalues_, bh_qvalues(est.pvalues_))
    np.testing.assert_array_equal(est.get_support(), est.qvalues_ <= 0.1)
    assert est.get_support()[:2].all(), "the two strong features are selected"
    assert est.get_support()[2:].sum() <= 2
    # a stricter fdr never selects more, and a fixed k clears the evidence attributes
    assert (
        est.set_params(fdr=0.001).get_support().sum()
        <= est.set_params(fdr=0.1).get_support().sum()
    )
    fixed = est.set_params(n_features_to_select=2).fit(X, y)
    assert not hasattr(fixed, "pvalues_")


def test_auto_is_reproducible_without_random_state(strong_signal):
    X, y = strong_signal
    a = FisherScore("auto").fit(X, y).pvalues_
    b = FisherScore("auto").fit(X, y).pvalues_
    np.testing.assert_array_equal(a, b)
    fitted = FisherScore("auto").fit(X, y)
    assert fitted.n_features_to_select_ == fitted.get_support().sum() >= 2


def test_fdr_is_validated(strong_signal):
    X, y = strong_signal
    with pytest.raises(ValueError, match="fdr"):
        Relief("auto", fdr=1.5).fit(X, y)
    with pytest.raises(ValueError, match="n_features_to_select"):
        Relief("most").fit(X, y)


def test_mrmr_auto_relevance_matches_mutual_info(strong_signal):
    from sklearn.metrics import mutual_info_score

    from localselect.filters import MRMR
    from localselect.filters._mrmr import discretize_three_states, relevance_permuted

    X, y = strong_signal
    states = discretize_three_states(X)
    rng = np.random.default_rng(0)
    codes = np.stack([y, rng.permutation(y), rng.permutation(y)])
    fast = relevance_permuted(states, codes)
    slow = [[mutual_info_score(c, states[:, j]) for j in range(X.shape[1])] for c in codes]
    np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-15)
    est = MRMR("auto").fit(X, y)
    np.testing.assert_array_equal(est.get_support(), est.qvalues_ <= 0.1)
    assert est.get_support()[:2].all() and set(est.ranking_) == set(
        np.flatnonzero(est.get_support())
    )


def test_auto_warns_when_nothing_is_significant():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(60, 5)), np.repeat([0, 1], 30)
    with pytest.warns(UserWarning, match="no feature is significant at fdr=0.1"):
        est = FisherScore("auto").fit(X, y)
    assert not est.get_support().any()
