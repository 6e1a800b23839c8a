"""Registration of the joblib backend ``"localselect-dask"`` (no Dask import until used).

Importing the runtime (which every estimator module does, so importing any
estimator) registers the name with joblib; the
factory imports Dask only when a ``parallel_config(backend="localselect-dask")``
block starts. ``import localselect`` alone stays light and registers nothing.
"""

from __future__ import annotations

from typing import Any

import joblib

__all__ = ["BACKEND_NAME", "register_backend"]

#: Name of the fault-tolerant joblib backend (:mod:`localselect._runtime._dask`).
BACKEND_NAME = "localselect-dask"


def _make_backend(**kwargs: Any) -> Any:
    from localselect._runtime._dask import ResilientDaskBackend

    kwargs.pop("nesting_level", None)
    return ResilientDaskBackend(**kwargs)


def register_backend() -> None:
    """Register :data:`BACKEND_NAME` with joblib (idempotent)."""
    joblib.register_parallel_backend(BACKEND_NAME, _make_backend)
