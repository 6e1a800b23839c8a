"""The task of a ``select`` run: class labels or a continuous target (``--task``).

``select`` reads the target column, detects the task as the estimators do
(one rule, :func:`localselect._targets.describe_task`: floats that are not
all integers, and integer quantities such as a price in whole units, are
continuous; labels, ratings and other few-valued integers are classes) unless
``--task`` names it, prints the task and the measurement behind it, and hands
it to an estimator that takes a ``task`` parameter, so the library and the
command line agree. A continuous target for a method defined for class labels
is refused before any fit, naming the methods that take one; so are class
labels that no classification can fit (mostly one-row classes, or more than
:data:`~localselect._targets.MAX_CLASSES` classes,
:func:`~localselect._targets.class_count_problem`). Where the fitted model
predicts a continuous target, the run reports its R^2 and RMSE on the training
rows.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from localselect._estimators import cli_methods, continuous_target_names, declaration
from localselect.cli._errors import CLIError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["add_task_argument", "describe_task", "regression_scores", "resolve_task"]


def add_task_argument(p: argparse.ArgumentParser) -> None:
    """``--task auto|classification|regression``."""
    p.add_argument(
        "--task",
        choices=["auto", "classification", "regression"],
        default="auto",
        help="what the target is: auto (floats that are not all integers, and integers "
        "that are a quantity: 50 or more distinct values with few rows each, or 20 or more not "
        "coded 0..K-1/1..K, are a continuous target; anything else class labels), classification, "
        "or regression; select prints the task it used and why",
    )


def _taker_methods() -> str:
    takers = set(continuous_target_names())
    names = sorted(name for name, cls in cli_methods().items() if cls.__name__ in takers)
    return ", ".join(names) if names else "none yet"


def resolve_task(
    frame: pd.DataFrame, target: str, args: argparse.Namespace, estimator: Any
) -> str:
    """The run's task, set on ``estimator`` when it takes ``task``; refusals as :class:`CLIError`.

    Parameters
    ----------
    frame : DataFrame
        The input table.
    target : str
        The target column (its missing values are ignored here).
    args : argparse.Namespace
        ``args.task``: ``"auto"``, ``"classification"`` or ``"regression"``.
    estimator : estimator instance
        Unfitted; its ``task`` parameter, if any, is set to the task found.

    Returns
    -------
    task : {"classification", "regression"}
    """
    import numpy as np

    from localselect._targets import _integer_valued, class_count_problem, describe_task

    if target not in frame.columns:
        return "classification"  # prepare() names the missing column
    wanted = getattr(args, "task", "auto") or "auto"
    y = frame[target].dropna().to_numpy()
    try:
        task, reason = describe_task(y, wanted)
    except ValueError as exc:
        raise CLIError(f"--task {wanted}: {exc}") from exc
    found = declaration(type(estimator))
    takes = found is not None and "continuous" in found.targets
    if task == "regression" and not takes:
        how = (
            "--task regression"
            if wanted == "regression"
            else f"the target is continuous ({reason})"
        )
        as_labels = None
        if _integer_valued(y):
            as_labels = class_count_problem(np.unique(y, return_counts=True)[1], repr(target))
        instead = (
            f"As class labels it cannot be fitted either: {as_labels}."
            if as_labels is not None
            else f"If {target!r} holds class labels, pass --task classification."
        )
        raise CLIError(
            f"{how}, and {type(estimator).__name__} is defined for class labels. Methods that "
            f"take a continuous target: {_taker_methods()}. {instead}"
        )
    if task == "classification" and len(y):
        problem = class_count_problem(np.unique(y, return_counts=True)[1], repr(target))
        if problem is not None:
            raise CLIError(
                f"{problem}. If {target!r} is a quantity, pass --task regression (methods that "
                f"take a continuous target: {_taker_methods()}); if it holds class labels, merge "
                "the rare classes."
            )
    if "task" in estimator.get_params(deep=False):
        estimator.set_params(task=task)
    return task


def describe_task(task: str, y: Any, wanted: str) -> str:
    """The terminal line: the task and why (the measurement, or ``--task``).

    The measurement is :func:`localselect._targets.describe_task`'s, the rule
    every estimator applies, followed by the option that overrides it.
    """
    import numpy as np

    from localselect._targets import describe_task as measured

    if wanted != "auto":
        return f"task: {task} (--task {wanted})"
    _, reason = measured(y)
    if task == "classification" and np.asarray(y).dtype.kind not in "biuf":
        return f"task: {task} ({reason})"  # labels that are not numbers have no other reading
    other = "classification" if task == "regression" else "regression"
    return f"task: {task} ({reason}; --task {other} to override)"


def regression_scores(estimator: Any, X_model: Any, y: Any) -> dict[str, float]:
    """R^2 and RMSE of the model's predictions on the training rows, where it predicts.

    Parameters
    ----------
    estimator : fitted estimator
        Fitted on a continuous target (``task_ == "regression"``).
    X_model : array-like
        The rows as the estimator saw them.
    y : array-like
        The target.

    Returns
    -------
    scores : dict
        ``{"training_r2": ..., "training_rmse": ...}``; empty when the model
        does not predict (a selector without ``predict``) or the task is not a
        regression.
    """
    import numpy as np
    from sklearn.metrics import mean_squared_error, r2_score

    if getattr(estimator, "task_", None) != "regression" or not hasattr(estimator, "predict"):
        return {}
    prediction = np.asarray(estimator.predict(X_model), dtype=np.float64)
    truth = np.asarray(y, dtype=np.float64)
    return {
        "training_r2": float(r2_score(truth, prediction)),
        "training_rmse": float(np.sqrt(mean_squared_error(truth, prediction))),
    }
