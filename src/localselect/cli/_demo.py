"""``localselect demo``: every estimator on embedded data, side by side.

Two problems: scikit-learn's breast cancer data (569 x 30, a stratified 70/30
split; ``--quick`` keeps a stratified 200 of the samples) and the LFS paper's
synthetic design (two relevant features among irrelevant noise, so recovery
of the true features can be scored). Global
selectors are scored as ``StandardScaler -> selector -> 5-NN``; classifiers
are scored directly. The table grows as methods land: the list comes from
:func:`localselect.utils.fast_estimators` (the ``"demo"`` settings of
each estimator declares on its class). A method that fails gets a row saying
why (the others still run) and the exit code is 1. ``--report DIR`` writes
``report.html`` (the table and, per selector, its selection frequency,
recovery of the known relevant features and weight matrix) and ``results.csv``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.markup import escape
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from localselect.base import is_selector, relevance_scope
from localselect.cli._terminal import print_table
from localselect.datasets import make_lfs_synthetic
from localselect.utils import fast_estimators

logger = logging.getLogger(__name__)


@dataclass
class DemoProblem:
    name: str
    X_train: np.ndarray
    X_test: np.ndarray
    y_train: np.ndarray
    y_test: np.ndarray
    feature_names: list[str]
    relevant: np.ndarray | None  # features truly relevant for some sample


def demo_problems(random_state: int = 0, quick: bool = False) -> list[DemoProblem]:
    """The embedded demo data sets, split into train and test (``quick``: smaller ones)."""
    data = load_breast_cancer()
    X_bc, y_bc = data.data, data.target
    if quick:  # a stratified 200 of the 569 samples keeps the slowest methods to seconds
        X_bc, _, y_bc, _ = train_test_split(
            X_bc, y_bc, train_size=200, stratify=y_bc, random_state=random_state
        )
    Xtr, Xte, ytr, yte = train_test_split(
        X_bc, y_bc, test_size=0.3, stratify=y_bc, random_state=random_state
    )
    problems = [DemoProblem("breast_cancer", Xtr, Xte, ytr, yte, list(data.feature_names), None)]
    n_irrelevant = 8 if quick else 20
    X, y, relevant = make_lfs_synthetic(200, n_irrelevant, random_state=random_state)
    Xtr, Xte, ytr, yte = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=random_state
    )
    names = [f"x{j + 1}" for j in range(X.shape[1])]
    truly_relevant = np.asarray(np.asarray(relevant).any(axis=0), dtype=bool)
    problems.append(DemoProblem("lfs_synthetic", Xtr, Xte, ytr, yte, names, truly_relevant))
    return problems


def _as_model(estimator):
    if is_classifier(estimator):
        return make_pipeline(StandardScaler(), estimator)
    return make_pipeline(StandardScaler(), estimator, KNeighborsClassifier(n_neighbors=5))


def _is_local(step) -> bool:
    """A selector whose rows may get different subsets (the rule of :mod:`localselect.base`)."""
    return is_selector(step) and relevance_scope(step) == "local"


def _selected_summary(step, names: list[str]) -> tuple[str, np.ndarray | None]:
    if _is_local(step):
        local = step.get_local_support()
        support = local.any(axis=0)
        text = f"{local.sum(axis=1).mean():.1f}/sample; top: "
        order = np.argsort(-local.mean(axis=0), kind="stable")[:3]
        return text + ", ".join(names[j] for j in order), support
    if is_selector(step):
        support = step.get_support()
        chosen = [names[j] for j in np.flatnonzero(support)]
        text = ", ".join(chosen[:4]) + (f" (+{len(chosen) - 4})" if len(chosen) > 4 else "")
        return text, support
    return "-", None


@dataclass
class DemoRow:
    problem: str
    method: str
    accuracy: float | None
    seconds: float | None
    selected: str
    recovery: str
    error: str | None = None
    fitted: Any = None  # the fitted selector/classifier step, for figures


def _run_one(problem: DemoProblem, name: str, est, random_state: int) -> DemoRow:
    if "random_state" in est.get_params():
        est.set_params(random_state=random_state)
    model = _as_model(clone(est))
    start = time.perf_counter()
    try:
        model.fit(problem.X_train, problem.y_train)
        elapsed = time.perf_counter() - start
        accuracy = model.score(problem.X_test, problem.y_test)
        step = model.steps[1][1] if len(model.steps) > 1 else model
        selected, support = _selected_summary(step, problem.feature_names)
    except Exception as exc:  # one broken method must not hide the others
        logger.debug("demo: %s failed on %s", name, problem.name, exc_info=True)
        message = " ".join(str(exc).split())[:120] or type(exc).__name__
        return DemoRow(problem.name, name, None, None, "-", "-", error=message)
    recovery = "-"
    if problem.relevant is not None and support is not None:
        hit = int((support & problem.relevant).sum())
        recovery = f"{hit}/{int(problem.relevant.sum())} true, {int(support.sum()) - hit} noise"
    return DemoRow(problem.name, name, accuracy, elapsed, selected, recovery, fitted=step)


def run_demo(
    console: Console,
    *,
    random_state: int = 0,
    quick: bool = False,
    report: str | Path | None = None,
) -> int:
    """Fit every estimator on the demo problems and print a comparison table.

    Parameters
    ----------
    console : rich.console.Console
        Where the table goes.
    random_state : int, default=0
        Seed of the splits and of every method.
    quick : bool, default=False
        Smaller synthetic data.
    report : str or Path, default=None
        Folder for ``report.html`` (table and figures) and ``results.csv``.

    Returns
    -------
    code : int
        0 when every method ran, 1 when at least one failed (its row says why).
    """
    problems = demo_problems(random_state, quick)
    where = "results.csv beside report.html" if report else "results.csv of --report DIR"
    baseline = KNeighborsClassifier(n_neighbors=5)
    rows: list[DemoRow] = []
    for problem in problems:
        cells: list[list[str]] = []
        candidates = [
            ("5-NN, all features", baseline),
            *fast_estimators("demo", ["classifier", "selector"]),
        ]
        for name, est in candidates:
            row = _run_one(problem, name, est, random_state)
            rows.append(row)
            if row.error is not None:
                error = escape(row.error)
                cells.append([name, "-", "-", f"[red]failed: {error}[/red]", "-"])
            else:
                cells.append(
                    [
                        name,
                        f"{row.accuracy:.3f}",
                        f"{row.seconds:.2f}",
                        escape(row.selected),
                        row.recovery,
                    ]
                )
        print_table(
            console,
            f"localselect demo on {problem.name}: test accuracy, fit time, selected features",
            ["method", "accuracy", "fit s", "selected", "recovery"],
            cells,
            shrink=["selected", "recovery"],
            right=["accuracy", "fit s"],
            note=f"(cut to the terminal width; full values in {where})",
        )
    if report is not None:
        path = write_demo_report(Path(report), problems, rows)
        console.print(f"report written to {path}", highlight=False, soft_wrap=True)
    return 1 if any(r.error is not None for r in rows) else 0


def _answer_section(problems: list[DemoProblem], rows: list[DemoRow]) -> list[str]:
    """The answer first: per problem, the regimes of the most accurate local selector.

    :func:`localselect.regimes.find_regimes` of its answers on the training
    rows as the pipeline saw them (standardised), in words and as the where
    figure (:func:`localselect.plotting.plot_regimes`).
    """
    import html

    from localselect import plotting
    from localselect.cli._report import figure_to_html
    from localselect.regimes import find_regimes

    parts = ["<h2>The answer: which features matter where</h2>"]
    for problem in problems:
        local = [r for r in rows if r.problem == problem.name and r.error is None
                 and r.fitted is not None and _is_local(r.fitted)]  # fmt: skip
        if not local:
            continue
        best = max(local, key=lambda r: r.accuracy or 0.0)
        X = StandardScaler().fit_transform(problem.X_train)
        regimes = find_regimes(best.fitted, X, problem.y_train, random_state=0)
        text = regimes.describe(problem.feature_names)
        parts.append(
            f"<h3>{html.escape(problem.name)}: {html.escape(best.method)} "
            f"(the most accurate local selector, {best.accuracy:.3f})</h3>"
            f'<p class="answer">{html.escape(text)}</p>'
        )
        if regimes.n_regimes > 1:
            fig = plotting.plot_regimes(regimes, X, feature_names=problem.feature_names)
            parts.append(figure_to_html(fig, f"where each feature matters, {best.method}"))
    return parts if len(parts) > 1 else []


def write_demo_report(folder: Path, problems: list[DemoProblem], rows: list[DemoRow]) -> Path:
    """Write ``report.html`` (the table and each selector's figures) and ``results.csv``."""
    import html

    import pandas as pd

    from localselect import plotting
    from localselect.cli._report import figure_to_html

    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.DataFrame(
        [
            {
                "data": r.problem,
                "method": r.method,
                "accuracy": r.accuracy,
                "fit_seconds": r.seconds,
                "selected": r.selected,
                "recovery": r.recovery,
                "error": r.error or "",
            }
            for r in rows
        ]
    )
    frame.to_csv(folder / "results.csv", index=False)
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        "<title>localselect demo</title><style>body{font-family:sans-serif;max-width:1100px;"
        "margin:2em auto}table{border-collapse:collapse}td,th{padding:2px 8px;"
        "border-bottom:1px solid #ddd;text-align:left}img{max-width:100%}"
        ".answer{font-size:1.1em;line-height:1.5}</style></head><body>",
        "<h1>localselect demo</h1>",
        *_answer_section(problems, rows),
        "<h2>Every method</h2>",
        "<p>Test accuracy after a stratified split; global selectors feed a 5-NN, "
        "classifiers predict themselves. Recovery counts the truly relevant features "
        "(known for the synthetic data) among those selected.</p>",
        frame.to_html(index=False, border=0, na_rep="-", float_format=lambda v: f"{v:.3f}"),
    ]
    by_name = {p.name: p for p in problems}
    for row in rows:
        step = row.fitted
        if row.error is not None or step is None or row.method.startswith("5-NN"):
            continue
        problem = by_name[row.problem]
        figures = []
        local = _is_local(step)
        if local or hasattr(step, "feature_importances_"):
            highlight = problem.relevant if problem.relevant is not None else None
            what = "selection frequency" if local else "feature importances"
            if highlight is not None:
                what += " (red: truly relevant)"
            figures.append(
                plotting.plot_selection_frequency(
                    step,
                    feature_names=problem.feature_names,
                    highlight=highlight,
                    title=f"{row.method}: {what}",
                )
            )
        if problem.relevant is not None and local:
            truth = np.broadcast_to(problem.relevant, step.get_local_support().shape)
            figures.append(
                plotting.plot_feature_recovery(
                    truth, step, feature_names=problem.feature_names, n_samples=15
                )
            )
        weights = getattr(step, "weights_", None)
        if weights is not None and np.ndim(weights) == 2:
            figures.append(
                plotting.plot_weight_matrix(weights, feature_names=problem.feature_names, top=20)
            )
        if figures:
            parts.append(f"<h2>{html.escape(row.method)} on {html.escape(row.problem)}</h2>")
            parts += [figure_to_html(fig, row.method) for fig in figures]
    parts.append("</body></html>")
    path = folder / "report.html"
    path.write_text("\n".join(parts) + "\n")
    return path
