"""Missing values through ``select`` and ``predict``: every row used and answered.

``--missing auto`` follows each estimator's declaration (its ``allow_nan``
tag, which :func:`localselect._estimators.nan_names` lists): missing values
reach only the estimators that take them; the others get an imputer inside
the model. ``predict`` writes one answer per input row and says what it did
to them before it writes.
"""

from __future__ import annotations

import io
import json
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from localselect._estimators import cli_methods, continuous_target_names, nan_names
from localselect.cli import _select, main
from localselect.cli._methods import make_estimator, nan_methods, takes_nan
from localselect.cli._model_io import load_bundle
from localselect.utils import fast_params


def _mixed_table(n=60, *, continuous=False, seed=0):
    """A signal column, noise, a categorical and a boolean column, and missing values."""
    rng = np.random.default_rng(seed)
    label = np.repeat(["a", "b"], n // 2)
    signal = rng.normal(0, 1, n) + 2.0 * (label == "b")
    frame = pd.DataFrame(
        {
            "signal": signal,
            "noise": rng.normal(0, 1, n),
            "site": rng.choice(["north", "south", "east"], n),
            "smoker": rng.choice(["yes", "no"], n),
        }
    )
    frame["y"] = signal + rng.normal(0, 0.3, n) if continuous else label
    frame.loc[::7, "noise"] = np.nan
    frame.loc[[3, 40], "site"] = np.nan
    frame.loc[11, "smoker"] = np.nan
    return frame


@pytest.fixture
def fast_and_watched(monkeypatch):
    """Every CLI estimator at its "check" parameters; records whether its fit saw NaN."""
    seen: dict[str, bool] = {}

    def make(cls, args):
        estimator = make_estimator(cls, args)
        params = fast_params(cls.__name__, "check")
        # LLDS's check discretizer takes numbers only; the table holds text
        params.pop("discretizer", None)
        return estimator.set_params(**params)

    monkeypatch.setattr(_select, "make_estimator", make)
    for cls in cli_methods().values():
        original = cls.fit

        def fit(self, X, *args, _original=original, **kwargs):
            seen[type(self).__name__] = bool(pd.DataFrame(X).isna().any(axis=None))
            return _original(self, X, *args, **kwargs)

        monkeypatch.setattr(cls, "fit", fit)
    return seen


def _select_auto(tmp_path, frame, method):
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / method
    code = main(["select", "--method", method, "--input", str(path), "--target", "y",
                 "--out", str(out), "--random-state", "0"])  # fmt: skip
    return code, out


def _check_declared_path(tmp_path, capsys, seen, method, frame):
    cls = cli_methods()[method]
    declared = cls.__name__ in nan_names()
    code, out = _select_auto(tmp_path, frame, method)
    err = " ".join(capsys.readouterr().err.split())
    assert code == 0, err
    summary = json.loads((out / "importances.json").read_text())
    # no row dropped without the user's say
    assert summary["n_rows_used"] == len(frame) and summary["n_rows_dropped"] == 0
    # missing values reach the estimator exactly when it declares it takes them
    assert seen[cls.__name__] is declared
    assert summary["missing"] == ("keep" if declared else "impute")
    n_rows = int(frame.drop(columns="y").isna().any(axis=1).sum())
    if method == "llds":
        return  # LLDS takes the table as it is: nothing to say
    if declared:
        assert f"keeping {n_rows} row(s) with missing values" in err
        assert f"{cls.__name__} takes missing values" in err
    else:
        assert f"imputing {n_rows} row(s) with missing values" in err
        assert f"{cls.__name__} needs complete rows; --missing auto" in err


@pytest.mark.parametrize("method", sorted(cli_methods()))
def test_missing_auto_follows_each_declaration(tmp_path, capsys, fast_and_watched, method):
    _check_declared_path(tmp_path, capsys, fast_and_watched, method, _mixed_table())


def _continuous_methods():
    names = set(continuous_target_names())
    return [m for m, cls in sorted(cli_methods().items()) if cls.__name__ in names]


def _refuses_nan_despite_its_tag(cls):
    """Whether ``cls`` on a continuous target refuses NaN although its tag takes it."""
    if not takes_nan(cls(task="regression")):
        return False
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    X[0, 0] = np.nan
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a 12-row fit: only its refusal matters
            cls(task="regression").fit(X, rng.normal(size=12))
    except ValueError as exc:
        return "NaN" in str(exc)
    return False


@pytest.mark.parametrize("method", _continuous_methods())
def test_missing_auto_on_a_continuous_target(tmp_path, capsys, fast_and_watched, method):
    cls = cli_methods()[method]
    if "task" in cls().get_params() and _refuses_nan_despite_its_tag(cls):
        # The CLI reads the tag: an estimator must not declare what it refuses.
        pytest.xfail(f"{cls.__name__} refuses NaN on a continuous target; its tag takes NaN")
    _check_declared_path(tmp_path, capsys, fast_and_watched, method, _mixed_table(continuous=True))


def test_the_cli_reads_the_registry_declaration():
    """One declaration: the CLI's test on a configured instance agrees with ``nan_names``."""
    takers = set(nan_names())
    for name, cls in cli_methods().items():
        assert takes_nan(cls()) is (cls.__name__ in takers), name
    assert nan_methods() == sorted(
        name for name, cls in cli_methods().items() if cls.__name__ in takers
    )


def test_drop_refusal_lists_the_methods_that_take_missing_values(tmp_path, capsys):
    frame = _mixed_table()
    frame.loc[frame["y"] == "a", "noise"] = np.nan  # dropping would empty class 'a'
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "y",
                 "--missing", "drop", "--out", str(tmp_path / "o")]) != 0  # fmt: skip
    err = " ".join(capsys.readouterr().err.split())
    assert "class(es) 'a' with 0 of its 30" in err
    assert f"use a method that takes missing values ({', '.join(nan_methods())})" in err
    assert "relieff" in nan_methods() and "fisher" not in nan_methods()


def _new_rows(frame):
    """20 rows to predict: the table's missing values, and one unseen category."""
    new = frame.drop(columns="y").iloc[:20].copy()
    new.loc[5, "site"] = "west"
    assert new.isna().any(axis=1).sum() >= 3
    return new


@pytest.mark.parametrize("method", ["fisher", "relieff"])
def test_predict_answers_every_row_and_says_so_first(tmp_path, monkeypatch, method):
    frame = _mixed_table()
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", method, "--input", str(path), "--target", "y",
                 "--params", "n_features_to_select=2", "--out", str(out)]) == 0  # fmt: skip
    new = _new_rows(frame)
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    both = io.StringIO()  # stdout and stderr in one stream: their order is kept
    monkeypatch.setattr(sys, "stdout", both)
    monkeypatch.setattr(sys, "stderr", both)
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new_path)]) == 0
    text = both.getvalue()
    start = text.index("row,")
    said, written = " ".join(text[:start].split()), text[start:]
    answers = pd.read_csv(io.StringIO(written), index_col="row")
    assert list(answers.index) == list(new.index)  # 20 rows in, 20 rows out
    assert answers["n_selected"].notna().all()
    # the unseen category is named, with what the model does with it
    assert "categories not seen in training" in said and "column 'site': 'west' (1 row(s))" in said
    n_rows = int(new.isna().any(axis=1).sum()) + 1  # the unseen category counts as missing
    if method == "fisher":
        assert f"imputing {n_rows} row(s) with missing values" in said
        assert "with the model's imputer" in said and "FisherScore needs complete rows" in said
    else:
        assert f"{n_rows} row(s) have missing values" in said
        assert "ReliefF takes them as they are" in said


def test_a_model_dropping_rows_still_answers_every_row(tmp_path, capsys):
    """``--missing drop`` fits on complete rows; the model still imputes new ones."""
    frame = _mixed_table()
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "y",
                 "--missing", "drop", "--out", str(out)]) == 0  # fmt: skip
    summary = json.loads((out / "importances.json").read_text())
    assert summary["n_rows_used"] == len(frame.dropna())
    new = _new_rows(frame)
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    pred = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new_path),
                 "--out", str(pred)]) == 0  # fmt: skip
    assert len(pd.read_csv(pred)) == len(new)
    assert "imputing" in capsys.readouterr().err


def test_a_model_without_an_imputer_leaves_incomplete_rows_empty(tmp_path, capsys):
    """A model file saved before models imputed: every row is written, answers left empty."""
    from sklearn.pipeline import Pipeline

    from localselect import FisherScore
    from localselect.cli._steps import model_rows, predict_rows
    from localselect.cli._table import preparation_steps

    frame = _mixed_table().dropna()
    features = frame.drop(columns="y")
    steps = preparation_steps(["signal", "noise"], ["site", "smoker"], scale=True)
    pipeline = Pipeline([*steps, ("estimator", FisherScore(n_features_to_select=2))])
    pipeline.fit(features, frame["y"])
    names = list(pipeline[:-1].get_feature_names_out())
    bundle = {"method": "fisher", "columns": list(features.columns), "feature_names": names,
              "classifier": False, "task": "classification", "missing": "drop",
              "pipeline": pipeline}  # fmt: skip
    new = features.iloc[:6].copy()
    new.iloc[2, 1] = np.nan
    answers = predict_rows(bundle, model_rows(new, bundle))
    assert list(answers.index) == list(new.index)
    assert answers["n_selected"].isna().tolist() == [False, False, True, False, False, False]
    err = " ".join(capsys.readouterr().err.split())
    assert "1 row(s) have missing values (noise 1) and this model has no imputer" in err
    assert "left empty" in err


def test_load_bundle_keeps_the_mode(tmp_path):
    frame = _mixed_table()
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "y",
                 "--out", str(out)]) == 0  # fmt: skip
    assert load_bundle(out / "model.skops")["missing"] == "impute"


@pytest.fixture
def native_relieff(monkeypatch):
    """ReliefF declared ``columns="native"``; records the table its fit receives."""
    from localselect import ReliefF

    declared = ReliefF._declaration._replace(columns="native")
    monkeypatch.setattr(ReliefF, "_declaration", declared)
    received = []
    original = ReliefF.fit

    def fit(self, X, y):
        received.append(X)
        return original(self, X, y)

    monkeypatch.setattr(ReliefF, "fit", fit)
    return received


@pytest.mark.parametrize("missing", ["auto", "impute"])
def test_a_native_estimator_reads_the_table_itself(tmp_path, native_relieff, missing, capsys):
    """No one-hot encoding: one column per input column, categorical columns as levels."""
    frame = _mixed_table()
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", "relieff", "--input", str(path), "--target", "y",
                 "--missing", missing, "--params", "n_features_to_select=2",
                 "--out", str(out)]) == 0  # fmt: skip
    (X,) = native_relieff
    assert sorted(X.columns) == ["noise", "signal", "site", "smoker"]
    assert not pd.api.types.is_numeric_dtype(X["site"]) and set(X["site"].dropna()) == {
        "north",
        "south",
        "east",
    }
    assert set(X["smoker"].dropna()) == {"false", "true"}
    assert bool(X.isna().any(axis=None)) is (missing == "auto")  # ReliefF takes NaN
    bundle = load_bundle(out / "model.skops")
    fitted = bundle["pipeline"].named_steps["estimator"]
    nominal = dict(zip(fitted.input_columns_.names, fitted.input_columns_.nominal, strict=True))
    assert nominal == {"signal": False, "noise": False, "site": True, "smoker": True}
    summary = json.loads((out / "importances.json").read_text())
    assert summary["n_model_features"] == summary["n_columns"] == 4
    assert summary["features"][0]["feature"] == "signal"

    new = _new_rows(frame)
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    pred = tmp_path / "pred.csv"
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new_path),
                 "--out", str(pred)]) == 0  # fmt: skip
    err = " ".join(capsys.readouterr().err.split())
    how = "read as missing by ReliefF" if missing == "auto" else "imputed with the column's most"
    assert f"column 'site': 'west' (1 row(s)), {how}" in err
    assert len(pd.read_csv(pred)) == len(new)


def test_a_numeric_coded_category_is_the_same_level_as_int_or_float(tmp_path, capsys):
    """``--categorical grade`` read as floats (a missing value) in select, as ints in predict."""
    rng = np.random.default_rng(0)
    n = 60
    frame = pd.DataFrame({"a": rng.normal(size=n), "grade": rng.integers(1, 4, n).astype(float)})
    frame["y"] = rng.choice(["p", "q"], n)
    frame.loc[0, "grade"] = np.nan
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "y",
                 "--categorical", "grade", "--per-level", "--out", str(out)]) == 0  # fmt: skip
    levels = pd.read_csv(out / "importances_per_level.csv")["feature"]
    assert {"grade_1", "grade_2", "grade_3"} <= set(levels)  # not grade_1.0
    new = pd.DataFrame({"a": [0.1, 0.2, 0.3], "grade": [1, 3, 7]})  # integers, 7 unseen
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new_path)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "column 'grade': '7' (1 row(s))" in err and "'1'" not in err and "'3'" not in err
