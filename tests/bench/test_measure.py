"""The measuring module run in a fresh interpreter (``python -m localselect.bench._measure``)."""

from __future__ import annotations

import json

from localselect.bench._core import run_measured
from localselect.bench._measure import main


def test_measure_prints_and_returns_one_record(capsys):
    record = main(["immigrate", "30", "3", "2", "0"])
    assert json.loads(capsys.readouterr().out) == record
    assert record["fit_seconds"] > 0
    assert record["peak_rss_mib"] >= record["rss_before_fit_mib"] > 0


def test_run_measured_runs_the_module_in_a_child():
    record = run_measured("lfs", 20, 4, 0, 0)
    assert set(record) == {"fit_seconds", "peak_rss_mib", "rss_before_fit_mib"}
    assert record["peak_rss_mib"] >= record["rss_before_fit_mib"] > 0
