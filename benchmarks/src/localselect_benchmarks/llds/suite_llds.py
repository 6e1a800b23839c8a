"""LLDS benchmarks: Table 5 and the Congressional Voting analysis (sec. 4.2); search speed."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from localselect import LiftFeatureSelector
from localselect.datasets import load_dataset
from localselect.lift import dependence, lift_table
from localselect_benchmarks._core import SuiteContext, load_published, register_suite

PAPER = (
    "Marcondes, Simonis and Barrera (2017), Feature selection based on the Local Lift "
    "Dependence Scale, arXiv:1711.04181"
)


def _house_votes():
    X, y = load_dataset("HouseVotes84", as_frame=True)
    X = X.copy()
    X.columns = load_published("llds_table5")["feature_codes"]
    return X, y


def _fmt(values) -> str:
    return "(" + ",".join(str(v) for v in values) + ")"


def _algorithm3(X, y, party: str, top_k: int) -> tuple[LiftFeatureSelector, float]:
    start = time.perf_counter()
    sel = LiftFeatureSelector("profiles", min_support=0.15, target_class=party, top_k=top_k)
    sel.fit(X, y)
    return sel, time.perf_counter() - start


@register_suite("llds-table5", paper=PAPER)
def table5(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Table 5 (Algorithm 3 on HouseVotes84, min_support 0.15, complete cases per feature
    set) beside the paper's, and the section 4.2 analysis end to end: best voting profiles
    per party, their lift tables (heat maps) and the lattice searched."""
    records: list[dict[str, Any]] = []
    if not ctx.wants("HouseVotes84"):
        return records
    published = load_published("llds_table5")
    X, y = _house_votes()
    top_k = 30
    fits = {}
    for party in ctx.progress(["democrat", "republican"], "Algorithm 3"):
        fits[party] = ctx.cached(
            {"suite": "llds-table5", "party": party, "top_k": top_k},
            lambda party=party: _algorithm3(X, y, party, top_k)[0],
        )
    # Table 5 beside the paper's: each published profile, our lift, sample size and rank.
    for row in published["rows"]:
        res = fits[row["party"]].results_
        key = (tuple(row["features"]), tuple(row["profile"]))
        found = [
            i for i, (f, p) in enumerate(zip(res["features"], res["profile"])) if (f, p) == key
        ]
        hit = res.iloc[found[0]] if found else None
        records.append(
            {
                "table": "Table 5",
                "dataset": f"{_fmt(row['features'])}={_fmt(row['profile'])}",
                "method": row["party"],
                "metric": "lift",
                "value": None if hit is None else float(hit["lift"]),
                "published": row["lift"],
            }
        )
        records.append(
            {
                "table": "Table 5 (sample sizes and ranks)",
                "party": row["party"],
                "features": _fmt(row["features"]),
                "profile": _fmt(row["profile"]),
                "sample size (ours)": None if hit is None else int(hit["n_complete"]),
                "sample size (paper)": row["sample_size"],
                "support (ours)": None if hit is None else round(float(hit["support"]), 4),
                "rank among our top 30": None if hit is None else found[0] + 1,
            }
        )
    # Section 4.2 end to end: our own best profiles per party, and the searched lattice.
    n_show = 5 if ctx.quick else 10
    for party, sel in fits.items():
        for rank, (_, r) in enumerate(sel.results_.head(n_show).iterrows(), start=1):
            records.append(
                {
                    "table": "Section 4.2: most prone voting profiles",
                    "party": party,
                    "rank": rank,
                    "features": _fmt(r["features"]),
                    "profile": _fmt(r["profile"]),
                    "lift": round(float(r["lift"]), 4),
                    "support": round(float(r["support"]), 4),
                    "n_complete": int(r["n_complete"]),
                }
            )
        records.append(
            {
                "table": "Section 4.2: lattice searched",
                "party": party,
                "profiles visited (survived the count bound)": sel.n_visited_,
                "candidate profiles counted": sel.n_counted_,
                "profiles with support >= 0.15": sel.n_passed_,
                "best lift": round(float(sel.results_["lift"].iloc[0]), 4),
                "paper best lift": 1.94 if party == "democrat" else 2.65,
            }
        )
        best = sel.results_.iloc[0]
        cols = list(best["features"])
        table = lift_table(X[cols], y)
        records.append(
            {
                "table": "Section 4.2: lift tables of the best profiles",
                "party": party,
                "features": _fmt(cols),
                "eta(X_A)": round(dependence(X[cols], y), 4),
                "eta(best profile)": round(dependence(X[cols], y, window=[best["profile"]]), 4),
                "profiles observed": len(table),
                "figure": _save_heat_map(ctx, table, party, cols),
            }
        )
    return records


def _save_heat_map(ctx: SuiteContext, table, party: str, cols: list[str]) -> str | None:
    try:
        from localselect.plotting import plot_lift_table
    except ImportError:  # pragma: no cover - matplotlib is optional
        ctx.note("lift-table heat maps not drawn: matplotlib is not installed")
        return None
    fig = plot_lift_table(table, title=f"Lift of party given {_fmt(cols)} (HouseVotes84)")
    name = f"lift_table_{party}.png"
    ctx.out.mkdir(parents=True, exist_ok=True)
    fig.savefig(ctx.out / name, dpi=100)
    return name


def _scaling_data(n_rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """10 features with 5 levels (quintile codes) and 7 classes driven by features 0, 3, 7."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n_rows, 10)).astype(np.float64)
    score = X[:, 0] + 0.7 * X[:, 3] - 0.5 * X[:, 7] + rng.normal(0, 1.0, n_rows)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, 8)[1:-1]))
    return X, y


def _best_of(repeats: int, fn) -> tuple[float, Any]:
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


@register_suite("llds-perf", paper=PAPER)
def perf(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Search speed (best of 2 runs; wall seconds): Algorithm 3 on HouseVotes84 (16
    features, min_support 0.15; target < 10 s) and Algorithm 1 over subsets of up to 3 of 10
    discretised features as N grows (target < 30 s at 1,000,000 rows)."""
    records: list[dict[str, Any]] = []
    if ctx.wants("HouseVotes84"):
        X, y = _house_votes()
        for party in ("democrat", "republican"):
            seconds, sel = _best_of(2, lambda party=party: _algorithm3(X, y, party, 30)[0])
            records.append(
                {
                    "table": "Algorithm 3 on HouseVotes84",
                    "target_class": party,
                    "fit seconds": round(seconds, 3),
                    "target seconds": 10.0,
                    "profiles visited": sel.n_visited_,
                    "candidates counted": sel.n_counted_,
                    "qualifying profiles": sel.n_passed_,
                }
            )
    sizes = [10_000, 100_000] if ctx.quick else [10_000, 100_000, 1_000_000]
    seed = ctx.seeds(1)[0]
    for n_rows in ctx.progress(sizes, "Algorithm 1 scaling"):
        X, y = _scaling_data(n_rows, seed)
        seconds, sel = _best_of(
            2,
            lambda X=X, y=y: LiftFeatureSelector(
                "features", max_features=3, n_jobs=ctx.n_jobs
            ).fit(X, y),
        )
        records.append(
            {
                "table": "Algorithm 1, subsets of up to 3 of 10 features",
                "n_rows": n_rows,
                "fit seconds": round(seconds, 3),
                "microseconds per row": round(1e6 * seconds / n_rows, 3),
                "subsets": sel.n_visited_,
                "best subset": _fmt(sel.results_["features"].iloc[0]),
                "best eta": round(float(sel.results_["score"].iloc[0]), 4),
            }
        )
    return records
