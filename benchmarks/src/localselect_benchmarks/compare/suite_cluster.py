"""Cluster suite: `localselect select --cluster` on Parquet folders beyond a worker's memory.

For each N of the grid, a ``LocalCluster`` of worker processes (one thread
each, a memory limit per worker; in the full profile smaller than the table)
writes a Parquet folder of N x 20 float64 rows on the workers (partition by
partition, each from its own seed; the label is ``x0 + x1 - x2 > 0`` with 10%
of the labels flipped, so f0, f1, f2 are the planted columns). Then, per method:

* **time** of ``localselect select --cluster tcp://...`` run as a child
  process (the command a user types), from start to exit;
* **client peak memory**: the child's peak resident size (``wait4``);
* **worker peak memory**: the largest peak resident size of a worker
  process over the run (the writing included);
* **planted first**: whether f0, f1, f2 are the three most important columns;
* **identity**: the same fit in memory on a subsample (the first two
  partitions, gathered) equals the fit on those partitions as a Dask
  collection (largest relative difference of ``feature_importances_``);
* **worker killed**: at the smallest N, one worker process is killed (SIGKILL)
  a second into a second run; the nanny restarts it, Dask recomputes the lost
  work and the run must exit 0 with the same importances (largest relative
  difference recorded; the tests assert < 1e-9).

Time against N gives a log-log slope (linear work: about 1). The quick
profile (small N, one method) runs in the benchmark tests.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np

from localselect_benchmarks._core import SuiteContext, register_suite

#: (quick, full) settings. ``methods``: CLI method and extra ``--params``.
SETTINGS: dict[bool, dict[str, Any]] = {
    True: {
        "n_grid": (20_000, 40_000),
        "rows_per_part": 10_000,
        "workers": 2,
        "memory_limit": "1GiB",
        "methods": {"fisher": []},
        "kill": True,
    },
    False: {
        "n_grid": (1_000_000, 5_000_000, 20_000_000),
        "rows_per_part": 250_000,
        "workers": 2,
        "memory_limit": "1GiB",
        "methods": {"fisher": [], "relieff": ["max_samples=1000"]},
        "kill": True,
    },
}

N_FEATURES = 20
#: Identity of two fits of the same rows (in memory vs on Dask; undisturbed vs a killed worker).
RTOL = 1e-9
PLANTED = ("f0", "f1", "f2")


def _write_part(folder: str, index: int, rows: int, seed: int) -> str:
    """One partition of the table, written on a worker."""
    import pandas as pd

    rng = np.random.default_rng([seed, index])
    X = rng.standard_normal((rows, N_FEATURES))
    y = (X[:, 0] + X[:, 1] - X[:, 2] > 0).astype(np.int64)
    flip = rng.random(rows) < 0.1
    y[flip] = 1 - y[flip]
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(N_FEATURES)])
    frame["y"] = y
    path = Path(folder) / f"part-{index:05d}.parquet"
    frame.to_parquet(path)
    return str(path)


def _worker_peaks(client: Any) -> float:
    """Largest peak resident size of the worker processes, in MiB."""
    import resource

    def peak() -> int:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    return max(client.run(peak).values()) / 1024


def _importances(out: Path) -> dict[str, float]:
    table = json.loads((out / "importances.json").read_text())
    return {row["feature"]: row["importance"] for row in table["features"]}


def _identity(client: Any, folder: Path) -> float:
    """Largest relative difference, FisherScore in memory vs on the same partitions on Dask."""
    import dask.dataframe as dd
    import pandas as pd

    from localselect import FisherScore

    files = sorted(str(p) for p in folder.glob("*.parquet"))[:2]
    # one partition per file (dd.read_parquet may fuse small files, and the partition
    # lengths that to_dask_array(lengths=True) computes then disagree with its blocks)
    lazy = dd.from_map(pd.read_parquet, files, meta=pd.read_parquet(files[0]).iloc[:0])
    X_lazy, y_lazy = lazy.drop(columns="y"), lazy["y"]
    table = lazy.compute()
    mem = FisherScore().fit(table.drop(columns="y"), table["y"]).feature_importances_
    dist = FisherScore().fit(X_lazy, y_lazy).feature_importances_
    return float(np.max(np.abs(dist - mem) / np.maximum(np.abs(mem), 1e-300)))


def _child_peak_wrapper(args: list[str], kill: Any = None) -> dict[str, Any]:
    """``python -m localselect ARGS``: exit code, wall time, peak resident size (``wait4``)."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "localselect", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    if kill is not None:
        threading.Timer(1.0, kill).start()
    err = child.stderr.read() if child.stderr else b""
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    return {
        "code": child.returncode,
        "seconds": time.perf_counter() - start,
        "client_mib": usage.ru_maxrss / 1024,
        "stderr": " ".join(err.decode(errors="replace").split())[-300:],
    }


def _kill_one_worker(client: Any) -> Any:
    """A function killing (SIGKILL) the first worker process; its nanny restarts it."""
    pids = sorted(client.run(os.getpid).values())

    def kill() -> None:
        os.kill(pids[0], signal.SIGKILL)

    return kill


def _select_args(method: str, params: list[str], folder: Path, address: str, out: Path) -> list:
    args = ["select", "--method", method, "--input", str(folder), "--target", "y"]
    args += ["--cluster", address, "--out", str(out), "--n-features", "3"]
    return args + (["--params", *params] if params else [])


def _one_size(ctx: SuiteContext, cfg: dict, n: int, seed: int) -> list[dict[str, Any]]:
    """Write the table of ``n`` rows on a fresh cluster and run every method on it."""
    from distributed import Client, LocalCluster

    records: list[dict[str, Any]] = []
    folder = ctx.out / f"table-{n}"
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.parquet"):
        old.unlink()
    parts = math.ceil(n / cfg["rows_per_part"])
    sizes = [min(cfg["rows_per_part"], n - i * cfg["rows_per_part"]) for i in range(parts)]
    with (
        LocalCluster(
            n_workers=cfg["workers"],
            threads_per_worker=1,
            memory_limit=cfg["memory_limit"],
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter()
        client.gather(
            client.map(_write_part, [str(folder)] * parts, range(parts), sizes, [seed] * parts)
        )
        base = {"dataset": f"N={n}", "n_samples": n, "n_features": N_FEATURES}
        table_gib = n * (N_FEATURES + 1) * 8 / 2**30
        records.append(
            {
                **base,
                "table": "Data",
                "method": "-",
                "metric": "write (s)",
                "value": time.perf_counter() - start,
            }
        )
        records.append(
            {**base, "table": "Data", "method": "-", "metric": "table (GiB)", "value": table_gib}
        )
        for method, params in cfg["methods"].items():
            out = ctx.out / f"out-{method}-{n}"
            args = _select_args(method, params, folder, cluster.scheduler_address, out)
            run = _child_peak_wrapper(args)
            row = {**base, "table": "select --cluster", "method": method}
            if run["code"] != 0:
                records.append({**row, "metric": "time (s)", "status": f"failed: {run['stderr']}"})
                continue
            ranked = list(_importances(out))
            records += [
                {**row, "metric": "time (s)", "value": run["seconds"]},
                {**row, "metric": "client peak (MiB)", "value": run["client_mib"]},
                {**row, "metric": "worker peak (MiB)", "value": _worker_peaks(client)},
                {
                    **row,
                    "metric": "planted first",
                    "value": float(set(ranked[:3]) == set(PLANTED)),
                },
            ]
            if method == "fisher" and n == cfg["n_grid"][0]:
                records.append(
                    {
                        **row,
                        "table": "Checks",
                        "metric": "identity (max rel diff)",
                        "value": _identity(client, folder),
                    }
                )
                if cfg["kill"]:
                    records.append(_killed_run(ctx, client, cluster, args, out, row))
                for check in (r for r in records if r.get("table") == "Checks"):
                    if "status" in check or check["value"] > RTOL:
                        ctx.note(f"N={n}: {check['metric']} is not within rtol {RTOL:g}: {check}")
    return records


def _killed_run(ctx, client, cluster, args, out, row) -> dict[str, Any]:
    """The run again with a worker killed a second in; its importances against the first run.

    Dask recomputes a lost task from its inputs and the reductions merge in
    a fixed order (block order, fixed fan-in), so the result is the same up
    to rounding; the suite asserts rtol 1e-9.
    """
    again = ctx.out / (out.name + "-killed")
    args = [a if a != str(out) else str(again) for a in args]
    run = _child_peak_wrapper(args, kill=_kill_one_worker(client))
    client.wait_for_workers(len(client.scheduler_info()["workers"]) or 1, timeout=60)
    row = {**row, "table": "Checks", "metric": "worker killed (max rel diff)"}
    if run["code"] != 0:
        return {**row, "status": f"failed: {run['stderr']}"}
    return {**row, "value": _max_rel_diff(_importances(again), _importances(out))}


def _max_rel_diff(a: dict[str, float], b: dict[str, float]) -> float:
    """Largest relative difference of two importance tables (the same features)."""
    if set(a) != set(b):
        return math.inf
    x = np.array([a[k] for k in sorted(a)])
    z = np.array([b[k] for k in sorted(a)])
    return float(np.max(np.abs(x - z) / np.maximum(np.abs(z), 1e-300)))


@register_suite(
    "cluster",
    paper="none (a benchmark the papers do not have): the DiReliefF design, data beyond "
    "one machine's memory",
    description=(
        "select --cluster on Parquet folders of N x 20 written on the workers: time, client "
        "and worker peak memory against N, identity with the in-memory fit, a killed worker."
    ),
)
def cluster(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Run the cluster grid; see the module docstring."""
    cfg = SETTINGS[bool(ctx.quick)]
    (seed,) = ctx.seeds(1)
    records: list[dict[str, Any]] = []
    for n in ctx.progress(cfg["n_grid"], "cluster"):
        records += _one_size(ctx, cfg, n, seed)
    for method in cfg["methods"]:
        points = [
            (r["n_samples"], r["value"])
            for r in records
            if r.get("method") == method and r.get("metric") == "time (s)" and "value" in r
        ]
        if len(points) >= 2:
            x, t = np.log([p[0] for p in points]), np.log([p[1] for p in points])
            records.append(
                {
                    "table": "Log-log slope",
                    "dataset": "against N",
                    "method": method,
                    "metric": "time slope",
                    "value": float(np.polyfit(x, t, 1)[0]),
                }
            )
    ctx.note(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores)")
    return records
