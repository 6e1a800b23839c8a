"""Test configuration of the benchmarks: a clear error when they are not installed.

What they share with the library's tests (the hypothesis profile, ``data_home``, the Dask
cluster fixtures) is in the repository's root ``conftest.py``.
"""

from __future__ import annotations

import importlib.util

if importlib.util.find_spec("localselect_benchmarks") is None:
    raise ImportError(
        "benchmarks/tests needs the benchmarks installed: pip install './benchmarks[test]'"
    )
