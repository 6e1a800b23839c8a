"""Outputs in the user's own columns, boolean columns, infinite scores."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from test_select import TINY, _trust_the_test_estimators  # noqa: F401 (autouse fixture)

from localselect.cli import main
from localselect.cli._model_io import load_model


def _strict_json(path):
    """importances.json must be standard JSON (no NaN or Infinity literals)."""

    def refuse(name):
        raise AssertionError(f"non-standard JSON constant {name}")

    return json.loads(path.read_text(), parse_constant=refuse)


@pytest.fixture
def shop(tmp_path):
    """Booleans spelled four ways, a three-level category, numbers; the label follows `member`."""
    rng = np.random.default_rng(0)
    n = 90
    member = rng.random(n) < 0.5
    frame = pd.DataFrame(
        {
            "member": member,  # read back by pandas as bool
            "newsletter": rng.choice(["yes", "no"], n),
            "returns": rng.choice(["0", "1"], n),  # text 0/1 (with --categorical)
            "vip": rng.choice(["Y", "n"], n),
            "region": rng.choice(["north", "south", "east"], n),
            "spend": rng.normal(50, 10, n) + 5 * member,
            "label": np.where(member, "loyal", "casual"),
        }
    )
    frame.loc[3, "newsletter"] = np.nan
    path = tmp_path / "shop.csv"
    frame.to_csv(path, index=False)
    return path, frame


COLUMNS = ["member", "newsletter", "returns", "vip", "region", "spend"]


def _select(path, out, method, *extra):
    argv = ["select", "--method", method, "--input", str(path), "--target", "label",
            "--out", str(out), "--categorical", "returns", *extra]  # fmt: skip
    assert main(argv) == 0


def test_boolean_columns_become_one_0_1_feature(shop, tmp_path):
    path, frame = shop
    out = tmp_path / "out"
    _select(path, out, "fisher", "--missing", "impute", "--per-level")
    bundle = load_model(out / "model.skops")
    levels = pd.read_csv(out / "importances_per_level.csv")
    # One feature per boolean column, named as the column; three for the category.
    assert sorted(levels["feature"]) == sorted(
        [
            "member",
            "newsletter",
            "returns",
            "vip",
            "region_east",
            "region_north",
            "region_south",
            "spend",
        ]
    )
    encoded = bundle["pipeline"][:-1].transform(frame[bundle["columns"]])
    truth = {
        "member": frame["member"].astype(float),
        "newsletter": (frame["newsletter"] == "yes").astype(float),
        "returns": (frame["returns"].astype(str) == "1").astype(float),
        "vip": (frame["vip"] == "Y").astype(float),
    }
    yes, no = (frame["newsletter"] == "yes").sum(), (frame["newsletter"] == "no").sum()
    truth["newsletter"][3] = float(yes >= no)  # imputed: the most frequent value
    for col, expected in truth.items():
        np.testing.assert_array_equal(encoded[col].to_numpy(), expected.to_numpy(dtype=float))


def test_a_value_outside_a_boolean_column_is_named_and_imputed(shop, tmp_path, capsys):
    path, frame = shop
    out = tmp_path / "out"
    _select(path, out, "fisher", "--missing", "impute")
    new = frame.drop(columns="label").head(5).copy()
    new["vip"] = new["vip"].astype(object)
    new.loc[2, "vip"] = "maybe"
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new_path)]) == 0
    captured = capsys.readouterr()
    assert "column 'vip': 'maybe' (1 row(s)), imputed with the column's most frequent" in (
        " ".join(captured.err.split())
    )
    assert len(pd.read_csv(io.StringIO(captured.out))) == 5


def test_local_outputs_name_the_columns_and_aggregate_any_level(shop, tmp_path, capsys):
    path, _ = shop
    out = tmp_path / "out"
    _select(path, out, TINY, "--missing", "impute", "--per-level", "--report")
    line = capsys.readouterr().out
    selected = pd.read_csv(out / "selected_features.csv", index_col="row")
    assert list(selected.columns) == [*COLUMNS, "n_selected", "selected"]
    levels = pd.read_csv(out / "selected_features_per_level.csv", index_col="row")
    region = ["region_east", "region_north", "region_south"]
    assert set(region) <= set(levels.columns)
    # A column is selected for a row when any of its levels is.
    np.testing.assert_array_equal(selected["region"], levels[region].max(axis=1))
    np.testing.assert_array_equal(selected["spend"], levels["spend"])
    assert (selected[COLUMNS].sum(axis=1) == selected["n_selected"]).all()
    # Importance of a local selector: the column's selection frequency.
    table = pd.read_csv(out / "importances.csv").set_index("feature")
    assert sorted(table.index) == sorted(COLUMNS)
    np.testing.assert_allclose(table.loc[COLUMNS, "importance"], selected[COLUMNS].mean())
    assert table.loc["region", "n_levels"] == 3 and table.loc["spend", "n_levels"] == 1
    summary = _strict_json(out / "importances.json")
    assert {f["feature"] for f in summary["features"]} == set(COLUMNS)
    assert summary["n_columns"] == 6 and summary["n_model_features"] == 8
    assert summary["mean_subset_size"] == pytest.approx(selected["n_selected"].mean())
    assert "region_" not in line and "of 6 in some row's subset" in line
    page = (out / "report.html").read_text()
    assert "region_north" not in page and "<td>region</td>" in page
    # predict: the same columns; --per-level adds the levels.
    pred = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(path),
                 "--out", str(pred), "--per-level"]) == 0  # fmt: skip
    pred = pd.read_csv(pred, index_col="row")
    names = {n for cell in pred["selected"].dropna() for n in cell.split(";")}
    assert names <= set(COLUMNS) and "region" in names
    level_names = {n for cell in pred["selected_levels"].dropna() for n in cell.split(";")}
    assert level_names & set(region)


def test_global_importance_is_the_largest_over_levels(shop, tmp_path):
    path, _ = shop
    out = tmp_path / "out"
    _select(path, out, "fisher", "--missing", "impute", "--per-level")
    table = pd.read_csv(out / "importances.csv").set_index("feature")
    levels = pd.read_csv(out / "importances_per_level.csv")
    by_column = levels.groupby("column")["importance"].max()
    np.testing.assert_allclose(table.loc[by_column.index, "importance"], by_column)
    assert table["importance"].is_monotonic_decreasing
    assert set(levels.loc[levels["feature"].str.startswith("region_"), "column"]) == {"region"}


def test_infinite_scores_are_inf_in_every_file(tmp_path):
    # `cut` separates the classes with no spread inside either: an infinite Fisher score.
    frame = pd.DataFrame(
        {
            "cut": [0.0] * 5 + [1.0] * 5,
            "noise": np.arange(10.0) % 3,
            "label": ["a"] * 5 + ["b"] * 5,
        }
    )
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "label",
                 "--out", str(out)]) == 0  # fmt: skip
    assert "cut,inf," in (out / "importances.csv").read_text()
    assert (
        pd.read_csv(out / "importances.csv").set_index("feature").loc["cut", "importance"]
        == np.inf
    )
    summary = _strict_json(out / "importances.json")
    by_name = {f["feature"]: f for f in summary["features"]}
    assert by_name["cut"]["importance"] == "inf" and float(by_name["cut"]["importance"]) == np.inf


def test_llds_summary_states_the_chosen_subset_size(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.integers(0, 3, size=(60, 5)), columns=list("abcde"))
    frame["label"] = np.where(frame["a"] > 0, "x", "y")
    path = tmp_path / "d.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out"
    capsys.readouterr()
    assert main(["select", "--method", "llds", "--input", str(path), "--target", "label",
                 "--out", str(out), "--report"]) == 0  # fmt: skip
    line = capsys.readouterr().out
    model = load_model(out / "model.skops")["pipeline"].named_steps["estimator"]
    assert model.max_features == "auto" and model.max_features_ == 5
    assert "LiftFeatureSelector chose max_features_ = 5" in line
    assert _strict_json(out / "importances.json")["max_features_"] == 5
    assert "<th>max_features_</th><td>5</td>" in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("path", "target", "extra", "columns"),
    [
        # 16 votes spelled y/n with missing values: boolean columns.
        ("mlbench/HouseVotes84.csv", "Class", [], [f"V{j}" for j in range(1, 17)]),
        # Nominal attributes, integer-coded: categorical columns.
        (
            "pmlb/lymphography.tsv.gz",
            "target",
            [
                "--categorical",
                "Lymphatics",
                "Changes_in_lym",
                "Defect_in_node",
                "Changes_in_node",
                "Changes_in_stru",
                "Special_forms",
                "Dislocation_of",
            ],
            None,
        ),
    ],
)
def test_real_tables_name_only_their_columns(
    data_home, tmp_path, capsys, path, target, extra, columns
):
    source = data_home / path
    frame = pd.read_csv(source, sep="\t" if ".tsv" in path else ",")
    columns = columns or [c for c in frame.columns if c != target]
    out = tmp_path / "out"
    capsys.readouterr()
    assert main(["select", "--method", "fisher", "--input", str(source), "--target", target,
                 "--out", str(out), "--report", *extra]) == 0  # fmt: skip
    line = capsys.readouterr().out
    selected = pd.read_csv(out / "selected_features.csv", index_col="row")
    assert list(selected.columns) == [*columns, "n_selected", "selected"]
    names = {n for cell in selected["selected"].dropna() for n in cell.split(";")}
    assert names <= set(columns)
    assert set(pd.read_csv(out / "importances.csv")["feature"]) == set(columns)
    assert {f["feature"] for f in _strict_json(out / "importances.json")["features"]} == set(
        columns
    )
    top = line.split("top features: ")[1].split("\n")[0].rstrip(".")
    assert all(name.strip() in columns for name in top.split(",")[:-1])
    pred = tmp_path / "pred.csv"
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(source),
                 "--out", str(pred)]) == 0  # fmt: skip
    predicted = {n for cell in pd.read_csv(pred)["selected"].dropna() for n in cell.split(";")}
    assert predicted <= set(columns)
