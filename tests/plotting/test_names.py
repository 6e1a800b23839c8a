"""Figures of estimators fitted on a mixed table name the table's columns."""

import numpy as np
import pandas as pd
import pytest

from localselect import Immigrate, LocalFeatureSelection
from localselect.regimes import find_regimes

pytest.importorskip("matplotlib")


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(0)
    n = 150
    frame = pd.DataFrame(
        {
            "a": rng.normal(size=n),
            "plan": pd.Categorical(rng.choice(["x", "y", "z"], n)),
            "city": rng.choice(["Lima", "Pune"], n).astype(object),
            "b": rng.normal(size=n),
        }
    )
    y = np.where(frame["plan"] == "x", frame["a"] > 0, frame["b"] > 0).astype(int)
    return frame, y


def _ticks(fig, axis=0):
    return [t.get_text() for t in fig.axes[axis].get_xticklabels()]


def test_a_weight_matrix_on_an_encoding_names_each_level(mixed):
    from localselect.plotting import plot_weight_matrix

    frame, y = mixed
    model = Immigrate(random_state=0).fit(frame, y)
    assert model.weights_.shape == (7, 7)  # a, plan (3 levels), city (2 levels), b
    expected = ["a", "plan=x", "plan=y", "plan=z", "city=Lima", "city=Pune", "b"]
    assert _ticks(plot_weight_matrix(model)) == expected
    assert _ticks(plot_weight_matrix(model, top=2, feature_names=list("abcdefg"))) != expected


def test_a_local_selector_on_a_mixed_table_names_its_columns_everywhere(mixed):
    from localselect.plotting import (
        plot_feature_recovery,
        plot_local_subspaces,
        plot_regimes,
        plot_selection_frequency,
    )

    frame, y = mixed
    names = ["a", "plan", "city", "b"]
    lfs = LocalFeatureSelection(max_features=2, random_state=0).fit(frame, y)
    assert list(lfs.feature_names_in_) == names
    assert set(lfs.get_feature_names_out()) <= set(names)
    regimes = find_regimes(lfs, frame, y, random_state=0)
    assert list(regimes.feature_names) == names
    truth = np.zeros((len(frame), 4), dtype=bool)
    truth[:, [0, 1, 3]] = True
    assert _ticks(plot_feature_recovery(truth, lfs, frame)) == names
    assert _ticks(plot_local_subspaces(lfs, frame)) == names
    assert sorted(_ticks(plot_selection_frequency(lfs))) == sorted(names)
    fig = plot_regimes(regimes, frame)
    labels = fig.axes[0].get_xlabel() + " " + fig.axes[0].get_ylabel()
    # The map is a PCA of the numeric columns, labelled by their names.
    assert labels.startswith("PC1: mostly") and {"a", "b"} & set(labels.replace(",", " ").split())


def test_answers_as_a_frame_name_the_recovery_figure(mixed):
    from localselect.plotting import plot_feature_recovery

    frame, y = mixed
    lfs = LocalFeatureSelection(max_features=2, random_state=0).fit(frame, y)
    support = lfs.get_local_support(frame)  # a frame for a frame
    assert list(support.columns) == list(frame.columns)
    truth = np.zeros(support.shape, dtype=bool)
    assert _ticks(plot_feature_recovery(truth, support)) == list(frame.columns)
    regimes = find_regimes(support, n_neighbors=0, random_state=0)
    assert regimes.feature_names == tuple(frame.columns)
