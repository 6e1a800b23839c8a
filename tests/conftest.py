"""Shared test configuration: a deterministic hypothesis profile and data checks."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

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
