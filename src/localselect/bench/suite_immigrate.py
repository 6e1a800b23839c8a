"""IMMIGRATE paper (Zhao, Hong and Liu 2020): Tables 1-3, Fig. 3 and speed of the margin family.

Suites
------
``immigrate-table2``
    IMMIGRATE (IGT) on the UCI data sets of Table 2 with the paper's protocol:
    z-scores fitted on each training fold; data sets with more than two
    classes keep their two largest (ties: the class listed first by
    ``np.unique``); 10 times 10-fold stratified cross-validation; sigma in
    {4, 2, 1, 0.5, 0.25} and pruning on/off chosen by an internal 5-fold
    cross-validation on the training fold (``GridSearchCV``); paired t-test
    W/T/L of IGT against the baselines we run.
``bim-table3``
    Boosted IMMIGRATE (BIM; T=100, sigma 4 -> 0.2, 5 iterations per round)
    against AdaBoost, random forest and XGBoost (when installed), same protocol.
``immigrate-table1``
    IM4E-IMMIGRATE (EGT) and its boosted form (B4G) on the gene-expression
    sets Colon (Alon, 62 x 2000) and Prostate (Singh, 102 x 12600), with sigma
    fixed at 1 (the paper's internal search is out of reach on 12,600
    features: one EGT fit is ~10-30 s here).
``immigrate-fig3``
    The synthetic interaction study: weight of the interaction of features 1
    and 2 as the noise level rises from 5% to 50%, beside the largest
    interaction among three added N(0, 1) features.
``margin-perf``
    Timings: IMMIGRATE on 500 x 60 (10 iterations) against the R package
    Immigrate 0.2.1 (when ``Rscript`` and the package are installed); ReliefF
    on 200 x 2000 against scikit-rebate and fast-select (when installed);
    IM4E-IMMIGRATE on Singh's 102 x 12600 prostate data. Each timing is the
    best of ``repeats`` runs (the machine may be shared).

Quick mode (``--quick``) shrinks every protocol (2 x 5-fold CV, internal
3-fold CV over sigma in {2, 1, 0.5}, a few small data sets, fewer boosting
rounds) to finish in about two minutes per suite; its numbers are not the
paper's protocol and say so in their ``protocol`` field.

Every cell derives its seed from the suite's ``random_state`` up front, so
``--n-jobs`` (parallel outer folds) never changes a number.
"""

from __future__ import annotations

import json
import logging
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, RepeatedStratifiedKFold, StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.parallel import Parallel, delayed

from localselect import IM4E, BoostedImmigrate, Immigrate, ReliefF
from localselect.bench._baselines import classifier_baselines
from localselect.bench._core import SuiteContext, load_published, register_suite
from localselect.bench._stats import aggregate_trials
from localselect.datasets import load_dataset

logger = logging.getLogger(__name__)

PAPER = (
    "R. Zhao, P. Hong and J. S. Liu, IMMIGRATE: A margin-based feature selection method "
    "with interaction terms, Entropy 22(3), 291, 2020"
)

#: Table 2/3 abbreviations -> our data set names (see the data MANIFEST, "IMM T4").
UCI_DATASETS: dict[str, str] = {
    "BCW": "wpbc",
    "CRY": "cryotherapy",
    "CUS": "wholesale_customers",
    "ECO": "ecoli",
    "GLA": "Glass",
    "HMS": "pmlb_haberman",
    "IMM": "immunotherapy",
    "ION": "Ionosphere",
    "LYM": "pmlb_lymphography",
    "MON": "pmlb_monk1",
    "PAR": "parkinsons",
    "PID": "PimaIndiansDiabetes",
    "SMR": "Sonar",
    "STA": "pmlb_heart_statlog",
    "URB": "urban_land_cover",
    "USE": "user_knowledge",
    "WIN": "sklearn_wine",
}
#: Large-scale sets of Tables 2/3: run only when named with ``--datasets``.
LARGE_DATASETS: dict[str, str] = {"ELE*": "electrical_grid_stability", "WAV*": "pmlb_waveform_21"}
#: Table 1 abbreviations -> data set names.
GENE_DATASETS: dict[str, str] = {"COL": "dm_alon", "PRO": "dm_singh"}

QUICK_UCI = ["CRY", "IMM", "HMS", "WIN"]
SIGMAS_FULL = [4.0, 2.0, 1.0, 0.5, 0.25]
SIGMAS_QUICK = [2.0, 1.0, 0.5]

#: Our baselines for the paper's columns (paper abbreviation -> classifier_baselines name).
TABLE2_BASELINES = {
    "SV1": "SVM-sigmoid",
    "SV2": "SVM-RBF",
    "LAS": "L1-LR",
    "DT": "DT",
    "NBC": "NB",
    "1NN": "1-NN",
    "3NN": "3-NN",
    "LDA": "LDA",
}
TABLE3_BASELINES = {"ADB": "AdaBoost", "RF": "RF", "XGB": "XGBoost"}
TABLE1_BASELINES = {"SV2": "SVM-RBF", "LAS": "L1-LR", "1NN": "1-NN", "3NN": "3-NN", "RF": "RF"}


# ----------------------------------------------------------------------------- data and protocol


def _two_largest_classes(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows without missing values, of the two most frequent classes (paper, Sec. 4.2.2)."""
    ok = np.all(np.isfinite(X), axis=1)
    X, y = X[ok], y[ok]
    classes, counts = np.unique(y, return_counts=True)
    if len(classes) > 2:
        keep = classes[np.argsort(-counts, kind="stable")[:2]]
        rows = np.isin(y, keep)
        X, y = X[rows], y[rows]
    return X, y


def _load(name: str) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_dataset(name)
    return _two_largest_classes(np.asarray(X, dtype=float), np.asarray(y))


def _protocol(quick: bool) -> dict[str, Any]:
    if quick:
        return {"n_repeats": 2, "n_splits": 5, "inner": 3, "sigmas": SIGMAS_QUICK}
    return {"n_repeats": 10, "n_splits": 10, "inner": 5, "sigmas": SIGMAS_FULL}


def _describe(p: dict[str, Any]) -> str:
    return (
        f"{p['n_repeats']}x{p['n_splits']}-fold CV, z-scores per fold, sigma in "
        f"{p['sigmas']} and pruning by internal {p['inner']}-fold CV"
    )


def _tuned_immigrate(p: dict[str, Any], seed: int) -> GridSearchCV:
    grid = {"immigrate__sigma": p["sigmas"], "immigrate__prune": [False, True]}
    pipe = make_pipeline(StandardScaler(), Immigrate(max_iter=10))
    cv = StratifiedKFold(p["inner"], shuffle=True, random_state=seed)
    return GridSearchCV(pipe, grid, cv=cv, error_score="raise")


def _fold_scores(models: dict[str, Any], X, y, train, test) -> dict[str, float]:
    scores = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name, model in models.items():
            fitted = clone(model).fit(X[train], y[train])
            scores[name] = 100.0 * float(np.mean(fitted.predict(X[test]) == y[test]))
    return scores


def _cross_validate(
    ctx: SuiteContext, key: str, X, y, make_models, p: dict[str, Any], seed: int
) -> dict[str, np.ndarray]:
    """Per-trial accuracies (percent) of every model over the repeated CV, cached per data set."""

    def compute():
        cv = RepeatedStratifiedKFold(
            n_splits=p["n_splits"], n_repeats=p["n_repeats"], random_state=seed
        )
        splits = list(cv.split(X, y))
        fold_seeds = np.random.RandomState(seed).randint(2**31 - 1, size=len(splits))
        rows = Parallel(n_jobs=ctx.n_jobs)(
            delayed(_fold_scores)(make_models(int(s)), X, y, tr, te)
            for (tr, te), s in zip(splits, fold_seeds)
        )
        return {name: np.array([r[name] for r in rows]) for name in rows[0]}

    return ctx.cached({"cell": key, "seed": seed, **{k: str(v) for k, v in p.items()}}, compute)


def _records(
    trials: dict[str, np.ndarray],
    *,
    reference: str,
    table: str,
    dataset: str,
    published: dict[str, Any],
    protocol: str,
) -> list[dict[str, Any]]:
    records = aggregate_trials(
        trials, reference=reference, table=table, dataset=dataset, metric="accuracy"
    )
    row = published["values"].get(dataset, {})
    for record in records:
        record["published"] = row.get(record["method"])
        record["protocol"] = protocol
    return records


def _baseline_models(columns: dict[str, str], seed: int) -> dict[str, Any]:
    available = classifier_baselines()
    return {
        col: make_pipeline(StandardScaler(), available[name](random_state=seed))
        for col, name in columns.items()
        if name in available
    }


def _selected(ctx: SuiteContext, default: list[str], extra: dict[str, str]) -> list[str]:
    if ctx.datasets is None:
        return default
    wanted = {d.lower() for d in ctx.datasets}
    names = list(UCI_DATASETS) + list(extra)
    return [
        code
        for code in names
        if code.lower().rstrip("*") in wanted or {**UCI_DATASETS, **extra}[code].lower() in wanted
    ]


# ----------------------------------------------------------------------------- Table 2


@register_suite(
    "immigrate-table2",
    paper=PAPER + ", Table 2 (IGT column)",
    description=(
        "IMMIGRATE accuracy (percent) on the UCI data of Table 2 with the paper's protocol, "
        "beside the published IGT column and the baselines we can run, with the paired "
        "t-test (W,T,L) of IGT against each."
    ),
)
def table2(ctx: SuiteContext) -> list[dict[str, Any]]:
    published = load_published("immigrate_table2")
    p = _protocol(ctx.quick)
    codes = _selected(ctx, QUICK_UCI if ctx.quick else list(UCI_DATASETS), LARGE_DATASETS)
    names = {**UCI_DATASETS, **LARGE_DATASETS}
    records: list[dict[str, Any]] = []
    for code in ctx.progress(codes, "Table 2"):
        X, y = _load(names[code])
        seed = ctx.random_state  # same seed per data set: cells cache independently

        def models(s, p=p):
            return {"IGT": _tuned_immigrate(p, s), **_baseline_models(TABLE2_BASELINES, s)}

        start = time.perf_counter()
        trials = _cross_validate(ctx, f"t2-{code}", X, y, models, p, seed)
        logger.info("Table 2 %s: %.1f s", code, time.perf_counter() - start)
        records += _records(
            trials,
            reference="IGT",
            table="Table 2",
            dataset=code,
            published=published,
            protocol=_describe(p),
        )
    return records


# ----------------------------------------------------------------------------- Table 3


@register_suite(
    "bim-table3",
    paper=PAPER + ", Table 3 (BIM column)",
    description=(
        "Boosted IMMIGRATE accuracy (percent) on the UCI data of Table 3 beside the published "
        "BIM column, AdaBoost, random forest and XGBoost, with the paired t-test (W,T,L)."
    ),
)
def table3(ctx: SuiteContext) -> list[dict[str, Any]]:
    published = load_published("immigrate_table3")
    p = _protocol(ctx.quick)
    n_estimators = 10 if ctx.quick else 100
    codes = _selected(ctx, QUICK_UCI[:3] if ctx.quick else list(UCI_DATASETS), LARGE_DATASETS)
    names = {**UCI_DATASETS, **LARGE_DATASETS}
    records: list[dict[str, Any]] = []
    for code in ctx.progress(codes, "Table 3"):
        X, y = _load(names[code])
        seed = ctx.random_state  # same seed per data set: cells cache independently

        def models(s, n_estimators=n_estimators):
            bim = BoostedImmigrate(n_estimators=n_estimators, random_state=s)
            return {
                "BIM": make_pipeline(StandardScaler(), bim),
                **_baseline_models(TABLE3_BASELINES, s),
            }

        trials = _cross_validate(ctx, f"t3-{code}-{n_estimators}", X, y, models, p, seed)
        records += _records(
            trials,
            reference="BIM",
            table="Table 3",
            dataset=code,
            published=published,
            protocol=f"{p['n_repeats']}x{p['n_splits']}-fold CV, z-scores per fold, "
            f"T={n_estimators}, sigma 4 -> 0.2, 5 iterations per round",
        )
    return records


# ----------------------------------------------------------------------------- Table 1


@register_suite(
    "immigrate-table1",
    paper=PAPER + ", Table 1 (EGT and B4G on Colon and Prostate)",
    description=(
        "IM4E-IMMIGRATE (EGT) and boosted IM4E-IMMIGRATE (B4G) accuracy (percent) on the "
        "gene-expression data Colon and Prostate, beside the published columns and the "
        "baselines we can run, with the paired t-test (W,T,L) of B4G."
    ),
)
def table1(ctx: SuiteContext) -> list[dict[str, Any]]:
    published = load_published("immigrate_table1")
    if ctx.quick:
        p = {"n_repeats": 1, "n_splits": 5, "inner": 0, "sigmas": [1.0]}
        codes, n_estimators = ["COL"], 3
    else:
        p = {"n_repeats": 10, "n_splits": 10, "inner": 0, "sigmas": [1.0]}
        codes, n_estimators = list(GENE_DATASETS), 20
    if ctx.datasets is not None:
        wanted = {d.lower() for d in ctx.datasets}
        codes = [c for c in GENE_DATASETS if c.lower() in wanted or GENE_DATASETS[c] in wanted]
    records: list[dict[str, Any]] = []
    for code in ctx.progress(codes, "Table 1"):
        X, y = _load(GENE_DATASETS[code])
        seed = ctx.random_state  # same seed per data set: cells cache independently

        def models(s, n_estimators=n_estimators):
            egt = Immigrate(1.0, prescreen="auto", init="im4e")
            b4g = BoostedImmigrate(
                n_estimators=n_estimators, prescreen="auto", init="im4e", random_state=s
            )
            return {
                "EGT": make_pipeline(StandardScaler(), egt),
                "B4G": make_pipeline(StandardScaler(), b4g),
                **_baseline_models(TABLE1_BASELINES, s),
            }

        trials = _cross_validate(ctx, f"t1-{code}-{n_estimators}", X, y, models, p, seed)
        records += _records(
            trials,
            reference="B4G",
            table="Table 1",
            dataset=code,
            published=published,
            protocol=f"{p['n_repeats']}x{p['n_splits']}-fold CV, z-scores per fold, sigma=1, "
            f"IM4E pre-screen 2/A, B4G with T={n_estimators} (paper: 100)",
        )
    return records


# ----------------------------------------------------------------------------- Fig. 3


@register_suite(
    "immigrate-fig3",
    paper=PAPER + ", Sec. 4.1 and Fig. 3",
    description=(
        "Weight of the interaction of features 1 and 2 learned by IMMIGRATE (sigma=1, z-scored "
        "data, 100 samples per class) as the noise level rises, beside the largest "
        "interaction weight among three added N(0, 1) features (mean and std over seeds)."
    ),
)
def fig3(ctx: SuiteContext) -> list[dict[str, Any]]:
    from localselect.datasets import make_immigrate_synthetic

    n_seeds = 3 if ctx.quick else 20
    records = []
    for level in ctx.progress(np.round(np.arange(0.05, 0.51, 0.05), 2), "Fig. 3"):
        inter, noise = [], []
        for s in range(n_seeds):
            X, y, _ = make_immigrate_synthetic(
                100,
                noise_level=float(level),
                n_noise_features=3,
                random_state=ctx.random_state + s,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                W = Immigrate(1.0).fit(StandardScaler().fit_transform(X), y).weights_
            inter.append(W[0, 1])
            noise.append(W[2:, 2:][np.triu_indices(3, 1)].max())
        for name, vals in (("w12 (features 1, 2)", inter), ("max noise interaction", noise)):
            records.append(
                {
                    "table": "Fig. 3",
                    "dataset": f"noise {level:.2f}",
                    "method": name,
                    "metric": "interaction weight",
                    "value": float(np.mean(vals)),
                    "std": float(np.std(vals, ddof=1)),
                    "n_trials": n_seeds,
                }
            )
    return records


# ----------------------------------------------------------------------------- speed

R_SCRIPT = """
suppressMessages(library(Immigrate))
d <- as.matrix(read.csv("{data}", header = FALSE))
yy <- d[, 1]; xx <- d[, -1]
best <- Inf
for (r in 1:{repeats}) {{
  t <- system.time(res <- Immigrate(xx, yy, epsilon = -1, max_iter = {max_iter}))[["elapsed"]]
  best <- min(best, t)
}}
cat(best, res$iter_num, "\\n")
"""


def _best_time(fn, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return float(best)


def _r_immigrate_seconds(X, y, max_iter: int, repeats: int) -> tuple[float | None, str]:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return None, "Rscript not found"
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data.csv"
        np.savetxt(data, np.column_stack([y, X]), delimiter=",")
        script = Path(tmp) / "run.R"
        script.write_text(R_SCRIPT.format(data=data, repeats=repeats, max_iter=max_iter))
        out = subprocess.run([rscript, str(script)], capture_output=True, text=True)
    if out.returncode != 0:
        return None, f"R failed: {out.stderr.strip()[-200:]}"
    seconds, iters = out.stdout.split()[:2]
    return float(seconds), f"R Immigrate 0.2.1, {int(float(iters))} iterations"


#: One IMMIGRATE fit in a fresh interpreter; prints its time and peak resident memory.
_RSS_SCRIPT = """
import json, resource, sys, time, warnings
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from localselect import Immigrate
n, a, iters, seed = (int(v) for v in sys.argv[1:5])
rng = np.random.default_rng(seed)
X = rng.normal(size=(n, a))
y = (X[:, 0] * X[:, 1] + 0.5 * rng.normal(size=n) > 0).astype(int)
def hwm():
    # VmHWM: this process's own peak. ru_maxrss would include the parent's peak,
    # which Linux carries over a fork + exec.
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
before = hwm()
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    Immigrate(max_iter=iters, tol=0.0).fit(X, y)
fit = time.perf_counter() - t
peak = hwm()
print(json.dumps({"fit_seconds": fit, "peak_rss_mib": peak, "rss_before_fit_mib": before}))
"""


def _immigrate_rss(n: int, a: int, iters: int, seed: int) -> dict[str, Any]:
    """Time and peak RSS (MiB, ``VmHWM``) of one IMMIGRATE fit in a subprocess."""
    proc = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT, str(n), str(a), str(iters), str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


@register_suite(
    "margin-perf",
    paper=PAPER + " (speed of our margin kernels against reference implementations)",
    description=(
        "Wall-clock seconds (best of repeated runs on a possibly shared machine): IMMIGRATE "
        "500 x 60, 10 iterations, against the R package; ReliefF 200 x 2000 against "
        "scikit-rebate and fast-select; IM4E-IMMIGRATE on Singh's 102 x 12600 prostate data."
    ),
)
def perf(ctx: SuiteContext) -> list[dict[str, Any]]:
    repeats = 2
    rng = np.random.default_rng(ctx.random_state)
    records: list[dict[str, Any]] = []

    def add(task, method, seconds, note=""):
        records.append(
            {
                "table": "speed",
                "dataset": task,
                "method": method,
                "metric": "seconds",
                "value": seconds,
                "note": note,
            }
        )

    # IMMIGRATE, 500 x 60, exactly 10 iterations (tol=0 / epsilon=-1 disable early stops)
    X = rng.normal(size=(500, 60))
    y = (X[:, 0] * X[:, 1] + 0.5 * rng.normal(size=500) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = _best_time(lambda: Immigrate(max_iter=10, tol=0.0).fit(X, y), repeats)
    add("IMMIGRATE 500x60, 10 iterations", "localselect", ours)
    r_seconds, note = _r_immigrate_seconds(X, y, 10, 1 if ctx.quick else repeats)
    add("IMMIGRATE 500x60, 10 iterations", "R Immigrate", r_seconds, note)
    if r_seconds is not None:
        add("IMMIGRATE 500x60, 10 iterations", "speed-up vs R", r_seconds / ours)

    # ReliefF, 200 x 2000, k = 10
    X = rng.normal(size=(200, 2000))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    ours = _best_time(lambda: ReliefF(n_neighbors=10).fit(X, y), repeats)
    add("ReliefF 200x2000, k=10", "localselect", ours)
    try:
        import skrebate

        theirs = _best_time(
            lambda: skrebate.ReliefF(n_neighbors=10, n_features_to_select=10).fit(X, y),
            1 if ctx.quick else repeats,
        )
        add("ReliefF 200x2000, k=10", "scikit-rebate", theirs)
        add("ReliefF 200x2000, k=10", "speed-up vs scikit-rebate", theirs / ours)
    except ImportError:
        add("ReliefF 200x2000, k=10", "scikit-rebate", None, "not installed")
    try:
        from fast_select import ReliefF as FastReliefF

        FastReliefF(n_neighbors=10, n_features_to_select=10).fit(X[:20], y[:20])  # compile
        theirs = _best_time(
            lambda: FastReliefF(n_neighbors=10, n_features_to_select=10).fit(X, y), repeats
        )
        add("ReliefF 200x2000, k=10", "fast-select (compiled)", theirs)
        add("ReliefF 200x2000, k=10", "speed-up vs fast-select", theirs / ours)
    except ImportError:
        add("ReliefF 200x2000, k=10", "fast-select", None, "not installed")

    # IM4E-IMMIGRATE on Singh's prostate data (102 x 12600), sigma = 1, 10 iterations
    # (quick mode times the IM4E pre-screen only)
    if not (ctx.wants("dm_singh") or ctx.wants("singh")):
        return records
    X, y = load_dataset("dm_singh")
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if not ctx.quick:
            model = Immigrate(1.0, prescreen="auto", init="im4e")
            seconds = _best_time(lambda: model.fit(X, y), repeats)
            note = f"{int(model.prescreen_support_.sum())} features kept, {model.n_iter_} iter."
            add("IM4E-IMMIGRATE singh 102x12600", "localselect", seconds, note)
        seconds = _best_time(lambda: IM4E(1.0).fit(X, y), repeats)
    add("IM4E singh 102x12600 (pre-screen alone)", "localselect", seconds)

    # Bounded memory (issue 8): IMMIGRATE N = 10,000, A = 50, 2 iterations, fresh
    # interpreter; the acceptance bound is 4 GiB of peak resident memory.
    if not ctx.quick:
        rss = _immigrate_rss(10_000, 50, 2, ctx.random_state)
        task = "IMMIGRATE N=10000, A=50, 2 iterations (fresh interpreter)"
        add(task, "localselect", rss["fit_seconds"])
        records.append(
            {
                "table": "memory",
                "dataset": task,
                "method": "localselect",
                "metric": "peak RSS (MiB)",
                "value": rss["peak_rss_mib"],
                "note": f"{rss['rss_before_fit_mib']:.0f} MiB before the fit; bound 4096 MiB",
            }
        )
    return records
