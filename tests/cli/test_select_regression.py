"""`localselect select` / `predict` on a continuous target: the task, refusals, numbers out."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import validate_data

from localselect._estimators import Declaration, nan_names
from localselect.cli import main
from localselect.cli._model_io import load_bundle
from localselect.cli._steps import predict_rows
from localselect.cli._task import regression_scores


class TinyRegressionSelector(SelectorMixin, RegressorMixin, BaseEstimator):
    """Test-only selector that predicts a continuous target (least squares on all columns)."""

    _declaration = Declaration("tiny-regression", targets=("classes", "continuous"))

    def __init__(self, task="auto"):
        self.task = task

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.task_ = self.task if self.task != "auto" else "regression"
        A = np.c_[X, np.ones(len(X))]
        self.coef_ = np.linalg.lstsq(A, y, rcond=None)[0]
        self.feature_importances_ = np.abs(self.coef_[:-1])
        return self

    def predict(self, X):
        X = validate_data(self, X, reset=False, dtype=np.float64)
        return np.c_[X, np.ones(len(X))] @ self.coef_

    def _get_support_mask(self):
        return self.feature_importances_ >= np.sort(self.feature_importances_)[-2]


TINY = f"{__name__}:TinyRegressionSelector"


@pytest.fixture(autouse=True)
def _trust_the_test_estimator(monkeypatch):
    """``predict`` loads only trusted types: add this module's stand-in estimator."""
    from localselect.cli import _model_io

    trusted = _model_io.trusted_types() | {f"{__name__}.TinyRegressionSelector"}
    monkeypatch.setattr(_model_io, "trusted_types", lambda: trusted)


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    frame = pd.DataFrame(rng.normal(size=(n, 5)), columns=[f"f{j}" for j in range(5)])
    frame["price"] = 3 * frame["f1"] - 2 * frame["f3"] + 0.1 * rng.normal(size=n)
    frame["count"] = np.round(5 * frame["f2"] + 20).astype(int)
    frame.loc[4, "f0"] = np.nan
    path = tmp_path / "houses.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _select(path, out, *extra, target="price"):
    return main(["select", "--input", str(path), "--target", target, "--out", str(out), *extra])


def test_select_says_the_task_and_keeps_a_continuous_target(table, tmp_path, capsys):
    path, _ = table
    out = tmp_path / "out"
    assert _select(path, out, "--method", "mrmr", "--drop", "count", "--n-features", "2") == 0
    printed = capsys.readouterr().out
    assert (
        "task: regression (detected: 120 distinct values, not all integers: a quantity; "
        "--task classification to override)"
    ) in " ".join(printed.split())
    summary = json.loads((out / "importances.json").read_text())
    assert summary["task"] == "regression" and summary["params"]["task"] == "regression"
    assert {f["feature"] for f in summary["features"] if f["selected"]} == {"f1", "f3"}
    # the row with a missing value kept: imputed in the model, or given to MRMR if it takes NaN
    assert summary["n_rows_used"] == 120
    assert summary["missing"] == ("keep" if "MRMR" in nan_names() else "impute")
    assert "training_r2" not in summary  # MRMR does not predict
    assert load_bundle(out / "model.skops")["task"] == "regression"


def test_task_flag_overrides_the_detection(table, tmp_path, capsys):
    path, _ = table
    out = tmp_path / "out"
    assert _select(path, out, "--method", "mrmr", "--drop", "price", "--n-features", "1",
                   target="count") == 0  # fmt: skip
    # a count of 21 values from 8 to 33 (not class codes 0..K-1 or 1..K) is a quantity
    assert "task: regression (detected: 21 distinct integer values" in capsys.readouterr().out
    assert _select(path, out, "--method", "mrmr", "--drop", "price", "--n-features", "1",
                   "--task", "classification", target="count") == 0  # fmt: skip
    assert "task: classification (--task classification)" in capsys.readouterr().out
    fcd = ("--params", "criterion=fcd", "--task", "regression")
    assert _select(path, out, "--method", "mrmr", "--drop", "price", "--n-features", "1",
                   *fcd, target="count") == 0  # fmt: skip
    assert "task: regression (--task regression)" in capsys.readouterr().out
    summary = json.loads((out / "importances.json").read_text())
    assert summary["task"] == "regression" and summary["features"][0]["feature"] == "f2"


def test_a_method_for_class_labels_refuses_before_fitting(table, tmp_path, capsys):
    path, _ = table
    capsys.readouterr()
    assert _select(path, tmp_path / "o", "--method", "lfs", "--drop", "count") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert (
        "the target is continuous (detected: 120 distinct values, not all integers: a quantity), "
        "and LocalFeatureSelection is defined for class labels"
    ) in err
    assert "mrmr" in err and "--task classification" in err
    assert _select(path, tmp_path / "o", "--method", "lfs", "--task", "regression",
                   target="count") == 2  # fmt: skip
    assert "--task regression, and LocalFeatureSelection" in capsys.readouterr().err


def test_llds_report_on_a_continuous_target(table, tmp_path):
    path, _ = table
    out = tmp_path / "out"
    assert _select(path, out, "--method", "llds", "--drop", "count", "--report",
                   "--params", "max_features=2") == 0  # fmt: skip
    page = (out / "report.html").read_text()
    assert "Continuous target: 120 rows" in page and "Classes:" not in page
    assert "Lift table of" in page


def test_predict_writes_numbers_where_the_model_predicts(table, tmp_path, capsys):
    path, frame = table
    out = tmp_path / "out"
    assert _select(path, out, "--method", TINY, "--drop", "count") == 0
    summary = json.loads((out / "importances.json").read_text())
    assert summary["training_r2"] > 0.99 and 0 < summary["training_rmse"] < 0.2
    rows = frame.drop(columns=["price", "count"]).iloc[10:15]
    rows.to_csv(tmp_path / "new.csv", index=False)
    assert main(["predict", "--model", str(out / "model.skops"), "--input",
                 str(tmp_path / "new.csv"), "--out", str(tmp_path / "pred.csv")]) == 0  # fmt: skip
    written = pd.read_csv(tmp_path / "pred.csv", index_col="row")
    bundle = load_bundle(out / "model.skops")
    pred = predict_rows(bundle, rows)
    np.testing.assert_allclose(written["prediction"], pred["prediction"].astype(float))
    expected = bundle["pipeline"].predict(rows)
    np.testing.assert_allclose(pred["prediction"].to_numpy(dtype=float), expected)
    assert not any(c.startswith("proba_") for c in pred.columns)
    np.testing.assert_allclose(expected, frame["price"].iloc[10:15], atol=0.5)


def test_regression_scores_only_where_the_model_predicts():
    X = np.arange(20.0)[:, None]
    y = 2 * X[:, 0] + 1
    fitted = TinyRegressionSelector().fit(X, y)
    scores = regression_scores(fitted, X, y)
    assert scores["training_r2"] == pytest.approx(1.0)
    assert scores["training_rmse"] == pytest.approx(0.0, abs=1e-9)
    fitted.task_ = "classification"
    assert regression_scores(fitted, X, y) == {}
