"""Fit time and peak resident memory of one fit, in a fresh interpreter.

Run as ``python -m localselect.bench._measure TASK ARGS...``; prints one JSON
object ``{"fit_seconds", "peak_rss_mib", "rss_before_fit_mib"}``. Tasks:

* ``immigrate N A ITERS SEED``: :class:`~localselect.Immigrate` with
  ``max_iter=ITERS``, ``tol=0`` on ``N x A`` Gaussian data with an XOR-like
  label (``localselect bench margin-perf``);
* ``lfs N M N_CANDIDATES SEED``: :class:`~localselect.lfs.LocalFeatureSelection`
  on the LFS paper's synthetic design with ``M - 2`` irrelevant features
  (``N_CANDIDATES = 0``: the default; ``localselect bench lfs-scale``).

The peak is Linux ``VmHWM``, which exec resets, so the child does not report
its parent's peak as ``ru_maxrss`` would; ``ru_maxrss`` elsewhere.
"""

from __future__ import annotations

import json
import resource
import sys
import time
import warnings
from collections.abc import Callable, Sequence

import numpy as np
from sklearn.exceptions import ConvergenceWarning

__all__ = ["hwm", "main", "rss"]


def _status_mib(field: str) -> float | None:
    """Field ``field`` of Linux ``/proc/self/status`` (``"VmHWM"``...) in MiB, or None."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return None


def hwm() -> float:
    """Peak resident memory of this process so far, in MiB."""
    peak = _status_mib("VmHWM")
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 if peak is None else peak


def rss() -> float:
    """Resident memory of this process now, in MiB (the peak where Linux's status is missing)."""
    now = _status_mib("VmRSS")
    return hwm() if now is None else now


def _immigrate(n: int, a: int, iters: int, seed: int) -> Callable[[], object]:
    from localselect import Immigrate

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a))
    y = (X[:, 0] * X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
    return lambda: Immigrate(max_iter=iters, tol=0.0).fit(X, y)


def _lfs(n: int, m: int, n_candidates: int, seed: int) -> Callable[[], object]:
    from localselect.datasets import make_lfs_synthetic
    from localselect.lfs import LocalFeatureSelection

    X, y, _ = make_lfs_synthetic(n, m - 2, random_state=seed)
    nc = n_candidates if n_candidates > 0 else None
    return lambda: LocalFeatureSelection(n_candidates=nc, n_jobs=1).fit(X, y)


_TASKS = {"immigrate": _immigrate, "lfs": _lfs}


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    """Run the task named in ``argv`` (default ``sys.argv[1:]``), print and return its record."""
    task, *values = sys.argv[1:] if argv is None else list(argv)
    fit = _TASKS[task](*(int(v) for v in values))
    before = hwm()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit()
    seconds = time.perf_counter() - start
    record = {"fit_seconds": seconds, "peak_rss_mib": hwm(), "rss_before_fit_mib": before}
    print(json.dumps(record))
    return record


if __name__ == "__main__":
    main()
