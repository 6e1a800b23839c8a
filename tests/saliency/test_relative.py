"""The relative rule (localselect.saliency._relative): pooled saliency of similar rows."""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import LogisticRegression

from localselect.datasets import make_instancewise_synthetic
from localselect.saliency import ConditionalSaliencySelection
from localselect.saliency._saliency import (
    model_saliency,
)


def test_without_screen_every_column_is_modelled():
    X, y, _ = make_instancewise_synthetic(300, "syn1", random_state=0)
    est = ConditionalSaliencySelection(
        per_row="relative", screen=False, n_neighbors=0, random_state=0
    ).fit(X, y)
    np.testing.assert_array_equal(est.screened_, np.arange(11))
    assert not hasattr(est, "screen_statistics_")


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


def test_the_default_model_fits_a_continuous_target():
    # The default MLP takes its layer sizes by keyword: scikit-learn 1.9's MLPRegressor has
    # another first positional parameter (a positional (100, 100) was read as its loss).
    rng = np.random.default_rng(0)
    X = rng.standard_normal((250, 4))
    y = X[:, 0] + 0.1 * rng.standard_normal(250)
    est = ConditionalSaliencySelection(per_row="relative", screen=False, random_state=0)
    est.fit(X, y)
    assert est.task_ == "regression"
    assert est.estimator_.hidden_layer_sizes == (100, 100)
    assert est.local_relevance(X[:5]).shape == (5, 4)
