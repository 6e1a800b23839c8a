"""Agreement with the CRAN package Immigrate 0.2.1 on its own example data ``park``.

``r_reference/*.csv`` hold the package's outputs, written by
``r_reference/immigrate_park.R`` (see its header for how the package was built).
``park`` is UCI Parkinsons without its first row, standardised by R's ``scale``
(sample standard deviation): we load the same rows from the shared data. The
per-iteration updates are the same mathematics, so with the same number of
iterations the weight matrices agree to rounding; the deliberate differences
(stopping rule, cost, probabilities) are listed in docs/margin.md.
"""

from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from localselect import IM4E, Immigrate
from localselect.datasets import load_dataset

REF = Path(__file__).with_name("r_reference")


@pytest.fixture(scope="module")
def park(data_home):
    X, y = load_dataset("parkinsons", data_home=data_home)
    X, y = X[1:], y[1:]  # the package drops the first row
    return (X - X.mean(axis=0)) / X.std(axis=0, ddof=1), y


def _csv(name, folder=REF):
    return pd.read_csv(folder / name).to_numpy()


def _fit(cls, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return cls(*args, **kwargs)


def test_default_immigrate_weights_equal_the_r_package(park):
    X, y = park
    iterations = pd.read_csv(REF / "iterations.csv")
    n_iter = int(iterations["iter_immigrate"][0])  # 10: the package ran to max_iter
    model = _fit(Immigrate, 1.0, max_iter=n_iter, tol=0.0).fit(X, y)
    W_r = _csv("immigrate_w.csv")
    np.testing.assert_allclose(model.weights_, W_r, rtol=0, atol=1e-10)
    # the feature ranking by main effect is therefore the same
    np.testing.assert_array_equal(
        np.argsort(-model.feature_importances_, kind="stable"),
        np.argsort(-np.diag(W_r), kind="stable"),
    )
    np.testing.assert_array_equal(model.predict(X), _csv("predict.csv").ravel())


def test_small_sigma_matches_once_the_r_stop_is_accounted_for(park):
    X, y = park
    iterations = pd.read_csv(REF / "iterations.csv")
    # The package stopped after 2 of 3 iterations: its cost proxy is NaN (0 * log 0).
    assert int(iterations["iter_sig05"][0]) == 2 and np.isnan(iterations["cost_sig05"][0])
    model = _fit(Immigrate, 0.5, max_iter=2, tol=0.0).fit(X, y)
    np.testing.assert_allclose(model.weights_, _csv("immigrate_w_sig05_3iter.csv"), atol=1e-10)
    assert np.all(np.isfinite(model.cost_))


def test_im4e_weights_equal_the_r_package(park):
    X, y = park
    n_iter = int(pd.read_csv(REF / "iterations.csv")["iter_im4e"][0])
    w = _fit(IM4E, 1.0, max_iter=n_iter, tol=0.0).fit(X, y).feature_importances_
    np.testing.assert_allclose(w, _csv("im4e_w.csv").ravel(), rtol=0, atol=1e-10)


def _r_has_immigrate() -> bool:
    if shutil.which("Rscript") is None:
        return False
    probe = subprocess.run(
        ["Rscript", "-e", "suppressMessages(library(Immigrate))"], capture_output=True
    )
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _r_has_immigrate(), reason="needs Rscript with Immigrate 0.2.1")
def test_stored_reference_is_what_the_r_package_computes(park, tmp_path):
    subprocess.run(["Rscript", str(REF / "immigrate_park.R"), str(tmp_path), "data"], check=True)
    r_data = pd.read_csv(tmp_path / "park.csv")
    np.testing.assert_array_equal(r_data.pop("y").to_numpy(), park[1])
    np.testing.assert_allclose(r_data.to_numpy(), park[0], atol=1e-12)
    for name in ("immigrate_w.csv", "immigrate_w_sig05_3iter.csv", "im4e_w.csv", "predict.csv"):
        np.testing.assert_allclose(_csv(name, tmp_path), _csv(name), atol=1e-13)
