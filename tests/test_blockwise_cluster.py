"""localselect._blockwise on a real ``LocalCluster`` (two worker processes, slow).

A local selector's per-row answers on a dask array equal its in-memory answers; an
estimator without a collection fit refuses one naming those that have one, and
``n_features_to_select="auto"`` is refused naming its null.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import dask.array as da  # noqa: E402
from dask_cluster import CLUSTER_MARKS  # noqa: E402
from dask_tables import collections as _collections  # noqa: E402
from dask_tables import in_memory as _in_memory  # noqa: E402

from localselect import FisherScore, LocalFeatureSelection, ReliefF, Simba  # noqa: E402

pytestmark = CLUSTER_MARKS


def test_per_row_answers_of_a_local_selector(dask_client):
    X, y = _in_memory(1)
    model = LocalFeatureSelection(max_features=3, n_beta=4, max_iter=1).fit(X[:120], y[:120])
    Xd = da.from_array(X, chunks=(90, 4))
    for name in ("get_local_support", "local_relevance", "transform", "predict"):
        answer = getattr(model, name)(Xd)
        assert isinstance(answer, da.Array), name
        np.testing.assert_allclose(answer.compute(), getattr(model, name)(X), rtol=1e-12)
    with pytest.raises(ValueError, match="indices=True"):
        model.get_local_support(Xd, indices=True)


def test_estimators_without_a_dask_fit_refuse_by_name(dask_client):
    X, y = _collections(1)
    listed = r"Simba has no fit on Dask.*FisherScore, LiftFeatureSelector, MRMR, ReliefF"
    with pytest.raises(ValueError, match=listed):
        Simba().fit(X, y)
    with pytest.raises(ValueError, match="shadow features"):
        ReliefF(n_features_to_select="auto").fit(X, y)
    with pytest.raises(ValueError, match="permutation null"):
        FisherScore(n_features_to_select="auto").fit(X, y)
