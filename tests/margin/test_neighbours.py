"""Neighbour-truncated IMMIGRATE: reference checks, exactness at full k,
the dropped-weight bound, the "auto" rules, BIM's shared neighbours and progress."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import logsumexp
from sklearn.exceptions import ConvergenceWarning
from task_recorder import TaskRecorder

from localselect import BoostedImmigrate, Immigrate
from localselect._runtime import listen
from localselect.margin import (
    _immigrate,
    _matrix_kernels,
    _neighbours,
    _pairs,
    _solvers,
    _vector_kernels,
)


def _problem(n=36, a=4, n_classes=3, seed=0):
    rng = np.random.default_rng(seed)
    codes = np.arange(n) % n_classes
    rng.shuffle(codes)
    X = rng.normal(size=(n, a)) + codes[:, None] * 0.7
    W = np.abs(rng.normal(size=(a, a)))
    W = W + W.T
    return X, codes.astype(np.intp), W / np.linalg.norm(W), rng.uniform(0.5, 1.5, size=n)


def _lists(X, codes, k):
    nb, models = _neighbours.class_neighbours(X, codes, int(codes.max()) + 1, k)
    return nb, models, _neighbours.hit_miss_lists(nb, codes)


def _record(X, codes, k):
    return _neighbours.build_neighbours(X, codes, int(codes.max()) + 1, k)


def _reference_step(X, codes, W, sigma, sw, k):
    """Sample by sample: k nearest hits/misses by brute force, softmax, Sigma."""
    n, a = X.shape
    S = np.zeros((a, a))
    ent = 0.0
    for i in range(n):
        dist = np.linalg.norm(X - X[i], axis=1)
        parts = []
        for mask in (codes == codes[i], codes != codes[i]):
            mask = mask.copy()
            mask[i] = False
            cand = np.flatnonzero(mask)
            cand = cand[np.argsort(dist[cand], kind="stable")[:k]]
            D = np.abs(X[cand] - X[i])
            q = np.einsum("ij,jk,ik->i", D, W, D)
            p = np.exp(-q / sigma - logsumexp(-q / sigma))
            parts.append((D, p, -np.sum(p * np.log(p))))
        (Dh, ph, eh), (Dm, pm, em) = parts
        S += sw[i] * ((Dh * ph[:, None]).T @ Dh - (Dm * pm[:, None]).T @ Dm)
        ent += sw[i] * (em - eh)
    return S, ent


@pytest.mark.parametrize("k", [1, 3, 7])
def test_truncated_step_matches_sample_by_sample_reference(k):
    X, codes, W, sw = _problem()
    _, _, lists = _lists(X, codes, k)
    step = _matrix_kernels.immigrate_step_truncated(X, lists, W, 0.8, sw, block_memory=0.001)
    S, ent = _reference_step(X, codes, W, 0.8, sw, k)
    np.testing.assert_allclose(step.scatter, S, rtol=1e-10, atol=1e-12)
    assert step.entropy == pytest.approx(ent, rel=1e-10)


@pytest.mark.parametrize("k", [12, 40])
def test_k_at_least_the_class_sizes_equals_the_exact_kernels(k):
    X, codes, W, sw = _problem()  # classes of 12, misses 24
    nb, models, lists = _lists(X, codes, k)
    if k >= 24:
        assert lists.hits_dropped.max() == 0 and lists.misses_dropped.max() == 0
        exact = _matrix_kernels.immigrate_step(X, codes, W, 0.8, sw)
        step = _matrix_kernels.immigrate_step_truncated(X, lists, W, 0.8, sw)
        np.testing.assert_allclose(step.scatter, exact.scatter, rtol=1e-10, atol=1e-12)
        assert step.entropy == pytest.approx(exact.entropy, rel=1e-10)
        np.testing.assert_allclose(_matrix_kernels.dropped_weight_bound(X, lists, W, 0.8), 0.0)
    # Expected distances need only every sample of each class (12 here).
    loo = _matrix_kernels.expected_distances_truncated(X, X, nb.indices, nb.distance, W, 0.8)
    np.testing.assert_allclose(
        loo,
        _matrix_kernels.expected_distances(X, X, codes, 3, W, 0.8, leave_one_out=True),
        rtol=1e-10,
    )
    Xq = np.random.default_rng(5).normal(size=(9, X.shape[1]))
    rows_of = [np.flatnonzero(codes == c) for c in range(3)]
    index, distance = _neighbours.query_class_neighbours(models, rows_of, Xq, k)
    np.testing.assert_allclose(
        _matrix_kernels.expected_distances_truncated(Xq, X, index, distance, W, 0.8),
        _matrix_kernels.expected_distances(Xq, X, codes, 3, W, 0.8),
        rtol=1e-10,
    )


@pytest.mark.parametrize("seed", range(4))
def test_bound_covers_the_true_dropped_weight(seed):
    X, codes, W, _ = _problem(n=60, a=3, n_classes=2, seed=seed)
    W = W + np.eye(3)  # a clear positive diagonal, so the bound is informative
    W /= np.linalg.norm(W)
    sigma = 0.3
    _, _, lists = _lists(X, codes, 5)
    bound = _matrix_kernels.dropped_weight_bound(X, lists, W, sigma)
    for i in range(len(X)):
        d = np.abs(X - X[i])
        logit = -np.einsum("ij,jk,ik->i", d, W, d) / sigma
        true = []
        for mask, kept, dist in (
            (codes == codes[i], lists.hits[i], lists.hit_distance[i]),
            (codes != codes[i], lists.misses[i], lists.miss_distance[i]),
        ):
            mask = mask.copy()
            mask[i] = False
            kept = kept[np.isfinite(dist)]
            true.append(1.0 - np.exp(logsumexp(logit[kept]) - logsumexp(logit[mask])))
        assert max(true) <= bound[i] + 1e-12
    assert bound.mean() < 1.0


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def test_immigrate_with_full_k_equals_exact_and_auto_is_exact_on_small_data():
    X, codes, _, _ = _problem(n=40, a=4, n_classes=2)
    exact = _fit(Immigrate(n_candidates=None), X, codes)
    full = _fit(Immigrate(n_candidates=40), X, codes)
    auto = _fit(Immigrate(), X, codes)
    assert exact.n_candidates_ is None and auto.n_candidates_ is None
    assert full.n_candidates_ == 40 and full.dropped_weight_bound_ == 0.0
    np.testing.assert_allclose(full.weights_, exact.weights_, atol=1e-12)
    np.testing.assert_array_equal(auto.weights_, exact.weights_)
    np.testing.assert_allclose(full.expected_distances(X), exact.expected_distances(X), rtol=1e-9)


def test_auto_rule():
    assert _pairs.auto_candidates(1000, 40) is None
    assert _pairs.auto_candidates(5000, 40) == 100  # 1e9 / (5000 * 1600) = 125 -> 100
    assert _pairs.auto_candidates(10_000, 150) == 10  # 4 -> at least 10
    assert _pairs.auto_candidates(2000, 200) == 12
    # Up to 1,000 samples, exact only while an exact pass (N^2 A^2) is within twice the budget:
    assert _pairs.auto_candidates(214, 147) is None  # the paper's largest pass (Urban, 1e9)
    assert _pairs.auto_candidates(452, 279) == 28  # 1.6e10 -> 1e9 / (452 * 279^2)
    assert _pairs.auto_candidates(1000, 40, budget=2e7) == 12  # BIM: 1.6e9 > 4e7
    assert _pairs.auto_candidates(150, 40, budget=2e7) is None  # 3.6e7 <= 4e7
    assert _pairs.auto_candidates(1000, 200, budget=1e8, power=1) is None  # IM4E: 2e8
    assert _pairs.auto_candidates(1000, 201, budget=1e8, power=1) == 100  # 497 -> 100


def test_truncated_fit_on_larger_data_predicts_and_reports_its_bound(monkeypatch):
    monkeypatch.setattr(_pairs, "EXACT_MAX_SAMPLES", 50)
    X, codes, _, _ = _problem(n=120, a=3, n_classes=2, seed=3)
    model = _fit(Immigrate(), X, codes)
    k = _pairs.auto_candidates(120, 3)
    assert model.n_candidates_ == k == 100
    assert 0.0 <= model.dropped_weight_bound_ <= 1.0
    assert model.score(X, codes) > 0.7
    small = _fit(Immigrate(n_candidates=5), X, codes)
    assert small.predict(X[:10]).shape == (10,)


def test_high_dimension_prescreen_is_automatic_and_capped(monkeypatch):
    monkeypatch.setattr(_immigrate, "DENSE_MAX_FEATURES", 6)
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 15)
    X = rng.normal(size=(30, 20))
    X[:, :3] += y[:, None] * 2.0
    model = _fit(Immigrate(), X, y)
    assert model.im4e_weights_ is not None
    assert 1 <= model.prescreen_support_.sum() <= 6
    assert model.prescreen_support_[:3].all()
    below = _fit(Immigrate(), X[:, :6], y)
    assert below.prescreen_support_.all() and below.im4e_weights_ is None


def test_bim_shares_one_neighbour_search_and_selects(monkeypatch):
    calls = []
    original = _neighbours.class_neighbours

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_neighbours, "class_neighbours", counting)
    X, codes, _, _ = _problem(n=60, a=4, n_classes=2, seed=1)
    model = BoostedImmigrate(n_estimators=6, n_candidates=8, n_features_to_select=2).fit(X, codes)
    assert len(calls) == 1
    assert model.n_candidates_ == 8
    assert model.get_support().sum() == 2
    assert model.transform(X).shape == (60, 2)
    top = np.argsort(-model.feature_importances_, kind="stable")[:2]
    np.testing.assert_array_equal(np.flatnonzero(model.get_support()), np.sort(top))


def test_bim_stops_at_a_round_no_better_than_chance():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, size=40)  # labels unrelated to X
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        model = BoostedImmigrate(n_estimators=30, random_state=0).fit(X, y)
    assert len(model.estimators_) < 30
    kept = model.estimator_errors_[np.isfinite(model.estimator_errors_)]
    assert np.all(kept < 0.5)


def test_progress_is_reported_and_does_not_change_results():
    X, codes, _, _ = _problem(n=40, a=3, n_classes=2, seed=2)
    quiet = _fit(Immigrate(max_iter=4, tol=0.0), X, codes)
    quiet_bim = BoostedImmigrate(n_estimators=3, random_state=0).fit(X, codes)
    rec = TaskRecorder()
    with listen(rec):
        loud = _fit(Immigrate(max_iter=4, tol=0.0, verbose=1), X, codes)
        loud_bim = BoostedImmigrate(n_estimators=3, random_state=0, verbose=1).fit(X, codes)
    np.testing.assert_array_equal(quiet.weights_, loud.weights_)
    np.testing.assert_array_equal(quiet_bim.feature_importances_, loud_bim.feature_importances_)
    by_name = {t.description: t for t in rec.tasks}
    assert by_name["IMMIGRATE iterations"].done == loud.n_iter_ == 4
    assert by_name["BIM rounds"].total == 3
    assert by_name["BIM rounds"].done >= len(loud_bim.estimators_)
    # the weak learners of BIM report no task of their own
    assert sum(t.description == "IMMIGRATE iterations" for t in rec.tasks) == 1


@pytest.mark.slow
def test_truncated_estimator_matches_reference_on_a_larger_problem():
    X, codes, W, sw = _problem(n=300, a=6, n_classes=3, seed=7)
    for k in (5, 20):
        _, _, lists = _lists(X, codes, k)
        step = _matrix_kernels.immigrate_step_truncated(X, lists, W, 0.5, sw, block_memory=0.01)
        S, ent = _reference_step(X, codes, W, 0.5, sw, k)
        np.testing.assert_allclose(step.scatter, S, rtol=1e-9, atol=1e-10)
        assert step.entropy == pytest.approx(ent, rel=1e-9)
    full = _record(X, codes, 300)
    exact = _solvers.immigrate(
        _pairs.AllPairs(X, codes), np.eye(6) / np.sqrt(6), 1.0, max_iter=5, warn=False
    )
    trunc = _solvers.immigrate(
        _pairs.NeighbourPairs(X, codes, full), np.eye(6) / np.sqrt(6), 1.0, max_iter=5, warn=False
    )
    np.testing.assert_allclose(trunc.weights, exact.weights, atol=1e-10)
    np.testing.assert_allclose(trunc.cost, exact.cost, rtol=1e-9)


def _reference_vector_step(X, codes, w, sigma, sw, k, outlier):
    """Sample by sample: IM4E / I-RELIEF margin vector over the k nearest hits/misses."""
    n, a = X.shape
    z = np.zeros(a)
    ent = 0.0
    for i in range(n):
        dist = np.linalg.norm(X - X[i], axis=1)
        parts = []
        for mask in (codes == codes[i], codes != codes[i]):
            mask = mask.copy()
            mask[i] = False
            cand = np.flatnonzero(mask)
            cand = cand[np.argsort(dist[cand], kind="stable")[:k]]
            D = np.abs(X[cand] - X[i])
            logit = -(D @ w) / sigma
            lse = logsumexp(logit)
            p = np.exp(logit - lse)
            parts.append((D, p, lse, -np.sum(p * np.log(p))))
        (Dh, ph, lh, eh), (Dm, pm, lm, em) = parts
        s = sw[i]
        if outlier:
            s *= 1.0 - np.exp(lm - np.logaddexp(lh, lm))
        z += s * (pm @ Dm - ph @ Dh)
        ent += s * (em - eh)
    return z, ent


@pytest.mark.parametrize("outlier", [False, True])
@pytest.mark.parametrize("k", [2, 6])
def test_truncated_vector_step_matches_reference(k, outlier):
    X, codes, _, sw = _problem()
    w = np.abs(np.random.default_rng(3).normal(size=X.shape[1]))
    _, _, lists = _lists(X, codes, k)
    step = _vector_kernels.margin_vector_step_truncated(
        X, lists, w, 0.6, sw, outlier=outlier, block_memory=0.001
    )
    z, ent = _reference_vector_step(X, codes, w, 0.6, sw, k, outlier)
    np.testing.assert_allclose(step.z, z, rtol=1e-10, atol=1e-12)
    assert step.entropy == pytest.approx(ent, rel=1e-10)


@pytest.mark.parametrize("kernel", ["im4e", "irelief"])
def test_vector_kernels_with_full_k_equal_exact(kernel):
    X, codes, _, _ = _problem()
    full = _record(X, codes, 40)
    func = getattr(_solvers, kernel)
    exact = func(_pairs.AllPairs(X, codes), 1.0, max_iter=5, warn=False)
    trunc = func(_pairs.NeighbourPairs(X, codes, full), 1.0, max_iter=5, warn=False)
    np.testing.assert_allclose(trunc.weights, exact.weights, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(trunc.cost, exact.cost, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["IM4E", "IRelief"])
def test_vector_estimators_auto_rule_and_progress(name, monkeypatch):
    import localselect

    cls = getattr(localselect, name)
    X, codes, _, _ = _problem(n=80, a=4, n_classes=2, seed=4)
    small = _fit(cls(), X, codes)
    assert small.n_candidates_ is None
    monkeypatch.setattr(_pairs, "EXACT_MAX_SAMPLES", 50)
    rec = TaskRecorder()
    with listen(rec):
        big = _fit(cls(verbose=1), X, codes)
    assert big.n_candidates_ == 100
    # k = 100 covers every class here, so the truncated fit equals the exact one.
    np.testing.assert_allclose(big.feature_importances_, small.feature_importances_, atol=1e-12)
    (task,) = [t for t in rec.tasks if t.description.endswith("iterations")]
    assert task.done == big.n_iter_


def test_bim_shared_query_votes_equal_the_learners_own_predictions():
    X, codes, _, _ = _problem(n=60, a=4, n_classes=3, seed=6)
    model = BoostedImmigrate(n_estimators=5, n_candidates=6, random_state=0).fit(X, codes)
    Xq = np.random.default_rng(0).normal(size=(15, 4))
    votes = np.zeros((15, 3))
    for est, alpha in zip(model.estimators_, model.estimator_weights_):
        votes[np.arange(15), np.argmin(est.expected_distances(Xq), axis=1)] += alpha
    np.testing.assert_allclose(model.predict_proba(Xq), votes / votes.sum(axis=1, keepdims=True))


def test_simba_reports_its_iterations():
    from localselect import Simba

    X, codes, _, _ = _problem(n=40, a=3, n_classes=2, seed=8)
    rec = TaskRecorder()
    with listen(rec):
        model = _fit(Simba(n_features_to_select=2, max_iter=5), X, codes)
    (task,) = [t for t in rec.tasks if t.description == "Simba iterations"]
    assert task.done == model.n_iter_ and task.total == 5
    np.testing.assert_array_equal(
        model.feature_importances_,
        _fit(Simba(n_features_to_select=2, max_iter=5), X, codes).feature_importances_,
    )


def test_missing_values_run_exact_and_nan_queries_fall_back(monkeypatch):
    import localselect

    monkeypatch.setattr(_pairs, "EXACT_MAX_SAMPLES", 20)
    X, codes, _, _ = _problem(n=60, a=3, n_classes=2, seed=9)
    Xn = X.copy()
    Xn[3, 1] = np.nan
    for name in ("Immigrate", "IM4E", "IRelief"):
        assert _fit(getattr(localselect, name)(), Xn, codes).n_candidates_ is None
    model = _fit(Immigrate(), X, codes)
    assert model.n_candidates_ == 100
    query = X[:4].copy()
    query[0, 2] = np.nan
    s = model.expected_distances(query)
    assert np.isfinite(s).all()
    np.testing.assert_allclose(s[1:], model.expected_distances(X[1:4]))


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda **kw: BoostedImmigrate(n_estimators=2, **kw), "BoostedImmigrate"),
        (lambda **kw: Immigrate(**kw), "Immigrate"),
    ],
)
def test_refuses_at_once_an_exact_fit_forced_by_missing_values(monkeypatch, make, name):
    X, codes, _, _ = _problem(n=60, a=4, n_classes=2, seed=5)
    X = X.copy()
    X[3, 1] = np.nan
    # Shrink the limits so a tiny table stands for a large one.
    monkeypatch.setattr(_pairs, "EXACT_MAX_SAMPLES", 10)
    monkeypatch.setattr(_pairs, "MISSING_EXACT_MAX_WORK", 1e5)
    with pytest.raises(
        ValueError, match=rf"{name}: X has missing values.*--missing impute.*n_candidates=None"
    ):
        make().fit(X, codes)
    # With an explicit choice, or under the limit, it runs exact as before.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert make(n_candidates=None).fit(X, codes).n_candidates_ is None
        monkeypatch.setattr(_pairs, "MISSING_EXACT_MAX_WORK", 1e12)
        assert make().fit(X, codes).n_candidates_ is None
