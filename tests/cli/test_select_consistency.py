"""The CSV, the JSON, the summary line and the report of one run agree."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from localselect import plotting
from localselect.cli import main
from localselect.datasets import make_lfs_synthetic


@pytest.fixture
def lfs_table(tmp_path):
    X, y, _ = make_lfs_synthetic(70, n_irrelevant=4, random_state=0)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame["label"] = np.where(y == 1, "b", "a")
    path = tmp_path / "lfs.csv"
    frame.to_csv(path, index=False)
    return path


def _capture(monkeypatch, name):
    calls = []
    original = getattr(plotting, name)

    def spy(source, *args, **kwargs):
        calls.append((np.asarray(source), kwargs))
        return original(source, *args, **kwargs)

    monkeypatch.setattr(plotting, name, spy)
    return calls


@pytest.mark.parametrize(
    ("method", "params"),
    [("lfs", ["max_features=3", "n_beta=4", "max_iter=1"]), ("fisher", [])],
)
def test_files_summary_and_report_come_from_one_array(
    lfs_table, tmp_path, capsys, monkeypatch, method, params
):
    bars = _capture(monkeypatch, "plot_selection_frequency")
    grids = _capture(monkeypatch, "plot_local_subspaces")
    out = tmp_path / method
    argv = ["select", "--method", method, "--input", str(lfs_table), "--target", "label",
            "--out", str(out), "--report"]  # fmt: skip
    if params:
        argv += ["--params", *params]
    if method == "fisher":
        argv += ["--n-features", "2"]
    assert main(argv) == 0
    line = capsys.readouterr().out

    selected = pd.read_csv(out / "selected_features.csv", index_col="row")
    summary = json.loads((out / "importances.json").read_text())
    table = pd.read_csv(out / "importances.csv").set_index("feature")
    names = [f"f{j}" for j in range(6)]
    masks = selected[names].to_numpy().astype(bool)

    # importances.csv / .json from the CSV's masks.
    np.testing.assert_allclose(table.loc[names, "selection_frequency"], masks.mean(axis=0))
    np.testing.assert_array_equal(table.loc[names, "selected"], masks.any(axis=0))
    by_json = {f["feature"]: f for f in summary["features"]}
    np.testing.assert_allclose(
        [by_json[n]["selection_frequency"] for n in names], masks.mean(axis=0)
    )
    assert summary["mean_subset_size"] == pytest.approx(masks.sum(axis=1).mean())
    assert summary["n_selected_any_row"] == int(masks.any(axis=0).sum())
    # The summary line states the same numbers.
    assert f"{masks.sum(axis=1).mean():.1f} features per row" in line
    assert f"{int(masks.any(axis=0).sum())} of 6 in some row's subset" in line
    # The report's bar chart plots the importance column, highlighting `selected`
    # (one colour, no legend, when every feature or none is selected) ...
    assert len(bars) == 1
    values, kwargs = bars[0]
    np.testing.assert_allclose(values, table.loc[names, "importance"])
    selected = table.loc[names, "selected"].to_numpy()
    if selected.all() or not selected.any():
        assert kwargs["highlight"] is None
    else:
        np.testing.assert_array_equal(kwargs["highlight"], selected)
    if method == "lfs":
        assert summary["relevance_scope"] == "local"
        # ... which for a local selector is the selection frequency of the CSV,
        np.testing.assert_allclose(values, masks.mean(axis=0))
        # and the subsets figure shows rows of the CSV's masks.
        assert len(grids) == 1
        np.testing.assert_array_equal(grids[0][0], masks)
        # A per-row subset, not the union of the regions holding the row.
        assert masks.sum(axis=1).mean() < 0.5 * len(names)
    else:
        assert summary["relevance_scope"] == "global"
        assert (masks == masks[0]).all() and masks[0].sum() == 2
        assert grids == []
