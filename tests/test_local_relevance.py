"""One meaning of "which features matter where" for every selector.

Every selector answers per row through ``get_local_support(X)`` and
``local_relevance(X)``; global selectors give every row ``get_support()`` and
say so in ``relevance_scope``; local ones treat training and new rows alike.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.preprocessing import KBinsDiscretizer

from localselect import (
    IM4E,
    FisherScore,
    Immigrate,
    IRelief,
    LiftFeatureSelector,
    Relief,
    ReliefF,
    Simba,
)
from localselect.base import local_relevance, local_support, relevance_scope
from localselect.filters import MRMR
from localselect.utils.estimator_checks import make_check_data

GLOBAL = [
    Relief(2, random_state=0),
    ReliefF(n_neighbors=3, n_features_to_select=2),
    IRelief(n_features_to_select=2, max_iter=3),
    Simba(n_features_to_select=2, max_iter=3),
    IM4E(n_features_to_select=2, max_iter=3),
    Immigrate(n_features_to_select=2, max_iter=3),
    FisherScore(n_features_to_select=2),
    MRMR(n_features_to_select=2),
]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("est", GLOBAL, ids=lambda e: type(e).__name__)
def test_global_selectors_give_every_row_their_subset(est):
    X, y = make_check_data()
    est.fit(X, y)
    assert relevance_scope(est) == "global"
    new = X[:9] + 0.3
    mask = est.get_local_support(new)
    assert mask.shape == (9, X.shape[1]) and mask.dtype == bool
    assert (mask == est.get_support()[None, :]).all()
    np.testing.assert_array_equal(est.local_relevance(new), mask.astype(float))
    idx = est.get_local_support(new, indices=True)
    assert all(np.array_equal(i, est.get_support(indices=True)) for i in idx)
    with pytest.raises(ValueError, match="global selector"):
        est.get_local_support()
    with pytest.raises(ValueError, match="features"):
        est.get_local_support(X[:, :3])


def test_helpers_work_on_any_sklearn_selector():
    X, y = make_check_data()
    sel = SelectKBest(f_classif, k=2).fit(X, y)
    assert relevance_scope(sel) == "global"
    mask = local_support(sel, X[:4])
    assert (mask == sel.get_support()[None, :]).all()
    np.testing.assert_array_equal(local_relevance(sel, X[:4]), mask.astype(float))
    with pytest.raises(ValueError, match="global selector"):
        local_support(sel, None)
    with pytest.raises(ValueError, match="get_support"):
        local_support(object(), X)


def _votes_data():
    X = pd.DataFrame({"a": list("xxyyxxyy"), "b": list("uvuvuvuv"), "c": list("ppqqpqpq")})
    return X, [0, 0, 1, 1, 0, 0, 1, 1]


def test_llds_profiles_rows_get_the_features_of_the_profiles_they_match():
    X, y = _votes_data()
    sel = LiftFeatureSelector("profiles", min_support=0.25, max_features=1, top_k=1).fit(X, y)
    # max_features=1, top_k=1 per class: the best profiles are a=x (class 0) and a=y (class 1),
    # each of lift 2; every row matches exactly one of them, through feature a.
    assert sel.relevance_scope == "local"
    expected = np.zeros((8, 3), dtype=bool)
    expected[:, 0] = True
    np.testing.assert_array_equal(sel.get_local_support(), expected)
    np.testing.assert_array_equal(sel.get_local_support(X), expected)
    np.testing.assert_array_equal(sel.local_relevance(X), expected.astype(float))
    # A value never seen matches no profile: empty subset, relevance 0.
    new = pd.DataFrame({"a": ["z", "x"], "b": ["u", "u"], "c": ["p", "p"]})
    np.testing.assert_array_equal(sel.get_local_support(new), [[0, 0, 0], [1, 0, 0]])


def test_llds_relevance_is_the_fraction_of_matched_profiles():
    X, y = _votes_data()
    sel = LiftFeatureSelector("profiles", min_support=0.25, max_features=2).fit(X, y)
    rel = sel.local_relevance(X)
    # Reference, row by row: count the profiles with lift > 1 each row matches.
    Xv = X.to_numpy(dtype=object)
    names = list(X.columns)
    ref = np.zeros(rel.shape)
    for i, row in enumerate(Xv):
        hits = [
            [names.index(f) for f in r.features]
            for r in sel.results_.itertuples()
            if r.lift > 1 and all(row[names.index(f)] == v for f, v in zip(r.features, r.profile))
        ]
        for cols in hits:
            ref[i, cols] += 1.0 / len(hits)
    np.testing.assert_allclose(rel, ref)
    np.testing.assert_array_equal(sel.get_local_support(X), ref > 0)


@pytest.mark.parametrize("resolution", ["profiles", "windows"])
@pytest.mark.parametrize("joint", [False, True])
def test_llds_training_and_new_rows_one_rule(resolution, joint):
    from localselect.lift import MahalanobisQuantileDiscretizer

    X, y = make_check_data()
    disc = (
        MahalanobisQuantileDiscretizer(n_bins=3)
        if joint
        else KBinsDiscretizer(n_bins=3, encode="ordinal", quantile_method="averaged_inverted_cdf")
    )
    sel = LiftFeatureSelector(resolution, max_features=2, min_support=0.1, discretizer=disc)
    sel.fit(X, y)
    np.testing.assert_array_equal(sel.get_local_support(), sel.get_local_support(X))
    np.testing.assert_allclose(sel.local_relevance(), sel.local_relevance(X))
    assert sel.get_local_support().any()
    new = X[:6] + 0.05
    both = sel.get_local_support(np.vstack([new, X[:4]]))
    np.testing.assert_array_equal(both[:6], sel.get_local_support(new))
    np.testing.assert_array_equal(both[6:], sel.get_local_support()[:4])


def test_llds_features_resolution_is_global():
    X, y = _votes_data()
    sel = LiftFeatureSelector(max_features=2).fit(X, y)
    assert sel.relevance_scope == "global"
    assert (np.asarray(sel.get_local_support(X)) == sel.get_support()[None, :]).all()
