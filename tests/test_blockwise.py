"""localselect._blockwise: fits and per-row answers on Dask collections.

Dask's synchronous scheduler: every local selector of the registry, fitted in memory
with its fast test parameters, answers ``get_local_support``, ``local_relevance``,
``transform`` and ``predict`` on a ``dask.dataframe`` with a lazy dask collection equal
to its in-memory answer, a global selector too; the fit template refuses
``n_features_to_select="auto"`` once for every method (naming its null), and a refit on
a collection keeps nothing of an earlier in-memory ``"auto"`` fit. The same on a real
cluster: ``test_blockwise_cluster.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

dask = pytest.importorskip("dask")

import re  # noqa: E402

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

from localselect import MRMR, FisherScore, ReliefF  # noqa: E402
from localselect._blockwise import auto_refusal, collection_refusal  # noqa: E402
from localselect._estimators import profile_params, registered  # noqa: E402
from localselect.base import LocalSelectorMixin  # noqa: E402
from localselect.datasets import make_lfs_synthetic  # noqa: E402
from localselect.evidence._mixin import EVIDENCE_ATTRIBUTES  # noqa: E402

LOCAL = sorted(n for n, c in registered().items() if issubclass(c, LocalSelectorMixin))


@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("name", LOCAL)
def test_local_selector_answers_a_dask_dataframe(synchronous, name):
    X, y, _ = make_lfs_synthetic(60, 3, random_state=0)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    cls = registered()[name]
    model = cls(**profile_params(cls, "check")).fit(frame.iloc[:40], y[:40])
    lazy = dd.from_pandas(frame, npartitions=3)
    methods = ["get_local_support", "local_relevance", "transform"]
    methods += ["predict"] if hasattr(model, "predict") else []
    for method in methods:
        answer = getattr(model, method)(lazy)
        assert isinstance(answer, (dd.DataFrame, dd.Series)), method
        computed = answer.compute()
        assert list(computed.index) == list(frame.index)
        expected = np.asarray(getattr(model, method)(frame))
        if expected.dtype.kind == "f":  # blocks of other sizes: BLAS rounds differently
            np.testing.assert_allclose(np.asarray(computed), expected, rtol=1e-12, atol=1e-15)
        else:
            np.testing.assert_array_equal(np.asarray(computed), expected, method)


def test_global_selector_answers_a_dask_array(synchronous):
    X, y, _ = make_lfs_synthetic(60, 3, random_state=0)
    model = FisherScore(n_features_to_select=2).fit(X, y)
    lazy = da.from_array(X, chunks=(25, 2))
    for method in ("get_local_support", "local_relevance", "transform"):
        answer = getattr(model, method)(lazy)
        assert isinstance(answer, da.Array)
        np.testing.assert_array_equal(answer.compute(), getattr(model, method)(X))


def test_a_wrong_width_is_refused_before_any_work(synchronous):
    X, y, _ = make_lfs_synthetic(60, 3, random_state=0)
    model = FisherScore(n_features_to_select=2).fit(X, y)
    with pytest.raises(ValueError, match="expecting"):
        model.transform(da.from_array(X[:, :2], chunks=(25, 2)))


def _table(rows=200):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(rows, 6))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    return X, y


def _lazy(X, y):
    return da.from_array(X, chunks=(50, X.shape[1])), da.from_array(y, chunks=50)


@pytest.mark.parametrize(
    ("estimator", "draws"),
    [
        (FisherScore(n_features_to_select="auto"), "draws a permutation null over the rows"),
        (MRMR(n_features_to_select="auto"), "draws a permutation null over the rows"),
        (ReliefF(n_features_to_select="auto"), "draws shadow features over the rows"),
    ],
    ids=["FisherScore", "MRMR", "ReliefF"],
)
def test_auto_is_refused_once_for_every_method_naming_its_null(synchronous, estimator, draws):
    name = type(estimator).__name__
    message = f"{name}(n_features_to_select='auto') {draws}, which a Dask collection"
    assert auto_refusal(estimator).startswith(message)
    assert auto_refusal(estimator.set_params(n_features_to_select=2)) is None
    with pytest.raises(ValueError, match=re.escape(message)):
        estimator.set_params(n_features_to_select="auto").fit(*_lazy(*_table()))


@pytest.mark.parametrize(
    "estimator",
    [
        ReliefF(n_neighbors=5, random_state=0),
        FisherScore(),
        MRMR(),
    ],
    ids=["ReliefF", "FisherScore", "MRMR"],
)
def test_a_refit_on_a_collection_keeps_nothing_of_an_auto_fit(synchronous, estimator):
    """p-values, q-values and the null of an in-memory "auto" fit go with the next fit."""
    X, y = _table()
    estimator.set_params(n_features_to_select="auto").fit(X, y)
    assert all(hasattr(estimator, name) for name in EVIDENCE_ATTRIBUTES)
    estimator.set_params(n_features_to_select=2).fit(*_lazy(X, y))
    assert not any(hasattr(estimator, name) for name in EVIDENCE_ATTRIBUTES)
    expected = clone(estimator).fit(X, y)
    np.testing.assert_array_equal(estimator.get_support(), expected.get_support())
    if hasattr(expected, "feature_importances_"):
        np.testing.assert_allclose(
            estimator.feature_importances_, expected.feature_importances_, rtol=1e-9
        )


def test_an_estimator_without_a_collection_fit_names_those_with_one():
    message = collection_refusal("Simba")
    assert message.startswith("Simba has no fit on Dask collections")
    assert "FisherScore, LiftFeatureSelector, MRMR, ReliefF." in message
