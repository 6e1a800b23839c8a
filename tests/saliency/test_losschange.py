"""Loss changes under a knockoff swap (localselect.saliency._losschange) against loops."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LinearRegression, LogisticRegression

from localselect.saliency._knockoffs import gaussian_knockoffs, shrunk_covariance
from localselect.saliency._losschange import knockoff_loss_changes, row_loss


def _table(seed, n=200, d=4):
    """Class codes from a logistic model of the first two columns."""
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d))
    z = 1.5 * X[:, 0] - X[:, 1]
    return X, (rng.random_sample(n) < 1.0 / (1.0 + np.exp(-z))).astype(np.int64)


def test_row_loss_is_the_log_loss_of_the_true_class_or_the_squared_error():
    X, y = _table(0)
    clf = LogisticRegression().fit(X, y)
    expected = -np.log(clf.predict_proba(X)[np.arange(200), y])
    np.testing.assert_allclose(row_loss(clf, y, False)(X), expected, rtol=1e-12)
    t = X @ np.arange(4.0)
    reg = LinearRegression().fit(X, t + 0.1)
    np.testing.assert_allclose(row_loss(reg, t, True)(X), (reg.predict(X) - t) ** 2)


def test_loss_changes_match_a_loop_over_draws_rows_and_columns():
    X, y = _table(1, n=60)
    clf = LogisticRegression().fit(X, y)
    cov = shrunk_covariance(X)
    D = knockoff_loss_changes(X, row_loss(clf, y, False), cov, np.random.RandomState(3), 3)
    rng = np.random.RandomState(3)  # the same draws: one knockoff table per draw
    slow = np.zeros(X.shape)
    for _ in range(3):
        K = gaussian_knockoffs(X, cov, rng)
        for i in range(X.shape[0]):
            for j in range(X.shape[1]):
                x, xr = X[i].copy(), X[i].copy()
                xr[j] = K[i, j]
                p = clf.predict_proba(np.vstack([x, xr]))[:, y[i]]
                slow[i, j] += np.log(p[0]) - np.log(p[1])
    np.testing.assert_allclose(D, slow / 3, rtol=1e-9, atol=1e-12)
    # a column the model ignores changes no loss
    assert np.abs(D[:, 2:]).mean() < np.abs(D[:, :2]).mean() / 5
