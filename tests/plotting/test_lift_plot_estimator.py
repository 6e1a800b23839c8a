"""plot_lift_table draws a fitted LiftFeatureSelector's best result."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
import pytest

from localselect.lift import LiftFeatureSelector, MahalanobisQuantileDiscretizer, lift_table
from localselect.plotting import plot_lift_table

matplotlib.use("Agg")


def test_fitted_selector_draws_the_lift_table_of_its_best_features():
    rng = np.random.default_rng(0)
    n = 400
    X = pd.DataFrame({"a": rng.integers(0, 3, n), "b": rng.choice(["u", "v"], n)})
    y = np.where(X["b"] == "u", rng.integers(0, 2, n), 2)
    sel = LiftFeatureSelector(max_features=1).fit(X, y)
    assert sel.best_features_.tolist() == [1]
    fig = plot_lift_table(sel)
    image = fig.axes[0].images[0].get_array()
    expected = lift_table(X[["b"]], y)
    np.testing.assert_allclose(image, expected["lift"].to_numpy())
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["0", "1", "2"]
    assert "b" in fig.axes[0].get_ylabel()


def test_continuous_target_and_joint_bins():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=300)
    sel = LiftFeatureSelector(max_features=1).fit(X, y)
    fig = plot_lift_table(sel)
    # three quantile bins of y as the columns; the counts are the training rows'
    assert len(fig.axes[0].get_xticklabels()) == 3
    assert sel.best_lift_counts_.sum() == 300
    joint = LiftFeatureSelector(
        max_features=2, discretizer=MahalanobisQuantileDiscretizer(n_bins=3)
    ).fit(X, y)
    fig = plot_lift_table(joint)
    assert fig.axes[0].get_ylabel().startswith("profile of (joint bin of (")


def test_other_estimators_are_refused():
    from localselect.filters import MRMR

    with pytest.raises(ValueError, match="LiftFeatureSelector"):
        plot_lift_table(MRMR())
