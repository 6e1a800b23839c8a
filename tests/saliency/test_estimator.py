"""ConditionalSaliencySelection: per-row power and FDR on INVASE's designs, and its contract."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.datasets import make_instancewise_synthetic
from localselect.saliency import ConditionalSaliencySelection
from localselect.saliency._perrow import bh_rows

#: This file's quick fits (10,000 training rows, 1,000 test rows of another seed, defaults,
#: fdr 0.1), measured with support-consistent pools chosen by profiles without the tested
#: feature (support_agreement=0.8, pool_profiles="swapped"): TPR / FDR of Syn6 93.4 / 4.2
#: (random_state 1 and 2 with data seeds 11/12, 21/22: 93.6 / 2.5, 91.9 / 9.0), of Syn4
#: 93.5 / 11.4 (94.7 / 12.5, 92.5 / 15.1). With the nearest 300 shared profiles (the rule
#: before): Syn6 93.6 / 6.1, Syn4 91.6 / 15.3 (93.7 / 14.3, 92.0 / 16.2). The switch design:
#: see test_continuous_switch_design.
SYN6_TPR = 0.934


SYN4_TPR = 0.935


def _rates(S, R):
    """INVASE's per-row TPR and FDR (a row with nothing selected has FDR 0)."""
    tp = (S & R).sum(1)
    return (tp / R.sum(1)).mean(), np.where(
        S.any(1), (S.sum(1) - tp) / np.maximum(S.sum(1), 1), 0
    ).mean()


def _check_power_and_fdr(est, Xt, Rt, tpr_measured):
    """A fall of 5 TPR points from the measured one, or a realized FDR 3 points over
    nominal, fails."""
    tpr, fdr = _rates(est.get_local_support(Xt), Rt)
    assert tpr >= tpr_measured - 0.05, tpr
    assert fdr <= est.fdr + 0.03, fdr


def test_syn6_per_row_power_and_fdr_at_defaults(syn6):
    # The quick check (10,000 training rows, d = 11, defaults: fdr 0.1; the figures
    # at SYN6_TPR).
    _check_power_and_fdr(*syn6, SYN6_TPR)


def test_syn4_per_row_power_and_fdr_at_defaults():
    # The quick check on the hard case: rows near the switch on x11 can pool with rows
    # of the other regime. This fit gives 11.4 %; the two other quick fits at SYN4_TPR give
    # 12.5 and 15.1 % (the full run, 10,000 test rows: docs/index.md).
    X, y, _ = make_instancewise_synthetic(10_000, "syn4", random_state=1)
    Xt, _, Rt = make_instancewise_synthetic(1000, "syn4", random_state=2)
    _check_power_and_fdr(ConditionalSaliencySelection(random_state=0).fit(X, y), Xt, Rt, SYN4_TPR)


def test_profiles_from_a_second_model_calibrate_a_global_design():
    # profile_fraction's docstring: on Syn1 (features 1 and 2 for every row, nine noise
    # columns) at data seeds 1/2 the loss model on 70 % of the rows fits poorly, and its
    # answers exceed nominal; with a second model for the profiles (and the loss model on
    # other rows) they hold. Measured here (TPR / FDR %): 43.0 / 14.9 with the model's own
    # profiles, 97.5 / 4.3 with 0.2 (before pool_profiles: 34.1 / 18.4 and 95.6 / 6.2).
    X, y, _ = make_instancewise_synthetic(10_000, "syn1", random_state=1)
    Xt, _, Rt = make_instancewise_synthetic(1000, "syn1", random_state=2)
    own = ConditionalSaliencySelection(random_state=0).fit(X, y)
    split = ConditionalSaliencySelection(profile_fraction=0.2, random_state=0).fit(X, y)
    assert own.profile_estimator_ is own.estimator_
    assert split.profile_estimator_ is not split.estimator_
    _, fdr_own = _rates(own.get_local_support(Xt), Rt)
    tpr, fdr = _rates(split.get_local_support(Xt), Rt)
    assert fdr <= split.fdr + 0.02 < fdr_own, (fdr, fdr_own)
    assert tpr >= 0.9, tpr


def _switch(n, seed, d=10):
    """A continuous target whose relevant columns change with the sign of x1."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    low = X[:, 0] < 0
    y = np.where(low, 2 * X[:, 1] + 2 * X[:, 2], 2 * X[:, 3] - 2 * X[:, 4])
    y = y + 0.5 * rng.standard_normal(n)
    R = np.zeros((n, d), dtype=bool)
    R[:, 0] = True
    R[low, 1:3] = True
    R[~low, 3:5] = True
    return X, y, R


def test_continuous_switch_design():
    # The target: TPR >= 85 %, FDR <= 15 % on held-out rows. Measured at 10,000 rows
    # (seeds 0, 2, 4): 98.8 / 1.3, 98.7 / 1.7, 98.8 / 1.2 (this test is the first); with the
    # nearest shared profiles before: 98.8 / 2.1, 98.7 / 3.7, 98.8 / 7.2.
    X, y, _ = _switch(10_000, 0)
    Xt, _, Rt = _switch(1000, 1)
    est = ConditionalSaliencySelection(random_state=0).fit(X, y)
    assert est.task_ == "regression" and not hasattr(est, "classes_")
    tpr, fdr = _rates(est.get_local_support(Xt), Rt)
    assert tpr >= 0.85, tpr
    assert fdr <= 0.15, fdr


def test_a_row_gets_the_same_answer_alone_or_in_a_batch(syn6):
    est, Xt, _ = syn6
    batch = est.local_relevance(Xt[:20])
    alone = np.vstack([est.local_relevance(Xt[i : i + 1]) for i in range(20)])
    np.testing.assert_allclose(alone, batch, rtol=1e-12, atol=1e-15)
    R = est.local_relevance(Xt)
    assert R.min() >= 0 and R.max() <= 1
    # the held-out rule: relevance is 1 - p; the mask is Benjamini-Hochberg on p within the
    # row, and the row's own saliency at least min_saliency of its largest
    S = est._fitted_rule().saliency(est.model_input(Xt))
    own = np.zeros(R.shape, dtype=bool)
    own[:, est._order[est._cols]] = (est.min_saliency * S.max(axis=1, keepdims=True) <= S) & (
        S > 0
    )
    np.testing.assert_array_equal(est.get_local_support(Xt), bh_rows(1.0 - R, est.fdr) & own)
    assert 0 < own.sum() < own.size  # the floor removes some features and keeps others
    est.set_params(min_saliency=0.0)  # the floor enters at query time only
    try:
        np.testing.assert_array_equal(est.get_local_support(Xt), bh_rows(1.0 - R, est.fdr))
    finally:
        est.set_params(min_saliency=0.05)


def test_random_state_fixes_the_answer():
    X, y, _ = make_instancewise_synthetic(300, "syn1", random_state=0)
    a = ConditionalSaliencySelection(random_state=3).fit(X, y).local_relevance(X[:50])
    b = ConditionalSaliencySelection(random_state=3).fit(X, y).local_relevance(X[:50])
    np.testing.assert_array_equal(a, b)


def test_the_answer_does_not_depend_on_n_jobs():
    X, y, _ = make_instancewise_synthetic(2000, "syn4", random_state=0)
    one = ConditionalSaliencySelection(random_state=3).fit(X, y)
    two = ConditionalSaliencySelection(n_jobs=2, random_state=3).fit(X, y)
    np.testing.assert_allclose(two.local_relevance(X[:300]), one.local_relevance(X[:300]),
                               rtol=1e-9, atol=1e-12)  # fmt: skip
    assert (two.get_local_support(X[:300]) == one.get_local_support(X[:300])).mean() > 0.999


def test_bad_parameter_is_refused():
    X, y, _ = make_instancewise_synthetic(50, "syn1", random_state=0)
    with pytest.raises(ValueError, match="relative_threshold"):
        ConditionalSaliencySelection(relative_threshold=0).fit(X, y)
