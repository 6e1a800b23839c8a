"""The ``evidence`` suite: false discovery rate and power of ``n_features_to_select="auto"``.

For every generator with ground truth (the LFS and IMMIGRATE synthetic
problems, the GP paper's Algorithm 3, ``make_classification`` tables at two
noise levels, and a global-null table whose labels ignore every feature),
each global selector is fitted with ``n_features_to_select="auto"``
(``fdr=0.1``) and with the fixed top 10, on independent draws. A cell holds
one (generator, selector, draw): the false discovery proportion and the power
of both selections, and the seconds of the ``"auto"`` fit next to a top-10 fit
on the same data, so the cost ratio is a same-run ratio. A record (see
:func:`summarise`) averages the cells over draws: realized FDR and power.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.datasets import make_classification

from localselect.utils import all_estimators
from localselect_benchmarks._core import SuiteContext, register_suite

#: Target FDR of every ``"auto"`` fit.
FDR = 0.1
#: Size of the fixed selection compared with ``"auto"``.
TOP_K = 10
#: Fewer draws for the costliest selector in a full run (about 12 s a draw on 200 x 30).
FULL_DRAWS_CAP = {"BoostedImmigrate": 20}


#: The global selectors measured: every one the registry lists that is not also a local selector
#: (LLDS selects per row and has no "auto"); the report sorts them by name.
GLOBAL_SELECTORS = tuple(
    name
    for name, _ in all_estimators("global_selector")
    if name not in dict(all_estimators("local_selector"))
)


def _global_selectors() -> dict[str, Any]:
    import localselect

    return {name: getattr(localselect, name)() for name in GLOBAL_SELECTORS}


def _truth(relevant) -> np.ndarray:
    relevant = np.asarray(relevant, dtype=bool)
    return relevant.any(axis=0) if relevant.ndim == 2 else relevant


def _generators(
    quick: bool,
) -> dict[str, Callable[[int], tuple[np.ndarray, np.ndarray, np.ndarray]]]:
    from localselect.datasets import (
        make_immigrate_synthetic,
        make_lfs_synthetic,
        make_subspace_classification,
    )

    n, p = (100, 20) if quick else (200, 30)

    def classification(seed, class_sep, flip_y):
        X, y = make_classification(
            n,
            p,
            n_informative=5,
            n_redundant=0,
            class_sep=class_sep,
            flip_y=flip_y,
            shuffle=False,
            random_state=seed,
        )
        return X, y, np.arange(p) < 5

    def null(seed):
        rng = np.random.default_rng(seed)
        return rng.normal(size=(n, p)), rng.integers(0, 2, n), np.zeros(p, dtype=bool)

    def lfs(seed):
        X, y, rel = make_lfs_synthetic(n, p - 3, random_state=seed)
        return X, y, _truth(rel)

    def immigrate(seed):
        X, y, rel = make_immigrate_synthetic(
            n // 2, 0.1, n_noise_features=p - 2, random_state=seed
        )
        return X, y, _truth(rel)

    def gp(seed):
        X, y, rel = make_subspace_classification(n, p, 2, 2, subspace_size=3, random_state=seed)
        return X, y, _truth(rel)

    return {
        "classification-easy": lambda s: classification(s, 1.0, 0.01),
        "classification-hard": lambda s: classification(s, 0.5, 0.1),
        "global-null": null,
        "lfs-synthetic": lfs,
        "immigrate-synthetic": immigrate,
        "gp-algorithm3": gp,
    }


def _rates(mask: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    false = int((mask & ~truth).sum())
    true = int((mask & truth).sum())
    return {
        "n_selected": int(mask.sum()),
        "fdp": false / max(1, int(mask.sum())),
        "power": true / int(truth.sum()) if truth.any() else float("nan"),
    }


def _cell(generator: str, selector: str, seed: int, quick: bool) -> dict[str, Any]:
    X, y, truth = _generators(quick)[generator](seed)
    base = _global_selectors()[selector]
    if "random_state" in base.get_params():
        base.set_params(random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        top = clone(base).set_params(n_features_to_select=TOP_K).fit(X, y).get_support()
        t_plain = time.perf_counter() - start
        start = time.perf_counter()
        auto = clone(base).set_params(n_features_to_select="auto", fdr=FDR).fit(X, y)
        t_auto = time.perf_counter() - start
    record: dict[str, Any] = {
        "generator": generator,
        "selector": selector,
        "seed": seed,
        "n_samples": X.shape[0],
        "n_features": X.shape[1],
        "n_relevant": int(truth.sum()),
        "null": getattr(auto, "_evidence_null", "permutation"),
        "seconds_plain": t_plain,
        "seconds_auto": t_auto,
        "cost_ratio": t_auto / max(t_plain, 1e-9),
    }
    record.update({f"auto_{k}": v for k, v in _rates(auto.get_support(), truth).items()})
    record.update({f"top{TOP_K}_{k}": v for k, v in _rates(top, truth).items()})
    return record


def summarise(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Realized FDR, power, selection size and cost ratio per (generator, selector)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["generator"], r["selector"]), []).append(r)
    rows = []
    for (gen, sel), rs in sorted(groups.items()):
        fdp = np.array([r["auto_fdp"] for r in rs])
        rows.append(
            {
                "generator": gen,
                "selector": sel,
                "draws": len(rs),
                "fdr": float(fdp.mean()),
                "fdr_se": float(fdp.std(ddof=1) / np.sqrt(len(rs)))
                if len(rs) > 1
                else float("nan"),
                "power": float(np.mean([r["auto_power"] for r in rs])),
                "n_selected": float(np.mean([r["auto_n_selected"] for r in rs])),
                f"top{TOP_K}_fdr": float(np.mean([r[f"top{TOP_K}_fdp"] for r in rs])),
                f"top{TOP_K}_power": float(np.mean([r[f"top{TOP_K}_power"] for r in rs])),
                "cost_ratio": float(np.median([r["cost_ratio"] for r in rs])),
            }
        )
    return rows


@register_suite(
    "evidence", paper="none (the evidence layer's FDR control of n_features_to_select='auto')"
)
def evidence(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Realized FDR and power of every global selector's "auto" (fdr=0.1) against top-10."""
    draws = ctx.repeats or (3 if ctx.quick else 50)
    generators = [g for g in _generators(ctx.quick) if ctx.wants(g)]
    selectors = list(_global_selectors())
    if ctx.quick:
        selectors = ["FisherScore", "Relief", "IM4E"]
    seeds = ctx.seeds(draws)
    cells = [
        (g, s, seed, ctx.quick)
        for g in generators
        for s in selectors
        for seed in seeds[: FULL_DRAWS_CAP.get(s, draws) if ctx.repeats is None else draws]
    ]
    keys = [{"generator": g, "selector": s, "seed": seed} for g, s, seed, _ in cells]
    records = ctx.cached_map(keys, _cell, cells)
    rows = summarise(records)
    for row in rows:
        ctx.note(
            f"{row['generator']} / {row['selector']}: FDR {row['fdr']:.3f} "
            f"(se {row['fdr_se']:.3f}), power {row['power']:.2f}, "
            f"{row['n_selected']:.1f} selected, top-{TOP_K} power {row[f'top{TOP_K}_power']:.2f}, "
            f"cost x{row['cost_ratio']:.1f} ({row['draws']} draws)"
        )
    _figure(rows, ctx)
    # one record per (generator, selector): the per-draw cells stay in the cache
    return rows


def _figure(rows: list[dict[str, Any]], ctx: SuiteContext) -> None:
    """``fdr_power.png``: realized FDR against power, "auto" and top-k, one panel per generator.

    The global-null table has no power (nothing to find): its panel shows the
    realized FDR of each selector alone.
    """
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - matplotlib is a test dependency
        ctx.note("figure not drawn: matplotlib is not installed")
        return
    generators = list(dict.fromkeys(r["generator"] for r in rows))
    selectors = list(dict.fromkeys(r["selector"] for r in rows))
    colours = {s: f"C{i}" for i, s in enumerate(selectors)}
    ncols = min(3, len(generators))
    nrows = -(-len(generators) // ncols)
    fig = Figure(figsize=(3.6 * ncols, 3.2 * nrows + 0.6), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
    for ax, gen in zip(axes, generators, strict=False):
        for r in (r for r in rows if r["generator"] == gen):
            c = colours[r["selector"]]
            power = r["power"] if np.isfinite(r["power"]) else 0.0
            top_power = r[f"top{TOP_K}_power"] if np.isfinite(r[f"top{TOP_K}_power"]) else 0.0
            ax.plot(
                [r["fdr"], r[f"top{TOP_K}_fdr"]], [power, top_power], color=c, lw=0.6, alpha=0.5
            )
            ax.errorbar(r["fdr"], power, xerr=r["fdr_se"], fmt="o", color=c, ms=5, lw=0.8)
            ax.plot(r[f"top{TOP_K}_fdr"], top_power, marker="o", mfc="none", color=c, ms=5)
        ax.axvline(FDR, color="black", lw=0.8)
        ax.axvline(FDR + 0.02, color="black", lw=0.8, ls=":")
        ax.set(xlim=(-0.03, 1.03), ylim=(-0.03, 1.05), title=gen, xlabel="realized FDR")
        has_power = any(np.isfinite(r["power"]) for r in rows if r["generator"] == gen)
        ax.set_ylabel("power" if has_power else "power (no relevant feature)")
    for ax in axes[len(generators) :]:
        ax.set_visible(False)
    handles = [axes[0].plot([], [], "o", color=colours[s], label=s)[0] for s in selectors] + [
        axes[0].plot([], [], "o", color="grey", label=f'"auto" (fdr={FDR})')[0],
        axes[0].plot([], [], "o", mfc="none", color="grey", label=f"top {TOP_K}")[0],
    ]
    fig.legend(handles=handles, loc="outside lower center", ncols=6, fontsize=8)
    ctx.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(ctx.out / "fdr_power.png", dpi=110)
    ctx.note(
        f'Figure: fdr_power.png (realized FDR against power per generator; filled: "auto", '
        f"open: top {TOP_K}; solid line: the nominal {FDR}, dotted: {FDR} + 0.02)."
    )


#: UCI tables of the defaults decision (5-NN on the selection; waveform subsampled).
UCI_TABLES = ("parkinsons", "Sonar", "Ionosphere", "wdbc", "pmlb_waveform_40", "urban_land_cover")
#: (table, selector) cells left out of the full run for their cost.
SKIP_UCI = {("urban_land_cover", "BoostedImmigrate")}
#: Fixed sizes "auto" is compared with ("all" is every feature).
FIXED_K = (5, 10, 20)


def _uci_cell(dataset: str, selector: str, fold: int, seed: int, quick: bool) -> dict[str, Any]:
    from sklearn.model_selection import StratifiedKFold
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.preprocessing import StandardScaler

    from localselect.datasets import load_dataset

    X, y = load_dataset(dataset)
    rng = np.random.default_rng(seed)
    cap = 300 if quick else 1000
    if X.shape[0] > cap:
        keep = np.sort(rng.choice(X.shape[0], cap, replace=False))
        X, y = X[keep], y[keep]
    train, test = list(StratifiedKFold(5, shuffle=True, random_state=seed).split(X, y))[fold]
    scaler = StandardScaler().fit(X[train])
    Xtr, Xte = scaler.transform(X[train]), scaler.transform(X[test])
    base = _global_selectors()[selector]
    if "random_state" in base.get_params():
        base.set_params(random_state=seed)
    record: dict[str, Any] = {"dataset": dataset, "selector": selector, "fold": fold}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        plain = clone(base).set_params(n_features_to_select=FIXED_K[0]).fit(Xtr, y[train])
        record["seconds_plain"] = time.perf_counter() - start
        start = time.perf_counter()
        auto = clone(base).set_params(n_features_to_select="auto", fdr=FDR).fit(Xtr, y[train])
        record["seconds_auto"] = time.perf_counter() - start
    record["cost_ratio"] = record["seconds_auto"] / max(record["seconds_plain"], 1e-9)
    masks = {"auto": auto.get_support(), "all": np.ones(X.shape[1], dtype=bool)}
    for k in FIXED_K:
        if hasattr(plain, "feature_importances_"):  # one fit serves every k
            masks[f"k{k}"] = plain.set_params(n_features_to_select=k).get_support()
        else:
            masks[f"k{k}"] = (
                clone(plain).set_params(n_features_to_select=k).fit(Xtr, y[train]).get_support()
            )
    for name, mask in masks.items():
        if not mask.any():
            majority = np.bincount(np.unique(y[train], return_inverse=True)[1]).argmax()
            acc = float(np.mean(y[test] == np.unique(y[train])[majority]))
        else:
            knn = KNeighborsClassifier(5).fit(Xtr[:, mask], y[train])
            acc = float(knn.score(Xte[:, mask], y[test]))
        record[f"acc_{name}"] = acc
    record["n_auto"] = int(masks["auto"].sum())
    record["n_features"] = int(X.shape[1])
    return record


@register_suite("evidence-uci", paper="none (the defaults of n_features_to_select on UCI tables)")
def evidence_uci(ctx: SuiteContext) -> list[dict[str, Any]]:
    """5-NN accuracy (5-fold CV) on "auto" against fixed k in {5, 10, 20, all}; its cost."""
    tables = [t for t in (UCI_TABLES[:2] if ctx.quick else UCI_TABLES) if ctx.wants(t)]
    selectors = ["FisherScore", "Relief"] if ctx.quick else list(_global_selectors())
    (seed,) = ctx.seeds(1)
    skipped = SKIP_UCI.intersection((t, s) for t in tables for s in selectors)
    for t, s in sorted(skipped):
        ctx.note(f"{t} / {s}: not run (an 'auto' fit takes several minutes on this table)")
    cells = [
        (t, s, f, seed, ctx.quick)
        for t in tables
        for s in selectors
        if (t, s) not in skipped
        for f in range(5)
    ]
    keys = [{"dataset": t, "selector": s, "fold": f} for t, s, f, _, _ in cells]
    records = ctx.cached_map(keys, _uci_cell, cells)
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["dataset"], r["selector"]), []).append(r)
    for (t, s), rs in groups.items():
        acc = {
            m: 100 * np.mean([r[f"acc_{m}"] for r in rs])
            for m in ("auto", "k5", "k10", "k20", "all")
        }
        best = max(("k5", "k10", "k20", "all"), key=acc.__getitem__)
        n_auto = np.mean([r["n_auto"] for r in rs])
        ctx.note(
            f"{t} / {s}: auto {acc['auto']:.1f}% ({n_auto:.1f} features) "
            f"vs best fixed {best} {acc[best]:.1f}% (gap {acc['auto'] - acc[best]:+.1f}); "
            f"cost x{np.median([r['cost_ratio'] for r in rs]):.1f}"
        )
    return records
