"""`localselect select --n-features auto --fdr --stability`: evidence columns, report, errors."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from localselect.cli import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    y = np.repeat(["sick", "healthy"], 50)
    frame = pd.DataFrame(rng.normal(size=(100, 6)), columns=[f"g{j}" for j in range(6)])
    frame["marker"] = rng.normal(size=100) + 3.0 * (y == "sick")
    frame["diagnosis"] = y
    path = tmp_path / "table.csv"
    frame.to_csv(path, index=False)
    return path


def _run(table, tmp_path, *extra):
    out = tmp_path / "out"
    argv = ["select", "--input", str(table), "--target", "diagnosis", "--out", str(out), *extra]
    return main(argv), out


def test_auto_and_stability_columns(table, tmp_path):
    code, out = _run(table, tmp_path, "--method", "fisher", "--n-features", "auto",
                     "--fdr", "0.05", "--stability", "8", "--random-state", "0",
                     "--report")  # fmt: skip
    assert code == 0
    imp = pd.read_csv(out / "importances.csv")
    assert {"p_value", "q_value", "selection_probability"} <= set(imp.columns)
    marker = imp.set_index("feature").loc["marker"]
    assert marker["q_value"] <= 0.05 and marker["selected"]
    assert marker["selection_probability"] == 1.0
    assert imp["p_value"].between(0, 1).all() and imp["selection_probability"].between(0, 1).all()
    summary = json.loads((out / "importances.json").read_text())
    assert summary["fdr"] == 0.05 and summary["null"] == "permutation"
    assert summary["null_draws"] == 1000  # B permutations, not B x p null scores
    assert summary["stability"]["n_subsamples"] == 8
    assert summary["params"]["n_features_to_select"] == "auto"
    assert "q_value" in summary["features"][0]
    report = (out / "report.html").read_text()
    assert "Scores against their null" in report and "Stability: selection probability" in report


def test_null_draws_counts_shadow_rounds(table, tmp_path):
    code, out = _run(table, tmp_path, "--method", "relief", "--n-features", "auto")
    assert code == 0
    summary = json.loads((out / "importances.json").read_text())
    # 7 features: max(ceil(100 / 7), ceil(1 / 0.1)) = 15 rounds of 7 shadows each
    assert summary["null"] == "shadow" and summary["null_draws"] == 15


def test_fixed_k_leaves_evidence_columns_empty(table, tmp_path):
    code, out = _run(table, tmp_path, "--method", "relief", "--n-features", "2")
    assert code == 0
    imp = pd.read_csv(out / "importances.csv")
    assert imp[["p_value", "q_value", "selection_probability"]].isna().all().all()


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        (["--method", "fisher", "--fdr", "0.1"], "--fdr applies with --n-features auto"),
        (["--method", "fisher", "--n-features", "auto", "--fdr", "2"], "--fdr must be in (0, 1)"),
        (
            ["--method", "llds", "--n-features", "auto"],
            "--n-features does not apply: LiftFeatureSelector",
        ),
    ],
)
def test_evidence_flag_errors(table, tmp_path, capsys, extra, fragment):
    code, _ = _run(table, tmp_path, *extra)
    err = capsys.readouterr().err
    assert code != 0 and fragment in err and "Traceback" not in err


def test_bad_n_features_and_stability_values(table, tmp_path, capsys):
    for extra, fragment in (
        (["--n-features", "many"], "positive integer or 'auto'"),
        (["--stability", "1"], "at least 2"),
    ):
        with pytest.raises(SystemExit):
            _run(table, tmp_path, "--method", "fisher", *extra)
        assert fragment in capsys.readouterr().err


def test_auto_model_file_loads_in_predict(table, tmp_path):
    code, out = _run(table, tmp_path, "--method", "relief", "--n-features", "auto")
    assert code == 0
    model = next(p for p in out.iterdir() if p.name.startswith("model."))
    pred = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(model), "--input", str(table), "--out", str(pred)]) == 0
    assert "marker" in pd.read_csv(pred)["selected"].iloc[0]
