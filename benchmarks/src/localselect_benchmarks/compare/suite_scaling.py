"""Scaling suite: fit time and peak memory against N and M for every estimator.

Every classifier and selector :func:`localselect.utils.all_estimators` finds is
fitted on ``make_classification`` data (5 informative features, z-scored) of
growing size, first along N (samples) at a fixed M, then along M (features) at
a fixed N. For each cell:

* **fit time**: the best of ``repeats`` runs (wall clock, ``perf_counter``);
  the machine may be shared, so the minimum is the least disturbed run;
* **peak memory**: the peak of Python and NumPy allocations during one more
  fit, by ``tracemalloc`` (NumPy reports its buffers to it), in MB;
* **slopes**: least-squares slopes of log(time) and log(memory) against
  log(N) and log(M), the empirical exponents to set beside each method's
  documented complexity (small sizes are dominated by fixed overheads, so
  read the slopes of full runs).

Estimators run with the constructor arguments of ``localselect demo``
(the ``"demo"`` settings of :func:`localselect.utils.fast_params`, chosen to keep
each fit short), ``random_state`` fixed,
``n_jobs`` left at its default (``--n-jobs`` is ignored: parallel cells
would disturb each other's timings). Estimators that take discrete data
(those with a ``discretizer`` parameter, LLDS) get the same data cut at its
per-feature tertiles. Once a fit exceeds the time budget, larger sizes on that
axis are skipped and reported as not run; each cell runs in a child process
that is killed once it exceeds ``budget * (repeats + 1) + grace`` seconds (a fit
whose cost explodes, such as an exhaustive search over many features, cannot
hang the suite). ``--datasets`` restricts the estimators by name.

A third table, **parallel execution**, fits every estimator that takes ``n_jobs``
at one larger size (``parallel_size``) three ways: ``n_jobs=1``, ``n_jobs=2``
(joblib's default backend) and ``n_jobs=2`` on a local Dask cluster (two worker
processes, one thread each, under ``joblib.parallel_config(backend="dask")``;
the cluster is started before timing and one warm-up fit ships the code). The
records hold the fit times and the speed-ups over ``n_jobs=1``; the fitted
models are identical in all three (``tests/test_dask.py``).
"""

from __future__ import annotations

import functools
import logging
import time
import tracemalloc
from typing import Any

import numpy as np

from localselect_benchmarks._core import SuiteContext, register_suite
from localselect_benchmarks._measure import run_forked

logger = logging.getLogger(__name__)

#: Grids of (quick, full) settings.
SETTINGS: dict[bool, dict[str, Any]] = {
    True: {
        "n_grid": (50, 100, 200),
        "m_at_n": 10,
        "m_grid": (5, 10, 20),
        "n_at_m": 80,
        "repeats": 2,
        "budget": 3.0,
        "grace": 5.0,
        "parallel_size": (150, 20),
    },
    False: {
        "n_grid": (100, 200, 400, 800, 1600),
        "m_at_n": 20,
        "m_grid": (10, 20, 40, 80, 160),
        "n_at_m": 200,
        "repeats": 2,
        "budget": 120.0,
        "grace": 10.0,
        "parallel_size": (400, 100),
    },
}


def _data(n: int, m: int, seed: int, discrete: bool) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.datasets import make_classification

    X, y = make_classification(
        n_samples=n,
        n_features=m,
        n_informative=min(5, m),
        n_redundant=0,
        n_clusters_per_class=2,
        random_state=seed,
    )
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    if discrete:
        cuts = np.quantile(X, [1 / 3, 2 / 3], axis=0)
        X = np.greater(X, cuts[0]).astype(np.float64) + np.greater(X, cuts[1])
    return X, y


def _estimator(cls: type, name: str, n_features: int, seed: int) -> Any:
    from localselect.utils import fast_params

    est = cls(**fast_params(name, "demo"))
    params = est.get_params()
    if "random_state" in params:
        est.set_params(random_state=seed)
    k = params.get("n_features_to_select")
    if isinstance(k, int) and k > n_features:
        est.set_params(n_features_to_select=n_features)
    return est


def _cell(cls: type, name: str, n: int, m: int, seed: int) -> tuple[np.ndarray, np.ndarray, Any]:
    """The data and the unfitted estimator of one cell (LLDS gets discretised data)."""
    discrete = "discretizer" in cls().get_params()
    X, y = _data(n, m, seed, discrete)
    return X, y, _estimator(cls, name, m, seed)


def _best_fit_time(est: Any, X: np.ndarray, y: np.ndarray, repeats: int) -> float:
    """Shortest wall time of ``repeats`` fits of fresh clones of ``est``."""
    from sklearn.base import clone

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        clone(est).fit(X, y)
        times.append(time.perf_counter() - start)
    return min(times)


def _measure_here(cls: type, name: str, n: int, m: int, seed: int, repeats: int) -> dict[str, Any]:
    """Best-of-``repeats`` fit time and traced peak memory, in this process."""
    import warnings

    from sklearn.base import clone

    X, y, est = _cell(cls, name, n, m, seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a solver at max_iter is expected at odd sizes
            seconds = _best_fit_time(est, X, y, repeats)
            tracemalloc.start()
            try:
                clone(est).fit(X, y)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    except Exception as exc:  # report the failure, keep the other estimators going
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:150]}"}
    return {"seconds": seconds, "peak_mb": peak / 2**20}


def _parallel_here(
    cls: type, name: str, n: int, m: int, seed: int, repeats: int
) -> dict[str, Any]:
    """Best-of-``repeats`` fit times with ``n_jobs`` 1, 2 and 2 on a local Dask cluster."""
    import warnings

    import joblib
    from sklearn.base import clone

    X, y, est = _cell(cls, name, n, m, seed)

    def best(model: Any) -> float:
        return _best_fit_time(model, X, y, repeats)

    out: dict[str, Any] = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["n_jobs=1"] = best(clone(est).set_params(n_jobs=1))
            out["n_jobs=2"] = best(clone(est).set_params(n_jobs=2))
            try:
                from distributed import Client, LocalCluster
            except ImportError:
                out["dask"] = None
            else:
                with (
                    LocalCluster(
                        n_workers=2,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=50,
                    ) as cluster,
                    Client(cluster),
                    joblib.parallel_config(backend="dask"),
                ):
                    model = clone(est).set_params(n_jobs=2)
                    clone(model).fit(X, y)  # warm-up: ships the code to the workers
                    out["dask"] = best(model)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:150]}"}
    return out


def _measure(
    cls: type,
    name: str,
    n: int,
    m: int,
    seed: int,
    repeats: int,
    limit: float,
    func: Any = _measure_here,
    fresh: bool = False,
) -> dict[str, Any]:
    """``func(cls, name, n, m, seed, repeats)`` in a child process killed after ``limit``
    seconds (a fit can explode): :func:`localselect_benchmarks._measure.run_forked`.

    The child is forked (cheap) unless ``fresh`` is true, then spawned: a forked
    child inherits the parent's joblib/loky executor, whose worker processes
    belong to the parent, so an ``n_jobs=2`` fit in it waits forever once an
    earlier suite of the same ``bench all`` used ``n_jobs=2``.
    """
    return run_forked(func, (cls, name, n, m, seed, repeats), limit, fresh=fresh)


#: Estimators measured in a spawned (not forked) child: their fit runs scikit-learn's
#: OpenMP code (HistGradientBoostingClassifier), and GNU OpenMP is not fork-safe once
#: the parent has started its thread team (a forked child then crashed in the
#: binning step, in CI after the other suites had run).
SPAWNED = frozenset({"ConditionalSaliencySelection", "LocalKnockoffFilter"})


def _slope(x: list[float], v: list[float]) -> float | None:
    pts = [(a, b) for a, b in zip(x, v) if b > 0]
    if len(pts) < 2:
        return None
    lx, lv = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(lx, lv, 1)[0])


@register_suite(
    "scaling",
    paper="all four papers (complexity claims in each method's Notes)",
    description=(
        "Fit time (best of 2) and peak memory (tracemalloc) against N and M for every "
        "estimator, with fitted log-log slopes."
    ),
)
def scaling(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Run the scaling grid; see the module docstring."""
    from localselect.utils import all_estimators

    cfg = SETTINGS[bool(ctx.quick)]
    (seed,) = ctx.seeds(1)
    estimators = [
        (name, cls) for name, cls in all_estimators(["classifier", "selector"]) if ctx.wants(name)
    ]
    axes = [
        ("N", [(n, cfg["m_at_n"]) for n in cfg["n_grid"]]),
        ("M", [(cfg["n_at_m"], m) for m in cfg["m_grid"]]),
    ]
    records: list[dict[str, Any]] = []
    slopes: list[dict[str, Any]] = []
    cells = [(name, cls, axis, grid) for name, cls in estimators for axis, grid in axes]
    for name, cls, axis, grid in ctx.progress(cells, "scaling"):
        table = f"Against {axis} ({'M' if axis == 'N' else 'N'} fixed)"
        xs, times, peaks = [], [], []
        over_budget = False
        for n, m in grid:
            label = f"N={n}, M={m}"
            base = {"table": table, "dataset": label, "method": name, "n_samples": n}
            base["n_features"] = m
            if over_budget:
                for metric in ("fit time (s)", "peak memory (MB)"):
                    records.append(
                        {**base, "metric": metric, "status": f"not run: {name} over budget"}
                    )
                continue
            key = {"suite": "scaling", "estimator": name, "n": n, "m": m, "seed": seed}
            limit = cfg["budget"] * (cfg["repeats"] + 1) + cfg["grace"]
            measure = functools.partial(
                _measure, cls, name, n, m, seed, cfg["repeats"], limit, fresh=name in SPAWNED
            )
            result = ctx.cached(key, measure)
            if "timeout" in result:
                for metric in ("fit time (s)", "peak memory (MB)"):
                    status = f"not run: {name} stopped after {limit:.0f} s"
                    records.append({**base, "metric": metric, "status": status})
                over_budget = True
                continue
            if "error" in result:
                for metric in ("fit time (s)", "peak memory (MB)"):
                    records.append(
                        {**base, "metric": metric, "status": f"failed: {result['error']}"}
                    )
                logger.warning("scaling: %s failed at %s: %s", name, label, result["error"])
                break
            records.append({**base, "metric": "fit time (s)", "value": result["seconds"]})
            records.append({**base, "metric": "peak memory (MB)", "value": result["peak_mb"]})
            xs.append(float(n if axis == "N" else m))
            times.append(result["seconds"])
            peaks.append(result["peak_mb"])
            if result["seconds"] > cfg["budget"]:
                over_budget = True
        for metric, values in (("time slope", times), ("memory slope", peaks)):
            slope = _slope(xs, values)
            if slope is not None:
                slopes.append(
                    {
                        "table": "Log-log slopes",
                        "dataset": f"against {axis}",
                        "method": name,
                        "metric": metric,
                        "value": slope,
                    }
                )
    parallel = _parallel_table(ctx, cfg, estimators, seed)
    if not estimators:
        ctx.note("no estimator matched --datasets")
    return records + slopes + parallel


def _parallel_table(
    ctx: SuiteContext, cfg: dict[str, Any], estimators: list[tuple[str, type]], seed: int
) -> list[dict[str, Any]]:
    """Fit times with n_jobs 1, 2 and a local Dask cluster, and speed-ups over n_jobs=1."""
    n, m = cfg["parallel_size"]
    limit = 3 * cfg["budget"] * (cfg["repeats"] + 1) + 60.0  # three settings, cluster start
    records: list[dict[str, Any]] = []
    parallel = [(name, cls) for name, cls in estimators if "n_jobs" in cls().get_params()]
    for name, cls in ctx.progress(parallel, "parallel"):
        base = {
            "table": "Parallel execution",
            "dataset": f"N={n}, M={m}",
            "method": name,
            "n_samples": n,
            "n_features": m,
        }
        key = {"suite": "scaling-parallel", "estimator": name, "n": n, "m": m, "seed": seed}
        result = ctx.cached(
            key,
            functools.partial(
                _measure, cls, name, n, m, seed, cfg["repeats"], limit, _parallel_here, True
            ),
        )
        if "timeout" in result or "error" in result:
            status = result.get("error") or f"stopped after {limit:.0f} s"
            records.append({**base, "metric": "fit time (s)", "status": f"not run: {status}"})
            continue
        serial = result["n_jobs=1"]
        for setting in ("n_jobs=1", "n_jobs=2", "dask"):
            value = result[setting]
            label = "Dask, 2 workers" if setting == "dask" else setting
            if value is None:
                records.append(
                    {**base, "metric": f"fit time (s), {label}", "status": "not run: no dask"}
                )
                continue
            records.append({**base, "metric": f"fit time (s), {label}", "value": value})
            if setting != "n_jobs=1":
                records.append({**base, "metric": f"speed-up, {label}", "value": serial / value})
    return records
