"""Immigrate estimator: fitted attributes, prediction (3.18), options, bad input, Fig. 3."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from localselect import Immigrate
from localselect.datasets import make_immigrate_synthetic


def _data(n=40, noise_features=2, seed=0):
    X, y, _ = make_immigrate_synthetic(
        n, noise_level=0.1, n_noise_features=noise_features, random_state=seed
    )
    return StandardScaler().fit_transform(X), y


def _fit(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return Immigrate(**params).fit(X, y)


def test_fitted_weight_matrix_satisfies_the_constraints():
    X, y = _data()
    model = _fit(X, y)
    W = model.weights_
    np.testing.assert_array_equal(W, W.T)
    assert np.linalg.norm(W) == pytest.approx(1.0)
    assert W.min() >= 0
    np.testing.assert_array_equal(model.feature_importances_, np.diag(W))
    np.testing.assert_array_equal(np.diag(model.interaction_importances_), 0)
    np.testing.assert_array_equal(model.interaction_importances_ + np.diag(np.diag(W)), W)
    assert model.n_iter_ == len(model.cost_) and 1 <= model.n_iter_ <= 10
    np.testing.assert_array_equal(model.classes_, [0, 1])


def test_psd_option_keeps_theorem_3_1_matrix():
    X, y = _data()
    W = _fit(X, y, nonnegative=False).weights_
    assert np.linalg.eigvalsh(W).min() >= -1e-12
    assert np.linalg.norm(W) == pytest.approx(1.0)


def test_predict_is_argmin_of_expected_distances_and_proba_follows():
    X, y = _data()
    model = _fit(X, y)
    s = model.expected_distances(X[:7])
    np.testing.assert_array_equal(model.predict(X[:7]), model.classes_[np.argmin(s, axis=1)])
    proba = model.predict_proba(X[:7])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    expected = np.exp(-s / model.sigma) / np.exp(-s / model.sigma).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(proba, expected)
    assert model.score(X, y) > 0.85


def test_converges_and_warns_only_at_max_iter():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        model = Immigrate(max_iter=50, tol=1e-3).fit(X, y)
    assert model.n_iter_ < 50
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        Immigrate(max_iter=2, tol=0.0).fit(X, y)


def test_callback_sees_every_cost():
    X, y = _data()
    seen = []
    model = _fit(X, y, callback=lambda it, cost: seen.append((it, cost)))
    assert [it for it, _ in seen] == list(range(1, model.n_iter_ + 1))
    np.testing.assert_array_equal([c for _, c in seen], model.cost_)


def test_pruning_zeroes_small_entries_and_renormalises():
    X, y = _data(noise_features=4)
    full = _fit(X, y).weights_
    pruned = _fit(X, y, prune=True).weights_
    a = X.shape[1]
    assert np.all(pruned[pruned > 0] >= 1.0 / a)
    np.testing.assert_array_equal(pruned == 0, full < 1.0 / a)
    assert np.linalg.norm(pruned) == pytest.approx(1.0)


def test_prescreen_models_only_kept_features():
    X, y = _data(noise_features=6)
    model = _fit(X, y, prescreen="auto", init="im4e")
    keep = model.prescreen_support_
    w = model.im4e_weights_
    assert w.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(keep, (w > 2.0 / X.shape[1]) | (w == w.max()))
    assert keep[0] and keep[1] and keep.sum() < X.shape[1]
    W = model.weights_
    assert np.all(W[~keep] == 0) and np.all(W[:, ~keep] == 0)
    assert np.linalg.norm(W) == pytest.approx(1.0)
    np.testing.assert_array_equal(model.get_support(), keep)


def test_random_init_is_seeded_and_n_jobs_does_not_change_results():
    X, y = _data(n=60)
    a = _fit(X, y, init="random", random_state=3, max_iter=3).weights_
    b = _fit(X, y, init="random", random_state=3, max_iter=3, n_jobs=2).weights_
    np.testing.assert_array_equal(a, b)


def test_selection_by_count_and_by_weights():
    X, y = _data(noise_features=3)
    model = _fit(X, y, n_features_to_select=2)
    np.testing.assert_array_equal(model.get_support(indices=True), [0, 1])
    assert model.transform(X).shape == (X.shape[0], 2)
    assert _fit(X, y).get_support().all()


def test_string_labels_pandas_and_constant_feature():
    X, y = _data()
    frame = pd.DataFrame(np.column_stack([X, np.full(len(X), 3.0)]), columns=list("abcde"))
    labels = np.where(y == 1, "yes", "no")
    model = _fit(frame, labels)
    assert np.all(np.isfinite(model.weights_))
    assert model.feature_importances_[4] == 0.0
    assert np.all(model.weights_[4] == 0)
    assert set(model.predict(frame)) <= {"no", "yes"}
    np.testing.assert_array_equal(model.feature_names_in_, list("abcde"))


def test_multiclass_predicts_every_class():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    X = np.column_stack([y + 0.2 * rng.normal(size=60), rng.normal(size=60)])
    model = _fit(X, y)
    assert model.score(X, y) > 0.9
    assert model.predict_proba(X).shape == (60, 3)


@pytest.mark.parametrize(
    ("params", "match"),
    [({"sigma": 0.0}, "sigma"), ({"sigma": -1.0}, "sigma"), ({"tol": -1e-3}, "tol")],
)
def test_bad_parameters_are_rejected(params, match):
    X, y = _data()
    with pytest.raises(ValueError, match=match):
        Immigrate(**params).fit(X, y)


def test_bad_data_gives_clear_errors():
    X, y = _data()
    with pytest.raises(ValueError, match="at least 2 classes"):
        Immigrate().fit(X, np.zeros(len(X)))
    y1 = y.copy()
    y1[0] = 7
    with pytest.raises(ValueError, match=r"class\(es\) \[.*7.*\] have 1 sample"):
        Immigrate().fit(X, y1)
    # NaN is a missing value (tests/margin/test_missing.py); infinity is refused.
    Xb = X.copy()
    Xb[3, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        Immigrate().fit(Xb, y)


def test_figure_3_interaction_stays_clear_of_noise_as_noise_rises():
    # Paper, Fig. 3: the weight of the interaction of features 1 and 2 learned by
    # IMMIGRATE stays high while the noise fraction goes from 5% to 50% (LFE's
    # falls). We add 3 irrelevant N(0, 1) features: their interactions stay low.
    levels = np.round(np.arange(0.05, 0.51, 0.05), 2)
    inter, noise_max, cross_max = [], [], []
    for level in levels:
        runs = []
        for seed in range(3):
            X, y, _ = make_immigrate_synthetic(
                100, noise_level=level, n_noise_features=3, random_state=seed
            )
            W = _fit(StandardScaler().fit_transform(X), y).weights_
            runs.append((W[0, 1], W[2:, 2:][np.triu_indices(3, 1)].max(), W[:2, 2:].max()))
        means = np.mean(runs, axis=0)
        inter.append(means[0])
        noise_max.append(means[1])
        cross_max.append(means[2])
    inter, noise_max, cross_max = map(np.asarray, (inter, noise_max, cross_max))
    assert np.all(inter > 3 * noise_max)
    assert np.all(inter > 1.5 * cross_max)
    # robust: at 50% noise the interaction weight keeps >= 80% of its 5% value
    assert inter[-1] >= 0.8 * inter[0]


def test_fit_and_boosting_rounds_share_the_kernel_fit():
    from sklearn.utils import check_random_state

    from localselect import BoostedImmigrate
    from localselect.margin._solvers import immigrate_fit

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 20)
    X = np.column_stack([y + 0.5 * rng.normal(size=40), rng.normal(size=(40, 3))])
    model = Immigrate(sigma=0.5, prune=True, tol=1e-2).fit(X, y)
    res = immigrate_fit(X, y, 0.5, rng=check_random_state(None), prune=True, tol=1e-2)
    np.testing.assert_array_equal(model.weights_, res.weights)
    np.testing.assert_array_equal(model.cost_, res.cost)
    boosted = BoostedImmigrate(n_estimators=1, max_iter=3).fit(X, y)
    first = immigrate_fit(
        X,
        y,
        4.0,
        rng=check_random_state(0),
        max_iter=3,
        sample_weight=np.full(40, 1 / 40),
        warn=False,
    )
    np.testing.assert_array_equal(boosted.estimators_[0].weights_, first.weights)
    assert boosted.estimators_[0].sigma == 4.0
