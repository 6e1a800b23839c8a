"""A count-based ``n_features_to_select`` keeps only features with a positive score.

A weight of 0 (a constant column) or below is no evidence that a feature
matters, so a count asks for at most that many features
(:func:`localselect.base.top_k_support`), and a selection that keeps fewer
says so with a :class:`localselect.base.FewerFeaturesWarning`.
"""

import warnings

import numpy as np
import pytest

from localselect import FisherScore, ReliefF
from localselect.base import FewerFeaturesWarning, top_k_support


def _three_positive_columns(n_classes=20, n_negative=6, seed=0):
    """Three signal columns, a constant column and ``n_negative`` columns of negative weight.

    Every class has two rows, equal on the signal columns (one random point per
    class) and opposite (0 and 1) on every negative column, so a row's only hit
    differs from it on each negative column while its nearest misses (the rows
    of the other classes on the same side) do not: Relief's weight of such a
    column, miss difference minus hit difference, is negative.
    """
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), 2)
    signal = rng.normal(size=(n_classes, 3))[y]
    side = np.tile([0.0, 1.0], n_classes)
    negative = np.repeat(side[:, None], n_negative, axis=1)
    return np.column_stack([signal, np.full(len(y), 2.5), negative]), y


@pytest.mark.parametrize("n_neighbors", [1, 10])
def test_relieff_never_selects_a_constant_or_a_negative_weight(n_neighbors):
    X, y = _three_positive_columns()
    est = ReliefF(n_neighbors=n_neighbors, n_features_to_select=10).fit(X, y)
    weights = est.feature_importances_
    assert (weights[:3] > 0).all() and weights[3] == 0 and (weights[4:] < 0).all()
    with pytest.warns(FewerFeaturesWarning, match=r"n_features_to_select=10 kept 3 features: "
                      r"only 3 of 10 have a positive score"):  # fmt: skip
        support = est.get_support()
    assert support.tolist() == [True] * 3 + [False] * 7
    assert est.transform(X).shape == (X.shape[0], 3)


def test_a_count_within_the_positive_scores_is_kept_silently():
    X, y = _three_positive_columns()
    est = ReliefF(n_neighbors=1, n_features_to_select=2).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        support = est.get_support()
    assert support.sum() == 2
    assert support[np.argsort(-est.feature_importances_)[:2]].all()


def test_fisher_score_skips_a_constant_column():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = np.column_stack([y + 0.3 * rng.normal(size=60), np.ones(60), rng.normal(size=60)])
    with pytest.warns(FewerFeaturesWarning, match="kept 2 features"):
        est = FisherScore(n_features_to_select=3).fit(X, y)
        support = est.get_support()
    assert est.feature_importances_[1] == 0
    assert support.tolist() == [True, False, True]


@pytest.mark.parametrize(
    ("n_features_to_select", "expected"),
    [(4, [True, False, False, True, False]), (1.0, [True, False, False, True, False])],
)
def test_top_k_support_caps_at_the_positive_scores(n_features_to_select, expected):
    scores = np.array([2.0, 0.0, -1.0, 0.5, np.nan])
    with pytest.warns(FewerFeaturesWarning, match="kept 2 features: only 2 of 5"):
        assert top_k_support(scores, n_features_to_select).tolist() == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert top_k_support(scores, None).tolist() == expected
        assert top_k_support(np.array([-1.0, -2.0]), None).tolist() == [False, False]


def test_mrmr_never_selects_a_column_without_relevance_by_a_count():
    from localselect import MRMR

    rng = np.random.default_rng(0)
    n = 300
    signal = rng.normal(size=(n, 2))
    X = np.column_stack([signal, np.full(n, 3.0), rng.normal(size=n)])
    y = (signal[:, 0] + signal[:, 1] > 0).astype(int)
    with pytest.warns(FewerFeaturesWarning, match="kept 3 features"):
        selector = MRMR(n_features_to_select=4).fit(X, y)
    assert 2 not in selector.ranking_
    assert set(selector.ranking_[:2]) == {0, 1}
