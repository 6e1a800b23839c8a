"""RReliefF (Robnik-Sikonja and Kononenko 2003) against CORElearn and scikit-rebate.

Suites
------
``rrelieff``
    On a Friedman #1 table (``make_friedman1``: 5 relevant columns, the rest
    noise) of 2,000 x 100, every row a reference: RReliefF with equal-k (k=10)
    and exponential-rank (k=70, sigma=20) weights, timed against CORElearn's
    ``attrEval`` (``RReliefFequalK``, ``RReliefFexpRank``; ``Rscript``
    subprocess, same run, CORElearn's own timing of ``attrEval`` without R's
    start-up and CSV reading) with the settings under which both compute the
    same numbers (``numAttrProportionEqual=0``, ``numAttrProportionDifferent=1``);
    the largest score difference; scikit-rebate's ``ReliefF`` on the
    continuous target (k=10, when installed). Then 100,000 x 20 with
    ``max_samples=1000`` (ours, and CORElearn with ``ReliefIterations=1000``)
    and the sampling spread of the weights: the standard deviation over 10
    draws of ``max_samples`` reference rows on 20,000 x 20, against the weights
    of all rows. Our timings use ``n_jobs=2`` (the machine's two cores) and are
    the best of 3 runs after one untimed call (numba loads its cache).

Quick mode (``--quick``) runs 300 x 20 and 5,000 x 10 (``max_samples=200``),
2 draws of the spread; not the protocol above and says so in ``protocol``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.datasets import make_friedman1

from localselect import ReliefF
from localselect_benchmarks._core import SuiteContext, register_suite

PAPER = (
    "M. Robnik-Sikonja and I. Kononenko, Theoretical and empirical analysis of ReliefF "
    "and RReliefF, Machine Learning 53, 2003 (RReliefF, Fig. 3; CORElearn as the reference)"
)

R_SCRIPT = """
suppressMessages(library(CORElearn))
d <- read.csv("{data}")
best <- Inf
for (r in 1:{repeats}) {{
  t <- system.time(w <- attrEval(y ~ ., d, estimator = "{estimator}", {k_option} = {k},
      {sigma_option}ReliefIterations = {iterations}, numAttrProportionEqual = 0,
      numAttrProportionDifferent = 1))[["elapsed"]]
  best <- min(best, t)
}}
cat(sprintf("%.17g", w), sep = "\\n")
cat(sprintf("time %.6f\\n", best))
"""

#: Our estimator settings and CORElearn's estimator name, per neighbour weighting.
VARIANTS = {
    "equal k=10": ({"n_neighbors": 10, "neighbor_weights": "equal"}, "RReliefFequalK"),
    "exp_rank k=70 sigma=20": (
        {"n_neighbors": 70, "neighbor_weights": "exp_rank", "sigma": 20.0},
        "RReliefFexpRank",
    ),
}


def _corelearn(X, y, estimator, k, sigma, iterations, repeats):
    """CORElearn's scores and best ``attrEval`` seconds, or ``(None, None, why)``."""
    if shutil.which("Rscript") is None:
        return None, None, "Rscript not found"
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "table.csv"
        header = ",".join([f"x{i}" for i in range(X.shape[1])] + ["y"])
        np.savetxt(
            data, np.column_stack([X, y]), delimiter=",", header=header, comments="", fmt="%.17g"
        )
        exp_rank = estimator == "RReliefFexpRank"
        script = R_SCRIPT.format(
            data=data,
            repeats=repeats,
            estimator=estimator,
            k=k,
            iterations=iterations,
            k_option="kNearestExpRank" if exp_rank else "kNearestEqual",
            sigma_option=f"quotientExpRankDistance = {sigma}, " if exp_rank else "",
        )
        res = subprocess.run(["Rscript", "-e", script], capture_output=True, text=True)
    if res.returncode != 0:
        return None, None, "CORElearn not available: " + res.stderr.strip()[-200:]
    lines = res.stdout.strip().split("\n")
    return np.array([float(v) for v in lines[:-1]]), float(lines[-1].split()[1]), ""


def _best_time(func, repeats):
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        func()
        best = min(best, time.perf_counter() - t0)
    return best


def _record(table, dataset, method, metric, value, note=""):
    return {
        "table": table,
        "dataset": dataset,
        "method": method,
        "metric": metric,
        "value": value,
        "note": note,
    }


def _peers(ctx, X, y, task, repeats):
    """Ours, CORElearn and scikit-rebate on every row of ``X`` (times and agreement)."""
    records = []
    for label, (params, estimator) in VARIANTS.items():
        est = ReliefF(max_samples=None, n_jobs=2, **params)
        est.fit(X, y)
        ours = _best_time(lambda est=est: est.fit(X, y), repeats)
        name = f"{task}, {label}"
        records.append(_record("speed", name, "localselect", "seconds", ours, "n_jobs=2"))
        scores, theirs, why = _corelearn(
            X, y, estimator, params["n_neighbors"], params.get("sigma", 20.0), 0, repeats
        )
        records.append(
            _record(
                "speed",
                name,
                "CORElearn",
                "seconds",
                theirs,
                why or f"{estimator}, attrEval time, best of {repeats}",
            )
        )
        if scores is not None:
            records.append(_record("speed", name, "speed-up vs CORElearn", "ratio", theirs / ours))
            diff = float(np.abs(scores - est.feature_importances_).max())
            records.append(
                _record(
                    "agreement", name, "localselect vs CORElearn", "max abs score difference", diff
                )
            )
    try:
        import skrebate

        rebate = skrebate.ReliefF(n_neighbors=10, n_features_to_select=10)
        seconds = _best_time(lambda: rebate.fit(X, y), 1)
        records.append(
            _record(
                "speed",
                f"{task}, equal k=10",
                "scikit-rebate",
                "seconds",
                seconds,
                "ReliefF, continuous endpoint, n_jobs=1, one run",
            )
        )
    except ImportError:
        records.append(
            _record(
                "speed", f"{task}, equal k=10", "scikit-rebate", "seconds", None, "not installed"
            )
        )
    return records


def _sampled(ctx, n, a, m, repeats):
    """Time of ``max_samples=m`` on ``n x a`` (ours, CORElearn's ReliefIterations=m)."""
    X, y = make_friedman1(n, n_features=a, noise=1.0, random_state=ctx.random_state)
    est = ReliefF(max_samples=m, n_jobs=2, random_state=ctx.random_state)
    est.fit(X, y)
    ours = _best_time(lambda: est.fit(X, y), repeats)
    task = f"{n}x{a}, max_samples={m}, equal k=10"
    top5 = set(np.argsort(-est.feature_importances_)[:5]) == set(range(5))
    records = [
        _record(
            "speed",
            task,
            "localselect",
            "seconds",
            ours,
            f"n_jobs=2; 5 relevant ranked first: {top5}",
        )
    ]
    _, theirs, why = _corelearn(X, y, "RReliefFequalK", 10, 20.0, m, 1)
    records.append(
        _record(
            "speed", task, "CORElearn", "seconds", theirs, why or f"ReliefIterations={m}, one run"
        )
    )
    return records


def _spread(ctx, n, a, sizes, draws):
    """Std over draws of the sampled weights, relative to the largest all-rows weight."""
    X, y = make_friedman1(n, n_features=a, noise=1.0, random_state=ctx.random_state)
    full = ReliefF(max_samples=None, n_jobs=2).fit(X, y).feature_importances_
    scale = float(np.abs(full).max())
    records = []
    for m in sizes:
        W = np.array(
            [
                ReliefF(max_samples=m, n_jobs=2, random_state=s).fit(X, y).feature_importances_
                for s in range(draws)
            ]
        )
        sd = W.std(axis=0, ddof=1)
        bias = np.abs(W.mean(axis=0) - full)
        hit = np.mean([set(np.argsort(-w)[:5]) == set(range(5)) for w in W])
        task = f"{n}x{a} Friedman #1, max_samples={m}, {draws} draws"
        records += [
            _record(
                "sampling",
                task,
                "relevant columns",
                "mean std / max |W|",
                float(sd[:5].mean() / scale),
            ),
            _record(
                "sampling",
                task,
                "noise columns",
                "mean std / max |W|",
                float(sd[5:].mean() / scale),
            ),
            _record(
                "sampling",
                task,
                "all columns",
                "max |mean - all rows| / max |W|",
                float(bias.max() / scale),
            ),
            _record("sampling", task, "draws", "5 relevant ranked first (fraction)", float(hit)),
        ]
    return records


@register_suite("rrelieff", paper=PAPER)
def rrelieff_suite(ctx: SuiteContext) -> list[dict[str, Any]]:
    """RReliefF (equal-k and exponential-rank) against CORElearn (same scores, time) and
    scikit-rebate (time) at 2,000 x 100; max_samples=1000 at 100,000 x 20; the sampling
    spread of the weights."""
    quick = ctx.quick
    n, a = (300, 20) if quick else (2000, 100)
    X, y = make_friedman1(n, n_features=a, noise=1.0, random_state=ctx.random_state)
    records = _peers(ctx, X, y, f"{n}x{a} Friedman #1", 1 if quick else 3)
    if quick:
        records += _sampled(ctx, 5000, 10, 200, 1)
        records += _spread(ctx, 3000, 10, [100], 2)
    else:
        records += _sampled(ctx, 100_000, 20, 1000, 3)
        records += _spread(ctx, 20_000, 20, [100, 1000], 10)
    for r in records:
        r["protocol"] = "quick" if quick else "full"
    return records
