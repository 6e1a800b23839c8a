"""The measuring module run in a fresh interpreter
(``python -m localselect_benchmarks._measure``).
"""

from __future__ import annotations

import json

import pytest

from localselect_benchmarks._measure import load_average, load_text, main, run_child, run_measured


def test_measure_prints_and_returns_one_record(capsys):
    record = main(["immigrate", "30", "3", "2", "0"])
    assert json.loads(capsys.readouterr().out) == record
    assert record["fit_seconds"] > 0
    assert record["peak_rss_mib"] >= record["rss_before_fit_mib"] > 0


def test_run_measured_runs_the_module_in_a_child():
    record = run_measured("lfs", 20, 4, 0, 0)
    assert set(record) == {"fit_seconds", "peak_rss_mib", "rss_before_fit_mib"}
    assert record["peak_rss_mib"] >= record["rss_before_fit_mib"] > 0


def test_run_child_reads_the_last_json_line_and_sets_one_thread():
    import sys

    code = (
        "import json, os; print('noise'); "
        "print(json.dumps({'omp': os.environ['OMP_NUM_THREADS']}))"
    )
    assert run_child([sys.executable, "-c", code], env={"PATH": ""}) == {"omp": "1"}


def test_run_child_reports_failure_and_timeout_as_records():
    import sys

    failed = run_child([sys.executable, "-c", "raise SystemExit('broken cell')"])
    assert failed == {"error": "the measuring process exited with 1: broken cell"}
    slow = run_child([sys.executable, "-c", "import time; time.sleep(30)"], timeout=0.5)
    assert slow == {"timeout": 0.5}


def test_run_measured_raises_on_a_failing_child():
    with pytest.raises(RuntimeError, match="lfs 1"):
        run_measured("lfs", 1, 1, 0, 0)  # one sample: the fit refuses


def test_load_is_read_in_one_place():
    load = load_average()
    assert load is None or (len(load) == 3 and all(v >= 0 for v in load))
    assert load_text() == ("n/a" if load is None else " ".join(f"{v:.2f}" for v in load))
