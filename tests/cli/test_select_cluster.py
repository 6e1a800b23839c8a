"""`localselect select/predict --cluster`: a folder or glob of files read on a Dask cluster."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from localselect.cli import main
from localselect.cli._model_io import load_model


def _write_parts(folder, n_parts=3, rows=300, seed=0, kind="parquet"):
    rng = np.random.default_rng(seed)
    folder.mkdir()
    frames = []
    for i in range(n_parts):
        X = rng.standard_normal((rows, 5))
        frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(5)])
        frame["y"] = np.where(X[:, 0] + X[:, 1] > 0, "yes", "no")
        if kind == "parquet":
            frame.to_parquet(folder / f"part-{i}.parquet")
        else:
            frame.to_csv(folder / f"part-{i}.csv", index=False)
        frames.append(frame)
    whole = pd.concat(frames, ignore_index=True)
    whole.to_csv(folder.parent / "whole.csv", index=False)
    return whole


def _rows(folder):
    return pd.read_parquet(folder).sort_index()


def test_fisher_on_a_parquet_folder_equals_the_in_memory_run(tmp_path, dask_client, capsys):
    _write_parts(tmp_path / "data")
    address = dask_client.scheduler.address
    common = ["--method", "fisher", "--target", "y", "--n-features", "2"]
    assert (
        main(
            [
                "select",
                *common,
                "--input",
                str(tmp_path / "data"),
                "--cluster",
                address,
                "--out",
                str(tmp_path / "dist"),
            ]
        )
        == 0
    )
    assert "fitted on all 900 rows on the cluster" in capsys.readouterr().out
    assert (
        main(
            [
                "select",
                *common,
                "--input",
                str(tmp_path / "whole.csv"),
                "--out",
                str(tmp_path / "mem"),
            ]
        )
        == 0
    )
    dist = pd.read_csv(tmp_path / "dist" / "importances.csv")
    mem = pd.read_csv(tmp_path / "mem" / "importances.csv")
    assert list(dist["feature"]) == list(mem["feature"])
    np.testing.assert_allclose(dist["importance"], mem["importance"], rtol=1e-9)
    assert list(dist["feature"][:2]) == ["f0", "f1"] or list(dist["feature"][:2]) == ["f1", "f0"]
    rows = _rows(tmp_path / "dist" / "selected_features")
    expected = pd.read_csv(tmp_path / "mem" / "selected_features.csv", index_col="row")
    assert list(rows.index) == list(range(900))  # row numbers in the input, files in order
    pd.testing.assert_frame_equal(rows, expected, check_dtype=False, check_index_type=False)
    # one model-file bundle, written the same way by both forms of select (task included)
    dist_model = load_model(tmp_path / "dist" / "model.skops")
    mem_model = load_model(tmp_path / "mem" / "model.skops")
    assert list(dist_model) == list(mem_model)
    assert dist_model["task"] == mem_model["task"] == "classification"
    assert dist_model["columns"] == [f"f{j}" for j in range(5)]


def test_a_method_without_a_dask_fit_is_fitted_on_a_sample(tmp_path, dask_client, capsys):
    _write_parts(tmp_path / "data", kind="csv")
    out = tmp_path / "out"
    code = main(
        [
            "select",
            "--method",
            "relief",
            "--target",
            "y",
            "--input",
            str(tmp_path / "data" / "part-*.csv"),
            "--cluster",
            dask_client.scheduler.address,
            "--sample",
            "400",
            "--random-state",
            "0",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    text = capsys.readouterr()
    assert "fitted in memory on a sample of" in text.out
    rows = _rows(out / ROWS)
    assert len(rows) == 900 and {"n_selected", "selected", "f0"} <= set(rows.columns)
    # predict with --cluster gives the rows predict gives in memory (the same model file)
    assert (
        main(
            [
                "predict",
                "--model",
                str(out / "model.skops"),
                "--input",
                str(tmp_path / "data"),
                "--cluster",
                dask_client.scheduler.address,
                "--out",
                str(tmp_path / "pred"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "predict",
                "--model",
                str(out / "model.skops"),
                "--input",
                str(tmp_path / "whole.csv"),
                "--out",
                str(tmp_path / "pred.csv"),
            ]
        )
        == 0
    )
    dist = _rows(tmp_path / "pred")
    mem = pd.read_csv(tmp_path / "pred.csv", index_col="row")
    pd.testing.assert_frame_equal(dist, mem, check_dtype=False, check_index_type=False)


ROWS = "selected_features"


def test_cluster_input_errors_are_one_line(tmp_path, dask_client, capsys):
    address = dask_client.scheduler.address
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "t": list("xyxy"), "y": [0, 1, 0, 1]})
    (tmp_path / "text").mkdir()
    frame.to_parquet(tmp_path / "text" / "p.parquet")
    base = ["select", "--method", "fisher", "--target", "y", "--cluster", address]
    assert main([*base, "--input", str(tmp_path / "text"), "--out", str(tmp_path / "o")]) == 2
    assert "every feature column must be numeric; t is not" in capsys.readouterr().err
    assert main([*base, "--input", str(tmp_path / "none-*.parquet")]) == 2
    assert "names no Parquet or CSV file" in capsys.readouterr().err
    (tmp_path / "o2" / ROWS).mkdir(parents=True)
    (tmp_path / "o2" / ROWS / "notes.txt").write_text("mine")
    args = [*base, "--input", str(tmp_path / "text"), "--drop", "t", "--out", str(tmp_path / "o2")]
    assert main(args) == 2
    assert "holds other files than Parquet partitions" in capsys.readouterr().err
    assert (tmp_path / "o2" / ROWS / "notes.txt").exists()


@pytest.mark.slow
def test_local_n_starts_a_cluster_for_the_run(tmp_path, capsys):
    _write_parts(tmp_path / "data", n_parts=2, rows=200)
    out = tmp_path / "out"
    args = [
        "select",
        "--method",
        "mrmr",
        "--target",
        "y",
        "--n-features",
        "2",
        "--input",
        str(tmp_path / "data"),
        "--cluster",
        "local:1",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    assert "fitted on all 400 rows on the cluster" in capsys.readouterr().out
    assert set(pd.read_csv(out / "importances.csv")["feature"][:2]) == {"f0", "f1"}
    assert main(["select", *args[1:-4], "--cluster", "local:0"]) == 2


def test_select_cluster_reports_its_stages_and_the_fit_passes(tmp_path, dask_client):
    from task_recorder import TaskRecorder

    from localselect._runtime import listen

    _write_parts(tmp_path / "data")
    recorder = TaskRecorder()
    args = ["select", "--method", "fisher", "--target", "y", "--input", str(tmp_path / "data")]
    args += ["--cluster", dask_client.scheduler.address, "--out", str(tmp_path / "out")]
    with listen(recorder):
        assert main(args) == 0
    seen = {task.description: (task.done, task.total) for task in recorder.tasks}
    assert seen["select --cluster"] == (4, 4), seen
    # the fit's passes over the 3 partitions: the first-pass summary and Fisher's moments
    assert seen["summary blocks"] == (3, 3), seen
    assert seen["fisher blocks"] == (3, 3), seen
