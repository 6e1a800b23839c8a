"""The target checks: what a continuous ``y`` gets from every estimator, and the class checks.

The rule that reads an integer target as a quantity or as class labels
(``describe_task``) is checked on quantities, counts, ratings, labels, string
labels and booleans, generated and real (scikit-learn's bundled tables, and the
class targets of the benchmark tables when ``LOCALSELECT_DATA`` holds them).
"""

import os
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes, load_digits

from localselect._estimators import continuous_target_names, declaration, registered
from localselect._targets import (
    MAX_CLASSES,
    QuantityTargetWarning,
    check_class_counts,
    check_classification_data,
    check_target,
    class_count_problem,
    describe_task,
    detect_task,
)
from localselect.utils import fast_params


@pytest.mark.parametrize(
    ("y", "task", "expected"),
    [
        ([0.5, 1.25, 3.0, 2.0], "auto", "regression"),
        ([1.0, 2.0, 2.0, 1.0], "auto", "classification"),
        ([1, 2, 2, 1], "auto", "classification"),
        (["a", "b", "a"], "auto", "classification"),
        ([1, 2, 2, 1], "regression", "regression"),
        ([0.5, 1.25, 3.0], "classification", "classification"),
    ],
)
def test_detect_task(y, task, expected):
    assert detect_task(y, task) == expected


def test_regression_needs_numbers():
    with pytest.raises(ValueError, match="numeric y"):
        detect_task(np.array(["a", "b"]), "regression")


@pytest.mark.parametrize("name", sorted(registered()))
def test_continuous_target_is_taken_or_refused_clearly(name):
    """Every estimator fits a continuous y or refuses it with the new message."""
    cls = registered()[name]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 4))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    est = cls(**fast_params(cls, "check"))
    if "continuous" in declaration(cls).targets:
        est.fit(X, y)
        assert est.task_ == "regression"
        assert name in continuous_target_names()
        return
    with pytest.raises(ValueError, match="defined for class labels") as info:
        est.fit(X, y)
    assert "Unknown label type" not in str(info.value)
    for taker in continuous_target_names():
        assert taker in str(info.value)


def test_check_target_keeps_labels():
    from localselect import FisherScore

    task, y = check_target(FisherScore(), np.array([0, 1, 1]))
    assert task == "classification"
    assert y.tolist() == [0, 1, 1]


def test_classification_data_codes_and_messages():
    classes, codes = check_classification_data("Est", np.array(["b", "a", "b", "c", "a", "c"]))
    assert classes.tolist() == ["a", "b", "c"]
    assert codes.dtype == np.intp and codes.tolist() == [1, 0, 1, 2, 0, 2]
    with pytest.raises(
        ValueError, match=r"Est needs at least 2 classes in y; got 1 class \('a'\)"
    ):
        check_classification_data("Est", np.array(["a", "a"]))
    with pytest.raises(
        ValueError, match=r"at least 2 samples in every class \(why\); class\(es\) "
    ):
        check_classification_data("Est", np.array([0, 0, 1]), min_class_size=2, why="why")
    check_classification_data("Est", np.array([0, 0, 1]))  # one-sample classes allowed by default
    with pytest.raises(ValueError, match="Unknown label type"):
        check_classification_data("Est", np.array([0.5, 1.5, 2.5]))


def _price(n=5000, seed=0):
    """A price in whole units with a long right tail (diamonds-like: 326 to ~18,000)."""
    rng = np.random.default_rng(seed)
    return np.round(np.exp(rng.normal(7.8, 1.0, size=n))).clip(326, 18823)


def _rows(values, counts):
    return np.repeat(np.asarray(values), np.asarray(counts))


@pytest.mark.parametrize(
    ("name", "y", "expected"),
    [
        ("price in whole units, floats", _price(), "regression"),
        ("price in whole units, ints", _price().astype(np.int64), "regression"),
        (
            "weights in grams",
            np.round(np.random.default_rng(1).normal(3000, 700, 189)),
            "regression",
        ),
        ("large counts", np.random.default_rng(2).poisson(100, 2000), "regression"),
        ("51 whole minutes from 43, 5 rows each", _rows(np.arange(43, 94), 5) + 0, "regression"),
        (
            "22 values over 31 rows, mostly one row each",
            _rows(np.arange(52, 74), [1] * 18 + [2, 3, 4, 4]),
            "regression",
        ),
        ("small counts", np.random.default_rng(3).poisson(3, 500), "classification"),
        ("ratings 1..5", np.random.default_rng(4).integers(1, 6, 1000), "classification"),
        (
            "ratings 1..5 as floats",
            np.random.default_rng(4).integers(1, 6, 1000) * 1.0,
            "classification",
        ),
        ("labels 0..9", np.repeat(np.arange(10), 30), "classification"),
        ("100 label codes, 20 rows each", np.repeat(np.arange(100), 20), "classification"),
        ("60 label codes 1..60, 3 absent", np.repeat(np.r_[1:30, 33:64], 8), "classification"),
        ("binary -1/1", np.tile([-1, 1], 50), "classification"),
        ("one-row labels, 10 of them", np.arange(10), "classification"),
        (
            "string labels, all singletons",
            np.array([f"id{i}" for i in range(300)]),
            "classification",
        ),
        ("booleans", np.tile([True, False], 20), "classification"),
        ("floats, not integers", np.linspace(0, 1, 40), "regression"),
    ],
)
def test_the_rule_on_quantities_counts_ratings_and_labels(name, y, expected):
    task, reason = describe_task(y)
    assert task == expected, (name, reason)
    assert detect_task(y) == expected
    assert reason.startswith("detected: ")
    assert reason.endswith("a quantity" if expected == "regression" else "class labels")


def test_real_targets():
    task, reason = describe_task(load_diabetes().target)  # floats that are all integers
    assert task == "regression"
    assert reason == (
        "detected: 214 distinct integer values over 442 rows, a median of 2 rows per value: "
        "a quantity"
    )
    assert describe_task(load_digits().target)[0] == "classification"
    assert describe_task(load_digits().target.astype(str))[0] == "classification"


def test_the_example_price_reads_as_in_the_message():
    rng = np.random.default_rng(0)
    values = np.sort(rng.choice(np.arange(300, 20000), size=808, replace=False))
    counts = np.r_[np.full(404, 3), np.full(404, 7)]
    counts[0] += 4381 - counts.sum()
    y = rng.permutation(_rows(values, counts))
    assert describe_task(y) == (
        "regression",
        "detected: 808 distinct integer values over 4,381 rows, spread from "
        + f"{values[0]:,} to {values[-1]:,}"
        + " (not class codes 0..K-1 or 1..K): "
        "a quantity",
    )


@given(
    n_values=st.integers(50, 400),
    low=st.integers(-1000, 1000),
    step=st.integers(1, 50),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_integer_quantity_with_many_values_and_few_rows_each_is_continuous(
    n_values, low, step, seed
):
    rng = np.random.default_rng(seed)
    values = low + step * np.sort(rng.choice(10 * n_values, size=n_values, replace=False))
    counts = rng.integers(1, 10, size=n_values)
    small = np.sort(rng.choice(n_values, size=n_values // 2 + 1, replace=False))
    counts[small] = rng.integers(1, 5, size=small.size)  # a median under 5 rows per value
    assert np.median(counts) < 5
    y = rng.permutation(_rows(values, counts))
    assert describe_task(y)[0] == "regression"
    assert describe_task(y.astype(np.float64))[0] == "regression"


@given(
    n_classes=st.integers(2, 200),
    start=st.sampled_from([0, 1]),
    min_rows=st.integers(2, 40),
    seed=st.integers(0, 2**32 - 1),
)
def test_label_codes_stay_classes(n_classes, start, min_rows, seed):
    """Codes 0..K-1 or 1..K stay labels: under 50 of them, or with 5 rows or more per class."""
    rng = np.random.default_rng(seed)
    if n_classes >= 50:
        min_rows = max(min_rows, 5)
    counts = rng.integers(min_rows, min_rows + 30, size=n_classes)
    y = rng.permutation(_rows(np.arange(start, start + n_classes), counts))
    assert describe_task(y)[0] == "classification"


@pytest.mark.skipif(not os.environ.get("LOCALSELECT_DATA"), reason="LOCALSELECT_DATA is not set")
def test_the_benchmark_class_targets_stay_classes():
    pd = pytest.importorskip("pandas")
    paths = sorted((Path(os.environ["LOCALSELECT_DATA"]) / "pmlb").glob("*.tsv.gz"))
    if not paths:
        pytest.skip("no PMLB tables under LOCALSELECT_DATA")
    for path in paths:
        y = pd.read_csv(path, sep="\t", usecols=["target"])["target"].to_numpy()
        assert describe_task(y)[0] == "classification", path.name


def test_a_given_task_is_kept_and_said():
    assert describe_task([1, 2, 3], "regression") == ("regression", 'task="regression" given')
    assert describe_task(np.arange(500), "classification")[0] == "classification"
    with pytest.raises(ValueError, match="task must be one of"):
        describe_task([1, 2], "guess")


def test_an_integer_quantity_warns_once_where_a_continuous_target_is_taken():
    from localselect import ReliefF

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.round(100 * X[:, 0] + 1000)  # ~200 distinct whole numbers
    with pytest.warns(QuantityTargetWarning, match=r'ReliefF: y is read as a continuous target: '
                      r'regression \(detected: \d+ distinct integer values over 200 rows.*'
                      r'task="classification" to override\)'):  # fmt: skip
        est = ReliefF(n_neighbors=5).fit(X, y)
    assert est.task_ == "regression"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ReliefF(n_neighbors=5).fit(X, y + 0.5)  # not integers: continuous, nothing to say
        ReliefF(n_neighbors=5, task="regression").fit(X, y)  # the user said it


def test_an_integer_quantity_is_refused_by_a_method_for_class_labels():
    from localselect import FisherScore

    y = load_diabetes().target
    X = np.random.default_rng(0).normal(size=(len(y), 3))
    with pytest.raises(ValueError, match="defined for class labels") as info:
        FisherScore().fit(X, y)
    message = str(info.value)
    assert "214 distinct integer values over 442 rows" in message
    assert all(name in message for name in continuous_target_names())
    assert "y.astype(str)" in message  # 214 values, 39% of them on one row: labels could be
    price = _price(3000).astype(np.int64)
    with pytest.raises(ValueError, match="As class labels it cannot be fitted either: y has"):
        FisherScore().fit(np.ones((3000, 2)) + np.arange(3000)[:, None], price)


@pytest.mark.parametrize(
    ("counts", "problem"),
    [
        ([1] * 11 + [3] * 10, "21 classes over 41 samples, 11 of them with a single sample"),
        ([2] * (MAX_CLASSES + 1), "1,001 classes over 2,002 samples, more than the 1,000"),
    ],
)
def test_classes_no_classification_can_fit_are_refused(counts, problem):
    assert problem in class_count_problem(counts)
    y = _rows([f"c{i:04d}" for i in range(len(counts))], counts)
    with pytest.raises(ValueError, match="If y is a quantity") as info:
        check_classification_data("Est", y)
    assert problem in str(info.value) and 'task="regression"' in str(info.value)
    with pytest.raises(ValueError, match=problem):
        check_class_counts("Est", np.unique(y), counts)
    assert class_count_problem([1] * 10 + [2] * 10) is None  # half singletons is allowed
    assert class_count_problem([1] * 19) is None  # a few one-sample classes: the estimator's call
    assert class_count_problem([2] * MAX_CLASSES) is None


def test_a_forced_classification_of_a_quantity_is_refused_before_the_fit(monkeypatch):
    from localselect import ReliefF

    def never(*args, **kwargs):
        raise AssertionError("the fit started")

    monkeypatch.setattr(ReliefF, "_fit", never)
    y = _price(3000).astype(np.int64)
    X = np.random.default_rng(0).normal(size=(len(y), 2))
    with pytest.raises(ValueError, match=r"with a single sample|more than the 1,000"):
        ReliefF(task="classification").fit(X, y)


@pytest.mark.parametrize("name", sorted(registered()))
@pytest.mark.parametrize("n_rows", [0, 1])
def test_too_few_rows_are_named_as_rows(name, n_rows):
    cls = registered()[name]
    X, y = np.ones((n_rows, 3)), np.zeros(n_rows, dtype=int)
    with pytest.raises(ValueError) as info:
        cls(**fast_params(cls, "check")).fit(X, y)
    message = str(info.value)
    assert "sample" in message and "2 classes" not in message, message


def test_check_target_names_rows():
    from localselect import ReliefF

    with pytest.raises(ValueError, match=r"ReliefF needs at least 2 samples .*got 1 sample\."):
        check_target(ReliefF(), np.array([3.0]))
    with pytest.raises(ValueError, match=r"Est needs at least 2 samples .*got 1 sample\."):
        check_classification_data("Est", np.array(["a"]))
