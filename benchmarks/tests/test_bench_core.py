"""The suite contract: registry, context (cache, seeds, filters, notes), writers, CLI."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from localselect.cli import main
from localselect_benchmarks import SuiteContext, _core, collect_results, run_all, run_suite
from localselect_benchmarks._report import TABLE_END, TABLE_START, readme_table

CALLS: list[str] = []


@pytest.fixture
def toy_suites(monkeypatch):
    """Register two throw-away suites, and only them, without touching the real registry."""
    import localselect_benchmarks

    monkeypatch.setattr(_core, "_SUITES", {})

    def only_these():
        return dict(sorted(_core._SUITES.items()))

    monkeypatch.setattr(_core, "available_suites", only_these)
    monkeypatch.setattr(localselect_benchmarks, "available_suites", only_these)
    CALLS.clear()

    @_core.register_suite("toy", paper="Nobody 2024", description="A toy suite")
    def toy(ctx):
        records = []
        interrupt = ctx.datasets == ["interrupt"]  # test hook: Ctrl-C while computing DNA
        for dataset, seed in zip(ctx.progress(["Sonar", "DNA"], "toy"), ctx.seeds(2)):
            if not interrupt and not ctx.wants(dataset):
                continue

            def compute(dataset=dataset, seed=seed):
                CALLS.append(dataset)
                if dataset == "DNA" and interrupt:
                    raise KeyboardInterrupt
                return float(np.random.default_rng(seed).uniform())

            value = ctx.cached({"dataset": dataset}, compute)
            records.append({"table": "Table 1", "dataset": dataset, "method": "LFS",
                            "metric": "error", "value": np.float64(value), "std": 0.01,
                            "published": 0.5, "n": np.int64(3)})  # fmt: skip
        ctx.note("KCSM: code not public")
        warnings.warn("toy solver stopped at max_iter", UserWarning, stacklevel=1)
        return records

    @_core.register_suite("broken", paper="-", description="returns nested records")
    def broken(ctx):
        return [{"method": "x", "value": {"nested": 1}}]

    return toy


def test_run_suite_writes_results_and_report(toy_suites, tmp_path):
    ctx = SuiteContext(quick=True, out=tmp_path)
    results = run_suite("toy", ctx)
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["suite"] == "toy" and saved["settings"]["quick"] is True
    assert saved["notes"] == ["KCSM: code not public"]
    assert [r["dataset"] for r in saved["records"]] == ["Sonar", "DNA"]
    assert isinstance(saved["records"][0]["n"], int)  # numpy scalars became JSON numbers
    assert saved["records"] == results["records"]
    report = (tmp_path / "report.md").read_text()
    assert "# toy" in report and "(0.500)" in report and "- KCSM: code not public" in report
    # Warnings are collected once per message instead of flooding the terminal.
    assert saved["warnings"][0].startswith("UserWarning: toy solver stopped at max_iter (")
    assert "## Warnings during the run" in report


def test_cache_resumes_and_separates_quick_from_full(toy_suites, tmp_path):
    first = run_suite("toy", SuiteContext(quick=True, out=tmp_path))
    assert CALLS == ["Sonar", "DNA"]
    again = run_suite("toy", SuiteContext(quick=True, out=tmp_path))
    assert CALLS == ["Sonar", "DNA"]  # everything came from the cache
    assert again["records"] == first["records"]
    run_suite("toy", SuiteContext(quick=False, out=tmp_path))
    assert CALLS == ["Sonar", "DNA", "Sonar", "DNA"]  # a full run never reuses quick cells


def test_seeds_depend_only_on_random_state():
    assert SuiteContext(random_state=3).seeds(4) == SuiteContext(random_state=3).seeds(4)
    assert SuiteContext(random_state=3).seeds(4) != SuiteContext(random_state=4).seeds(4)
    assert SuiteContext(random_state=3).seeds(2) == SuiteContext(random_state=3).seeds(4)[:2]


def test_dataset_filter_is_case_insensitive(toy_suites, tmp_path):
    results = run_suite("toy", SuiteContext(datasets=["sonar"], out=tmp_path))
    assert [r["dataset"] for r in results["records"]] == ["Sonar"]


def test_bad_records_and_unknown_suites_raise(toy_suites, tmp_path):
    with pytest.raises(TypeError, match="record 0, key 'value'"):
        run_suite("broken", SuiteContext(out=tmp_path))
    with pytest.raises(ValueError, match="Unknown benchmark suite"):
        run_suite("nope", SuiteContext(out=tmp_path))


def test_run_all_and_collect_results(toy_suites, tmp_path):
    out = run_all(SuiteContext(quick=True, out=tmp_path), names=["broken", "toy"])
    assert out["broken"]["error"].startswith("TypeError")  # reported, and toy still ran
    assert set(out) == {"broken", "toy"} and (tmp_path / "toy" / "report.md").exists()
    assert [r["suite"] for r in collect_results(tmp_path)] == ["toy"]
    timings = json.loads((tmp_path / "timings.json").read_text())
    assert list(timings["suites"]) == ["broken", "toy"]
    assert [timings["suites"][n]["ok"] for n in ("broken", "toy")] == [False, True]
    assert timings["total_seconds"] >= timings["suites"]["toy"]["seconds"] >= 0
    assert "load_average" in json.loads((tmp_path / "toy" / "results.json").read_text())
    with pytest.raises(FileNotFoundError, match="does not exist"):
        collect_results(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"no results\.json"):
        collect_results(tmp_path / "empty")


def test_cli_bench_run_list_interrupt_and_readme_table(toy_suites, tmp_path, capsys):
    assert main(["bench", "list"]) == 0
    assert "toy" in capsys.readouterr().out
    out = tmp_path / "results" / "toy"
    # An interrupted run keeps the finished cells; the rerun resumes from them.
    code = main(["bench", "toy", "--quick", "--out", str(out), "--datasets", "interrupt"])
    assert code == 130 and "run the same command again" in capsys.readouterr().err
    assert main(["bench", "toy", "--quick", "--out", str(out)]) == 0
    assert "records written" in capsys.readouterr().out
    assert CALLS == ["Sonar", "DNA", "DNA"]  # Sonar came from the cache
    assert main(["bench", "all", "--quick", "--out", str(tmp_path / "all")]) == 2
    captured = capsys.readouterr()
    assert "broken: failed" in captured.out and "1 suite(s) failed: broken" in captured.err
    assert (tmp_path / "all" / "toy" / "results.json").exists()
    assert main(["bench", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown suite 'nope'" in err

    readme = tmp_path / "README.md"
    readme.write_text(f"# x\n\n{TABLE_START}\n{TABLE_END}\n")
    argv = ["bench", "readme-table", "--results", str(tmp_path / "results")]
    assert main([*argv, "--into", str(readme)]) == 0
    text = readme.read_text()
    assert "| toy | Table 1 | LFS | error | 2 |" in text and "| toy | quick |" in text
    assert main(argv) == 0
    assert "| toy | Table 1 | LFS | error | 2 |" in capsys.readouterr().out
    assert main(["bench", "readme-table", "--results", str(tmp_path / "none")]) == 1


def test_interrupt_then_resume_reuses_finished_cells(toy_suites, tmp_path):
    ctx = SuiteContext(quick=True, out=tmp_path, datasets=["interrupt"])
    with pytest.raises(KeyboardInterrupt):
        run_suite("toy", ctx)
    assert CALLS == ["Sonar", "DNA"]
    run_suite("toy", SuiteContext(quick=True, out=tmp_path))
    assert CALLS == ["Sonar", "DNA", "DNA"]  # Sonar came from the cache


def test_repeats_reach_the_settings_and_readme_table(toy_suites, tmp_path):
    out = tmp_path / "toy"
    assert main(["bench", "toy", "--out", str(out), "--repeats", "2"]) == 0
    saved = json.loads((out / "results.json").read_text())
    assert saved["settings"]["repeats"] == 2
    assert "| toy | full, 2 repeats |" in readme_table(collect_results(tmp_path))
    run_suite("toy", SuiteContext(out=tmp_path / "plain"))
    plain = json.loads((tmp_path / "plain" / "results.json").read_text())
    assert "repeats" not in plain["settings"]  # the paper's protocol: nothing to record


def test_immigrate_protocol_repeats_override_only_the_repeats():
    from localselect_benchmarks.margin.suite_immigrate import _protocol

    full = _protocol(SuiteContext())
    one = _protocol(SuiteContext(repeats=1))
    assert full["n_repeats"] == 10 and one["n_repeats"] == 1
    assert {k: v for k, v in one.items() if k != "n_repeats"} == {
        k: v for k, v in full.items() if k != "n_repeats"
    }
    assert _protocol(SuiteContext(quick=True, repeats=3))["n_repeats"] == 3
