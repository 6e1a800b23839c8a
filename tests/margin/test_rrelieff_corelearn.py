"""RReliefF on mixed tables (factors, missing values, distance ties) against CORElearn.

``r_reference/corelearn_mixed.json`` holds the tables (two generated, four
from R packages: MASS ``birthwt`` and ``Cars93``, ggplot2 ``mpg``, R's
``airquality``) and CORElearn's ``attrEval`` scores, each with the R command
that produced it (``r_reference/corelearn_mixed.R``, run by
``r_reference/make_corelearn_mixed.py``). The tests need no R.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import spearmanr

from localselect import ReliefF
from localselect._runtime import Reporter
from localselect.margin._common import input_kinds
from localselect.margin._rrelieff import rrelieff

REF = Path(__file__).with_name("r_reference")
DATA = json.loads((REF / "corelearn_mixed.json").read_text())


class _Columns:
    """What the fit reads of ``input_columns_``: the nominal mask and the levels."""

    def __init__(self, table):
        self.nominal = np.array(table["nominal"])
        self.levels = tuple(
            np.array(table["levels"][c]) if c in table["levels"] else None
            for c in table["columns"]
        )


def _table(table):
    X = np.array([[np.nan if v is None else v for v in row] for row in table["X"]])
    return X, np.array(table["y"])


def _runs(task="regression"):
    for name, table in DATA["tables"].items():
        if table["task"] != task:
            continue
        for run in table["scores"]:
            ramp = f"-ramp{run['numeric_equal']}" if run["numeric_equal"] else ""
            yield pytest.param(name, run, id=f"{name}-{run['estimator']}-k{run['k']}{ramp}")


def _estimator(run, n):
    return ReliefF(
        n_neighbors=run["k"],
        max_samples=None,
        neighbor_weights="equal" if run["estimator"].endswith("equalK") else "exp_rank",
        sigma=run["sigma"],
        numeric_equal=run["numeric_equal"],
        numeric_different=run["numeric_different"],
        task="regression",
    )


def test_recorded_tables_cover_factors_missing_values_and_ties():
    tables = DATA["tables"]
    real = [t for t in tables.values() if t["source"] == "R" and t["task"] == "regression"]
    assert len(real) >= 3
    assert sum(any(t["nominal"]) for t in real) >= 3
    assert sum(any(v is None for row in t["X"] for v in row) for t in tables.values()) >= 3
    # distance ties: integer-valued columns in the generated tables and in birthwt and mpg
    X, _ = _table(tables["generated_ties"])
    assert len(np.unique(X[:, 1][~np.isnan(X[:, 1])])) == 5


@pytest.mark.parametrize(("name", "run"), list(_runs()))
def test_equals_recorded_corelearn_scores(name, run):
    """Equal to CORElearn to 1e-9 on every table, with ties too (the rule is CORElearn's)."""
    table = DATA["tables"][name]
    X, y = _table(table)
    est = _estimator(run, len(y))
    est.input_columns_ = _Columns(table)  # as the fit's table reader sets it
    est.task_, est.n_features_in_ = "regression", X.shape[1]
    est._fit(X, y, Reporter.for_estimator(est))
    got = est.feature_importances_
    np.testing.assert_allclose(got, run["weights"], rtol=0, atol=1e-9)
    assert spearmanr(got, run["weights"])[0] >= 0.999


@pytest.mark.parametrize(("name", "run"), list(_runs())[:8])
def test_kernel_equals_recorded_scores_with_any_thread_count(name, run):
    table = DATA["tables"][name]
    X, y = _table(table)
    nominal, n_levels = input_kinds(_Holder(_Columns(table)), X.shape[1])
    kw = {
        "neighbor_weights": "equal" if run["estimator"].endswith("equalK") else "exp_rank",
        "sigma": run["sigma"],
        "nominal": nominal,
        "n_levels": n_levels,
        "numeric_equal": run["numeric_equal"],
        "numeric_different": run["numeric_different"],
    }
    k = min(run["k"], len(y) - 1)
    one = rrelieff(X, y, np.arange(len(y)), k, n_jobs=1, **kw)
    two = rrelieff(X, y, np.arange(len(y)), k, n_jobs=2, **kw)
    np.testing.assert_array_equal(one, two)
    np.testing.assert_allclose(one, run["weights"], rtol=0, atol=1e-9)


def _class_codes(y):
    return np.unique(y, return_inverse=True)[1].astype(np.intp)


@pytest.mark.parametrize(("name", "run"), list(_runs("classification")))
def test_class_labels_against_recorded_corelearn_scores(name, run):
    """ReliefF on class labels: CORElearn's ``ReliefFequalK`` on complete mixed tables.

    Equal to 1e-9 without distance ties (the generated table); with ties
    (integer columns of MASS ``birthwt`` and ggplot2 ``mpg``) the rules
    differ (ours: ties to the lower index; CORElearn: its heap's choice, and
    it skips samples at distance 0), so the ranking is compared.
    """
    table = DATA["tables"][name]
    X, y = _table(table)
    est = ReliefF(n_neighbors=run["k"], max_samples=None)
    est.input_columns_ = _Columns(table)
    est.task_, est.n_features_in_ = "classification", X.shape[1]
    est._fit(X, _class_codes(y), Reporter.for_estimator(est))
    got = est.feature_importances_
    if name == "generated_classes":
        np.testing.assert_allclose(got, run["weights"], rtol=0, atol=1e-9)
    else:
        assert spearmanr(got, run["weights"])[0] >= 0.999
        np.testing.assert_allclose(got, run["weights"], rtol=0, atol=0.02)


class _Holder:
    def __init__(self, cols):
        self.input_columns_ = cols


def test_numeric_table_with_ties_through_the_public_fit():
    """A numeric array (no table layer needed): CORElearn's tie rule on integer columns."""
    table = DATA["tables"]["generated_integers"]
    X, y = _table(table)
    assert not any(table["nominal"]) and not np.isnan(X).any()
    for run in table["scores"]:
        got = _estimator(run, len(y)).fit(X, y).feature_importances_
        np.testing.assert_allclose(got, run["weights"], rtol=0, atol=1e-9)


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("Rscript") is None, reason="needs R with CORElearn")
def test_live_corelearn_run(tmp_path):
    """Reruns one recorded command on this machine's CORElearn (when installed)."""
    probe = subprocess.run(
        ["Rscript", "-e", "library(CORElearn)"], capture_output=True, text=True, check=False
    )
    if probe.returncode != 0:
        pytest.skip("CORElearn is not installed")
    table = DATA["tables"]["Cars93"]
    X, y = _table(table)
    lines = [",".join([*table["columns"], "y"])]
    for row, target in zip(X, y, strict=True):
        cells = []
        for c, v, nom in zip(table["columns"], row, table["nominal"], strict=True):
            if np.isnan(v):
                cells.append("NA")
            elif nom:
                cells.append('"' + table["levels"][c][int(v)] + '"')
            else:
                cells.append(repr(float(v)))
        lines.append(",".join([*cells, repr(float(target))]))
    csv = tmp_path / "Cars93.csv"
    csv.write_text("\n".join(lines) + "\n")
    factors = ",".join(c for c, nom in zip(table["columns"], table["nominal"], strict=True) if nom)
    run = table["scores"][0]
    res = subprocess.run(
        [
            "Rscript",
            "corelearn_mixed.R",
            "score",
            str(csv),
            factors,
            run["estimator"],
            str(run["k"]),
            str(run["sigma"]),
            str(run["numeric_equal"]),
            str(run["numeric_different"]),
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=REF,
    )
    live = [float(v) for v in res.stdout.strip().split("\n")[:-1]]
    np.testing.assert_allclose(live, run["weights"], rtol=0, atol=1e-12)


def _frame(table):
    """The recorded table as a pandas frame: factors as ``category`` columns of their labels."""
    pd = pytest.importorskip("pandas")
    X, y = _table(table)
    data = {}
    for a, name in enumerate(table["columns"]):
        if table["nominal"][a]:
            labels = np.array(table["levels"][name], dtype=object)
            codes = X[:, a]
            values = [None if np.isnan(c) else labels[int(c)] for c in codes]
            data[name] = pd.Categorical(values, categories=list(labels))
        else:
            data[name] = X[:, a]
    return pd.DataFrame(data), y


@pytest.mark.parametrize("name", ["Cars93", "mpg", "airquality", "generated_ties"])
def test_dataframe_with_factors_and_nan_equals_corelearn(name):
    """A frame with category columns and NaN through the public fit: CORElearn's scores."""
    table = DATA["tables"][name]
    frame, y = _frame(table)
    for run in table["scores"]:
        est = _estimator(run, len(y)).fit(frame, y)
        np.testing.assert_allclose(est.feature_importances_, run["weights"], rtol=0, atol=1e-9)
        assert list(est.get_feature_names_out(input_features=None)) == [
            c for c, keep in zip(table["columns"], est.get_support(), strict=True) if keep
        ]


def test_dataframe_with_class_labels_and_strings():
    table = DATA["tables"]["generated_classes"]
    frame, y = _frame(table)
    for col in ("f1", "f2"):  # string columns (object dtype) rather than categories
        frame[col] = frame[col].astype(str)
    run = table["scores"][0]
    est = ReliefF(n_neighbors=run["k"], max_samples=None).fit(frame, y)
    np.testing.assert_allclose(est.feature_importances_, run["weights"], rtol=0, atol=1e-9)
