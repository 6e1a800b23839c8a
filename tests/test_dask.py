"""Scale-out: the joblib work of every method runs on a real Dask cluster.

A ``dask.distributed.LocalCluster`` with two worker *processes* is started once for the
module (the ``dask_client`` fixture of the root ``conftest.py``); each check fits the
same estimator with ``n_jobs=1`` (no parallelism at all) and again with ``n_jobs=2``
under ``joblib.parallel_config(backend="dask")``, and asserts the outputs are identical,
not merely close: seeds are drawn per unit of work, never per worker, and blocks are
split by size, never by the number of jobs.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold, cross_val_predict

from localselect import (
    BoostedImmigrate,
    GPLocalFeatureSelection,
    LiftFeatureSelector,
    LocalFeatureSelection,
)
from localselect.datasets import make_lfs_synthetic, make_subspace_classification

pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install 'localselect[dask]')"
)

from dask_cluster import CLUSTER_MARKS, on_dask_counted

pytestmark = CLUSTER_MARKS


def test_cluster_has_two_process_workers(dask_client):
    workers = dask_client.scheduler_info()["workers"]
    assert len(workers) == 2
    pids = dask_client.run(lambda: __import__("os").getpid())
    assert len(set(pids.values())) == 2


def test_lfs_identical_on_dask(dask_client):
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=0)
    X_test, _, _ = make_lfs_synthetic(n_samples=40, n_irrelevant=8, random_state=1)
    params = dict(max_features=3, n_beta=6, max_iter=2, random_state=0)

    serial = LocalFeatureSelection(**params, n_jobs=1).fit(X, y)
    dask_fit = on_dask_counted(lambda: LocalFeatureSelection(**params, n_jobs=2).fit(X, y))

    np.testing.assert_array_equal(serial.local_support_, dask_fit.local_support_)
    np.testing.assert_array_equal(serial.radii_, dask_fit.radii_)
    np.testing.assert_array_equal(serial.betas_, dask_fit.betas_)
    np.testing.assert_array_equal(serial.predict_proba(X_test), dask_fit.predict_proba(X_test))


def test_lfs_random_rounding_identical_on_dask(dask_client):
    X, y, _ = make_lfs_synthetic(n_samples=40, n_irrelevant=5, random_state=2)
    params = dict(max_features=2, n_beta=4, rounding="random", n_rounding=50, random_state=3)
    serial = LocalFeatureSelection(**params, n_jobs=1).fit(X, y)
    dask_fit = on_dask_counted(lambda: LocalFeatureSelection(**params, n_jobs=2).fit(X, y))
    np.testing.assert_array_equal(serial.local_support_, dask_fit.local_support_)


def test_boosted_immigrate_cross_validation_identical_on_dask(dask_client):
    X, y = load_iris(return_X_y=True)
    X = X[::2]
    y = y[::2]
    cv = StratifiedKFold(n_splits=3, shuffle=True, random_state=0)
    model = BoostedImmigrate(n_estimators=4, max_iter=2, random_state=0)

    serial = cross_val_predict(model, X, y, cv=cv, method="predict_proba", n_jobs=1)
    dask_pred = on_dask_counted(
        lambda: cross_val_predict(
            model.set_params(n_jobs=2), X, y, cv=cv, method="predict_proba", n_jobs=2
        )
    )
    np.testing.assert_array_equal(serial, dask_pred)


@pytest.mark.filterwarnings("ignore:Algorithm 1 did not converge")
def test_gp_selection_identical_on_dask(dask_client):
    X, y, _ = make_subspace_classification(
        n_samples=80, n_features=8, n_classes=2, n_subspaces=3, random_state=0
    )
    X_train, y_train, X_test = X[:60], y[:60], X[60:]
    params = dict(n_neighbors=5, max_iter=3, random_state=0)

    serial = GPLocalFeatureSelection(**params, n_jobs=1).fit(X_train, y_train)
    dask_fit = on_dask_counted(
        lambda: GPLocalFeatureSelection(**params, n_jobs=2).fit(X_train, y_train)
    )

    np.testing.assert_array_equal(serial.scores_, dask_fit.scores_)
    np.testing.assert_array_equal(serial.observation_indices_, dask_fit.observation_indices_)
    np.testing.assert_array_equal(
        serial.get_local_support(X_test),
        on_dask_counted(lambda: dask_fit.get_local_support(X_test)),
    )
    np.testing.assert_array_equal(
        serial.predict_proba(X_test), on_dask_counted(lambda: dask_fit.predict_proba(X_test))
    )


def test_lift_selector_identical_on_dask(dask_client):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(300, 6))
    y = (X[:, 0] + X[:, 2] + rng.integers(0, 2, size=300)) % 3
    params = dict(resolution="windows", max_features=3, top_k=5)

    serial = LiftFeatureSelector(**params, n_jobs=1).fit(X, y)
    dask_fit = on_dask_counted(lambda: LiftFeatureSelector(**params, n_jobs=2).fit(X, y))

    np.testing.assert_array_equal(serial.get_support(), dask_fit.get_support())
    pd.testing.assert_frame_equal(serial.results_, dask_fit.results_)
