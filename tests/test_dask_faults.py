"""Fault tolerance on a real Dask cluster: a fit survives the loss of a worker.

A worker plugin kills one worker process at a deterministic point: when the first
unit of the fit (a task whose key starts with a given prefix) starts executing on
it, with SIGKILL or by allocating past the worker's ``memory_limit`` so that its
nanny restarts it (``KillOnStart`` in ``tests/dask_cluster.py``; the clusters are
the root ``conftest.py``'s fixtures, shared with the benchmarks' tests). Each check
asserts that the kill happened (the killed process is gone from the cluster) and that
the result is identical to ``n_jobs=1``.

What a cluster cannot survive (its scheduler killed) must raise
``ClusterLostError`` naming the scheduler, not hang. The benchmark harness on
a cluster (a suite survives a lost worker, resumes after a lost scheduler) is
checked beside it, in ``benchmarks/tests/test_bench_dask.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sklearn
from sklearn.datasets import load_iris
from sklearn.model_selection import StratifiedKFold, cross_val_score

from localselect import BoostedImmigrate, GPLocalFeatureSelection, LocalFeatureSelection
from localselect._runtime import BACKEND_NAME, ClusterLostError
from localselect.datasets import make_lfs_synthetic, make_subspace_classification

pytest.importorskip(
    "distributed", reason="dask[distributed] is not installed (pip install 'localselect[dask]')"
)

from dask_cluster import (
    ANY_UNIT,
    CLUSTER_MARKS,
    KillOnStart,
    killing,
    on_dask,
    run_with_deadline,
)

pytestmark = CLUSTER_MARKS


def test_lfs_fit_survives_killed_worker(dask_client, tmp_path):
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=0)
    params = dict(max_features=3, n_beta=6, max_iter=2, random_state=0)
    serial = LocalFeatureSelection(**params, n_jobs=1).fit(X, y)
    with killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(lambda: LocalFeatureSelection(**params, n_jobs=-1).fit(X, y))
    np.testing.assert_array_equal(serial.local_support_, survived.local_support_)
    np.testing.assert_array_equal(serial.radii_, survived.radii_)
    np.testing.assert_array_equal(serial.betas_, survived.betas_)


def test_lfs_fit_survives_nanny_restart_for_memory(dask_client, tmp_path):
    """A worker past its ``memory_limit`` (1 GiB) is restarted by its nanny mid-fit."""
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=1)
    params = dict(max_features=3, n_beta=6, max_iter=2, random_state=1)
    serial = LocalFeatureSelection(**params, n_jobs=1).fit(X, y)
    with killing(dask_client, ANY_UNIT, tmp_path, action="hog", hog_bytes=3 * 2**29):
        survived = on_dask(lambda: LocalFeatureSelection(**params, n_jobs=-1).fit(X, y))
    np.testing.assert_array_equal(serial.local_support_, survived.local_support_)
    np.testing.assert_array_equal(serial.radii_, survived.radii_)


@pytest.mark.filterwarnings("ignore:Algorithm 1 did not converge")
def test_gp_fit_survives_killed_worker(dask_client, tmp_path):
    X, y, _ = make_subspace_classification(
        n_samples=80, n_features=8, n_classes=2, n_subspaces=3, random_state=0
    )
    params = dict(n_neighbors=5, max_iter=3, random_state=0)
    serial = GPLocalFeatureSelection(**params, n_jobs=1).fit(X[:60], y[:60])
    with killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(
            lambda: GPLocalFeatureSelection(**params, n_jobs=-1).fit(X[:60], y[:60])
        )
    np.testing.assert_array_equal(serial.scores_, survived.scores_)
    np.testing.assert_array_equal(serial.observation_indices_, survived.observation_indices_)
    np.testing.assert_array_equal(serial.predict_proba(X[60:]), survived.predict_proba(X[60:]))


def test_boosted_immigrate_fit_survives_killed_worker(dask_client, tmp_path):
    X, y = load_iris(return_X_y=True)
    params = dict(n_estimators=4, max_iter=2, random_state=0)
    serial = BoostedImmigrate(**params, n_jobs=1).fit(X, y)
    # 1 MiB blocks: the fit's pair blocks become a dozen tasks on the cluster.
    with sklearn.config_context(working_memory=1), killing(dask_client, ANY_UNIT, tmp_path):
        survived = on_dask(lambda: BoostedImmigrate(**params, n_jobs=-1).fit(X, y))
    np.testing.assert_array_equal(serial.predict_proba(X), survived.predict_proba(X))
    np.testing.assert_array_equal(serial.feature_importances_, survived.feature_importances_)
    np.testing.assert_array_equal(serial.estimator_weights_, survived.estimator_weights_)


def test_cross_val_score_survives_killed_worker(dask_client, tmp_path):
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=2)
    cv = StratifiedKFold(n_splits=4, shuffle=True, random_state=0)
    model = LocalFeatureSelection(max_features=3, n_beta=6, max_iter=1, random_state=0)
    serial = cross_val_score(model, X, y, cv=cv, n_jobs=1)
    with killing(dask_client, "batch_of__fit_and_score", tmp_path):
        survived = on_dask(
            lambda: cross_val_score(model.set_params(n_jobs=-1), X, y, cv=cv, n_jobs=-1),
            backend=BACKEND_NAME,
        )
    np.testing.assert_array_equal(serial, survived)


# ---------------------------------------------------------------- unsurvivable


def test_killed_scheduler_fails_clearly(separate_scheduler, tmp_path):
    client, scheduler_pid = separate_scheduler
    address = client.scheduler.address
    X, y, _ = make_lfs_synthetic(n_samples=60, n_irrelevant=8, random_state=0)
    marker = tmp_path / "killed"
    client.register_plugin(
        KillOnStart(ANY_UNIT, str(marker), "kill-pid", pid=scheduler_pid), name="kill"
    )
    box, _ = run_with_deadline(
        lambda: on_dask(lambda: LocalFeatureSelection(max_features=3, n_jobs=-1).fit(X, y))
    )
    assert marker.exists()
    assert isinstance(box.get("error"), ClusterLostError), box
    assert address in str(box["error"])
