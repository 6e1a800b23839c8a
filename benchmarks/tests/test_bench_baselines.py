"""The papers' baselines: each available one fits and predicts, each missing one says why."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import is_classifier

from localselect_benchmarks._baselines import (
    PAPER_NAMES,
    LabelEncodedClassifier,
    classifier_baselines,
    selector_baselines,
    unavailable_baselines,
)


def _data():
    rng = np.random.default_rng(0)
    y = np.repeat(["benign", "malignant"], 30)
    X = rng.normal(size=(60, 5))
    X[y == "malignant", 1] += 4.0
    return X, y


@pytest.mark.parametrize("name", sorted(classifier_baselines()))
def test_classifier_baselines_fit_string_labels(name):
    X, y = _data()
    first = classifier_baselines()[name](random_state=0)
    second = classifier_baselines()[name](random_state=0)
    assert first is not second and is_classifier(first)
    accuracy = first.fit(X, y).score(X, y)
    assert accuracy >= 0.8  # feature 1 separates the classes by 4 standard deviations; chance 0.5
    assert set(first.predict(X)) <= {"benign", "malignant"}


@pytest.mark.parametrize("name", sorted(selector_baselines()))
def test_selector_baselines_pick_the_informative_feature(name):
    X, y = _data()
    selector = selector_baselines()[name](1, random_state=0).fit(X, y)
    assert selector.get_support(indices=True).tolist() == [1]


def test_every_paper_baseline_is_available_or_explained():
    available = set(classifier_baselines()) | set(selector_baselines())
    missing = unavailable_baselines()
    assert not available & set(missing)
    for abbreviation, name in PAPER_NAMES.items():
        assert name in available or name in missing, f"{abbreviation} -> {name} unaccounted for"
    assert all(isinstance(reason, str) and len(reason) > 10 for reason in missing.values())
    assert {"SVM-RBF", "SVM-sigmoid", "1-NN", "3-NN", "DT", "NB", "LDA", "L1-LR", "RF",
            "AdaBoost", "NCA+3-NN"} <= available  # fmt: skip
    assert {"Fisher", "mRMR"} <= available


def test_label_encoded_wrapper_decodes_labels():
    from sklearn.tree import DecisionTreeClassifier

    X, y = _data()
    model = LabelEncodedClassifier(DecisionTreeClassifier(random_state=0)).fit(X, y)
    assert model.classes_.tolist() == ["benign", "malignant"]
    assert (model.predict(X) == y).all()
    assert model.predict_proba(X).shape == (60, 2)
