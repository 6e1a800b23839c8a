"""The rules every estimator shares (localselect.base) and the fast settings they declare."""

from __future__ import annotations

import logging

import numpy as np
import pytest
from sklearn.base import clone

from localselect import FisherScore, Immigrate, LiftFeatureSelector, Relief, ReliefF
from localselect.base import resolve_n_features, top_k_support, verbose_log
from localselect.utils import fast_estimators, fast_params


@pytest.mark.parametrize(
    ("n_features_to_select", "expected"),
    [(2, 2), (10, 5), (0.4, 2), (0.01, 1), (1.0, 5), (None, None)],
)
def test_resolve_n_features(n_features_to_select, expected):
    assert resolve_n_features(n_features_to_select, 5) == expected


def test_top_k_support_ties_and_positive_rule():
    scores = np.array([0.0, 3.0, 3.0, -1.0, 2.0])
    assert top_k_support(scores, 1).tolist() == [False, True, False, False, False]  # lower index
    assert top_k_support(scores, 0.6).tolist() == [False, True, True, False, True]
    assert top_k_support(scores, None).tolist() == [False, True, True, False, True]


def test_every_score_selector_follows_the_one_rule():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 20)
    X = np.column_stack([y + 0.3 * rng.normal(size=40), rng.normal(size=(40, 4))])
    for est in (FisherScore(), Relief(), ReliefF(n_neighbors=3), Immigrate(tol=0.1)):
        for k in (2, 0.4, None):
            est.set_params(n_features_to_select=k).fit(X, y)
            scores = est.feature_importances_
            if isinstance(est, Immigrate) and k is None:
                scores = np.abs(est.weights_).sum(axis=1)  # rows of W (documented)
            assert est.get_support().tolist() == top_k_support(scores, k).tolist(), (est, k)


def test_verbose_log_levels_and_no_global_state(caplog):
    logger = logging.getLogger("localselect.test_shared_layer")
    level_before = logger.level
    with caplog.at_level(logging.DEBUG, logger=logger.name):
        verbose_log(logger, 0)(1, "silent")
        verbose_log(logger, 1)(1, "stage %d", 1)
        verbose_log(logger, 1)(2, "hidden iteration")
        verbose_log(logger, 2)(2, "iteration %d", 2)
    records = [(r.levelno, r.getMessage()) for r in caplog.records if r.name == logger.name]
    assert records == [(logging.INFO, "stage 1"), (logging.DEBUG, "iteration 2")]
    assert logger.level == level_before


def test_fitting_with_verbose_leaves_logger_levels_alone():
    names = ["localselect", "localselect.margin", "localselect.margin._relief"]
    before = [logging.getLogger(n).level for n in names]
    rng = np.random.default_rng(0)
    Relief(verbose=2).fit(rng.normal(size=(20, 3)), np.repeat([0, 1], 10))
    assert [logging.getLogger(n).level for n in names] == before


def test_fast_params_are_fresh_copies():
    first = fast_params("LiftFeatureSelector", "demo")["discretizer"]
    second = fast_params("LiftFeatureSelector", "demo")["discretizer"]
    assert first is not second
    assert first is not LiftFeatureSelector._declaration.demo["discretizer"]
    assert first.get_params() == LiftFeatureSelector._declaration.demo["discretizer"].get_params()
    assert fast_params("NoSuchEstimator", "check") == {}
    with pytest.raises(ValueError, match="profile"):
        fast_params("Immigrate", "fast")


def test_fast_estimators_use_the_registry():
    for name, est in fast_estimators("check"):
        declared = vars(type(est)).get("_declaration")
        expected = declared.check if declared is not None else {}
        params = est.get_params(deep=False)
        for key, value in expected.items():
            if hasattr(value, "get_params"):
                assert type(params[key]) is type(value) and params[key] is not value
            else:
                assert params[key] == value, (name, key)
        clone(est)
