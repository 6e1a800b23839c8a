"""Test configuration of the benchmarks: the library's hypothesis profile and data check."""

from __future__ import annotations

import importlib.util
import os

import pytest
from hypothesis import HealthCheck, settings

if importlib.util.find_spec("localselect_benchmarks") is None:
    raise ImportError(
        "benchmarks/tests needs the benchmarks installed: pip install './benchmarks[test]'"
    )

settings.register_profile(
    "localselect",
    derandomize=True,
    deadline=None,
    max_examples=25,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "localselect"))


@pytest.fixture(scope="session")
def data_home():
    """The shared benchmark data directory; skips the test when it is absent."""
    from localselect.datasets import get_data_home

    home = get_data_home()
    if home is None or not home.is_dir():
        pytest.skip(
            "benchmark data not found: set LOCALSELECT_DATA to the folder holding "
            "manifest.json (../shared/data in the project checkout)"
        )
    return home
