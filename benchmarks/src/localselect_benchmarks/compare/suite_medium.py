"""Medium suite: every estimator, default parameters, on a user's medium-sized tables.

Two public tables none of the papers' protocols use at full size,
``pmlb_waveform_40`` (5,000 x 40, 3 classes) and ``electrical_grid_stability``
(10,000 x 12, 2 classes), each z-scored and split into a stratified 2,000-row
test set and the rest for training (3,000 and 8,000 rows; ``--quick``: 1,500
training rows, past the 1,000 up to which the margin methods stay exact, and
500 test rows). For every classifier and selector of
:func:`localselect.utils.all_estimators`, with its default parameters
(``random_state`` fixed):

* **fit time** (target <= 60 s; ``BoostedImmigrate`` <= 180 s) and the
  **peak resident memory** of the process that fitted it, above its resident
  memory before the fit (Linux ``VmHWM``; the cell runs in a fresh interpreter);
* **predict / transform time** of the 2,000 test rows (target <= 10 s):
  ``predict`` for classifiers, else ``transform``;
* **accuracy** on the test rows: a classifier's own ``predict``, and for a
  global selector ``selector -> 5-NN`` (``transform`` then a 5-NN on the
  selected columns), beside a plain 5-NN on all features.

``LiftFeatureSelector`` takes discrete data: with its defaults it refuses the
continuous tables at once (the message names the discretizer); it is also
run as a user would next, with ``KBinsDiscretizer(n_bins=3, encode="ordinal")``
(target: finishes within 60 s or refuses within 2 s).

A third table fits every estimator on a **30 x 5,000** table (IMMIGRATE's
synthetic design: its two interacting columns among 4,998 noise columns;
``--quick``: 30 x 1,000); target fit <= 60 s each.

A fourth, **IMMIGRATE against N**, fits ``Immigrate`` exact (``n_candidates=None``)
and with the ``"auto"`` truncation on growing stratified subsets of the
waveform training rows, with the test accuracy and the softmax weight the
truncation really drops (exact softmax over every hit and miss of 200
training samples, against the kept ones) beside its bound.

Each cell runs in a spawned child process that is killed after its time limit
(twice the target plus 30 s), so a slow estimator is reported as "stopped" and
cannot hang the suite. Cells are cached (``ctx.cached``); ``--datasets``
filters estimators by name.
"""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

import numpy as np

from localselect_benchmarks._core import SuiteContext, register_suite
from localselect_benchmarks._measure import hwm as _hwm
from localselect_benchmarks._measure import rss as _rss
from localselect_benchmarks._measure import run_child

logger = logging.getLogger(__name__)

TABLES = ("pmlb_waveform_40", "electrical_grid_stability")
FIT_TARGET = {"BoostedImmigrate": 180.0}
DEFAULT_FIT_TARGET = 60.0
PREDICT_TARGET = 10.0
LLDS_KBINS = "LiftFeatureSelector + KBins(3)"

SETTINGS: dict[bool, dict[str, Any]] = {
    True: {"n_train": 1500, "n_test": 500, "noise": (30, 1000), "curve": (300, 600, 1200)},
    False: {"n_train": None, "n_test": 2000, "noise": (30, 5000), "curve": (750, 1500, 3000)},
}


def _split(name: str, n_train: int | None, n_test: int, seed: int) -> tuple:
    """Z-scored stratified train/test split of a named table (or the noise table)."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    if name.startswith("noise"):
        from localselect.datasets import make_immigrate_synthetic

        n, m = (int(v) for v in name.split(":")[1].split("x"))
        X, y, _ = make_immigrate_synthetic(n // 2, n_noise_features=m, random_state=seed)
        return StandardScaler().fit_transform(X[:, :m]), y, None, None
    from localselect.datasets import load_dataset

    X, y = load_dataset(name)
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=n_test, stratify=y, random_state=seed)
    if n_train is not None and n_train < len(ytr):
        Xtr, _, ytr, _ = train_test_split(
            Xtr, ytr, train_size=n_train, stratify=ytr, random_state=seed
        )
    scaler = StandardScaler().fit(Xtr)
    return scaler.transform(Xtr), ytr, scaler.transform(Xte), yte


def _make(name: str, seed: int, n_features: int) -> Any:
    from sklearn.preprocessing import KBinsDiscretizer

    from localselect.utils import all_estimators

    classes = dict(all_estimators(["classifier", "selector"]))
    if name == LLDS_KBINS:
        return classes["LiftFeatureSelector"](
            discretizer=KBinsDiscretizer(n_bins=3, encode="ordinal", quantile_method="linear")
        )
    base, _, option = name.partition(" ")
    est = classes[base]()
    if option == "exact":
        est.set_params(n_candidates=None)
    if "random_state" in est.get_params():
        est.set_params(random_state=seed)
    return est


def _true_dropped(model: Any, X: np.ndarray, y: np.ndarray, seed: int, n_rows: int = 200):
    """Mean over ``n_rows`` training samples of the exact softmax weight truncation drops.

    Uses only the public fitted state: the modelled features
    (``prescreen_support_``), ``weights_``, ``n_candidates_`` and ``sigma``; the
    kept hits and misses are found again with ``NearestNeighbors``.
    """
    from scipy.special import logsumexp
    from sklearn.neighbors import NearestNeighbors

    k = getattr(model, "n_candidates_", None)
    if k is None:
        return None
    keep = model.prescreen_support_
    Xk = X[:, keep]
    W = model.weights_[np.ix_(keep, keep)]
    rng = np.random.default_rng(seed)
    rows = rng.choice(len(Xk), size=min(n_rows, len(Xk)), replace=False)
    out = []
    for i in rows:  # measurement only: one exact softmax per sampled row
        d = np.abs(Xk - Xk[i])
        logit = -np.einsum("ij,jk,ik->i", d, W, d) / model.sigma
        worst = 0.0
        for mask in (y == y[i], y != y[i]):
            mask = mask.copy()
            mask[i] = False
            cand = np.flatnonzero(mask)
            nn = NearestNeighbors(n_neighbors=min(k, len(cand))).fit(Xk[cand])
            kept = cand[nn.kneighbors(Xk[i : i + 1], return_distance=False)[0]]
            share = np.exp(logsumexp(logit[kept]) - logsumexp(logit[cand]))
            worst = max(worst, 1.0 - float(share))
        out.append(worst)
    return float(np.mean(out))


def _cell(spec: dict[str, Any]) -> dict[str, Any]:
    """Fit, time and score one estimator on one table (runs in the child process)."""
    import warnings

    from sklearn.base import is_classifier
    from sklearn.neighbors import KNeighborsClassifier

    from localselect.base import relevance_scope

    Xtr, ytr, Xte, yte = _split(spec["table"], spec["n_train"], spec["n_test"], spec["seed"])
    if spec.get("subset") is not None and spec["subset"] < len(ytr):
        from sklearn.model_selection import train_test_split

        Xtr, _, ytr, _ = train_test_split(
            Xtr, ytr, train_size=spec["subset"], stratify=ytr, random_state=spec["seed"]
        )
    est = _make(spec["method"], spec["seed"], Xtr.shape[1])
    out: dict[str, Any] = {"n_train": len(ytr), "n_features": int(Xtr.shape[1])}
    base = _rss()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        try:
            est.fit(Xtr, ytr)
        except ValueError as exc:
            out["refused"] = time.perf_counter() - start
            out["message"] = " ".join(str(exc).split())
            return out
        out["fit"] = time.perf_counter() - start
        out["peak_mb"] = _hwm() - base
        if Xte is None:
            return out
        start = time.perf_counter()
        if is_classifier(est):
            pred = est.predict(Xte)
            out["predict"] = time.perf_counter() - start
            out["accuracy"] = float(np.mean(pred == yte))
        if hasattr(est, "transform") and relevance_scope(est) == "global":
            start = time.perf_counter()
            Zte = est.transform(Xte)
            if "predict" not in out:
                out["predict"] = time.perf_counter() - start
            mask = est.get_support()
            knn = KNeighborsClassifier(5).fit(Xtr[:, mask], ytr)
            out["selector_knn"] = float(np.mean(knn.predict(Zte) == yte))
            out["n_selected"] = int(mask.sum())
        elif "predict" not in out and hasattr(est, "transform"):
            start = time.perf_counter()
            est.transform(Xte)
            out["predict"] = time.perf_counter() - start
    for attr in ("n_candidates_", "dropped_weight_bound_"):
        if hasattr(est, attr):
            out[attr] = getattr(est, attr)
    if spec.get("true_dropped"):
        out["true_dropped"] = _true_dropped(est, Xtr, np.asarray(ytr), spec["seed"])
    return out


def _knn_cell(spec: dict[str, Any]) -> dict[str, Any]:
    from sklearn.neighbors import KNeighborsClassifier

    Xtr, ytr, Xte, yte = _split(spec["table"], spec["n_train"], spec["n_test"], spec["seed"])
    start = time.perf_counter()
    knn = KNeighborsClassifier(5).fit(Xtr, ytr)
    acc = float(np.mean(knn.predict(Xte) == yte))
    return {"n_train": len(ytr), "accuracy": acc, "fit": time.perf_counter() - start}


_CHILDREN = {"cell": _cell, "knn": _knn_cell}


def _child_main() -> None:  # pragma: no cover - runs in the child interpreter
    """Read ``[kind, spec]`` as JSON on stdin, print the result as JSON on the last line."""
    import json
    import sys

    kind, spec = json.loads(sys.stdin.read())
    try:
        out = _CHILDREN[kind](spec)
    except Exception as exc:  # report, never hang the parent
        out = {"error": f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"}
    print(json.dumps(out, default=float))


def run_in_child(kind: str, spec: dict[str, Any], limit: float) -> dict[str, Any]:
    """Run a cell (``"cell"`` or ``"knn"``) in a fresh interpreter, killed after ``limit`` s.

    A fresh interpreter (not a fork) makes the peak resident memory the cell's own.
    """
    import json
    import sys

    code = "from localselect_benchmarks.compare.suite_medium import _child_main; _child_main()"
    return run_child([sys.executable, "-c", code], stdin=json.dumps([kind, spec]), timeout=limit)


def _methods(ctx: SuiteContext) -> list[str]:
    from localselect.utils import all_estimators

    names = [name for name, _ in all_estimators(["classifier", "selector"])]
    names.insert(names.index("LiftFeatureSelector") + 1, LLDS_KBINS)
    return [n for n in names if ctx.wants(n) or ctx.wants(n.split(" ")[0])]


def _target(method: str) -> float:
    return FIT_TARGET.get(method, DEFAULT_FIT_TARGET)


def _records_for(
    table: str, label: str, method: str, result: dict[str, Any], limit: float
) -> list[dict[str, Any]]:
    base = {"table": table, "dataset": label, "method": method}
    target = _target(method)
    if "timeout" in result:
        return [
            {**base, "metric": "fit time (s)", "status": f"stopped after {limit:.0f} s"},
        ]
    if "error" in result:
        return [{**base, "metric": "fit time (s)", "status": f"failed: {result['error']}"}]
    base["n_samples"] = result["n_train"]
    if "refused" in result:
        text = result["message"][:160]
        return [
            {**base, "metric": "refused in (s)", "value": result["refused"]},
            {**base, "metric": "fit time (s)", "status": f"refused: {text}"},
        ]
    recs = [
        {**base, "metric": "fit time (s)", "value": result["fit"], "target": target},
        {**base, "metric": "fit within target", "value": bool(result["fit"] <= target)},
        {**base, "metric": "peak memory (MB)", "value": result["peak_mb"]},
    ]
    if "predict" in result:
        recs.append({**base, "metric": "predict/transform (s)", "value": result["predict"]})
    if "accuracy" in result:
        recs.append({**base, "metric": "accuracy (own predict)", "value": result["accuracy"]})
    if "selector_knn" in result:
        recs.append(
            {**base, "metric": "accuracy (selector + 5-NN)", "value": result["selector_knn"]}
        )
        recs.append({**base, "metric": "features selected", "value": result["n_selected"]})
    if result.get("n_candidates_") is not None:
        recs.append({**base, "metric": "n_candidates_", "value": result["n_candidates_"]})
        if result.get("dropped_weight_bound_") is not None:
            bound = result["dropped_weight_bound_"]
            recs.append({**base, "metric": "dropped weight bound", "value": bound})
    if result.get("true_dropped") is not None:
        recs.append({**base, "metric": "true dropped weight", "value": result["true_dropped"]})
    return recs


@register_suite(
    "medium",
    paper="none (a benchmark the papers do not have): a user's medium-sized tables and "
    "their targets",
    description=(
        "Every estimator with default parameters on pmlb_waveform_40 (5,000 x 40) and "
        "electrical_grid_stability (10,000 x 12): fit and predict/transform time, peak "
        "memory, accuracy beside a plain 5-NN; a 30 x 5,000 noise table; IMMIGRATE exact "
        "against truncated by N."
    ),
)
def medium(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Run the medium suite; see the module docstring."""
    cfg = SETTINGS[bool(ctx.quick)]
    (seed,) = ctx.seeds(1)
    methods = _methods(ctx)
    records: list[dict[str, Any]] = []
    cells = [(table, method) for table in TABLES for method in ["5-NN", *methods]]
    for table, method in ctx.progress(cells, "medium"):
        spec = {
            "table": table,
            "n_train": cfg["n_train"],
            "n_test": cfg["n_test"],
            "seed": seed,
            "method": method,
            "true_dropped": method in ("Immigrate",),
        }
        if method == "5-NN":
            res = ctx.cached(
                {"suite": "medium", **spec}, functools.partial(run_in_child, "knn", spec, 600.0)
            )
            if "accuracy" in res:
                records.append(
                    {
                        "table": "Medium tables",
                        "dataset": table,
                        "method": "5-NN (all features)",
                        "n_samples": res["n_train"],
                        "metric": "accuracy (own predict)",
                        "value": res["accuracy"],
                    }
                )
            continue
        limit = 2 * _target(method) + 30.0
        res = ctx.cached(
            {"suite": "medium", **spec}, functools.partial(run_in_child, "cell", spec, limit)
        )
        records += _records_for("Medium tables", table, method, res, limit)

    n, m = cfg["noise"]
    noise = f"noise:{n}x{m}"
    for method in ctx.progress(methods, "noise table"):
        spec = {"table": noise, "n_train": None, "n_test": 0, "seed": seed, "method": method}
        limit = 2 * _target(method) + 30.0
        res = ctx.cached(
            {"suite": "medium", **spec}, functools.partial(run_in_child, "cell", spec, limit)
        )
        records += _records_for(f"{n} x {m} noise table", f"{n} x {m}", method, res, limit)

    if ctx.wants("Immigrate"):
        for size in ctx.progress(cfg["curve"], "IMMIGRATE against N"):
            for method in ("Immigrate exact", "Immigrate"):
                spec = {
                    "table": TABLES[0],
                    "n_train": cfg["n_train"],
                    "n_test": cfg["n_test"],
                    "seed": seed,
                    "method": method,
                    "subset": size,
                    "true_dropped": method == "Immigrate",
                }
                limit = 2 * DEFAULT_FIT_TARGET + 30.0
                res = ctx.cached(
                    {"suite": "medium", **spec},
                    functools.partial(run_in_child, "cell", spec, limit),
                )
                label = f"{TABLES[0]}, N={size}"
                name = "Immigrate (auto)" if method == "Immigrate" else method
                records += _records_for("IMMIGRATE against N", label, name, res, limit)
    ctx.note(
        "Targets: fit <= 60 s (BoostedImmigrate <= 180 s), predict/transform of the test "
        "rows <= 10 s, LLDS finishes within 60 s or refuses within 2 s. Peak memory is the "
        "rise of the fitting process's peak resident set over its size before the fit."
    )
    return records
