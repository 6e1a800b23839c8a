"""What kind of target ``y`` is: class labels or a continuous quantity, and its class checks.

Every estimator is fitted through :class:`localselect.base.LabelledFitMixin`,
which asks :func:`check_target` what the target is. The estimators that define
a regression variant declare ``targets=("classes", "continuous")`` and take a
``task`` parameter; every other estimator refuses a continuous ``y`` with one
message naming the estimators that take it (never scikit-learn's "Unknown
label type"). Class labels then pass :func:`check_classification_data` (at
least 2 samples, at least 2 classes, not mostly one-sample classes, at most
:data:`MAX_CLASSES` classes, and for the methods that compare a sample with its
own class, at least 2 samples per class); a fit that only has the counts per
class (on row blocks) calls :func:`check_class_counts`, the same checks and
messages. The command line reads the same rule (:mod:`localselect.cli._task`).

The rule for an integer-valued target (:func:`describe_task`) is a measurement,
not a dtype: class labels are few values, each seen on several rows, coded as
``0..K-1`` or ``1..K``; a quantity (a count, a price in whole units, a weight in
grams) takes many values, each on few rows, spread over its range.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.multiclass import check_classification_targets, type_of_target

from localselect._compat import StrOptions
from localselect._estimators import continuous_target_names, declaration

__all__ = [
    "MANY_VALUES",
    "MAX_CLASSES",
    "SOME_VALUES",
    "TASKS",
    "TASK_CONSTRAINT",
    "QuantityTargetWarning",
    "check_class_counts",
    "check_classification_data",
    "check_target",
    "class_count_problem",
    "describe_task",
    "detect_task",
]

#: Values of the ``task`` parameter of the estimators that take a continuous target.
TASKS = ("auto", "classification", "regression")

#: Parameter constraint of ``task``.
TASK_CONSTRAINT: list = [StrOptions(set(TASKS))]

#: Distinct integer values from which a target may be a quantity (:func:`describe_task`).
MANY_VALUES = 50

#: Below this median number of rows per value, many integer values are a quantity.
FEW_ROWS_PER_VALUE = 5

#: Distinct integer values from which mostly one-row values are a quantity, not labels.
SOME_VALUES = 20

#: Share of ``min..max`` that label codes ``0..K-1`` or ``1..K`` cover (a few may be absent).
CODE_FILL = 0.9

#: Most classes a classification fit takes: per-class state grows with the classes.
MAX_CLASSES = 1000


class QuantityTargetWarning(UserWarning):
    """An integer-valued target was read as a continuous quantity (``task="auto"``).

    The message gives the measurement (distinct values, rows per value) and
    how to override it (``task="classification"``).
    """


def _count(n: int) -> str:
    return f"{n:,}"


def _integer_reading(values, counts, n_rows: int) -> tuple[str, str]:
    """``(task, reason)`` for a numeric target whose values are all integers."""
    d = len(values)
    median = float(np.median(counts))
    per_value = f"a median of {median:g} row{'s' if median != 1 else ''} per value"
    head = f"{_count(d)} distinct integer values over {_count(n_rows)} rows"
    if (d >= MANY_VALUES and median < FEW_ROWS_PER_VALUE) or (d >= SOME_VALUES and median == 1):
        return "regression", f"{head}, {per_value}: a quantity"
    low, high = values[0], values[-1]
    codes = low in (0, 1) and d >= CODE_FILL * (high - low + 1)
    if d >= SOME_VALUES and not codes:
        return "regression", (
            f"{head}, spread from {int(low):,} to {int(high):,} (not class codes 0..K-1 or 1..K): "
            "a quantity"
        )
    return "classification", f"{head}, {per_value}: class labels"


def describe_task(y, task: str = "auto") -> tuple[str, str]:
    """What the target ``y`` is, and why: ``(task, reason)``.

    The rule, for ``task="auto"``:

    * strings, booleans and other non-numeric labels are class labels;
    * numbers that are not all integers are a continuous target (a quantity);
    * integer values (integers, or floats that are all integers) are a
      quantity when there are at least :data:`MANY_VALUES` (50) distinct values
      with a median of fewer than 5 rows per value, or at least
      :data:`SOME_VALUES` (20) distinct values that either are not class codes
      (``0..K-1`` or ``1..K``, at least 90% of the codes present: a test score
      from 320 to 626) or have a median of one row per value (mostly one-row
      values, which no classification can learn from); otherwise class labels.
      So a rating ``1..5`` and digit labels ``0..9`` are classes, scikit-learn's
      ``load_diabetes`` target (214 values over 442 rows) and a price in whole
      units are quantities.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The target, without missing values.
    task : {"auto", "classification", "regression"}, default="auto"
        A given task is returned as it is (``"regression"`` needs numbers).

    Returns
    -------
    task : {"classification", "regression"}
    reason : str
        ``"detected: ..."`` with the measurement for ``"auto"``, else
        ``'task="..." given'``.

    Raises
    ------
    ValueError
        ``task`` is not one of the three, or ``task="regression"`` with a
        non-numeric ``y``.

    Examples
    --------
    >>> describe_task([1, 2, 2, 1])
    ('classification', 'detected: 2 distinct integer values over 4 rows, a median of 2 rows per value: class labels')
    >>> describe_task(list(range(300)))[1]
    'detected: 300 distinct integer values over 300 rows, a median of 1 row per value: a quantity'
    """  # noqa: E501
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}; got {task!r}.")
    y = np.asarray(y)
    if task == "regression":
        if y.dtype.kind not in "biuf":
            raise ValueError(
                f"task='regression' needs a numeric y; got dtype {y.dtype}. "
                "Convert y to numbers or use task='classification'."
            )
        return "regression", 'task="regression" given'
    if task == "classification":
        return "classification", 'task="classification" given'
    if y.dtype.kind == "b":
        return "classification", "detected: boolean values: class labels"
    if y.ndim != 1 or y.dtype.kind not in "iuf" or not np.isfinite(y).all():
        if type_of_target(y) == "continuous":
            return "regression", "detected: numbers that are not all integers: a quantity"
        return "classification", f"detected: {len(np.unique(y))} distinct labels: class labels"
    values, counts = np.unique(y, return_counts=True)
    if y.dtype.kind == "f" and not np.array_equal(values, np.round(values)):
        return "regression", (
            f"detected: {_count(len(values))} distinct values, not all integers: a quantity"
        )
    task, reason = _integer_reading(values, counts, y.shape[0])
    return task, f"detected: {reason}"


def detect_task(y, task: str = "auto") -> str:
    """``"classification"`` or ``"regression"`` for the target ``y``.

    The task of :func:`describe_task`, without the reason.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The target, validated (one column).
    task : {"auto", "classification", "regression"}, default="auto"
        ``"auto"`` applies the rule of :func:`describe_task` (floats that are
        not all integers, and integer quantities, are a regression target;
        anything else class labels); a given task is returned as it is.

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
    return describe_task(y, task)[0]


def _integer_valued(y) -> bool:
    """Whether ``y`` is one column of finite numbers that are all integers (booleans aside)."""
    y = np.asarray(y)
    if y.ndim != 1 or y.dtype.kind not in "iuf":
        return False
    return y.dtype.kind != "f" or bool(np.isfinite(y).all() and np.array_equal(y, np.round(y)))


def _takers() -> str:
    takers = continuous_target_names()
    return ", ".join(takers) if takers else "none yet"


def check_target(estimator, y) -> tuple[str, np.ndarray]:
    """The task of ``estimator`` on ``y`` and, for a regression, ``y`` as float64.

    Parameters
    ----------
    estimator : estimator instance
        Its class's declaration says whether it takes a continuous target; its
        ``task`` parameter, if any, overrides the detection (:func:`describe_task`).
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
        ``y`` has fewer than 2 samples, or ``y`` is continuous (floats that are
        not all integers, or an integer quantity) and the estimator is defined
        for class labels only; the message gives the reason and names the
        estimators that take a continuous target.

    Warns
    -----
    QuantityTargetWarning
        ``task="auto"`` read an integer-valued ``y`` as a quantity; the
        message gives the measurement and ``task="classification"`` to override.
    """
    name = type(estimator).__name__
    _check_rows(name, y)
    found = declaration(type(estimator))
    takes_continuous = found is not None and "continuous" in found.targets
    wanted = getattr(estimator, "task", "auto") if takes_continuous else "auto"
    task, reason = describe_task(y, wanted)
    if task == "classification":
        return task, y
    if not takes_continuous:
        as_labels = None
        if _integer_valued(y):
            as_labels = class_count_problem(np.unique(y, return_counts=True)[1])
        instead = (
            f"As class labels it cannot be fitted either: {as_labels}."
            if as_labels is not None
            else "If y holds class labels, pass them as strings (e.g. y.astype(str))."
        )
        raise ValueError(
            f"{name} is defined for class labels in its paper, and y is a continuous "
            f"target ({reason}). Estimators that take a continuous target: {_takers()}. "
            f"{instead}"
        )
    if wanted == "auto" and _integer_valued(y):
        warnings.warn(
            f"{name}: y is read as a continuous target: regression ({reason}; "
            'task="classification" to override).',
            QuantityTargetWarning,
            stacklevel=2,
        )
    return task, np.asarray(y, dtype=np.float64)


def _check_rows(name: str, y) -> None:
    n = np.shape(y)[0] if np.ndim(y) else 0
    if n < 2:
        raise ValueError(
            f"{name} needs at least 2 samples (rows of X and y) to fit; got {n} "
            f"sample{'s' if n != 1 else ''}. Pass more rows."
        )


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
        ``y`` has fewer than 2 samples, is not a classification target, has one
        class, more than :data:`MAX_CLASSES` classes, mostly one-sample classes
        (:func:`class_count_problem`), or a class with fewer than
        ``min_class_size`` samples.
    """
    _check_rows(name, y)
    if type_of_target(y, input_name="y") not in ("binary", "multiclass"):
        check_classification_targets(y)  # scikit-learn's refusal of a non-label y
    classes, codes = np.unique(y, return_inverse=True)
    check_class_counts(
        name, classes, np.bincount(codes, minlength=len(classes)), min_class_size, why
    )
    check_classification_targets(y)  # its warning about many classes, where not refused above
    return classes, codes.astype(np.intp)


def class_count_problem(counts, what: str = "y") -> str | None:
    """Why class labels with these counts cannot be fitted as classes, or None.

    Refused: more than :data:`MAX_CLASSES` classes (per-class state grows with
    the classes), or mostly one-sample classes (at least :data:`SOME_VALUES`
    classes, more than half of them with a single sample: such a target is
    usually a quantity read as labels). A few classes of one sample each (a
    tiny subsample) are left to the estimator's own class-size check.

    Parameters
    ----------
    counts : array-like of shape (n_classes,)
        Samples per class.
    what : str, default="y"
        What the target is called in the message (a column's name on the
        command line).

    Returns
    -------
    problem : str or None
        A sentence fragment naming the problem, None when there is none.

    Examples
    --------
    >>> class_count_problem([5, 1, 7]) is None
    True
    >>> print(class_count_problem([1] * 15 + [2] * 10))
    y has 25 classes over 35 samples, 15 of them with a single sample (class labels need
    several samples each)
    """
    counts = np.asarray(counts)
    n_classes, n = len(counts), int(counts.sum())
    if n_classes > MAX_CLASSES:
        return (
            f"{what} has {_count(n_classes)} classes over {_count(n)} samples, more than the "
            f"{_count(MAX_CLASSES)} a classification fit takes (its per-class state grows "
            "with the classes)"
        )
    singles = int(np.count_nonzero(counts == 1))
    if n_classes >= SOME_VALUES and 2 * singles > n_classes:
        return (
            f"{what} has {_count(n_classes)} classes over {_count(n)} samples, "
            f"{_count(singles)} of them with a single sample (class labels need several "
            "samples each)"
        )
    return None


def check_class_counts(name: str, classes, counts, min_class_size: int = 1, why: str = ""):
    """The class checks of :func:`check_classification_data`, from the counts per class."""
    if len(classes) < 2:
        raise ValueError(
            f"{name} needs at least 2 classes in y; got 1 class ({classes.tolist()[0]!r}). "
            "Pass labels of two or more classes."
        )
    problem = class_count_problem(counts)
    if problem is not None:
        raise ValueError(
            f"{name}: {problem}. If y is a quantity "
            "(a count, a price, a measurement), fit an estimator that takes a continuous "
            f'target ({_takers()}) with task="regression"; if y holds class labels, merge '
            "the rare classes."
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
