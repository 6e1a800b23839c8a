"""Measuring the bench's fits: the one place that runs a child process and reads the load.

* :func:`run_child`: a command (usually a fresh interpreter) whose last line of
  output is one JSON record; a timeout or a failure comes back as a record
  (``{"timeout": seconds}``, ``{"error": "..."}``) instead of hanging or raising;
* :func:`run_measured`: ``python -m localselect_benchmarks._measure TASK ARGS...``
  through :func:`run_child`;
* :func:`run_forked`: a picklable function in a forked (or spawned) child, for
  cells that are functions of this process rather than commands, with the same
  timeout and failure records;
* :func:`hwm`, :func:`rss`: peak and current resident memory of this process;
* :func:`load_average`, :func:`load_text`: the machine's load, recorded beside
  every timing (the machine may be shared).

Run as a module, it fits one estimator and prints one JSON object
``{"fit_seconds", "peak_rss_mib", "rss_before_fit_mib"}`` (plus the task's own
fields). Tasks:

* ``immigrate N A ITERS SEED``: :class:`~localselect.Immigrate` with
  ``max_iter=ITERS``, ``tol=0`` on ``N x A`` Gaussian data with an XOR-like
  label (``localselect bench margin-perf``);
* ``lfs N M N_CANDIDATES SEED``: :class:`~localselect.lfs.LocalFeatureSelection`
  on the LFS paper's synthetic design with ``M - 2`` irrelevant features
  (``N_CANDIDATES = 0``: the default; ``localselect bench lfs-scale``);
* ``lfs-real NAME N_JOBS``: the default ``LocalFeatureSelection`` on a real
  data set of the registry, standardised, after a tiny warm-up fit that loads
  the compiled core; adds ``fit_cpu_seconds``, the shape and ``n_candidates_``
  (``localselect bench lfs-perf``).

The peak is Linux ``VmHWM``, which exec resets, so the child does not report
its parent's peak as ``ru_maxrss`` would; ``ru_maxrss`` elsewhere.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from sklearn.exceptions import ConvergenceWarning

__all__ = [
    "hwm",
    "load_average",
    "load_text",
    "main",
    "rss",
    "run_child",
    "run_forked",
    "run_measured",
]


def load_average() -> list[float] | None:
    """1, 5 and 15-minute load averages, rounded to 0.01 (``None`` where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def load_text() -> str:
    """The load averages as text, ``"1.02 0.87 0.55"`` (``"n/a"`` where the OS has none)."""
    load = load_average()
    return "n/a" if load is None else " ".join(f"{v:.2f}" for v in load)


def run_child(
    command: Sequence[str],
    *,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """Run ``command`` and return the JSON record on the last line of its output.

    Parameters
    ----------
    command : sequence of str
        The program and its arguments (``[sys.executable, "-m", ...]``, or
        another interpreter).
    stdin : str, optional
        Text written to the child's standard input.
    env : dict, optional
        The child's environment (default: this process's). Thread counts of
        the numeric libraries default to 1 (``OMP_NUM_THREADS`` ...), as in
        every measurement of the bench.
    timeout : float, optional
        Seconds after which the child is killed.

    Returns
    -------
    record : dict
        The child's record; ``{"timeout": timeout}`` when it was killed, or
        ``{"error": "the measuring process exited with CODE: LAST STDERR LINE"}``.
    """
    env = dict(os.environ if env is None else env)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    try:
        proc = subprocess.run(
            list(command), input=stdin, capture_output=True, text=True, timeout=timeout, env=env
        )
    except subprocess.TimeoutExpired:
        return {"timeout": timeout}
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = " ".join(proc.stderr.strip().splitlines()[-1:])[:200]
        return {"error": f"the measuring process exited with {proc.returncode}: {tail}"}
    return json.loads(lines[-1])


def _forked_child(conn: Any, func: Callable[..., Any], args: tuple) -> None:  # pragma: no cover
    conn.send(func(*args))
    conn.close()


def run_forked(
    func: Callable[..., dict[str, Any]], args: tuple, timeout: float, *, fresh: bool = False
) -> dict[str, Any]:
    """``func(*args)`` (a record) in a child process, killed after ``timeout`` seconds.

    The child is forked (cheap; it sees this process's state) unless ``fresh``
    is true or the platform cannot fork, then spawned (``func`` and ``args``
    must then be picklable). Returns the child's record, ``{"timeout":
    timeout}``, or ``{"error": "the measuring process died (exit code N)"}``.
    """
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    ctx: Any = mp.get_context("fork" if "fork" in methods and not fresh else "spawn")
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_forked_child, args=(child, func, args))
    proc.start()
    child.close()
    try:
        if parent.poll(timeout):
            return parent.recv()
        return {"timeout": timeout}
    except EOFError:
        return {"error": f"the measuring process died (exit code {proc.exitcode})"}
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        parent.close()


def run_measured(task: str, *args: object) -> dict[str, Any]:
    """Run ``python -m localselect_benchmarks._measure TASK ARGS...`` and return its record.

    The child fits one estimator in a fresh interpreter and prints its fit time
    and peak resident memory (the tasks of this module's docstring).

    Raises
    ------
    RuntimeError
        When the child fails (its last line of standard error in the message).
    """
    record = run_child(
        [sys.executable, "-m", "localselect_benchmarks._measure", task, *map(str, args)]
    )
    if "error" in record:
        raise RuntimeError(f"{task} {' '.join(map(str, args))}: {record['error']}")
    return record


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


def _lfs_real(name: str, n_jobs: str) -> Callable[[], dict[str, Any]]:
    from localselect.datasets import load_dataset
    from localselect.lfs import LocalFeatureSelection

    X, y = load_dataset(name)
    X = np.asarray(X, dtype=np.float64)
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    y = np.asarray(y)
    warm = np.concatenate([np.flatnonzero(y == c)[:10] for c in np.unique(y)])
    LocalFeatureSelection(n_beta=2).fit(X[warm], y[warm])  # loads the compiled core

    def fit() -> dict[str, Any]:
        est = LocalFeatureSelection(n_jobs=int(n_jobs)).fit(X, y)
        return {
            "n_samples": X.shape[0],
            "n_features": X.shape[1],
            "n_candidates_": est.n_candidates_,
        }

    return fit


_TASKS: dict[str, Callable[..., Callable[[], Any]]] = {
    "immigrate": lambda *v: _immigrate(*map(int, v)),
    "lfs": lambda *v: _lfs(*map(int, v)),
    "lfs-real": _lfs_real,
}


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    """Run the task named in ``argv`` (default ``sys.argv[1:]``), print and return its record."""
    task, *values = sys.argv[1:] if argv is None else list(argv)
    fit = _TASKS[task](*values)
    before = hwm()
    start, cpu = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        extra = fit()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    record = {"fit_seconds": seconds, "peak_rss_mib": hwm(), "rss_before_fit_mib": before}
    if isinstance(extra, dict):  # tasks with more to say (lfs-real)
        record = {"fit_seconds": seconds, "fit_cpu_seconds": cpu, **record, **extra}
    print(json.dumps(record))
    return record


if __name__ == "__main__":
    main()
