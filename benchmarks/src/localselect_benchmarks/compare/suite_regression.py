"""The ``regression`` suite: which features matter, and where, when the target is a number.

Every estimator whose declaration takes a continuous target
(:func:`localselect.utils.continuous_target_estimators`, so an estimator that
starts taking one joins without an edit here) is fitted on:

* **Friedman #1-#3** with 20 irrelevant U(0, 1) columns
  (:func:`localselect.datasets.make_friedman_synthetic`): TPR / FDR (%) of
  the ``k`` features kept (``k`` the number of relevant ones: 5 or 4), over
  several draws; and, for the estimators that take
  ``n_features_to_select="auto"``, the realized FDR and TPR of ``"auto"`` at
  ``fdr=0.1`` (the target on #1: the 5 kept, realized FDR <= 0.12
  over 50 draws);
* **the switch design** (:func:`localselect.datasets.make_switch_regression`)
  and **LSPIN's designs** (:func:`localselect.datasets.make_lspin_synthetic`,
  the notebooks Demo0-Demo2 of jcyang34/lspin): per-row TPR / FDR (%) on
  held-out rows (INVASE's metric,
  :func:`~localselect_benchmarks.compare.suite_instancewise.feature_performance`);
  a global selector gives every row its ``k`` features, ``k`` the mean number
  of relevant features per training row;
* **diabetes** (scikit-learn's, 442 rows, 10 features; no ground truth).

With each, R^2 on the held-out rows of a 5-nearest-neighbour regressor on
the selector's ``transform`` (the kept columns; a local selector zeroes each
row's others) and the seconds of the fit. Features are standardised with
the training rows' mean and deviation first. LLDS also runs at
``resolution="profiles"`` (its per-row answer). The quick profile uses the
estimators' declared ``"demo"`` settings and small data; the full profile
their defaults, except LLDS at ``max_features=2`` (its default ``"auto"``
searches up to a minute per fit).
"""

from __future__ import annotations

import inspect
import time
import warnings
from typing import Any

import numpy as np

from localselect_benchmarks._core import SuiteContext, register_suite
from localselect_benchmarks.compare.suite_instancewise import feature_performance

__all__ = ["DATASETS", "methods"]

FRIEDMAN = ("friedman1", "friedman2", "friedman3")
#: The switch design at 1,000 training rows ("switch") and 10,000 ("switch-10k"):
#: the saliency selector's per-row rule needs the larger (its 200-row pools).
PER_ROW = ("switch", "switch-10k", "lspin-linear", "lspin-linear-shared", "lspin-e5")
DATASETS = (*FRIEDMAN, *PER_ROW, "diabetes")
METRICS = ("TPR", "FDR", "r2", "seconds")
LLDS_PROFILES = "LiftFeatureSelector (profiles)"


def methods() -> list[str]:
    """The estimators of the run: every one that takes a continuous target, plus LLDS profiles."""
    from localselect.utils import continuous_target_estimators

    names = [name for name, _ in continuous_target_estimators()]
    return names + ([LLDS_PROFILES] if "LiftFeatureSelector" in names else [])


def _takes_k(name: str) -> bool:
    """Whether ``name`` keeps a given number of features (``n_features_to_select``)."""
    from localselect.utils import continuous_target_estimators

    cls = dict(continuous_target_estimators()).get(name)
    return cls is not None and "n_features_to_select" in inspect.signature(cls).parameters


def _is_local(name: str) -> bool:
    """Whether ``name`` answers per row (its defaults are then a per-row rule of its own)."""
    from localselect.base import LocalSelectorMixin
    from localselect.utils import continuous_target_estimators

    cls = dict(continuous_target_estimators()).get(name)
    return cls is not None and issubclass(cls, LocalSelectorMixin)


def _takes_auto(name: str) -> bool:
    from localselect.utils import continuous_target_estimators

    cls = dict(continuous_target_estimators()).get(name)
    table = getattr(cls, "_parameter_constraints", {})
    constraints = table.get("n_features_to_select", [])
    return any("auto" in getattr(c, "options", ()) for c in constraints)


def _make(name: str, k: int | str | None, seed: int, quick: bool):
    """``name`` at its defaults (quick: its ``"demo"`` settings), keeping ``k`` features."""
    from localselect.utils import continuous_target_estimators, fast_params

    classes = dict(continuous_target_estimators())
    if name == LLDS_PROFILES:
        from sklearn.preprocessing import KBinsDiscretizer

        return classes["LiftFeatureSelector"](
            "profiles",
            task="regression",
            max_features=2,
            min_support=0.05,
            discretizer=KBinsDiscretizer(
                3, encode="ordinal", strategy="quantile", quantile_method="averaged_inverted_cdf"
            ),
        )
    cls = classes[name]
    params = dict(fast_params(name, "demo")) if quick else {}
    accepted = inspect.signature(cls).parameters
    if name == "LiftFeatureSelector" and not quick:
        params["max_features"] = 2
    # every target here is a quantity (diabetes' is whole numbers): no detection
    extra = {"random_state": seed, "task": "regression"}
    if k is not None:  # None: the estimator's own answer (a local selector's per-row rule)
        extra["n_features_to_select"] = k
    params.update({key: value for key, value in extra.items() if key in accepted})
    return cls(**params)


def _data(dataset: str, seed: int, quick: bool):
    """Training and test rows ``(Xtr, ytr, Rtr, Xte, yte, Rte)``; ``R`` is None without truth."""
    from sklearn.model_selection import train_test_split

    from localselect.datasets import (
        make_friedman_synthetic,
        make_lspin_synthetic,
        make_switch_regression,
    )

    n_train, n_test = (300, 200) if quick else (1000, 1000)
    if dataset in FRIEDMAN:
        design, noise_cols = int(dataset[-1]), (10 if quick else 20)
        tr = make_friedman_synthetic(n_train, design, n_noise=noise_cols, random_state=seed)
        te = make_friedman_synthetic(n_test, design, n_noise=noise_cols, random_state=seed + 1)
        return (*tr, *te)
    if dataset.startswith("switch"):
        if dataset == "switch-10k":
            n_train = 2000 if quick else 10_000
        tr = make_switch_regression(n_train, random_state=seed)
        te = make_switch_regression(n_test, random_state=seed + 1)
        return (*tr, *te)
    if dataset == "diabetes":
        from sklearn.datasets import load_diabetes

        X, y = load_diabetes(return_X_y=True)
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=seed % 2**31)
        return Xtr, ytr, None, Xte, yte, None
    lspin = dataset.removeprefix("lspin-")
    n = {"linear": 400, "linear-shared": 300, "e5": 600}[lspin] if quick else None
    X, y, R = make_lspin_synthetic(n, lspin, random_state=seed)
    parts = train_test_split(X, y, R, test_size=0.2, random_state=seed % 2**31)
    Xtr, Xte, ytr, yte, Rtr, Rte = parts
    return Xtr, ytr, Rtr, Xte, yte, Rte


def _r2(est, Xtr, ytr, Xte, yte) -> float:
    """R^2 of 5-NN regression on the selector's ``transform`` (the mean without a feature)."""
    from sklearn.metrics import r2_score
    from sklearn.neighbors import KNeighborsRegressor

    Ztr, Zte = est.transform(Xtr), est.transform(Xte)
    if Ztr.shape[1] == 0 or not np.any(Ztr):
        return float(r2_score(yte, np.full(len(yte), ytr.mean())))
    return float(KNeighborsRegressor(5).fit(Ztr, ytr).score(Zte, yte))


def _cell(dataset: str, name: str, mode: str, seed: int, quick: bool) -> dict[str, Any]:
    """Fit ``name`` on one draw of ``dataset``; ``mode`` is ``"fixed"`` (k) or ``"auto"``."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    from localselect.base import local_support, relevance_scope

    Xtr, ytr, Rtr, Xte, yte, Rte = _data(dataset, seed, quick)
    scaler = StandardScaler().fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    k = 4 if Rtr is None else max(1, round(float(Rtr.sum(axis=1).mean())))
    chosen = {"auto": "auto", "default": None}.get(mode, k)
    est = _make(name, chosen, seed % 2**31, quick)
    if mode == "auto":
        est.set_params(fdr=0.1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", UserWarning)  # "auto" with nothing significant
        start = time.perf_counter()
        est.fit(Xtr, ytr)
        seconds = time.perf_counter() - start
        support = np.asarray(local_support(est, Xte), dtype=bool)
        record: dict[str, Any] = {"seconds": seconds, "k": k, "task": est.task_}
        record["r2"] = _r2(est, Xtr, ytr, Xte, yte)
    record["scope"] = relevance_scope(est)
    record["subset_size"] = float(support.sum(axis=1).mean())
    if Rte is not None:
        record.update(feature_performance(support, Rte))
    return record


def _settings(quick: bool) -> dict[str, Any]:
    if quick:
        return {"fixed_draws": 1, "auto_draws": {"friedman1": 1}}
    return {"fixed_draws": 5, "auto_draws": {"friedman1": 50, "friedman2": 10, "friedman3": 10}}


def _plan(ctx: SuiteContext, cfg: dict[str, Any]) -> list[tuple]:
    """Every cell ``(dataset, method, mode, seed)``; seeds drawn up front per (data set, draw)."""
    wanted = [d for d in DATASETS if ctx.wants(d)]
    draws = max(cfg["fixed_draws"], *cfg["auto_draws"].values())
    seeds = ctx.seeds(len(DATASETS) * draws)
    seed_of = {(d, i): seeds[j * draws + i] for j, d in enumerate(DATASETS) for i in range(draws)}
    cells = []
    for dataset in wanted:
        n_fixed = cfg["fixed_draws"] if dataset in FRIEDMAN else 1
        for name in methods():
            cells += [(dataset, name, "fixed", seed_of[(dataset, i)]) for i in range(n_fixed)]
            if dataset in PER_ROW and _is_local(name):
                cells.append((dataset, name, "default", seed_of[(dataset, 0)]))
            if _takes_auto(name) and dataset in cfg["auto_draws"]:
                n_auto = cfg["auto_draws"][dataset]
                cells += [(dataset, name, "auto", seed_of[(dataset, i)]) for i in range(n_auto)]
    return cells


def _records(cells: list[tuple], results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One record per (data set, method, mode, metric): the mean (and deviation) over draws."""
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for (dataset, name, mode, _), result in zip(cells, results):
        groups.setdefault((dataset, name, mode), []).append(result)
    records = []
    for (dataset, name, mode), runs in groups.items():
        for metric in (*METRICS, "subset_size"):
            values = [r[metric] for r in runs if metric in r]
            if not values:
                continue
            label = f"{metric} (%)" if metric in ("TPR", "FDR") else metric
            where = "per row, held-out" if dataset in PER_ROW else "held-out"
            how = {"auto": "auto (fdr 0.1)", "default": "defaults"}.get(mode, "k relevant")
            table = f"{label}, {how}, {where}"
            records.append(
                {
                    "table": table,
                    "dataset": dataset,
                    "method": name,
                    "metric": metric,
                    "mode": mode,
                    "value": float(np.mean(values)),
                    "std": float(np.std(values)),
                    "n_draws": len(values),
                    "scope": runs[0]["scope"],
                    "k": runs[0]["k"],
                }
            )
    return records


@register_suite(
    "regression",
    paper="Friedman (1991) #1-#3; LSPIN (Yang, Lindenbaum and Kluger 2022) Demo0-Demo2; "
    "a switch design of ours; scikit-learn's diabetes",
)
def regression(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Continuous targets: TPR / FDR of the relevant features (per row on the switch and
    LSPIN designs), "auto" at fdr 0.1 on Friedman #1-#3, R^2 of 5-NN on the kept features
    and fit time, for every estimator that takes a continuous y."""
    cfg = _settings(ctx.quick)
    cells = _plan(ctx, cfg)
    args = [(*cell, ctx.quick) for cell in cells]
    results = ctx.cached_map([{"cell": list(a)} for a in args], _cell, args)
    records = _records(cells, results)
    ctx.note(f"Estimators taking a continuous target: {', '.join(methods())}.")
    ctx.note(
        f"Friedman: {cfg['fixed_draws']} draw(s) with k relevant kept; 'auto' draws "
        + ", ".join(f"{d}: {n}" for d, n in cfg["auto_draws"].items())
        + ". Switch and LSPIN: one training draw, held-out rows."
    )
    _target_notes(records, ctx)
    return records


def _target_notes(records: list[dict[str, Any]], ctx: SuiteContext) -> None:
    """The targets on Friedman #1, for each estimator that keeps ``k`` features."""
    value = {(r["dataset"], r["method"], r["mode"], r["metric"]): r for r in records}
    full = 100.0 - 1e-4  # INVASE's metric divides by |R| + 1e-8
    for name in methods():
        fixed = value.get(("friedman1", name, "fixed", "TPR"))
        if fixed is not None and _takes_k(name):
            verdict = "met" if fixed["value"] >= full else "missed"
            ctx.note(
                f"Friedman #1, {name} at k = 5: TPR {fixed['value']:.1f}% over "
                f"{fixed['n_draws']} draws (target: the 5 relevant ranked first: {verdict})."
            )
        auto = value.get(("friedman1", name, "auto", "FDR"))
        if auto is not None:
            tpr = value[("friedman1", name, "auto", "TPR")]["value"]
            verdict = "met" if auto["value"] <= 12.0 and tpr >= full else "missed"
            ctx.note(
                f"Friedman #1, {name} 'auto' at fdr 0.1 over {auto['n_draws']} draws: realized "
                f"FDR {auto['value']:.1f}%, TPR {tpr:.1f}% (target FDR <= 12%, all 5 kept: "
                f"{verdict})."
            )
