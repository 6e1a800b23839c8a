"""``localselect demo``: every estimator on embedded data, side by side.

Two problems: scikit-learn's breast cancer data (569 x 30, a stratified 70/30
split) and the LFS paper's synthetic design (two relevant features among
irrelevant noise, so recovery of the true features can be scored). Global
selectors are scored as ``StandardScaler -> selector -> 5-NN``; classifiers
are scored directly. The table grows as methods land: the list comes from
:func:`localselect.utils.all_estimators`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from rich.console import Console
from rich.table import Table
from sklearn.base import clone, is_classifier
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from localselect.base import LocalSelectorMixin
from localselect.datasets import make_lfs_synthetic
from localselect.utils import all_estimators

#: Constructor arguments that keep the demo short (seconds per method).
DEMO_PARAMS: dict[str, dict] = {
    "FisherScore": {"n_features_to_select": 5},
}


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
    """The embedded demo data sets, split into train and test."""
    data = load_breast_cancer()
    Xtr, Xte, ytr, yte = train_test_split(
        data.data, data.target, test_size=0.3, stratify=data.target, random_state=random_state
    )
    problems = [DemoProblem("breast_cancer", Xtr, Xte, ytr, yte, list(data.feature_names), None)]
    n_irrelevant = 8 if quick else 20
    X, y, relevant = make_lfs_synthetic(200, n_irrelevant, random_state=random_state)
    Xtr, Xte, ytr, yte = train_test_split(
        X, y, test_size=0.5, stratify=y, random_state=random_state
    )
    names = [f"x{j + 1}" for j in range(X.shape[1])]
    problems.append(
        DemoProblem("lfs_synthetic", Xtr, Xte, ytr, yte, names, np.asarray(relevant).any(axis=0))
    )
    return problems


def _as_model(estimator):
    if is_classifier(estimator):
        return make_pipeline(StandardScaler(), estimator)
    return make_pipeline(StandardScaler(), estimator, KNeighborsClassifier(n_neighbors=5))


def _selected_summary(step, names: list[str]) -> tuple[str, np.ndarray | None]:
    if isinstance(step, LocalSelectorMixin):
        local = step.get_local_support()
        support = local.any(axis=0)
        text = f"{local.sum(axis=1).mean():.1f}/sample; top: "
        order = np.argsort(-local.mean(axis=0), kind="stable")[:3]
        return text + ", ".join(names[j] for j in order), support
    if hasattr(step, "get_support"):
        support = step.get_support()
        chosen = [names[j] for j in np.flatnonzero(support)]
        text = ", ".join(chosen[:4]) + (f" (+{len(chosen) - 4})" if len(chosen) > 4 else "")
        return text, support
    return "-", None


def run_demo(console: Console, *, random_state: int = 0, quick: bool = False) -> int:
    """Fit every estimator on the demo problems and print a comparison table."""
    problems = demo_problems(random_state, quick)
    table = Table(title="localselect demo: test accuracy, fit time and selected features")
    for col in ("data", "method", "accuracy", "fit (s)", "selected features", "recovery"):
        table.add_column(
            col,
            justify="right" if col in ("accuracy", "fit (s)") else "left",
            no_wrap=col in ("data", "method", "accuracy", "fit (s)"),
        )
    baseline = KNeighborsClassifier(n_neighbors=5)
    for problem in problems:
        rows = [("5-NN, all features", baseline)] + [
            (name, cls(**DEMO_PARAMS.get(name, {}))) for name, cls in all_estimators()
        ]
        for name, est in rows:
            if "random_state" in est.get_params():
                est.set_params(random_state=random_state)
            model = _as_model(clone(est))
            start = time.perf_counter()
            model.fit(problem.X_train, problem.y_train)
            elapsed = time.perf_counter() - start
            accuracy = model.score(problem.X_test, problem.y_test)
            step = model.steps[1][1] if len(model.steps) > 1 else model
            selected, support = _selected_summary(step, problem.feature_names)
            recovery = "-"
            if problem.relevant is not None and support is not None:
                hit = int((support & problem.relevant).sum())
                recovery = (
                    f"{hit}/{int(problem.relevant.sum())} true, {int(support.sum()) - hit} noise"
                )
            table.add_row(
                problem.name, name, f"{accuracy:.3f}", f"{elapsed:.2f}", selected, recovery
            )
    console.print(table)
    return 0
