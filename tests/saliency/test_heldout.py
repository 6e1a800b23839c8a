"""The held-out rule (localselect.saliency._heldout): its rows, pools, profiles and cache."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.datasets import make_instancewise_synthetic
from localselect.saliency import ConditionalSaliencySelection, FewHeldOutRowsWarning
from localselect.saliency._heldout import HeldOutTest
from localselect.saliency._saliency import (
    unit_profiles,
)


def test_few_held_out_rows_are_warned_of():
    # at 5,000 rows (1,500 held out) the realized per-row FDR at fdr 0.1 was 9-24 % on
    # Syn4-Syn6; the fit says so instead of promising the rate
    X, y, _ = make_instancewise_synthetic(300, "syn1", random_state=0)
    with pytest.warns(FewHeldOutRowsWarning, match="on 90 held-out rows"):
        ConditionalSaliencySelection(n_quantiles=2, random_state=0).fit(X, y)


def test_fractions_that_leave_no_rows_for_a_model_are_refused():
    X, y, _ = make_instancewise_synthetic(100, "syn1", random_state=0)
    with pytest.raises(ValueError, match=r"profile_fraction=0\.7 leave 0 of 100 rows"):
        ConditionalSaliencySelection(profile_fraction=0.7).fit(X, y)


def test_the_last_answer_is_reused_at_another_fdr_and_never_saved(syn6, monkeypatch):
    import pickle

    est, Xt, _ = syn6
    rows = Xt[:300]
    est.local_relevance(rows)
    saved = pickle.loads(pickle.dumps(est))
    assert est._rule.cache.entry is not None
    assert "_rule" not in est.__getstate__()  # pickling keeps no answer: the record is rebuilt
    assert saved._rule.cache.entry is None
    calls = []
    block = HeldOutTest.block
    monkeypatch.setattr(
        HeldOutTest, "block", lambda self, Z, *args: calls.append(1) or block(self, Z, *args)
    )
    try:
        for q in (0.05, 0.2):  # the p-values do not depend on fdr: only BH is redone
            est.set_params(fdr=q)
            saved.set_params(fdr=q)
            np.testing.assert_array_equal(
                est.get_local_support(rows), saved.get_local_support(rows)
            )
            np.testing.assert_allclose(est.local_relevance(rows), saved.local_relevance(rows),
                                       rtol=1e-12, atol=1e-15)  # fmt: skip
        assert len(calls) == 1  # saved answered once; est reused its last answer
        est.local_relevance(Xt[:299])  # other rows: answered again
        est.set_params(min_saliency=0.1)
        est.get_local_support(Xt[:299])  # the floor is part of what is kept: answered again
        assert len(calls) == 3
    finally:
        est.set_params(fdr=0.1, min_saliency=0.05)


def test_support_agreement_orders_the_pool_and_zero_pools_the_nearest(monkeypatch):
    from sklearn.neighbors import NearestNeighbors

    from localselect.saliency import _heldout
    from localselect.saliency._perrow import loss_change_pvalues

    X, y, _ = make_instancewise_synthetic(1500, "syn4", random_state=0)
    Xt, _, _ = make_instancewise_synthetic(300, "syn4", random_state=1)
    est = ConditionalSaliencySelection(n_neighbors=40, pool_profiles="shared", random_state=0)
    est.fit(X, y)
    assert not hasattr(est, "swapped_saliency_")
    cols = est._order[est._cols]
    S = est._fitted_rule().saliency(est.model_input(Xt))
    nn = NearestNeighbors(n_neighbors=40).fit(unit_profiles(est.reference_saliency_))
    nearest = nn.kneighbors(unit_profiles(S), return_distance=False)
    plain = 1.0 - loss_change_pvalues(est.loss_change_, nearest)
    consistent = est.local_relevance(Xt)
    monkeypatch.setattr(_heldout, "_ANSWER_ROWS", 7)  # answers in blocks, the last shorter
    np.testing.assert_allclose(est.local_relevance(Xt), consistent, rtol=1e-12)
    # a row's pool changes only where candidates disagree with its support
    assert not np.allclose(consistent[:, cols], plain)
    est.set_params(support_agreement=0.0)
    np.testing.assert_allclose(est.local_relevance(Xt)[:, cols], plain, rtol=1e-12)


def test_swapped_profiles_choose_each_features_pools(monkeypatch):
    from localselect.saliency import _heldout

    X, y, _ = make_instancewise_synthetic(1500, "syn4", random_state=0)
    Xt, _, _ = make_instancewise_synthetic(200, "syn4", random_state=1)
    est = ConditionalSaliencySelection(n_neighbors=40, random_state=0).fit(X, y)
    c, m = est._cols.size, est.loss_change_.shape[0]
    H = est.swapped_saliency_
    assert H.shape == (c, m, c)
    # feature j's copy differs from the shared profiles in the j-th saliency of the rows
    # (x_j was replaced; a piecewise-constant model often keeps it) wherever the model uses
    # x_j, and the pools it gives differ
    changed = ~np.isclose(H, est.reference_saliency_[None], rtol=1e-9, atol=0)
    used = [j for j in range(c) if (est.reference_saliency_[:, j] > 0).mean() > 0.9]
    assert len(used) >= 5 and all(changed[j, :, j].mean() > 0.5 for j in used)
    shared = ConditionalSaliencySelection(n_neighbors=40, pool_profiles="shared", random_state=0)
    shared.fit(X, y)
    np.testing.assert_allclose(shared.loss_change_, est.loss_change_, rtol=1e-12)
    assert not np.allclose(shared.local_relevance(Xt), est.local_relevance(Xt))
    # "auto" falls back to the shared profiles above the memory budget
    monkeypatch.setattr(_heldout, "_SWAPPED_BUDGET", c * c * m - 1)
    auto = ConditionalSaliencySelection(n_neighbors=40, random_state=0).fit(X, y)
    assert not hasattr(auto, "swapped_saliency_")
    np.testing.assert_allclose(auto.local_relevance(Xt), shared.local_relevance(Xt), rtol=1e-12)
