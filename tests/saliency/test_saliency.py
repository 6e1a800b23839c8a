"""ConditionalSaliencySelection and its kernels against slow references (issue #31)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from localselect.datasets import make_instancewise_synthetic
from localselect.saliency import ConditionalSaliencySelection, FewHeldOutRowsWarning
from localselect.saliency._knockoffs import (
    gaussian_knockoffs,
    knockoff_threshold,
    second_order_statistic,
)
from localselect.saliency._perrow import bh_rows
from localselect.saliency._saliency import mlp_saliency, model_saliency, quantile_grid, saliency


def _saliency_slow(predict_proba, X, grid):
    n, d = X.shape
    S = np.zeros((n, d))
    for i in range(n):
        p = predict_proba(X[i : i + 1])[0]
        for j in range(d):
            total = 0.0
            for r in range(grid.shape[0]):
                x = X[i].copy()
                x[j] = grid[r, j]
                total += 0.5 * np.abs(predict_proba(x[None])[0] - p).sum()
            S[i, j] = total / grid.shape[0]
    return S


@pytest.mark.parametrize(("n_samples", "block"), [(40, None), (17, 10)])
def test_saliency_matches_the_loop(monkeypatch, n_samples, block):
    # With block=10, blocks of 3 rows (the last one shorter): each block's copies are
    # rebuilt, and every feature's replacement is undone before the next feature's.
    from localselect.saliency import _saliency

    if block is not None:
        monkeypatch.setattr(_saliency, "_BLOCK", block)
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n_samples, 4))
    y = np.array(["a", "b", "c"])[np.arange(n_samples) % 3]
    model = LogisticRegression().fit(X, y)
    grid = quantile_grid(X, 3)
    np.testing.assert_allclose(
        saliency(model.predict_proba, X, grid), _saliency_slow(model.predict_proba, X, grid),
        rtol=1e-12, atol=1e-15,
    )  # fmt: skip
    np.testing.assert_allclose(grid[1], np.median(X, axis=0))


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    ("hidden", "activation", "n_classes"),
    [((100, 100), "relu", 2), ((7,), "tanh", 3), ((5, 4), "logistic", 4), ((), "relu", 3),
     ((6,), "identity", 2)],
)  # fmt: skip
def test_mlp_saliency_matches_the_loop(monkeypatch, hidden, activation, n_classes):
    # The rank-one update of the first layer against predict_proba on every changed row,
    # in blocks of 2 rows (the last one shorter).
    from sklearn.neural_network import MLPClassifier

    from localselect.saliency import _saliency

    monkeypatch.setattr(_saliency, "_BLOCK", 6)
    monkeypatch.setattr(_saliency, "RANK_ONE_MIN_FEATURES", 5)  # model_saliency takes it
    rng = np.random.default_rng(2)
    X = rng.standard_normal((30, 5))
    X[:, 3] = 0.5  # a constant column: exactly 0
    y = np.arange(30) % n_classes
    model = MLPClassifier(hidden, activation=activation, max_iter=20, random_state=0).fit(X, y)
    grid = quantile_grid(X, 3)
    S = mlp_saliency(model, X[:7], grid)
    np.testing.assert_allclose(
        S, _saliency_slow(model.predict_proba, X[:7], grid), rtol=1e-10, atol=1e-15
    )
    assert np.all(S[:, 3] == 0)
    # Bit for bit: model_saliency makes the very same call (same function, inputs, blocks),
    # which gives the same floats on any machine.
    np.testing.assert_array_equal(model_saliency(model, X[:7], grid), S)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_model_saliency_of_other_models_and_narrow_tables_uses_predict_proba():
    from sklearn.neural_network import MLPClassifier

    class Shifted(MLPClassifier):  # a subclass may change predict_proba: not the fast path
        def predict_proba(self, X):
            return super().predict_proba(X + 1.0)

    rng = np.random.default_rng(3)
    X = rng.standard_normal((30, 3))
    y = np.arange(30) % 2
    grid = quantile_grid(X, 2)
    for model in (  # narrow tables keep predict_proba too (3 < RANK_ONE_MIN_FEATURES)
        Shifted((4,), max_iter=5, random_state=0).fit(X, y),
        MLPClassifier((4,), max_iter=5, random_state=0).fit(X, y),
    ):  # bit for bit: the dispatch makes the very same saliency call
        np.testing.assert_array_equal(
            model_saliency(model, X, grid), saliency(model.predict_proba, X, grid)
        )


def _threshold_slow(W, q, offset):
    for t in sorted({abs(w) for w in W if w != 0}):
        neg = sum(1 for w in W if w <= -t)
        pos = sum(1 for w in W if w >= t)
        if (offset + neg) / max(1, pos) <= q:
            return t
    return np.inf


@pytest.mark.parametrize("seed", range(30))
def test_knockoff_threshold_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    W = np.round(rng.normal(0.3, 1.0, size=rng.integers(1, 25)), 1)
    for q, offset in ((0.1, 0), (0.2, 0), (0.3, 1)):
        assert knockoff_threshold(W, q, offset=offset) == _threshold_slow(W, q, offset)


def test_second_order_statistic_matches_the_loop():
    rng = np.random.default_rng(1)
    n, d = 60, 3
    X, K = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    Y = np.eye(3)[rng.integers(0, 3, n)]
    Z = np.hstack([X, K])
    Z = (Z - Z.mean(0)) / Z.std(0)
    Yc = Y - Y.mean(0)
    T = np.zeros(2 * d)
    for j in range(2 * d):
        best = 0.0
        for c in range(3):
            best = max(best, abs(np.mean(Yc[:, c] * Z[:, j])))
            for k in range(2 * d):
                if k != (j + d) % (2 * d):
                    best = max(best, abs(np.mean(Yc[:, c] * Z[:, j] * Z[:, k])))
        T[j] = best
    np.testing.assert_allclose(second_order_statistic(X, K, Y), T[:d] - T[d:], rtol=1e-12)


def test_knockoffs_have_the_knockoff_covariance():
    rng = np.random.RandomState(0)
    cov = np.array([[1.0, 0.5, 0.2], [0.5, 2.0, 0.3], [0.2, 0.3, 1.5]])
    X = rng.multivariate_normal(np.zeros(3), cov, size=200_000)
    K = gaussian_knockoffs(X, cov, rng)
    joint = np.cov(np.hstack([X, K]).T)
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    s = min(1.0, 2 * np.linalg.eigvalsh(corr)[0]) * 0.999
    D = np.diag(s * sd**2)
    np.testing.assert_allclose(joint[3:, 3:], cov, atol=0.03)
    np.testing.assert_allclose(joint[:3, 3:], cov - D, atol=0.03)


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


@pytest.fixture(scope="module")
def syn6():
    X, y, _ = make_instancewise_synthetic(10_000, "syn6", random_state=1)
    Xt, _, Rt = make_instancewise_synthetic(1000, "syn6", random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewHeldOutRowsWarning)  # 3,000 held out: calibrated
        return ConditionalSaliencySelection(random_state=0).fit(X, y), Xt, Rt


def test_few_held_out_rows_are_warned_of():
    # at 5,000 rows (1,500 held out) the realized per-row FDR at fdr 0.1 was 9-24 % on
    # Syn4-Syn6; the fit says so instead of promising the rate
    X, y, _ = make_instancewise_synthetic(300, "syn1", random_state=0)
    with pytest.warns(FewHeldOutRowsWarning, match="on 90 held-out rows"):
        ConditionalSaliencySelection(n_quantiles=2, random_state=0).fit(X, y)


def test_syn6_per_row_power_and_fdr_at_defaults(syn6):
    # Issue 36's quick check (10,000 training rows, d = 11, defaults: fdr 0.1; the figures
    # at SYN6_TPR). A fall of 5 TPR points, or a realized FDR 3 points over nominal, fails.
    est, Xt, Rt = syn6
    tpr, fdr = _rates(est.get_local_support(Xt), Rt)
    assert tpr >= SYN6_TPR - 0.05, tpr
    assert fdr <= est.fdr + 0.03, fdr


def test_syn4_per_row_power_and_fdr_at_defaults():
    # Issue 36's quick check on the hard case: rows near the switch on x11 can pool with rows
    # of the other regime. A fall of 5 TPR points, or a realized FDR 3 points over nominal,
    # fails. This fit gives 11.4 %; the two other quick fits at SYN4_TPR give 12.5 and 15.1 %
    # (the full run, 10,000 test rows: docs/index.md).
    X, y, _ = make_instancewise_synthetic(10_000, "syn4", random_state=1)
    Xt, _, Rt = make_instancewise_synthetic(1000, "syn4", random_state=2)
    est = ConditionalSaliencySelection(random_state=0).fit(X, y)
    tpr, fdr = _rates(est.get_local_support(Xt), Rt)
    assert tpr >= SYN4_TPR - 0.05, tpr
    assert fdr <= est.fdr + 0.03, fdr


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


def test_fractions_that_leave_no_rows_for_a_model_are_refused():
    X, y, _ = make_instancewise_synthetic(100, "syn1", random_state=0)
    with pytest.raises(ValueError, match=r"profile_fraction=0\.7 leave 0 of 100 rows"):
        ConditionalSaliencySelection(profile_fraction=0.7).fit(X, y)


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
    # Issue 37 item 3: TPR >= 85 %, FDR <= 15 % on held-out rows. Measured at 10,000 rows
    # (seeds 0, 2, 4): 98.8 / 1.3, 98.7 / 1.7, 98.8 / 1.2 (this test is the first); with the
    # nearest shared profiles before: 98.8 / 2.1, 98.7 / 3.7, 98.8 / 7.2.
    X, y, _ = _switch(10_000, 0)
    Xt, _, Rt = _switch(1000, 1)
    est = ConditionalSaliencySelection(random_state=0).fit(X, y)
    assert est.task_ == "regression" and not hasattr(est, "classes_")
    tpr, fdr = _rates(est.get_local_support(Xt), Rt)
    assert tpr >= 0.85, tpr
    assert fdr <= 0.15, fdr


def test_a_regressor_is_refused_on_classes_and_a_classifier_on_numbers():
    X, y, _ = make_instancewise_synthetic(200, "syn1", random_state=0)
    from sklearn.linear_model import LinearRegression

    with pytest.raises(ValueError, match="classification target"):
        ConditionalSaliencySelection(LinearRegression()).fit(X, y)
    with pytest.raises(ValueError, match="regression target"):
        ConditionalSaliencySelection(LogisticRegression()).fit(X, X[:, 0] + 0.5)


def test_a_row_gets_the_same_answer_alone_or_in_a_batch(syn6):
    est, Xt, _ = syn6
    batch = est.local_relevance(Xt[:20])
    alone = np.vstack([est.local_relevance(Xt[i : i + 1]) for i in range(20)])
    np.testing.assert_allclose(alone, batch, rtol=1e-12, atol=1e-15)
    R = est.local_relevance(Xt)
    assert R.min() >= 0 and R.max() <= 1
    # the held-out rule: relevance is 1 - p; the mask is Benjamini-Hochberg on p within the
    # row, and the row's own saliency at least min_saliency of its largest
    S = est._saliency(est.model_input(Xt))
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


def test_the_last_answer_is_reused_at_another_fdr_and_never_saved(syn6, monkeypatch):
    import pickle

    est, Xt, _ = syn6
    rows = Xt[:300]
    est.local_relevance(rows)
    saved = pickle.loads(pickle.dumps(est))
    assert est._last_answer.entry is not None
    assert saved._last_answer.entry is None  # pickling keeps no answer
    calls = []
    block = type(est)._heldout_block
    monkeypatch.setattr(
        type(est), "_heldout_block", lambda self, Z: calls.append(1) or block(self, Z)
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


def test_without_screen_every_column_is_modelled():
    X, y, _ = make_instancewise_synthetic(300, "syn1", random_state=0)
    est = ConditionalSaliencySelection(
        per_row="relative", screen=False, n_neighbors=0, random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(est.screened_, np.arange(11))
    assert not hasattr(est, "screen_statistics_")


def test_bad_parameter_is_refused():
    X, y, _ = make_instancewise_synthetic(50, "syn1", random_state=0)
    with pytest.raises(ValueError, match="relative_threshold"):
        ConditionalSaliencySelection(relative_threshold=0).fit(X, y)


def _pooled_relevance_slow(S, reference, n_neighbors):
    """Each row's profile averaged with its ``n_neighbors`` most cosine-similar reference
    profiles (its own counted once), divided by the row's largest; one row at a time."""
    P = np.empty_like(S)
    for i, s in enumerate(S):
        cos = np.array([
            s @ r / (np.linalg.norm(s) * np.linalg.norm(r)) if s.any() and r.any() else 0.0
            for r in reference
        ])  # fmt: skip
        nearest = np.argsort(-cos, kind="stable")[:n_neighbors]
        P[i] = (s + reference[nearest].sum(axis=0)) / (n_neighbors + 1)
    return P / P.max(axis=1, keepdims=True)


def test_pooling_averages_the_cosine_nearest_reference_profiles():
    # Neighbours by cosine, not by Euclidean distance: a row with a weak, short profile
    # (a confident prediction) pools with rows whose profile points the same way, not with
    # every other weak row. Replacing the unit-length profiles by the raw ones, or the
    # pooled saliency by the row's own, fails here.
    X, y, _ = make_instancewise_synthetic(400, "syn4", random_state=0)
    Xt, _, _ = make_instancewise_synthetic(60, "syn4", random_state=1)
    est = ConditionalSaliencySelection(
        LogisticRegression(),
        per_row="relative",
        screen=False,
        n_neighbors=7,
        n_reference=80,
        random_state=0,
    ).fit(X, y)
    S = model_saliency(est.estimator_, est.model_input(Xt), est.grid_)
    ref = est.reference_saliency_
    assert ref.shape == (80, 11)
    cols = est._order[est._cols]  # the columns of S in the input's order
    expected = _pooled_relevance_slow(S, ref, 7)
    np.testing.assert_allclose(est.local_relevance(Xt)[:, cols], expected, rtol=1e-10)
    # The test can tell: Euclidean neighbours give another answer on these rows.
    dist = ((S[:, None, :] - ref[None]) ** 2).sum(axis=2)
    euclid = (S + ref[np.argsort(dist, axis=1, kind="stable")[:, :7]].sum(axis=1)) / 8
    euclid /= euclid.max(axis=1, keepdims=True)
    assert np.abs(euclid - expected).max() > 0.05


def test_support_agreement_orders_the_pool_and_zero_pools_the_nearest(monkeypatch):
    from sklearn.neighbors import NearestNeighbors

    from localselect.saliency import _estimator
    from localselect.saliency._perrow import loss_change_pvalues

    X, y, _ = make_instancewise_synthetic(1500, "syn4", random_state=0)
    Xt, _, _ = make_instancewise_synthetic(300, "syn4", random_state=1)
    est = ConditionalSaliencySelection(n_neighbors=40, pool_profiles="shared", random_state=0)
    est.fit(X, y)
    assert not hasattr(est, "swapped_saliency_")
    cols = est._order[est._cols]
    S = est._saliency(est.model_input(Xt), est.grid_)
    nn = NearestNeighbors(n_neighbors=40).fit(_estimator._profiles(est.reference_saliency_))
    nearest = nn.kneighbors(_estimator._profiles(S), return_distance=False)
    plain = 1.0 - loss_change_pvalues(est.loss_change_, nearest)
    consistent = est.local_relevance(Xt)
    monkeypatch.setattr(_estimator, "_ANSWER_ROWS", 7)  # answers in blocks, the last shorter
    np.testing.assert_allclose(est.local_relevance(Xt), consistent, rtol=1e-12)
    # a row's pool changes only where candidates disagree with its support
    assert not np.allclose(consistent[:, cols], plain)
    est.set_params(support_agreement=0.0)
    np.testing.assert_allclose(est.local_relevance(Xt)[:, cols], plain, rtol=1e-12)


def test_swapped_profiles_choose_each_features_pools(monkeypatch):
    from localselect.saliency import _estimator

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
    monkeypatch.setattr(_estimator, "_SWAPPED_BUDGET", c * c * m - 1)
    auto = ConditionalSaliencySelection(n_neighbors=40, random_state=0).fit(X, y)
    assert not hasattr(auto, "swapped_saliency_")
    np.testing.assert_allclose(auto.local_relevance(Xt), shared.local_relevance(Xt), rtol=1e-12)
