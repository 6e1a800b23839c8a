"""BoostedImmigrate (Algorithm 3): rounds, votes, reweighting, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from localselect import BoostedImmigrate
from localselect.datasets import make_immigrate_synthetic
from localselect.margin._matrix_kernels import expected_distances


def _data(n=40, noise=0.2, seed=0):
    X, y, _ = make_immigrate_synthetic(n, noise_level=noise, n_noise_features=2, random_state=seed)
    return StandardScaler().fit_transform(X), y


def test_rounds_follow_algorithm_3():
    X, y = _data()
    model = BoostedImmigrate(n_estimators=8, random_state=0).fit(X, y)
    k = len(model.estimators_)
    assert 1 <= k <= 8
    assert model.estimator_weights_.shape == (k,) and np.all(model.estimator_weights_ > 0)
    errors = model.estimator_errors_
    # two classes: alpha_t = 0.5 log((1 - eps) / eps) exactly as in Algorithm 3
    np.testing.assert_allclose(model.estimator_weights_, 0.5 * np.log((1 - errors) / errors))
    # sigma falls geometrically from sigma_max towards sigma_min
    factor = (0.2 / 4.0) ** (1 / 8)
    ratios = np.log(model.sigmas_ / 4.0) / np.log(factor)
    np.testing.assert_allclose(ratios, np.round(ratios), atol=1e-9)
    assert model.sigmas_[0] <= 4.0 and model.sigmas_[-1] > 0.2 * 0.999
    assert model.feature_importances_.shape == (X.shape[1],)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(model.predict(X), model.classes_[np.argmax(proba, axis=1)])
    assert model.score(X, y) > 0.8


def test_first_round_error_is_weighted_leave_one_out_error():
    X, y = _data()
    model = BoostedImmigrate(n_estimators=1).fit(X, y)
    first = model.estimators_[0]
    f = first.features_
    # eq. (3.18) over the public fitted records, each sample left out of its own sums
    s = expected_distances(
        first.X_fit_,
        first.X_fit_,
        first.y_fit_,
        2,
        first.weights_[np.ix_(f, f)],
        first.sigma,
        leave_one_out=True,
    )
    expected = np.mean(first.classes_[np.argmin(s, axis=1)] != y)
    assert model.estimator_errors_[0] == pytest.approx(expected)


def test_multiclass_by_samme_and_determinism_across_n_jobs():
    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b", "c"], 15)
    X = np.column_stack(
        [np.repeat([0.0, 1.0, 2.0], 15) + 0.6 * rng.normal(size=45), rng.normal(size=45)]
    )
    one = BoostedImmigrate(n_estimators=5, init="random", random_state=2).fit(X, y)
    two = BoostedImmigrate(n_estimators=5, init="random", random_state=2, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.estimator_weights_, two.estimator_weights_)
    np.testing.assert_array_equal(one.predict(X), two.predict(X))
    eps = one.estimator_errors_
    np.testing.assert_allclose(
        one.estimator_weights_, 0.5 * (np.log((1 - eps) / eps) + np.log(2)), rtol=1e-12
    )
    # the prediction is the vote of the learners weighted by estimator_weights_
    votes = sum(
        alpha * (est.predict(X)[:, None] == one.classes_)
        for est, alpha in zip(one.estimators_, one.estimator_weights_)
    )
    np.testing.assert_array_equal(one.predict(X), one.classes_[np.argmax(votes, axis=1)])
    np.testing.assert_allclose(one.predict_proba(X), votes / votes.sum(axis=1, keepdims=True))


def test_bad_sigma_range_and_single_class():
    X, y = _data()
    with pytest.raises(ValueError, match="sigma_min"):
        BoostedImmigrate(sigma_min=5.0, sigma_max=1.0).fit(X, y)
    with pytest.raises(ValueError, match="at least 2 classes"):
        BoostedImmigrate().fit(X, np.zeros(len(X)))
