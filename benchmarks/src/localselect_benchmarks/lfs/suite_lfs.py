"""LFS benchmarks: Table 1 (LFS column), Fig. 4 (synthetic recovery), speed and memory."""

from __future__ import annotations

import os
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

from localselect.datasets import load_dataset, load_lfs_sample, make_lfs_synthetic
from localselect.lfs import LocalFeatureSelection
from localselect_benchmarks._core import SuiteContext, load_published, register_suite
from localselect_benchmarks._measure import load_text, run_child, run_measured

PAPER = "Armanfard, Reilly and Komeili (2016), IEEE TPAMI 38(6)"

#: Table 1 data set -> (our loader name, binarisation note). DNA keeps its 3
#: classes (LFS is multiclass); ARR is normal (class 1) versus the rest.
_TABLE1 = {
    "Sonar": "Sonar",
    "DNA": "DNA",
    "Breast": "wdbc",
    "Adult": "a1a",
    "ARR": "arrhythmia",
    "ALLAML": "ALLAML",
    "Prostate": "Prostate_GE",
    "Duke-breast": "dm_west",
    "Leukemia": "leukemia",
    "Colon": "colon",
}
_NOISY = {"Sonar", "DNA", "Breast", "Adult", "ARR"}

#: alpha grid of the full Table 1 run: the paper's 1, ..., 30 (sec. 4). With the
#: compiled core the 3,000 fits (30 alphas, 10 splits, 10 data sets) take well under
#: a CPU hour; see docs/results/lfs-table1 for the measured time.
TABLE1_ALPHAS = list(range(1, 31))


def _zscore(X_train: np.ndarray, X_test: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1.0
    return (X_train - mean) / std, (X_test - mean) / std


def _prepare(name: str) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_dataset(_TABLE1[name])
    X = np.asarray(X, dtype=np.float64)
    if np.isnan(X).any():  # arrhythmia: a few missing values, replaced by column means
        X = np.where(np.isnan(X), np.nanmean(X, axis=0), X)
    if name == "ARR":
        y = (np.asarray(y).astype(int) == 1).astype(int)
    return X, np.asarray(y)


def table1_split(name: str, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One random train/test split of a Table 1 data set (the suite's protocol).

    The sizes of the paper's Table 2, z-scored on the training part; the noisy
    data sets get 100 N(0, 1) features. ``name`` is a row of Table 1 (``"Sonar"``,
    ``"Breast"``, ...); returns ``X_train, X_test, y_train, y_test``.
    """
    X, y = _prepare(name)
    n_train, n_test = load_published("lfs_table1")["table2_train_test"][name]
    rng = np.random.default_rng(seed)
    n_test = min(n_test, len(y) - n_train)
    while True:  # a split whose training part has >= 2 samples of every class
        order = rng.permutation(len(y))
        train, test = order[:n_train], order[n_train : n_train + n_test]
        if (
            np.unique(y).size == np.unique(y[train]).size
            and np.bincount(np.unique(y[train], return_inverse=True)[1]).min() >= 2
        ):
            break
    X_train, X_test = X[train], X[test]
    if name in _NOISY:  # 100 irrelevant N(0, 1) features (sec. 4)
        X_train = np.hstack([X_train, rng.standard_normal((n_train, 100))])
        X_test = np.hstack([X_test, rng.standard_normal((len(test), 100))])
    X_train, X_test = _zscore(X_train, X_test)
    return X_train, X_test, y[train], y[test]


def _split_error(name: str, alphas: list[int], seed: int) -> list[float]:
    X_train, X_test, y_train, y_test = table1_split(name, seed)
    errors = []
    for alpha in alphas:
        est = LocalFeatureSelection(max_features=alpha).fit(X_train, y_train)
        errors.append(100.0 * (1.0 - est.score(X_test, y_test)))
    return errors


@register_suite("lfs-table1", paper=PAPER)
def table1(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Table 1, LFS column: minimum over alpha of the mean test error over random splits (Table 2
    sizes, z-scores, +100 noise features on five sets).
    """
    published = load_published("lfs_table1")["rows"]
    alphas = [1, 3, 5, 10, 19] if ctx.quick else TABLE1_ALPHAS
    n_splits = 2 if ctx.quick else 10
    names = ["Sonar", "Breast", "Colon"] if ctx.quick else list(_TABLE1)
    records = []
    seeds = ctx.seeds(len(_TABLE1) * n_splits)
    # Every (data set, split) cell is one cached job; cells run in parallel.
    cells = [
        (k, name, s)
        for k, name in enumerate(_TABLE1)
        if name in names and ctx.wants(name)
        for s in range(n_splits)
    ]
    values = ctx.cached_map(
        [{"suite": "lfs-table1", "dataset": n, "split": s, "alphas": alphas} for _, n, s in cells],
        _split_error,
        [(n, alphas, seeds[k * n_splits + s]) for k, n, s in cells],
    )
    by_name: dict[str, list[list[float]]] = {}
    for (_, name, _), value in zip(cells, values):
        by_name.setdefault(name, []).append(value)
    for name, rows in by_name.items():
        errs = np.array(rows)
        mean = errs.mean(axis=0)
        best = int(np.argmin(mean))
        records.append(
            {
                "table": "Table 1",
                "dataset": name,
                "method": "LFS",
                "metric": "error (%)",
                "value": float(mean[best]),
                "std": float(errs[:, best].std()),
                "published": published[name]["LFS"][0],
                "published_std": published[name]["LFS"][1],
                "alpha": alphas[best],
                "n_splits": n_splits,
            }
        )
    return records


@register_suite("lfs-fig4", paper=PAPER)
def fig4(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Fig. 4: percentage of representatives whose expected features (x1, x2 or both by subclass)
    are selected, per iteration, versus irrelevant features.
    """
    n_irr = [1, 10, 100, 1000] if ctx.quick else [1, 10, 100, 1000, 10_000, 30_000]
    taus = [1, 2] if ctx.quick else [1, 2, 3, 4]
    records = []
    for n in ctx.progress(n_irr, "fig4"):
        X, y, relevant = make_lfs_synthetic(100, n, random_state=ctx.random_state)
        for tau in taus:
            est = LocalFeatureSelection(max_features=2, max_iter=tau, n_jobs=ctx.n_jobs).fit(X, y)
            hit = (est.local_support_ | ~relevant).all(axis=1).mean()
            exact = (est.local_support_ == relevant).all(axis=1).mean()
            records.append(
                {
                    "table": "Fig. 4",
                    "dataset": f"synthetic, {n} irrelevant",
                    "method": f"LFS, iteration {tau}",
                    "metric": "expected features selected (%)",
                    "value": 100.0 * float(hit),
                    "exact_match": 100.0 * float(exact),
                    "n_irrelevant": n,
                    "iteration": tau,
                }
            )
    return records


def _measure(fit) -> tuple[float, float | None]:
    """Wall time (best of two when a fit takes under 30 s) and peak traced memory (MiB,
    from a third fit, skipped (None) when a fit takes over 30 s)."""
    times = []
    for _ in range(2):
        t = time.perf_counter()
        fit()
        times.append(time.perf_counter() - t)
        if times[0] > 30:
            return times[0], None
    tracemalloc.start()
    fit()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return min(times), peak


def _lfspy_records(ctx: SuiteContext, n: int, m: int) -> list[dict[str, Any]]:
    """Same-run fit times of LFSpy and of ours on the first ``n`` samples, ``m`` features."""
    python = os.environ.get("LOCALSELECT_LFSPY_PYTHON")
    if not python:
        ctx.note(
            "LFSpy speed ratio: set LOCALSELECT_LFSPY_PYTHON to an interpreter with "
            "LFSpy 1.0.4, numpy<2 and scipy<1.11 (it cannot share this environment)."
        )
        return []

    X_tr, y_tr, X_te, y_te = load_lfs_sample()
    X_tr, y_tr, X_te = X_tr[:n, :m], y_tr[:n].astype(int), X_te[:, :m]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "data.npz"  # the same arrays for both, written for LFSpy
        np.savez(path, X_train=X_tr, y_train=y_tr, X_test=X_te, y_test=y_te.astype(int))
        script = str(Path(__file__).with_name("_lfspy_fit.py"))
        theirs = run_child([python, script, str(path)], env=env, timeout=3600)
    if "error" in theirs or "timeout" in theirs:
        ctx.note(f"LFSpy failed: {theirs}")
        return []
    t_ours = np.inf
    for _ in range(5):  # a fit of milliseconds: best of five
        t = time.perf_counter()
        ours = LocalFeatureSelection(n_jobs=1).fit(X_tr, y_tr)
        t_ours = min(t_ours, time.perf_counter() - t)
    return [
        {
            "table": "speed vs LFSpy",
            "dataset": f"lfs_sample first {n} samples, {m} features",
            "method": method,
            "metric": "fit seconds",
            "value": value,
            "test_accuracy": acc,
            "speedup_vs_lfspy": theirs["fit_seconds"] / value,
            "load_avg": load_text(),
        }
        for method, value, acc in (
            ("LFSpy 1.0.4", theirs["fit_seconds"], theirs["test_accuracy"]),
            ("LFS (ours, n_jobs=1)", t_ours, float(ours.score(X_te, y_te))),
        )
    ]


@register_suite("lfs-perf", paper=PAPER)
def perf(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Fit time (best of two runs) and peak traced memory: the authors' sample data, N=100
    M=10,000, scaling in M and N, n_jobs 2 versus 1, and LFSpy.
    """
    records = []
    X_tr, y_tr, X_te, y_te = load_lfs_sample()
    t, mem = _measure(lambda: LocalFeatureSelection(n_jobs=ctx.n_jobs).fit(X_tr, y_tr))
    acc = LocalFeatureSelection(n_jobs=ctx.n_jobs).fit(X_tr, y_tr).score(X_te, y_te)
    records.append(
        {
            "table": "speed",
            "dataset": "lfs_sample (N=100, M=160)",
            "method": "LFS",
            "metric": "fit seconds",
            "value": t,
            "peak_mib": mem,
            "test_accuracy": acc,
            "load_avg": load_text(),
        }
    )
    rng = np.random.default_rng(ctx.random_state)
    grid = [(100, 100), (100, 1000), (100, 10_000)]
    if not ctx.quick:
        grid += [(500, 100), (2000, 100)]
    for n, m in ctx.progress(grid, "scaling"):
        X, y, _ = make_lfs_synthetic(n, m - 2, random_state=int(rng.integers(2**31 - 1)))
        # The two largest points also on two threads (their targets are for the
        # 2-core machine; the sample data's is for one core).
        big = n >= 2000 or m >= 10_000
        jobs_list = [ctx.n_jobs] + ([2] if big and ctx.n_jobs in (None, 1) else [])
        for jobs in jobs_list:
            t, mem = _measure(
                lambda X=X, y=y, jobs=jobs: LocalFeatureSelection(
                    n_candidates=None, n_jobs=jobs
                ).fit(X, y)
            )
            records.append(
                {
                    "table": "scaling (exact method)",
                    "dataset": f"synthetic N={n} M={m}",
                    "method": "LFS" if jobs == ctx.n_jobs else f"LFS, n_jobs={jobs}",
                    "metric": "fit seconds",
                    "value": t,
                    "peak_mib": mem,
                    "n_samples": n,
                    "n_features": m,
                    "load_avg": load_text(),
                }
            )
    # n_jobs 2 versus 1, same data, back to back (target: >= 1.7x at N=400, M=1,000).
    n, m = (120, 300) if ctx.quick else (400, 1000)
    X, y, _ = make_lfs_synthetic(n, m - 2, random_state=int(rng.integers(2**31 - 1)))
    times: dict[int, float] = {}
    for jobs in (1, 2, 1, 2):
        t = time.perf_counter()
        LocalFeatureSelection(n_jobs=jobs).fit(X, y)
        times[jobs] = min(times.get(jobs, np.inf), time.perf_counter() - t)
    for jobs in (1, 2):
        records.append(
            {
                "table": "n_jobs",
                "dataset": f"synthetic N={n} M={m}",
                "method": f"LFS, n_jobs={jobs}",
                "metric": "fit seconds",
                "value": times[jobs],
                "speedup_vs_1_job": times[1] / times[jobs],
                "load_avg": load_text(),
            }
        )
    if not ctx.quick:
        records += _lfspy_records(ctx, 40, 60)
        for name in _REAL:
            if not ctx.wants(name):
                continue
            try:
                res = run_measured("lfs-real", name, ctx.n_jobs or 1)
            except Exception as exc:  # data missing, or the fit failed: say so
                ctx.note(f"lfs-perf {name}: not run ({type(exc).__name__}: {exc})")
                continue
            records.append(
                {
                    "table": "default settings on real data (z-scored, all rows)",
                    "dataset": f"{name} (N={res['n_samples']}, M={res['n_features']})",
                    "method": f"LFS defaults, n_candidates_={res['n_candidates_']}, "
                    f"n_jobs={ctx.n_jobs or 1}",
                    "metric": "fit seconds",
                    "value": res["fit_seconds"],
                    "fit_cpu_seconds": res["fit_cpu_seconds"],
                    "peak_rss_mib": res["peak_rss_mib"],
                    "rss_before_fit_mib": res["rss_before_fit_mib"],
                    "load_avg": load_text(),
                }
            )
    return records


#: Real data sets of the default-settings targets (pmlb_adult: one-hot as loaded).
_REAL = ["pmlb_waveform_40", "electrical_grid_stability", "pmlb_adult"]


def _rss_fit(n: int, m: int, n_candidates: int | None, seed: int) -> dict[str, Any]:
    return run_measured("lfs", n, m, n_candidates or 0, seed)


def _synthetic_accuracy(n: int, n_candidates: int | None, seed: int) -> dict[str, Any]:
    X, y, _ = make_lfs_synthetic(n + 1000, 98, random_state=seed)
    t = time.perf_counter()
    est = LocalFeatureSelection(n_candidates=n_candidates).fit(X[:n], y[:n])
    fit = time.perf_counter() - t
    return {"fit_seconds": fit, "accuracy": float(est.score(X[n:], y[n:]))}


def _switch_accuracy(name: str, n_train: int, seed: int) -> dict[str, Any]:
    """Test accuracy and fit time of the exact method and of n_candidates=50 (what
    ``"auto"`` runs past the switch) on one stratified split of a real data set."""
    from sklearn.model_selection import train_test_split

    X, y = load_dataset(name)
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    n_test = min(2000, len(y) - n_train)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, train_size=n_train, test_size=n_test, stratify=y, random_state=seed
    )
    X_tr, X_te = _zscore(X_tr, X_te)
    fits = {}
    for label, nc in (("LFS exact", None), ("LFS, n_candidates=50 (auto past the switch)", 50)):
        t = time.perf_counter()
        est = LocalFeatureSelection(n_candidates=nc, n_jobs=-1).fit(X_tr, y_tr)
        fit = time.perf_counter() - t
        fits[label] = [float(est.score(X_te, y_te)), fit]
    return {"n_test": n_test, "fits": fits}


def _table1_errors(name: str, alphas: list[int], variants: list[int | None], seed: int):
    """Test errors (%) of each ``n_candidates`` variant and alpha on one Table 1 split."""
    X_train, X_test, y_train, y_test = table1_split(name, seed)
    return [
        [
            100.0
            * (
                1.0
                - LocalFeatureSelection(max_features=a, n_candidates=nc)
                .fit(X_train, y_train)
                .score(X_test, y_test)
            )
            for a in alphas
        ]
        for nc in variants
    ]


@register_suite("lfs-scale", paper=PAPER)
def scale(ctx: SuiteContext) -> list[dict[str, Any]]:
    """LFS for large N: the nearest-candidate option (n_candidates) against the exact method
    (accuracy on Table 1 data and synthetic data), fit time at N=5,000 and peak memory at
    N=20,000 (M=100).
    """
    records: list[dict[str, Any]] = []
    # Accuracy cost on Table 1 data: the same random splits for every variant, the
    # minimum over alpha of the mean error (Table 1's rule) over two alphas.
    variants: list[int | None] = [None, 25, 50]
    alphas = [5] if ctx.quick else [5, 19]
    n_splits = 1 if ctx.quick else 10
    names = ["Sonar"] if ctx.quick else list(_TABLE1)
    seeds = ctx.seeds(len(_TABLE1) * n_splits)
    for k, name in enumerate(_TABLE1):
        if name not in names or not ctx.wants(name):
            continue
        try:
            errs = np.array(
                [
                    ctx.cached(
                        {
                            "suite": "lfs-scale",
                            "dataset": name,
                            "split": s,
                            "alphas": alphas,
                            "variants": variants,
                        },
                        lambda name=name, s=s, k=k: _table1_errors(
                            name, alphas, variants, seeds[k * n_splits + s]
                        ),
                    )
                    for s in ctx.progress(range(n_splits), name)
                ]
            )  # (split, variant, alpha)
        except (FileNotFoundError, OSError) as exc:
            ctx.note(f"lfs-scale {name}: data not available ({exc})")
            continue
        mean = errs.mean(axis=0)  # (variant, alpha)
        for v, nc in enumerate(variants):
            best = int(np.argmin(mean[v]))
            records.append(
                {
                    "table": "n_candidates accuracy cost (Table 1 data)",
                    "dataset": name,
                    "method": "LFS exact" if nc is None else f"LFS, n_candidates={nc}",
                    "metric": "error (%)",
                    "value": float(mean[v, best]),
                    "alpha": alphas[best],
                    "n_splits": n_splits,
                    "minus_exact": float(mean[v, best] - mean[0].min()),
                }
            )
    # The auto switch on real data: the exact method against what "auto" runs past
    # the switch (n_candidates=50), on training samples small enough for the exact
    # method, the same split for both.
    n_train = 600 if ctx.quick else 1200
    for k, name in enumerate(_REAL):
        if not ctx.wants(name) or (ctx.quick and k > 0):
            continue
        try:
            res = ctx.cached(
                {"suite": "lfs-scale", "dataset": name, "n_train": n_train, "switch": 1},
                lambda name=name, k=k: _switch_accuracy(name, n_train, ctx.seeds(k + 1)[k]),
            )
        except (FileNotFoundError, OSError) as exc:
            ctx.note(f"lfs-scale {name}: data not available ({exc})")
            continue
        for method, (acc, fit) in res["fits"].items():
            records.append(
                {
                    "table": "auto switch accuracy (real data, z-scored, 1 split)",
                    "dataset": f"{name}, N_train={n_train}, N_test={res['n_test']}",
                    "method": method,
                    "metric": "test accuracy",
                    "value": acc,
                    "fit_seconds": fit,
                    "minus_exact": 100.0 * (acc - res["fits"]["LFS exact"][0]),
                    "load_avg": load_text(),
                }
            )
    # Synthetic data large enough for the option to matter, where the exact method runs.
    seed = ctx.seeds(1)[0]
    sizes = [300] if ctx.quick else [1000]
    for n in sizes:
        for nc in (None, 25, 50):
            res = _synthetic_accuracy(n, nc, seed)
            records.append(
                {
                    "table": "n_candidates accuracy cost (synthetic, M=100, 1,000 test)",
                    "dataset": f"synthetic N={n} M=100",
                    "method": "LFS exact" if nc is None else f"LFS, n_candidates={nc}",
                    "metric": "test accuracy",
                    "value": res["accuracy"],
                    "fit_seconds": res["fit_seconds"],
                    "load_avg": load_text(),
                }
            )
    # Fit time and peak resident memory, each fit in a fresh interpreter.
    big = [(600, 20), (1200, 20)] if ctx.quick else [(5000, 50), (20_000, 50)]
    for n, nc in ctx.progress(big, "large N"):
        res = _rss_fit(n, 100, nc, seed)
        records.append(
            {
                "table": "large N (M=100)",
                "dataset": f"synthetic N={n} M=100",
                "method": f"LFS, n_candidates={nc}, n_jobs=1",
                "metric": "fit seconds",
                "value": res["fit_seconds"],
                "peak_rss_mib": res["peak_rss_mib"],
                "rss_before_fit_mib": res["rss_before_fit_mib"],
                "load_avg": load_text(),
            }
        )
    return records


def _fig11_point(n_irrelevant: int, seed: int) -> dict[str, float]:
    """CPU seconds of one fit's representatives (alpha = 2, one iteration, one thread)."""
    X, y, _ = make_lfs_synthetic(100, n_irrelevant, random_state=seed)
    est = LocalFeatureSelection(max_features=2, max_iter=1, n_jobs=1)
    est.fit(X[:20], y[:20])  # loads the compiled core outside the timing
    cpu = time.process_time()
    wall = time.perf_counter()
    est.fit(X, y)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    n, n_beta = X.shape[0], est.n_beta
    return {
        "per_representative": cpu / n,
        "per_representative_and_beta": cpu / (n * n_beta),
        "fit_wall": wall,
    }


def _save_fig11(ctx: SuiteContext, records: list[dict[str, Any]]) -> str | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is the plot extra
        ctx.note("lfs-fig11: matplotlib is not installed, no figure drawn.")
        return None
    xs = [r["n_irrelevant"] for r in records]
    fig, ax = plt.subplots(figsize=(5.0, 3.6))
    ax.loglog(xs, [r["value"] for r in records], "o-", label="one representative, one beta")
    ax.loglog(
        xs,
        [r["per_representative_all_betas"] for r in records],
        "s--",
        label=f"one representative, all {records[0]['n_beta']} betas",
    )
    ax.set_xlabel("number of irrelevant features")
    ax.set_ylabel("CPU time (s)")
    ax.set_title("LFS, synthetic data, N = 100, alpha = 2 (cf. Fig. 11)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    name = "fig11_cpu_time.png"
    ctx.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(ctx.out / name, dpi=100)
    plt.close(fig)
    return name


@register_suite("lfs-fig11", paper=PAPER)
def fig11(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Fig. 11: CPU time of the feature selection of one representative point (alpha = 2, synthetic
    data, N = 100) against the number of irrelevant features.
    """
    n_irr = [1, 10, 100, 1000, 10_000]
    if not ctx.quick:
        n_irr = [1, 10, 100, 300, 1000, 3000, 10_000, 30_000]
    seed = ctx.seeds(1)[0]
    records = []
    for n in ctx.progress(n_irr, "fig11"):
        point = _fig11_point(n, seed)
        records.append(
            {
                "table": "Fig. 11",
                "dataset": f"synthetic N=100, {n} irrelevant",
                "method": "LFS (compiled core, 1 thread)",
                "metric": "CPU seconds per representative and beta",
                "value": point["per_representative_and_beta"],
                "per_representative_all_betas": point["per_representative"],
                "fit_wall_seconds": point["fit_wall"],
                "n_irrelevant": n,
                "n_beta": 20,
                "load_avg": load_text(),
            }
        )
    figure = _save_fig11(ctx, records)
    if figure is not None:
        for record in records:
            record["figure"] = figure
    ctx.note(
        "The paper gives Fig. 11 only as a plot (MATLAB, linear in the number of "
        "features); its text quotes one figure: N = 100, M = 10,000 trains in about 25 s "
        "on 12 cores."
    )
    return records


def _switch_split(name: str, n_train: int | None):
    """The ``lfs-switch`` protocol: 2,000 stratified test rows (``random_state=0``),
    ``n_train`` stratified training rows of the rest (all when None), z-scored."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_dataset(name)
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=2000, random_state=0, stratify=y)
    if n_train is not None and n_train < len(y_tr):
        X_tr, _, y_tr, _ = train_test_split(
            X_tr, y_tr, train_size=n_train, random_state=0, stratify=y_tr
        )
    scaler = StandardScaler().fit(X_tr)
    return scaler.transform(X_tr), scaler.transform(X_te), y_tr, y_te


def _switch_cell(name: str, n_train: int | None, variant: str) -> dict[str, Any]:
    """One fit of the ``lfs-switch`` grid: accuracy, balanced accuracy, times."""
    from sklearn.metrics import balanced_accuracy_score
    from sklearn.neighbors import KNeighborsClassifier

    X_tr, X_te, y_tr, y_te = _switch_split(name, n_train)
    if variant == "5-NN":
        est: Any = KNeighborsClassifier(5)
    else:
        nc = None if variant == "exact" else ("auto" if variant == "auto" else int(variant))
        est = LocalFeatureSelection(n_candidates=nc, n_jobs=1)
    t, c = time.perf_counter(), time.process_time()
    est.fit(X_tr, y_tr)
    fit, fit_cpu = time.perf_counter() - t, time.process_time() - c
    t = time.perf_counter()
    pred = est.predict(X_te)
    return {
        "n_train": len(y_tr),
        "accuracy": float(np.mean(pred == y_te)),
        "balanced_accuracy": float(balanced_accuracy_score(y_te, pred)),
        "fit_seconds": fit,
        "fit_cpu_seconds": fit_cpu,
        "predict_seconds": time.perf_counter() - t,
        "n_candidates_": getattr(est, "n_candidates_", None),
        "load_avg": load_text(),
    }


@register_suite("lfs-switch", paper=PAPER)
def switch(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Accuracy of n_candidates='auto' past the switch (50 candidates) against the exact method
    where it runs (1,000 and 2,000 training rows) and against 5-NN on the full tables (2,000
    stratified test rows, z-scored, one thread).
    """
    sizes: list[int | None] = [600] if ctx.quick else [1000, 2000]
    names = []
    for name in _REAL[2:] if ctx.quick else _REAL:
        try:
            load_dataset(name)
        except (FileNotFoundError, OSError) as exc:
            ctx.note(f"lfs-switch {name}: data not available ({exc})")
        else:
            names.append(name)
    cells = [
        (name, n, v)
        for name in names
        if ctx.wants(name)
        for n in sizes
        for v in ("exact", "50", "5-NN")
    ]
    if not ctx.quick:
        cells += [(name, None, v) for name in names if ctx.wants(name) for v in ("auto", "5-NN")]
    values = ctx.cached_map(
        [{"suite": "lfs-switch", "dataset": n, "n_train": s, "variant": v} for n, s, v in cells],
        _switch_cell,
        cells,
    )
    label = {"exact": "LFS exact", "50": "LFS, n_candidates=50 (auto past the switch)"}
    label |= {"auto": "LFS defaults (auto)", "5-NN": "5-NN"}
    return [
        {
            "table": "auto switch accuracy (2,000 test rows)",
            "dataset": f"{name}, N_train={res['n_train']}",
            "method": label[v],
            "metric": "test accuracy",
            "value": res["accuracy"],
            **{k: val for k, val in res.items() if k != "accuracy"},
        }
        for (name, _, v), res in zip(cells, values)
    ]
