"""The saliency kernels (localselect.saliency._saliency) against slow references."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from localselect.saliency._saliency import (
    mlp_saliency,
    model_saliency,
    quantile_grid,
    saliency,
    unit_profiles,
)


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


def test_unit_profiles_scale_rows_to_length_one_and_keep_zero_rows():
    S = np.array([[3.0, 4.0], [0.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(
        unit_profiles(S), [[0.6, 0.8], [0.0, 0.0], [0.0, 1.0]], rtol=1e-15, atol=0
    )
