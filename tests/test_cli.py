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


def test_datasets_list_shows_every_manifest_dataset(capsys, data_home, monkeypatch):
    from localselect.datasets import list_datasets

    monkeypatch.setenv("COLUMNS", "80")  # headers were once cut to 1-2 characters
    assert main(["datasets", "list"]) == 0
    out = capsys.readouterr().out
    names = list_datasets()["name"]
    assert all(name in out for name in names)
    assert f"{len(names)} of {len(names)} available here" in out
    assert max(len(line.encode()) for line in out.splitlines()) <= 80
    assert "samples | features | classes" in out


def test_datasets_show_loads_the_data(capsys, data_home):
    assert main(["datasets", "show", "HouseVotes84"]) == 0
    out = capsys.readouterr().out
    assert "435 x 16" in out and "democrat" in out


def test_demo_runs_every_estimator_and_writes_a_report(capsys, tmp_path, monkeypatch):
    import pandas as pd

    from localselect.utils import all_estimators

    monkeypatch.setenv("COLUMNS", "80")  # piped or 80 columns: rows wrapped
    code = main(["demo", "--quick", "--report", str(tmp_path)])
    captured = capsys.readouterr()
    out = captured.out
    results = pd.read_csv(tmp_path / "results.csv", keep_default_na=False)
    failed = results[results["error"] != ""]
    assert code == 0, f"demo rows failed: {failed[['method', 'error']].to_dict('records')}"
    for name, _ in all_estimators(["classifier", "selector"]):
        assert name in out
        assert (results["method"] == name).sum() == 2  # one row per problem
    # A discretizer is a helper of LLDS, not a method with an accuracy.
    assert "MahalanobisQuantileDiscretizer" not in out
    assert "MahalanobisQuantileDiscretizer" not in set(results["method"])
    # Every line fits 80 columns (bytes: the acceptance check is `awk 'length > 80'`),
    # and every warning is one line without file paths.
    for line in (out + captured.err).splitlines():
        if not line.startswith("report written to"):  # a path is printed whole
            assert len(line.encode()) <= 80, line
    for line in captured.err.splitlines():
        assert line.startswith("warning: "), line
        assert ".py:" not in line
    assert "breast_cancer" in out and "lfs_synthetic" in out
    page = (tmp_path / "report.html").read_text()
    assert "<table" in page and "FisherScore on lfs_synthetic" in page
    assert "data:image/png;base64," in page
    # the page leads with the answer: regimes in words before the table
    answer = page.index("The answer: which features matter where")
    assert answer < page.index("<table") and answer < page.index("Every method")
    assert "lfs_synthetic: " in page and "regime" in page[answer : page.index("Every method")]


def test_python_dash_m_entry_point():
    result = subprocess.run(
        [sys.executable, "-m", "localselect", "--version"], capture_output=True, text=True
    )
    assert result.returncode == 0 and localselect.__version__ in result.stdout


def test_help_imports_no_numeric_stack():
    # `localselect --help` once took 2.3 s importing every estimator.
    code = (
        "import sys; from localselect.cli import build_parser; build_parser(); "
        "heavy = [m for m in ('numpy', 'pandas', 'sklearn', 'scipy') if m in sys.modules]; "
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_lazy_package_attributes():
    import localselect as ls

    assert ls.ReliefF.__name__ == "ReliefF"
    assert set(ls.__all__) <= set(dir(ls))
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        ls.Nope  # noqa: B018


def test_python_warnings_are_one_line(capsys):
    from localselect.cli._errors import set_verbose, show_warning

    long = "IMMIGRATE did not converge\n   in max_iter=10 iterations; " + "increase it " * 20
    try:
        set_verbose(0)
        show_warning(UserWarning(long), UserWarning, "/site-packages/sklearn/base.py", 1403)
        short = capsys.readouterr().err
        set_verbose(1)
        show_warning(UserWarning(long), UserWarning, "/site-packages/sklearn/base.py", 1403)
        full = capsys.readouterr().err
    finally:
        set_verbose(0)
    assert short.count("\n") == 1 and len(short.rstrip("\n").encode()) <= 80
    assert short.startswith("warning: UserWarning: IMMIGRATE did not converge in max_iter")
    assert "base.py" not in short and short.rstrip().endswith("...")
    assert full.count("\n") == 1 and "increase it " * 20 in full and "base.py:1403" in full


@pytest.mark.parametrize(("width", "layout"), [(200, "table"), (60, "truncated"), (30, "stacked")])
def test_tables_fit_the_width(width, layout):
    import io

    from rich.console import Console

    from localselect.cli._terminal import print_table

    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=False)
    rows = [["ReliefF", "0.967", "x" * 70, "2/2 true, 3 noise"], ["IM4E", "0.9", "short", "-"]]
    got = print_table(
        console, "title", ["method", "accuracy", "selected", "recovery"], rows,
        shrink=["selected", "recovery"], right=["accuracy"], note="(full values in a file)",
    )  # fmt: skip
    text = buf.getvalue()
    assert got == layout
    assert max(len(line.encode()) for line in text.splitlines()) <= width
    assert ("x" * 70 in text) == (layout == "table")
    assert "ReliefF" in text and "IM4E" in text


def test_bench_without_the_benchmarks_says_how_to_install_them(monkeypatch, capsys):
    from localselect.cli import _main

    monkeypatch.setattr(_main, "_load_command", lambda name: None)
    assert main(["bench", "list"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install ./benchmarks" in err


def test_bench_is_delegated_to_the_entry_point_and_looked_up_only_then(monkeypatch, capsys):
    from types import SimpleNamespace

    from localselect.cli import CLIError, _main

    def run(args, console):
        if args.suite == "bad":
            raise CLIError("no such suite")
        console.print(f"ran {args.suite} quick={args.quick}")
        return 0

    plugin = SimpleNamespace(
        add_arguments=lambda parser: (
            parser.add_argument("suite"),
            parser.add_argument("--quick", action="store_true"),
        ),
        run=run,
    )
    looked_up = []
    monkeypatch.setattr(_main, "_load_command", lambda name: looked_up.append(name) or plugin)
    assert main(["datasets", "list", "--data-home", "nowhere"]) in (0, 1, 2)
    assert looked_up == []  # other commands (and --help) never read the entry points
    capsys.readouterr()
    assert main(["-v", "bench", "toy", "--quick"]) == 0
    assert "ran toy quick=True" in capsys.readouterr().out and looked_up == ["bench"]
    assert main(["bench", "bad"]) == 2
    assert "localselect: error: no such suite" in capsys.readouterr().err
