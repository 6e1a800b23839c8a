"""LFS benchmarks: Table 1 (LFS column), Fig. 4 (synthetic recovery), speed and memory."""

from __future__ import annotations

import time
import tracemalloc
from typing import Any

import numpy as np

from localselect.bench._core import SuiteContext, load_published, register_suite
from localselect.datasets import load_dataset, load_lfs_sample, make_lfs_synthetic
from localselect.lfs import LocalFeatureSelection

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


def _split_error(name: str, alphas: list[int], seed: int) -> list[float]:
    X, y = _prepare(name)
    table2 = load_published("lfs_table1")["table2_train_test"][name]
    rng = np.random.default_rng(seed)
    n_train, n_test = table2
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
    errors = []
    for alpha in alphas:
        est = LocalFeatureSelection(alpha=alpha).fit(X_train, y[train])
        errors.append(100.0 * (1.0 - est.score(X_test, y[test])))
    return errors


@register_suite(
    "lfs-table1",
    paper=PAPER,
    description="Table 1, LFS column: minimum over alpha of the mean test error over "
    "random splits (Table 2 sizes, z-scores, +100 noise features on five sets).",
)
def table1(ctx: SuiteContext) -> list[dict[str, Any]]:
    published = load_published("lfs_table1")["rows"]
    alphas = [1, 3, 5, 10, 19] if ctx.quick else list(range(1, 31))
    n_splits = 2 if ctx.quick else 10
    names = ["Sonar", "Breast", "Colon"] if ctx.quick else list(_TABLE1)
    records = []
    seeds = ctx.seeds(len(_TABLE1) * n_splits)
    for k, name in enumerate(_TABLE1):
        if name not in names or not ctx.wants(name):
            continue
        errs = np.array(
            [
                ctx.cached(
                    {"suite": "lfs-table1", "dataset": name, "split": s, "alphas": alphas},
                    lambda name=name, s=s, k=k: _split_error(
                        name, alphas, seeds[k * n_splits + s]
                    ),
                )
                for s in ctx.progress(range(n_splits), name)
            ]
        )
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


@register_suite(
    "lfs-fig4",
    paper=PAPER,
    description="Fig. 4: percentage of representatives whose expected features (x1, x2 "
    "or both by subclass) are selected, per iteration, versus irrelevant features.",
)
def fig4(ctx: SuiteContext) -> list[dict[str, Any]]:
    n_irr = [1, 10, 100, 1000] if ctx.quick else [1, 10, 100, 1000, 10_000, 30_000]
    taus = [1, 2] if ctx.quick else [1, 2, 3, 4]
    records = []
    for n in ctx.progress(n_irr, "fig4"):
        X, y, relevant = make_lfs_synthetic(100, n, random_state=ctx.random_state)
        for tau in taus:
            est = LocalFeatureSelection(alpha=2, tau=tau, n_jobs=ctx.n_jobs).fit(X, y)
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


def _measure(fit) -> tuple[float, float]:
    """Wall time (best of two) and peak traced memory (MiB) of ``fit()``."""
    times = []
    for _ in range(2):
        t = time.perf_counter()
        fit()
        times.append(time.perf_counter() - t)
    tracemalloc.start()
    fit()
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return min(times), peak


@register_suite(
    "lfs-perf",
    paper=PAPER,
    description="Fit time (best of two runs) and peak traced memory: the authors' sample "
    "data, N=100 M=10,000, and scaling in M and N.",
)
def perf(ctx: SuiteContext) -> list[dict[str, Any]]:
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
        }
    )
    rng = np.random.default_rng(ctx.random_state)
    grid = [(100, 100), (100, 1000), (100, 10_000)]
    if not ctx.quick:
        grid += [(500, 100), (2000, 100)]
    for n, m in ctx.progress(grid, "scaling"):
        X, y, _ = make_lfs_synthetic(n, m - 2, random_state=int(rng.integers(2**31 - 1)))
        t, mem = _measure(lambda X=X, y=y: LocalFeatureSelection(n_jobs=ctx.n_jobs).fit(X, y))
        records.append(
            {
                "table": "scaling",
                "dataset": f"synthetic N={n} M={m}",
                "method": "LFS",
                "metric": "fit seconds",
                "value": t,
                "peak_mib": mem,
                "n_samples": n,
                "n_features": m,
            }
        )
    return records
