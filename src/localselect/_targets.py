"""What kind of target ``y`` is: class labels or a continuous quantity, and its class checks.

Every estimator is fitted through :class:`localselect.base.LabelledFitMixin`,
which asks :func:`check_target` what the target is. The estimators that define
a regression variant declare ``targets=("classes", "continuous")`` and take a
``task`` parameter; every other estimator refuses a continuous ``y`` with one
message naming the estimators that take it (never scikit-learn's "Unknown
label type"). Class labels then pass :func:`check_classification_data` (at
least 2 classes, and for the methods that compare a sample with its own class,
at least 2 samples per class); a fit that only has the counts per class (on
row blocks) calls :func:`check_class_counts`, the same checks and messages.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from localselect._compat import StrOptions
from localselect._estimators import continuous_target_names, declaration

__all__ = [
    "TASKS",
    "TASK_CONSTRAINT",
    "check_class_counts",
    "check_classification_data",
    "check_target",
    "detect_task",
]

#: Values of the ``task`` parameter of the estimators that take a continuous target.
TASKS = ("auto", "classification", "regression")

#: Parameter constraint of ``task``.
TASK_CONSTRAINT: list = [StrOptions(set(TASKS))]


def detect_task(y, task: str = "auto") -> str:
    """``"classification"`` or ``"regression"`` for the target ``y``.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The target, validated (one column).
    task : {"auto", "classification", "regression"}, default="auto"
        ``"auto"`` reads scikit-learn's :func:`~sklearn.utils.multiclass.type_of_target`:
        ``"continuous"`` (floats that are not all integers) is a regression
        target, anything else class labels. Integer targets that are quantities
        (a count, a price in whole units) need ``task="regression"``; float
        labels of a few classes, ``task="classification"``.

    Returns
    -------
    str
        ``"classification"`` or ``"regression"``.

    Raises
    ------
    ValueError
        ``task="regression"`` with a non-numeric ``y``.

    Examples
    --------
    >>> detect_task([0.5, 1.25, 3.0])
    'regression'
    >>> detect_task([1, 2, 2, 1])
    'classification'
    >>> detect_task([1, 2, 2, 1], task="regression")
    'regression'
    """
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}.")
    y = np.asarray(y)
    if task == "regression":
        if y.dtype.kind not in "biuf":
            raise ValueError(
                f"task='regression' needs a numeric y; got dtype {y.dtype}. "
                "Convert y to numbers or use task='classification'."
            )
        return "regression"
    if task == "classification":
        return "classification"
    return "regression" if type_of_target(y) == "continuous" else "classification"


def check_target(estimator, y) -> tuple[str, np.ndarray]:
    """The task of ``estimator`` on ``y`` and, for a regression, ``y`` as float64.

    Parameters
    ----------
    estimator : estimator instance
        Its class's declaration says whether it takes a continuous target; its
        ``task`` parameter, if any, overrides the detection (:func:`detect_task`).
    y : array-like of shape (n_samples,)
        The validated target.

    Returns
    -------
    task : {"classification", "regression"}
    y : ndarray
        ``y`` unchanged for a classification, float64 for a regression.

    Raises
    ------
    ValueError
        ``y`` is continuous and the estimator is defined for class labels only;
        the message names the estimators that take a continuous target.
    """
    found = declaration(type(estimator))
    takes_continuous = found is not None and "continuous" in found.targets
    task = detect_task(y, getattr(estimator, "task", "auto") if takes_continuous else "auto")
    if task == "classification":
        return task, y
    if not takes_continuous:
        name = type(estimator).__name__
        takers = continuous_target_names()
        alternatives = (
            f"Estimators that take a continuous target: {', '.join(takers)}. "
            if takers
            else "No localselect estimator takes a continuous target yet. "
        )
        raise ValueError(
            f"{name} is defined for class labels in its paper, and y is continuous "
            f"({len(np.unique(y))} distinct values that are not all integers). "
            f"{alternatives}"
            "If y holds class labels, pass them as integers or strings."
        )
    return task, np.asarray(y, dtype=np.float64)


def check_classification_data(
    name: str, y, *, min_class_size: int = 1, why: str = ""
) -> tuple[np.ndarray, NDArray[np.intp]]:
    """Check a classification target; return its classes and integer codes.

    Parameters
    ----------
    name : str
        The estimator's name, for the messages.
    y : array-like of shape (n_samples,)
        Validated labels (any type ``numpy.unique`` sorts).
    min_class_size : int, default=1
        Smallest number of samples a class may have; 2 for the methods that
        compare a sample with the other samples of its class.
    why : str, default=""
        Why ``min_class_size`` is needed, shown in the message.

    Returns
    -------
    classes : ndarray of shape (n_classes,)
        Sorted class labels.
    codes : ndarray of shape (n_samples,), dtype=intp
        ``classes[codes] == y``.

    Raises
    ------
    ValueError
        ``y`` is not a classification target, has one class, or a class has
        fewer than ``min_class_size`` samples.
    """
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    check_class_counts(
        name, classes, np.bincount(codes, minlength=len(classes)), min_class_size, why
    )
    return classes, codes.astype(np.intp)


def check_class_counts(name: str, classes, counts, min_class_size: int = 1, why: str = ""):
    """The class checks of :func:`check_classification_data`, from the counts per class."""
    if len(classes) < 2:
        raise ValueError(
            f"{name} needs at least 2 classes in y; got 1 class ({classes.tolist()[0]!r}). "
            "Pass labels of two or more classes."
        )
    counts = np.asarray(counts)
    small = counts < min_class_size
    if small.any():
        reason = f" ({why})" if why else ""
        have = "1 sample" if (counts[small] == 1).all() else f"under {min_class_size} samples"
        raise ValueError(
            f"{name} needs at least {min_class_size} samples in every class{reason}; "
            f"class(es) {classes[small].tolist()!r} have {have}. "
            "Remove them or add samples."
        )
