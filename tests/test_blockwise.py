"""Per-row answers of every fitted selector on Dask collections (issue 38, item 3).

Dask's synchronous scheduler (no cluster: the cluster runs are in
``test_dask_collections.py``): every local selector of the registry, fitted in
memory with its fast test parameters, answers ``get_local_support``,
``local_relevance``, ``transform`` and ``predict`` on a ``dask.dataframe`` with a
lazy dask collection equal to its in-memory answer; a global selector too.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402

from localselect import FisherScore  # noqa: E402
from localselect._estimators import profile_params, registered  # noqa: E402
from localselect.base import LocalSelectorMixin  # noqa: E402
from localselect.datasets import make_lfs_synthetic  # noqa: E402

LOCAL = sorted(n for n, c in registered().items() if issubclass(c, LocalSelectorMixin))


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("name", LOCAL)
def test_local_selector_answers_a_dask_dataframe(name):
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


def test_global_selector_answers_a_dask_array():
    X, y, _ = make_lfs_synthetic(60, 3, random_state=0)
    model = FisherScore(n_features_to_select=2).fit(X, y)
    lazy = da.from_array(X, chunks=(25, 2))
    for method in ("get_local_support", "local_relevance", "transform"):
        answer = getattr(model, method)(lazy)
        assert isinstance(answer, da.Array)
        np.testing.assert_array_equal(answer.compute(), getattr(model, method)(X))


def test_a_wrong_width_is_refused_before_any_work():
    X, y, _ = make_lfs_synthetic(60, 3, random_state=0)
    model = FisherScore(n_features_to_select=2).fit(X, y)
    with pytest.raises(ValueError, match="expecting"):
        model.transform(da.from_array(X[:, :2], chunks=(25, 2)))
