"""The selector's model (localselect.saliency._models): which model for which target."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from localselect.datasets import make_instancewise_synthetic
from localselect.saliency import ConditionalSaliencySelection


def test_a_regressor_is_refused_on_classes_and_a_classifier_on_numbers():
    X, y, _ = make_instancewise_synthetic(200, "syn1", random_state=0)
    from sklearn.linear_model import LinearRegression

    with pytest.raises(ValueError, match="classification target"):
        ConditionalSaliencySelection(LinearRegression()).fit(X, y)
    with pytest.raises(ValueError, match="regression target"):
        ConditionalSaliencySelection(LogisticRegression()).fit(X, X[:, 0] + 0.5)


def test_a_class_with_one_row_fits_without_early_stopping():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1200, 4))
    y = (X[:, 0] > 0).astype(int)
    y[0] = 2  # a class with one row: no stratified validation tenth can hold it
    selector = ConditionalSaliencySelection(random_state=0).fit(X, y)
    assert selector.get_support()[0]
