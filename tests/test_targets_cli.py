"""`localselect select` reads the target with the library's rule and says why."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_diabetes

from localselect.cli import main


@pytest.fixture
def diabetes(tmp_path):
    """scikit-learn's diabetes table with its target as integers (as a CSV file holds it)."""
    frame = load_diabetes(as_frame=True).frame
    frame["target"] = frame["target"].astype(int)
    path = tmp_path / "diabetes.csv"
    frame.to_csv(path, index=False)
    return path


def _select(path, out, *extra, target="target"):
    return main(["select", "--input", str(path), "--target", target, "--out", str(out), *extra])


def test_an_integer_quantity_is_a_regression_with_the_measurement(diabetes, tmp_path, capsys):
    assert _select(diabetes, tmp_path / "o", "--method", "mrmr", "--n-features", "3") == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert (
        "task: regression (detected: 214 distinct integer values over 442 rows, a median of 2 "
        "rows per value: a quantity; --task classification to override)"
    ) in printed


def test_a_method_for_class_labels_refuses_an_integer_quantity(diabetes, tmp_path, capsys):
    assert _select(diabetes, tmp_path / "o", "--method", "fisher") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "the target is continuous (detected: 214 distinct integer values over 442 rows" in err
    assert "FisherScore is defined for class labels" in err and "mrmr" in err
    assert "If 'target' holds class labels, pass --task classification" in err


def test_no_class_reading_is_offered_when_it_would_be_refused(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(300, 2)), columns=["a", "b"])
    frame["price"] = np.round(np.exp(rng.normal(7, 1, size=300))).astype(int)
    path = tmp_path / "prices.csv"
    frame.to_csv(path, index=False)
    assert _select(path, tmp_path / "o", "--method", "fisher", target="price") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "As class labels it cannot be fitted either: 'price' has" in err
    assert "--task classification" not in err


def test_labels_that_no_classification_can_fit_are_refused(tmp_path, capsys):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(55, 3)), columns=["a", "b", "c"])
    frame["who"] = [f"id{i}" for i in range(40)] + [f"id{i}" for i in range(15)]
    path = tmp_path / "people.csv"
    frame.to_csv(path, index=False)
    assert _select(path, tmp_path / "o", "--method", "fisher", target="who") == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "'who' has 40 classes over 55 samples, 25 of them with a single sample" in err
    assert "--task regression" in err
    assert not (tmp_path / "o").exists()


def test_ratings_stay_classes(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame(rng.normal(size=(200, 3)), columns=["a", "b", "c"])
    frame["stars"] = np.clip(np.round(frame["a"] + 3), 1, 5).astype(int)
    path = tmp_path / "ratings.csv"
    frame.to_csv(path, index=False)
    assert _select(path, tmp_path / "o", "--method", "fisher", target="stars") == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "task: classification (detected: 5 distinct integer values over 200 rows" in printed
    assert "class labels; --task regression to override)" in printed
