"""The ``local-relevance`` suite: per-sample subsets of every method against ground truth.

None of the papers scores *which features each sample gets*. Three generators
know them (:mod:`localselect.datasets`):

``lfs``
    :func:`~localselect.datasets.make_lfs_synthetic`: the relevant feature
    changes with the subclass (x1, x2 or both); noise = irrelevant features.
``immigrate``
    :func:`~localselect.datasets.make_immigrate_synthetic`: features 1 and 2
    for every sample (relevance does *not* vary); noise = fraction of
    class-flipping noise samples, plus 10 N(0, 1) features.
``subspace``
    :func:`~localselect.datasets.make_subspace_classification` (GP paper,
    Algorithm 3) with 30 features: each sample's features are those of the
    subspace that generated it; noise = ``cluster_std``.

Every method is fitted on ``n`` rows and scored on ``n`` held-out rows of the
same draw, through :func:`localselect.base.local_support` (the one rule of
``base.py``): per-sample precision, recall and F1 of the subset against the
sample's relevant features (rows without any relevant feature, the empty
subspace of Algorithm 3, are left out), the mean subset size, accuracy, and
the stability of the held-out subsets over bootstrap resamples of the
training rows (Kuncheva's consistency index per held-out row, averaged over
rows and resample pairs).

Global methods select ``k`` features, ``k`` the mean number of relevant
features per training row (rounded, at least 1): the best a single subset
can do is known in advance, which favours them.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np

from localselect_benchmarks._core import SuiteContext, register_suite

__all__ = ["GENERATORS", "kuncheva_rows", "per_sample_prf"]

#: Generator, whether the relevant features vary between regions, and its noise levels.
GENERATORS: dict[str, dict[str, Any]] = {
    "lfs": {"varies": True, "levels": {"low": 10, "mid": 20, "high": 50}},
    "immigrate": {"varies": False, "levels": {"low": 0.1, "mid": 0.2, "high": 0.3}},
    "subspace": {"varies": True, "levels": {"low": 0.05, "mid": 0.1, "high": 0.2}},
}
NOISE_MEANING = {
    "lfs": "irrelevant features",
    "immigrate": "fraction of noise samples",
    "subspace": "cluster_std",
}
LOCAL_METHODS = ("LFS", "LFS (nearest region)", "GP", "LLDS profiles")
GLOBAL_METHODS = ("Relief", "ReliefF", "IRelief", "Simba", "IM4E", "IMMIGRATE", "Fisher", "MRMR")
FITTED = ("LFS", "GP", "LLDS profiles", *GLOBAL_METHODS)  # "LFS (nearest region)" shares LFS


def per_sample_prf(support: np.ndarray, relevant: np.ndarray) -> dict[str, float]:
    """Average per-sample precision, recall and F1 over rows with a relevant feature.

    A row with an empty subset has precision 0 (it names nothing relevant).

    Parameters
    ----------
    support : ndarray of shape (n_samples, n_features) of bool
        The features selected for each row.
    relevant : ndarray of shape (n_samples, n_features) of bool
        The truly relevant features of each row (from the generator).

    Returns
    -------
    scores : dict
        ``{"precision": ..., "recall": ..., "f1": ...}``, each a mean over the rows.
    """
    keep = relevant.any(axis=1)
    S, R = support[keep], relevant[keep]
    tp = (S & R).sum(axis=1)
    n_sel = S.sum(axis=1)
    precision = np.where(n_sel > 0, tp / np.maximum(n_sel, 1), 0.0)
    recall = tp / R.sum(axis=1)
    denom = precision + recall
    f1 = np.where(denom > 0, 2 * precision * recall / np.where(denom > 0, denom, 1), 0.0)
    return {
        "precision": float(precision.mean()),
        "recall": float(recall.mean()),
        "f1": float(f1.mean()),
    }


def kuncheva_rows(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Compute Kuncheva's consistency index of the subsets ``A[i]`` and ``B[i]``, row by row.

    ``(r - ka kb / n) / (min(ka, kb) - ka kb / n)`` with ``r`` the overlap,
    ``ka``, ``kb`` the sizes and ``n`` the number of features: Kuncheva's
    ``(r n - k^2) / (k (n - k))`` when ``ka = kb = k`` (Kuncheva 2007), the
    observed overlap above chance over its largest possible value otherwise.
    NaN where undefined (an empty or full subset).

    Parameters
    ----------
    A, B : ndarray of shape (n_samples, n_features) of bool
        Two selections of the same rows (for example from two bootstrap fits).

    Returns
    -------
    index : ndarray of shape (n_samples,)
        The index per row, at most 1 (identical subsets).
    """
    n = A.shape[1]
    r = (A & B).sum(axis=1).astype(np.float64)
    ka, kb = A.sum(axis=1), B.sum(axis=1)
    expected = ka * kb / n
    denom = np.minimum(ka, kb) - expected
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (r - expected) / np.where(denom > 0, denom, 1.0), np.nan)


def _draw(generator: str, level: str, n: int, seed: int):
    """``2 n`` rows of a generator: the first ``n`` train, the rest held out."""
    from localselect.datasets import (
        make_immigrate_synthetic,
        make_lfs_synthetic,
        make_subspace_classification,
    )

    value = GENERATORS[generator]["levels"][level]
    if generator == "lfs":
        return make_lfs_synthetic(2 * n, n_irrelevant=int(value), random_state=seed)
    if generator == "immigrate":
        X, y, R = make_immigrate_synthetic(
            n, noise_level=float(value), n_noise_features=10, random_state=seed
        )
        return X, y, R
    return make_subspace_classification(
        2 * n, n_features=30, cluster_std=float(value), random_state=seed
    )


def _make(method: str, k: int, seed: int):
    from sklearn.preprocessing import KBinsDiscretizer

    from localselect import (
        IM4E,
        FisherScore,
        GPLocalFeatureSelection,
        Immigrate,
        IRelief,
        LiftFeatureSelector,
        LocalFeatureSelection,
        Relief,
        ReliefF,
        Simba,
    )
    from localselect.filters import MRMR

    factories = {
        "LFS": lambda: LocalFeatureSelection(),
        "GP": lambda: GPLocalFeatureSelection(random_state=seed),
        "LLDS profiles": lambda: LiftFeatureSelector(
            "profiles",
            max_features=2,
            min_support=0.05,
            top_k=10,
            discretizer=KBinsDiscretizer(
                n_bins=3,
                encode="ordinal",
                strategy="quantile",
                quantile_method="averaged_inverted_cdf",
            ),
        ),
        "Relief": lambda: Relief(k, random_state=seed),
        "ReliefF": lambda: ReliefF(n_features_to_select=k),
        "IRelief": lambda: IRelief(n_features_to_select=k),
        "Simba": lambda: Simba(n_features_to_select=k),
        "IM4E": lambda: IM4E(n_features_to_select=k),
        "IMMIGRATE": lambda: Immigrate(n_features_to_select=k, random_state=seed),
        "Fisher": lambda: FisherScore(n_features_to_select=k),
        "MRMR": lambda: MRMR(n_features_to_select=k),
    }
    return factories[method]()


def _accuracy(est, Xtr, ytr, Xte, yte) -> float:
    """Own ``predict`` for a classifier, else 5-NN on the columns of ``get_support()``."""
    from sklearn.neighbors import KNeighborsClassifier

    if hasattr(est, "predict"):
        return float(np.mean(est.predict(Xte) == yte))
    cols = np.flatnonzero(est.get_support())
    if cols.size == 0:
        return float(np.mean(yte == np.bincount(ytr).argmax()))
    knn = KNeighborsClassifier(5).fit(Xtr[:, cols], ytr)
    return float(knn.score(Xte[:, cols], yte))


def _supports(method: str, est, Xte) -> dict[str, np.ndarray]:
    from localselect.base import local_support

    out = {method: np.asarray(local_support(est, Xte), dtype=bool)}
    if method == "LFS":
        from localselect.lfs import query_subsets

        out["LFS (nearest region)"] = query_subsets(est, Xte, rule="nearest").support
    return out


def _cell(
    generator: str, level: str, n: int, method: str, seed: int, n_boot: int
) -> dict[str, Any]:
    """Fit one method on one draw; scores for it (and LFS's second rule)."""
    import time

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    X, y, R = _draw(generator, level, n, seed)
    Xtr, Xte = X[:n], X[n:]
    ytr, yte, Rtr, Rte = y[:n], y[n:], R[:n], R[n:]
    scaler = StandardScaler().fit(Xtr)
    Xtr, Xte = scaler.transform(Xtr), scaler.transform(Xte)
    rows = Rtr.any(axis=1)
    k = max(1, round(float(Rtr[rows].sum(axis=1).mean())))
    out: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        start = time.perf_counter()
        est = _make(method, k, seed).fit(Xtr, ytr)
        seconds = time.perf_counter() - start
        supports = _supports(method, est, Xte)
        accuracy = _accuracy(est, Xtr, ytr, Xte, yte)
        boots: dict[str, list[np.ndarray]] = {name: [] for name in supports}
        rng = np.random.default_rng(seed + 1)
        for _ in range(n_boot):
            idx = rng.integers(0, n, size=n)
            while (
                np.unique(ytr[idx], return_counts=True)[1].min() < 2
                or np.unique(ytr[idx]).size < np.unique(ytr).size
            ):
                idx = rng.integers(0, n, size=n)
            try:
                fitted = _make(method, k, seed).fit(Xtr[idx], ytr[idx])
            except ValueError:
                continue
            for name, mask in _supports(method, fitted, Xte).items():
                boots[name].append(mask)
    for name, support in supports.items():
        pairs = [kuncheva_rows(a, b) for a, b in itertools.combinations(boots[name], 2)]
        stab = np.concatenate(pairs) if pairs else np.array([np.nan])
        record = per_sample_prf(support, Rte)
        record.update(
            {
                "accuracy": accuracy,
                "subset_size": float(support.sum(axis=1).mean()),
                "stability": float(np.nanmean(stab)) if np.isfinite(stab).any() else np.nan,
                "seconds": seconds,
                "k": k,
            }
        )
        if name == "LFS":
            record["region_size"] = float(est.local_support_.sum(axis=1).mean())
        out[name] = record
    return out


def _lfs_target(seed: int) -> dict[str, float]:
    """LFS on make_lfs_synthetic(300, 20): held-out per-query scores under both rules."""
    from localselect import LocalFeatureSelection
    from localselect.datasets import make_lfs_synthetic
    from localselect.lfs import query_subsets

    X, y, R = make_lfs_synthetic(600, n_irrelevant=20, random_state=seed)
    est = LocalFeatureSelection().fit(X[:300], y[:300])
    out = {"region_size": float(est.local_support_.sum(axis=1).mean())}
    for rule in ("decisive", "nearest"):
        q = query_subsets(est, X[300:], rule=rule)
        for key, value in per_sample_prf(q.support, R[300:]).items():
            out[f"{rule} {key}"] = value
        out[f"{rule} size"] = float(q.support.sum(axis=1).mean())
    return out


def _settings(quick: bool) -> dict[str, Any]:
    if quick:
        return {
            "sizes": (100,),
            "levels": ("low", "high"),
            "n_boot": 2,
            "boot_size": 100,
            "target_seeds": 1,
        }
    return {
        "sizes": (150, 300),
        "levels": ("low", "mid", "high"),
        "n_boot": 3,
        "boot_size": 150,
        "target_seeds": 3,
    }


@register_suite(
    "local-relevance",
    paper="none (a benchmark the papers do not have): LFS, IMMIGRATE and GP generators",
)
def local_relevance(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Per-sample precision, recall and F1 of every method's per-row subsets (the rule of
    localselect.base) against the generators' ground truth on held-out rows, with accuracy,
    mean subset size and bootstrap stability (Kuncheva index), by noise level and sample
    size; global methods get k = the mean number of relevant features."""
    cfg = _settings(ctx.quick)
    gens = [g for g in GENERATORS if ctx.wants(g)] if ctx.datasets else list(GENERATORS)
    cells = [
        (g, level, n, method)
        for g in gens
        for level in cfg["levels"]
        for n in cfg["sizes"]
        for method in FITTED
    ]
    seeds = ctx.seeds(len(gens) * len(cfg["levels"]) * len(cfg["sizes"]))
    seed_of = {
        key: seeds[i] for i, key in enumerate(itertools.product(gens, cfg["levels"], cfg["sizes"]))
    }
    args = [
        (
            g,
            level,
            n,
            method,
            seed_of[(g, level, n)],
            cfg["n_boot"] if n == cfg["boot_size"] else 0,
        )
        for g, level, n, method in cells
    ]
    keys = [{"cell": list(a)} for a in args]
    results = ctx.cached_map(keys, _cell, args)
    records: list[dict[str, Any]] = []
    metrics = ("f1", "precision", "recall", "stability", "accuracy", "subset_size")
    for (g, level, n, _method), result in zip(cells, results):
        for name, rec in result.items():
            scope = "local" if name in LOCAL_METHODS else "global"
            for metric in metrics:
                value = rec[metric]
                if metric == "stability" and n != cfg["boot_size"]:
                    continue
                records.append(
                    {
                        "table": f"{metric} (n = {n})",
                        "dataset": f"{g} {level}",
                        "method": name,
                        "metric": metric,
                        "value": None if value is None or not np.isfinite(value) else value,
                        "generator": g,
                        "noise": level,
                        "noise_value": GENERATORS[g]["levels"][level],
                        "n_train": n,
                        "scope": scope,
                        "k_global": rec["k"],
                    }
                )
    margins = _margins(records)
    records += margins
    for g in gens:
        levels = ", ".join(f"{lv} = {GENERATORS[g]['levels'][lv]}" for lv in cfg["levels"])
        varies = "varies by region" if GENERATORS[g]["varies"] else "the same for every row"
        ctx.note(f"{g}: noise is the {NOISE_MEANING[g]} ({levels}); relevance {varies}.")
    for m in margins:
        if m["varies_by_region"]:
            ctx.note(
                f"{m['dataset']}, {m['method']}: best local {m['best_local']} "
                f"{m['best_local_f1']:.3f} vs best global {m['best_global']} "
                f"{m['best_global_f1']:.3f} (margin {m['value']:+.3f})."
            )
    target = ctx.cached_map(
        [{"lfs-target": s} for s in range(cfg["target_seeds"])],
        _lfs_target,
        [(ctx.random_state + s,) for s in range(cfg["target_seeds"])],
    )
    records += _target_records(target, ctx)
    _figure(records, ctx, max(cfg["sizes"]))
    picture = ctx.cached({"lfs-picture": 0}, lambda: _lfs_picture(ctx.random_state))
    _picture(picture, ctx)
    return records


def _margins(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Best local minus best global per-sample F1 in each cell."""
    out = []
    f1 = [r for r in records if r["metric"] == "f1" and r["value"] is not None]
    for key in sorted({(r["generator"], r["noise"], r["n_train"]) for r in f1}):
        cell = [r for r in f1 if (r["generator"], r["noise"], r["n_train"]) == key]
        loc = max((r for r in cell if r["scope"] == "local"), key=lambda r: r["value"])
        glo = max((r for r in cell if r["scope"] == "global"), key=lambda r: r["value"])
        out.append(
            {
                "table": "Best local minus best global (per-sample F1)",
                "dataset": f"{key[0]} {key[1]}",
                "method": f"n = {key[2]}",
                "metric": "F1 margin",
                "value": loc["value"] - glo["value"],
                "best_local": loc["method"],
                "best_local_f1": loc["value"],
                "best_global": glo["method"],
                "best_global_f1": glo["value"],
                "varies_by_region": GENERATORS[key[0]]["varies"],
            }
        )
    return out


def _target_records(target: list[dict[str, float]], ctx: SuiteContext) -> list[dict[str, Any]]:
    out = []
    for rule in ("decisive", "nearest"):
        for metric in ("precision", "recall", "f1", "size"):
            vals = [t[f"{rule} {metric}"] for t in target]
            out.append(
                {
                    "table": "LFS target: make_lfs_synthetic(300, 20), held-out rows",
                    "dataset": f"rule {rule}",
                    "method": "LFS",
                    "metric": metric,
                    "value": float(np.mean(vals)),
                    "std": float(np.std(vals, ddof=1)) if len(vals) > 1 else None,
                    "n_trials": len(vals),
                }
            )
    regions = float(np.mean([t["region_size"] for t in target]))
    out.append(
        {
            "table": "LFS target: make_lfs_synthetic(300, 20), held-out rows",
            "dataset": "training regions",
            "method": "LFS",
            "metric": "size",
            "value": regions,
            "n_trials": len(target),
        }
    )
    dec = {
        m: float(np.mean([t[f"decisive {m}"] for t in target]))
        for m in ("precision", "recall", "size")
    }
    ctx.note(
        f"LFS target (make_lfs_synthetic(300, 20), {len(target)} seed(s), held-out rows, rule "
        f"'decisive'): precision {dec['precision']:.3f}, recall {dec['recall']:.3f} (target "
        f">= 0.8 each); mean query subset {dec['size']:.2f} vs training regions {regions:.2f} "
        f"(ratio {dec['size'] / regions:.2f}, target within 1.5x)."
    )
    return out


def _figure(records: list[dict[str, Any]], ctx: SuiteContext, n: int) -> None:
    """``f1_by_noise.png``: per-sample F1, methods x (generator, noise), at the largest n."""
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib is a test dependency
        ctx.note("figure not drawn: matplotlib is not installed")
        return
    f1 = [r for r in records if r.get("metric") == "f1" and r.get("n_train") == n]
    methods = [m for m in (*LOCAL_METHODS, *GLOBAL_METHODS) if any(r["method"] == m for r in f1)]
    cols = list(dict.fromkeys((r["generator"], r["noise"]) for r in f1))
    grid = np.full((len(methods), len(cols)), np.nan)
    for r in f1:
        if r["value"] is not None:
            grid[methods.index(r["method"]), cols.index((r["generator"], r["noise"]))] = r["value"]
    fig = Figure(figsize=(1.0 + 0.9 * len(cols), 1.2 + 0.38 * len(methods)), layout="constrained")
    ax = fig.add_subplot()
    im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", aspect="auto")
    for i, j in itertools.product(range(len(methods)), range(len(cols))):
        if np.isfinite(grid[i, j]):
            ax.text(
                j,
                i,
                f"{grid[i, j]:.2f}",
                ha="center",
                va="center",
                color="white" if grid[i, j] < 0.6 else "black",
                fontsize=8,
            )
    ax.set_xticks(range(len(cols)), [f"{g}\n{lv}" for g, lv in cols], fontsize=8)
    ax.set_yticks(
        range(len(methods)),
        [f"{m} ({'local' if m in LOCAL_METHODS else 'global'})" for m in methods],
        fontsize=8,
    )
    ax.axhline(len([m for m in methods if m in LOCAL_METHODS]) - 0.5, color="white", lw=2)
    ax.set_title(f"Per-sample F1 on held-out rows (n = {n} training rows)")
    fig.colorbar(im, ax=ax, shrink=0.8, label="F1")
    ctx.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(ctx.out / "f1_by_noise.png", dpi=110)
    ctx.note(f"Figure: f1_by_noise.png (per-sample F1, methods x generator and noise, n = {n}).")


def _lfs_picture(seed: int) -> dict[str, np.ndarray]:
    """Held-out queries of make_lfs_synthetic(300, 20) with LFS's per-query subsets."""
    from localselect import LocalFeatureSelection
    from localselect.datasets import make_lfs_synthetic

    X, y, _, sub = make_lfs_synthetic(
        600, n_irrelevant=20, random_state=seed, return_subclass=True
    )
    est = LocalFeatureSelection().fit(X[:300], y[:300])
    return {
        "X": X[300:, :2],
        "subclass": sub[300:],
        "support": est.get_local_support(X[300:]),
        "relevance": est.local_relevance(X[300:]),
    }


def _picture(data: dict[str, np.ndarray], ctx: SuiteContext) -> None:
    """``lfs_query_subsets.png``: each held-out query coloured by the subset LFS gives it."""
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover
        return
    S = data["support"]
    x1, x2, other = S[:, 0], S[:, 1], S[:, 2:].any(axis=1)
    kinds = [
        ("x1 only", x1 & ~x2 & ~other, "tab:blue"),
        ("x2 only", ~x1 & x2 & ~other, "tab:orange"),
        ("x1 and x2", x1 & x2 & ~other, "tab:green"),
        ("with an irrelevant feature", other, "tab:red"),
        ("neither x1 nor x2", ~x1 & ~x2 & ~other, "grey"),
    ]
    markers = {0: "+", 1: "D", 2: "o"}
    fig = Figure(figsize=(9.5, 4.0), layout="constrained")
    ax, bx = fig.subplots(1, 2)
    for label, rows, color in kinds:
        for sc, marker in markers.items():
            pick = rows & (data["subclass"] == sc)
            if pick.any():
                ax.scatter(
                    *data["X"][pick].T,
                    c=color,
                    marker=marker,
                    s=22,
                    label=label if sc == 2 or not (rows & (data["subclass"] == 2)).any() else None,
                )
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="upper right")
    ax.set_xlabel("x1")
    ax.set_ylabel("x2")
    ax.set_title("get_local_support (colour); true need (marker: + x1, ◊ x2, o both)", fontsize=9)
    rel = data["relevance"]
    for sc, name in ((0, "'+' (needs x1)"), (1, "'◊' (needs x2)"), (2, "Y2 (needs both)")):
        rows = data["subclass"] == sc
        bx.plot(np.arange(rel.shape[1]), rel[rows].mean(axis=0), marker=markers[sc], label=name)
    bx.set_xticks(
        range(rel.shape[1]), [f"x{j + 1}" for j in range(rel.shape[1])], rotation=90, fontsize=6
    )
    bx.set_ylim(0, 1.02)
    bx.set_ylabel("mean local_relevance")
    bx.set_title("local_relevance: fraction of deciding regions using a feature", fontsize=9)
    bx.legend(fontsize=7)
    fig.suptitle("LFS on held-out rows of make_lfs_synthetic(300, 20)", fontsize=10)
    ctx.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(ctx.out / "lfs_query_subsets.png", dpi=110)
    ctx.note("Figure: lfs_query_subsets.png (LFS per-query subsets and relevance, held out).")
