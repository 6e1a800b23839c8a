"""One name per column: the same in get_feature_names_out, find_regimes and the figures."""

import numpy as np
import pandas as pd
import pytest

from localselect import LocalFeatureSelection, ReliefF
from localselect.datasets import make_lfs_synthetic
from localselect.regimes import column_names, find_regimes

pytest.importorskip("matplotlib")


def _tick_labels(fig):
    return [t.get_text() for t in fig.axes[0].get_xticklabels()]


@pytest.fixture(scope="module")
def data():
    X, y, truth = make_lfs_synthetic(60, 3, random_state=0)
    return X, y, truth


@pytest.mark.parametrize("frame", [False, True], ids=["array", "DataFrame"])
def test_global_selector_names_agree_everywhere(data, frame):
    from localselect.plotting import plot_feature_recovery, plot_selection_frequency

    X, y, truth = data
    expected = ["age", "income", "noise_a", "noise_b", "noise_c"] if frame else None
    if frame:
        X = pd.DataFrame(X, columns=expected)
    else:
        expected = [f"x{j}" for j in range(X.shape[1])]
    est = ReliefF(n_neighbors=5, n_features_to_select=5).fit(X, y)
    assert list(est.feature_names_in_ if frame else expected) == expected
    kept = [expected[j] for j in est.get_support(indices=True)]  # the positive weights
    assert list(est.get_feature_names_out()) == kept
    regimes = find_regimes(est, X, y, random_state=0)
    assert list(regimes.feature_names) == expected
    assert expected[int(regimes.features[0][0])] in regimes.describe()
    assert _tick_labels(plot_feature_recovery(truth, est)) == expected
    assert _tick_labels(plot_selection_frequency(est)) == expected


@pytest.mark.parametrize("frame", [False, True], ids=["array", "DataFrame"])
def test_local_selector_names_agree_everywhere(data, frame):
    from localselect.plotting import plot_feature_recovery, plot_local_subspaces, plot_regimes

    X, y, truth = data
    names = ["u", "v", "w", "p", "q"]
    expected = names if frame else [f"x{j}" for j in range(X.shape[1])]
    X_in = pd.DataFrame(X, columns=names) if frame else X
    lfs = LocalFeatureSelection(max_features=2, n_beta=3, random_state=0).fit(X_in, y)
    assert list(lfs.get_feature_names_out()) == [
        expected[j] for j in np.flatnonzero(lfs.get_support())
    ]
    regimes = find_regimes(lfs, X_in, y, random_state=0)
    assert list(regimes.feature_names) == expected
    assert _tick_labels(plot_feature_recovery(truth, lfs, X_in)) == expected
    assert _tick_labels(plot_local_subspaces(lfs, X_in)) == expected
    fig = plot_regimes(regimes, X_in)
    shown = [t.get_text() for t in fig.axes[1].get_xticklabels()]
    assert shown and set(shown) <= set(expected)


def test_frame_columns_name_a_mask_without_an_estimator(data):
    from localselect.plotting import plot_feature_recovery

    X, _, truth = data
    frame = pd.DataFrame(X, columns=list("abcde"))
    # Answers as a plain array, the rows as a frame: the frame's names.
    assert _tick_labels(plot_feature_recovery(truth, truth, frame)) == list("abcde")
    regimes = find_regimes(truth, frame, n_neighbors=0, random_state=0)
    assert regimes.feature_names == tuple("abcde")
    # Explicit names win; a plain array gets scikit-learn's x0, x1, ...
    assert regimes.describe(list("ABCDE")).count("A") >= 1
    assert column_names(truth, truth.shape[1]) == ["x0", "x1", "x2", "x3", "x4"]


def test_column_names_refuse_a_wrong_count():
    with pytest.raises(ValueError, match="3 feature names for 2 features"):
        column_names(None, 2, ["a", "b", "c"])
    # A frame of another width is not taken for the names of these columns.
    other = pd.DataFrame(np.zeros((2, 3)), columns=list("abc"))
    assert column_names(None, 2, None, other) == ["x0", "x1"]


def test_the_regime_map_reads_a_mixed_frame_by_its_numeric_columns():
    from localselect.plotting import plot_regimes

    rng = np.random.RandomState(0)
    n = 80
    frame = pd.DataFrame(
        {
            "size": rng.normal(size=n),
            "colour": pd.Categorical(rng.choice(["red", "blue"], n)),
            "weight": np.where(rng.rand(n) < 0.1, np.nan, rng.normal(size=n)),
            "city": rng.choice(["Oslo", "Lima", "Pune"], n).astype(object),
            "height": rng.normal(size=n),
        }
    )
    masks = np.zeros((n, 5), dtype=bool)
    masks[: n // 2, [0, 1]] = True
    masks[n // 2 :, [2, 4]] = True
    regimes = find_regimes(masks, frame, n_neighbors=0, random_state=0)
    fig = plot_regimes(regimes, frame, scale="standard")
    axis_labels = fig.axes[0].get_xlabel() + fig.axes[0].get_ylabel()
    assert "PC1: mostly" in axis_labels
    assert "column" not in axis_labels and "colour" not in axis_labels
    assert any(name in axis_labels for name in ("size", "weight", "height"))


def test_a_map_of_other_columns_than_the_features_names_no_column():
    from localselect.plotting import plot_regimes

    rng = np.random.RandomState(1)
    encoded = rng.normal(size=(60, 7))  # e.g. one-hot levels: not one column per feature
    masks = np.zeros((60, 3), dtype=bool)
    masks[:30, 0] = masks[30:, 1] = True
    regimes = find_regimes(masks, n_neighbors=0, random_state=0)
    fig = plot_regimes(regimes, encoded, feature_names=["a", "b", "c"], scale="standard")
    assert (fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()) == ("PC1", "PC2")


def test_a_polars_frame_names_the_regimes_and_the_map():
    pl = pytest.importorskip("polars")
    from localselect.plotting import plot_regimes

    rng = np.random.default_rng(0)
    n = 60
    frame = pl.DataFrame(
        {"a": rng.normal(size=n), "kind": rng.choice(["u", "v"], n), "b": rng.normal(size=n)}
    )
    masks = np.zeros((n, 3), dtype=bool)
    masks[:30, 0] = masks[30:, 2] = True
    regimes = find_regimes(masks, frame, n_neighbors=0, random_state=0)
    assert regimes.feature_names == ("a", "kind", "b")
    label = plot_regimes(regimes, frame, scale="standard").axes[0].get_xlabel()
    assert label.startswith("PC1: mostly") and "kind" not in label
