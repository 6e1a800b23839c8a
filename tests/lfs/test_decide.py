"""Per-query subsets of LFS: the deciding regions, against a slow reference."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.datasets import make_lfs_synthetic
from localselect.lfs import LocalFeatureSelection
from localselect.lfs._decide import query_subsets


def _reference(est, Q, rule):
    """Eq. (11) query by query and region by region, then the deciding regions."""
    S_train = est.local_support_
    N = S_train.shape[0]
    n_classes = est.classes_.size
    active = [i for i in range(N) if S_train[i].any()]
    eta = np.array([sum(est.y_fit_[i] == c for i in active) for c in range(n_classes)], float)
    eta[eta == 0] = np.inf
    out = []
    for q in Q:
        ratio = np.full(N, np.inf)
        vote = np.zeros(N, dtype=bool)
        for i in active:
            f = np.flatnonzero(S_train[i])
            ratio[i] = np.sqrt(((q[f] - est.X_fit_[i, f]) ** 2).sum()) / est.radii_[i]
            if est.candidates_ is None:
                pts = np.arange(N)
            else:  # the query's n_candidates * n_classes nearest training points
                k = min(N, est.n_candidates_ * n_classes)
                pts = np.argsort(((q - est.X_fit_) ** 2).sum(axis=1), kind="stable")[:k]
            d = ((q[f] - est.X_fit_[pts][:, f]) ** 2).sum(axis=1)
            near = pts[d <= d.min()]
            same = int((est.y_fit_[near] == est.y_fit_[i]).sum())
            vote[i] = same > near.size - same
        sphere = vote & (ratio <= 1)
        pool = sphere if sphere.any() else vote
        S = np.array([pool[est.y_fit_ == c].sum() for c in range(n_classes)]) / eta
        win = int(np.argmax(S))
        deciding = [i for i in range(N) if pool[i] and est.y_fit_[i] == win and S.max() > 0]
        nearest = int(np.argmin(ratio))
        if rule in ("decisive", "majority") and deciding:
            chosen = min(deciding, key=lambda i: (ratio[i], i))
        else:
            chosen = nearest
        rel = S_train[deciding].mean(axis=0) if deciding else S_train[nearest].astype(float)
        subset = rel >= 0.5 if rule == "majority" else S_train[chosen]
        out.append((subset, rel, chosen, len(deciding), win))
    return out


@pytest.mark.parametrize("n_candidates", [None, 4])
@pytest.mark.parametrize("rule", ["decisive", "nearest", "majority"])
def test_query_subsets_match_the_reference(n_candidates, rule):
    X, y, _ = make_lfs_synthetic(70, n_irrelevant=4, random_state=3)
    est = LocalFeatureSelection(max_features=3, n_beta=4, max_iter=1, n_candidates=n_candidates)
    est.fit(X[:45], y[:45])
    rng = np.random.default_rng(0)
    Q = np.vstack([X[45:], X[:5], rng.normal(scale=4.0, size=(5, X.shape[1]))])  # far rows too
    got = query_subsets(est, Q, rule=rule)
    ref = _reference(est, Q, rule)
    np.testing.assert_array_equal(got.support, [r[0] for r in ref])
    np.testing.assert_allclose(got.relevance, [r[1] for r in ref])
    np.testing.assert_array_equal(got.region, [r[2] for r in ref])
    np.testing.assert_array_equal(got.n_deciding, [r[3] for r in ref])
    np.testing.assert_array_equal(got.winner, [r[4] for r in ref])
    # The winner is predict's class: the subset explains the prediction.
    np.testing.assert_array_equal(est.classes_[got.winner], est.predict(Q))


def test_estimator_uses_the_decisive_rule_for_training_and_new_rows():
    X, y, _ = make_lfs_synthetic(60, n_irrelevant=4, random_state=1)
    est = LocalFeatureSelection(max_features=3, n_beta=4, max_iter=1).fit(X[:40], y[:40])
    q = query_subsets(est, X[40:])
    np.testing.assert_array_equal(est.get_local_support(X[40:]), q.support)
    np.testing.assert_allclose(est.local_relevance(X[40:]), q.relevance)
    train = query_subsets(est, est.X_fit_)
    np.testing.assert_array_equal(est.get_local_support(), train.support)
    np.testing.assert_array_equal(est.get_support(), train.support.any(axis=0))
    # A refit replaces the cached training subsets.
    est.set_params(max_features=1).fit(X[:40], y[:40])
    assert est.get_local_support().sum(axis=1).max() <= 1


def test_rule_rejects_unknown_names():
    X, y, _ = make_lfs_synthetic(30, n_irrelevant=2, random_state=0)
    est = LocalFeatureSelection(max_features=2, n_beta=3, max_iter=1).fit(X, y)
    with pytest.raises(ValueError, match="rule"):
        query_subsets(est, X, rule="union")


def _held_out_scores(n_train, n_irrelevant, seed, **params):
    X, y, R = make_lfs_synthetic(2 * n_train, n_irrelevant=n_irrelevant, random_state=seed)
    est = LocalFeatureSelection(**params).fit(X[:n_train], y[:n_train])
    S, Rt = est.get_local_support(X[n_train:]), R[n_train:]
    tp = (S & Rt).sum(axis=1)
    precision = np.where(S.any(axis=1), tp / np.maximum(S.sum(axis=1), 1), 0).mean()
    recall = (tp / Rt.sum(axis=1)).mean()
    ratio = S.sum(axis=1).mean() / est.local_support_.sum(axis=1).mean()
    return precision, recall, ratio


def test_held_out_queries_get_the_expected_features():
    # Small version of the target (make_lfs_synthetic(300, 20) in the slow test).
    precision, recall, ratio = _held_out_scores(80, 6, seed=0, n_beta=8)
    assert precision >= 0.8 and recall >= 0.8
    assert 1 / 1.5 <= ratio <= 1.5


@pytest.mark.slow
def test_target_make_lfs_synthetic_300_20():
    # Target: per-query precision and recall >= 0.8 on held-out rows, mean query
    # subset within 1.5x of the training regions' mean.
    precision, recall, ratio = _held_out_scores(300, 20, seed=0)
    assert precision >= 0.8 and recall >= 0.8
    assert 1 / 1.5 <= ratio <= 1.5
