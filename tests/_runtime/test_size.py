"""The size check: a fit that would not finish within 10 minutes is refused at once."""

from __future__ import annotations

import time

import numpy as np
import pytest

from localselect import (
    IM4E,
    BoostedImmigrate,
    ConditionalSaliencySelection,
    FisherScore,
    Immigrate,
    IRelief,
    LocalFeatureSelection,
    Relief,
    ReliefF,
    Simba,
)
from localselect._estimators import Declaration
from localselect._runtime._size import BUDGET_SECONDS, check_scale, scale_refusal

MILLION = 1_000_000


@pytest.mark.parametrize(
    ("estimator", "says"),
    [
        (Relief(), "set max_samples"),
        (Simba(), "fit on a sample of at most"),
        (LocalFeatureSelection(n_candidates=None), "set n_candidates lower"),
        (IRelief(), "exact neighbour search"),
        (IM4E(), "exact neighbour search"),
        (Immigrate(), "exact neighbour search"),
        (BoostedImmigrate(), "set n_estimators lower"),
        (ConditionalSaliencySelection(), "fit on a sample of at most"),
    ],
)
def test_a_million_rows_at_the_defaults_is_refused_naming_the_fix(estimator, says):
    message = scale_refusal(estimator, MILLION, 20)
    assert message is not None and says in message
    assert type(estimator).__name__ in message and " h " in message and "one thread" in message


def test_what_fits_the_budget_is_not_refused():
    assert scale_refusal(FisherScore(), MILLION, 20) is None  # no limit declared
    assert scale_refusal(Relief(max_samples=1000), MILLION, 20) is None
    assert scale_refusal(Relief(max_samples=0.001), MILLION, 20) is None
    assert scale_refusal(Relief(), 20_000, 20) is None
    assert scale_refusal(LocalFeatureSelection(), 5_000, 20) is None
    assert scale_refusal(LocalFeatureSelection(n_candidates=None), 5_000, 20) is None  # ~70 s
    assert scale_refusal(LocalFeatureSelection(n_candidates=None), 100, 10_000) is None
    if "max_samples" in ReliefF().get_params():
        assert scale_refusal(ReliefF(max_samples=1000), MILLION, 20) is None


def test_the_advised_sample_size_is_within_the_budget():
    lfs = (LocalFeatureSelection(), LocalFeatureSelection(n_candidates=None, max_iter=10))
    for estimator in (Simba(), Immigrate(), ConditionalSaliencySelection(), *lfs):
        message = scale_refusal(estimator, MILLION, 20)
        rows = int(message.split("at most ")[1].split(" rows")[0])
        assert scale_refusal(estimator, rows, 20) is None
        assert scale_refusal(estimator, rows * 2, 20) is not None
    relief = scale_refusal(Relief(), MILLION, 20)
    refs = int(relief.split("max_samples=")[1].split(" ")[0])
    assert scale_refusal(Relief(max_samples=refs), MILLION, 20) is None
    assert BUDGET_SECONDS == 600


def test_fit_refuses_before_any_work():
    X = np.random.default_rng(0).standard_normal((60_000, 20))
    y = (X[:, 0] > 0).astype(int)
    start = time.perf_counter()
    with pytest.raises(ValueError, match="Simba recomputes every row's nearest hit"):
        Simba().fit(X, y)
    assert time.perf_counter() - start < 10
    assert check_scale(Simba(), X[:100]) is not None  # small: passes, returns X


def test_an_estimator_declares_its_own_cost_model():
    class Chunked:
        def refusal(self, estimator, n_samples, n_features, declared_by):
            return f"{declared_by} too big: set chunk" if n_samples > 10 else None

    class Limited(FisherScore):
        _declaration = Declaration("limited", size=Chunked())

    X = np.random.default_rng(0).standard_normal((20, 3))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match="Limited too big: set chunk"):
        Limited().fit(X, y)
    Limited().fit(X[:10], y[:10])


def test_a_subclass_has_its_parents_limit():
    class Mine(ConditionalSaliencySelection):
        pass

    class MyImmigrate(Immigrate):
        pass

    assert "fit on a sample of at most" in scale_refusal(Mine(), MILLION, 20)
    assert "exact neighbour search" in scale_refusal(MyImmigrate(), MILLION, 20)
    assert scale_refusal(Mine(), 1_000, 20) is None
