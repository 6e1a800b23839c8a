"""The target checks: what a continuous ``y`` gets from every estimator, and the class checks."""

import numpy as np
import pytest

from localselect._estimators import continuous_target_names, declaration, registered
from localselect._targets import check_classification_data, check_target, detect_task
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
