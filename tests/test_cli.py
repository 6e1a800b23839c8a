"""The command-line interface: help, version, datasets, demo and error handling."""

from __future__ import annotations

import subprocess
import sys

import pytest

import localselect
from localselect.cli import main


def test_help_and_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert localselect.__version__ in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "datasets" in capsys.readouterr().out


def test_no_command_prints_help(capsys):
    assert main([]) == 0
    assert "usage" in capsys.readouterr().out.lower()


def test_unknown_dataset_is_one_line_with_suggestions(capsys):
    code = main(["datasets", "show", "sonr"])
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    assert err.count("\n") == 1 and "Sonar" in err


def test_verbose_shows_the_traceback():
    with pytest.raises(Exception, match="sonr"):
        main(["-v", "datasets", "show", "sonr"])


def test_datasets_list_shows_every_manifest_dataset(capsys, data_home):
    from localselect.datasets import list_datasets

    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    names = list_datasets()["name"]
    assert all(name in out for name in names)
    assert f"{len(names)} of {len(names)} available here" in out


def test_datasets_show_loads_the_data(capsys, data_home):
    assert main(["datasets", "show", "HouseVotes84"]) == 0
    out = capsys.readouterr().out
    assert "435 x 16" in out and "democrat" in out


def test_demo_runs_every_estimator_and_writes_a_report(capsys, tmp_path):
    import pandas as pd

    from localselect.utils import all_estimators

    code = main(["demo", "--quick", "--report", str(tmp_path)])
    out = capsys.readouterr().out
    results = pd.read_csv(tmp_path / "results.csv", keep_default_na=False)
    failed = results[results["error"] != ""]
    assert code == 0, f"demo rows failed: {failed[['method', 'error']].to_dict('records')}"
    for name, _ in all_estimators():
        assert name in out
        assert (results["method"] == name).sum() == 2  # one row per problem
    assert "breast_cancer" in out and "lfs_synthetic" in out
    page = (tmp_path / "report.html").read_text()
    assert "<table" in page and "FisherScore on lfs_synthetic" in page
    assert "data:image/png;base64," in page


def test_python_dash_m_entry_point():
    result = subprocess.run(
        [sys.executable, "-m", "localselect", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and localselect.__version__ in result.stdout
