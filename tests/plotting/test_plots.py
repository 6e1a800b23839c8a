"""Every plot function renders without a display (Agg) and draws what its data says."""

from __future__ import annotations

import io
from types import SimpleNamespace

import matplotlib
import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectKBest

import localselect.plotting as plotting
from localselect.base import LocalSelectorMixin
from localselect.datasets import make_lfs_synthetic
from localselect.plotting import (
    plot_cardinality_vs_alpha,
    plot_error_vs_alpha,
    plot_feature_recovery,
    plot_local_subspaces,
    plot_selection_frequency,
    plot_weight_matrix,
    subspace_recovery,
)


class FixedLocal(LocalSelectorMixin, BaseEstimator):
    """A local selector with given training masks; a new row selects its positive entries."""

    def __init__(self, masks=None, *, feature_names=None):
        self.masks = masks
        self.feature_names = feature_names

    def fit(self, X=None, y=None):
        self.local_support_ = np.asarray(self.masks, dtype=bool)
        self.n_features_in_ = self.local_support_.shape[1]
        if self.feature_names is not None:
            self.feature_names_in_ = np.asarray(self.feature_names, dtype=object)
        return self

    def _validate_for_local(self, X):
        return np.asarray(X, dtype=float)

    def _local_support_mask(self, X):
        return X > 0


def _render(fig) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    data = buf.getvalue()
    assert data.startswith(b"\x89PNG") and len(data) > 1000
    return data


def test_figures_need_no_display_backend():
    matplotlib.use("Agg")
    fig = plot_selection_frequency(np.eye(3, dtype=bool))
    assert type(fig).__name__ == "Figure"
    _render(fig)


def test_selection_frequency_from_a_local_selector():
    masks = np.array([[1, 0, 1, 0], [1, 1, 0, 0], [1, 0, 0, 0]], dtype=bool)
    est = FixedLocal(masks, feature_names=list("abcd")).fit()
    fig = plot_selection_frequency(est, highlight=[0])
    ax = fig.axes[0]
    assert [p.get_height() for p in ax.patches] == pytest.approx([1, 1 / 3, 1 / 3, 0])
    assert [t.get_text() for t in ax.get_xticklabels()] == list("abcd")
    _render(fig)


def test_selection_frequency_top_and_importances():
    est = SimpleNamespace(feature_importances_=np.array([0.1, 0.5, 0.2, 0.5]))
    fig = plot_selection_frequency(est, top=3)
    ax = fig.axes[0]
    # Largest first, ties in feature order (x2 before x4).
    assert [t.get_text() for t in ax.get_xticklabels()] == ["x1", "x3", "x2"]
    assert "importance" in ax.get_ylabel()
    with pytest.raises(ValueError, match="shape"):
        plot_selection_frequency(np.zeros((2, 2, 2)))


def test_weight_matrix_heat_map_with_names_and_top():
    W = np.array([[0.9, 0.1, 0.0], [0.1, 0.2, 0.3], [0.0, 0.3, 0.5]])
    est = SimpleNamespace(weights_=W, feature_names_in_=np.array(["HI", "WP", "AB"]))
    fig = plot_weight_matrix(est)
    ax = fig.axes[0]
    np.testing.assert_array_equal(ax.images[0].get_array(), W)
    assert [t.get_text() for t in ax.texts] == [f"{v:.2f}" for v in W.ravel()]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["HI", "WP", "AB"]
    _render(fig)
    top = plot_weight_matrix(est, top=2).axes[0]
    assert [t.get_text() for t in top.get_xticklabels()] == ["HI", "AB"]
    np.testing.assert_array_equal(top.images[0].get_array(), W[np.ix_([0, 2], [0, 2])])
    with pytest.raises(ValueError, match="square"):
        plot_weight_matrix(np.zeros((2, 3)))


def test_local_subspaces_of_queries_use_get_local_support():
    X = np.array([[1.0, -1.0], [-1.0, 1.0], [1.0, 1.0]])
    est = FixedLocal(X > 0, feature_names=["u", "v"]).fit()
    fig = plot_local_subspaces(est, X, samples=[2, 0], sample_labels=["a", "b", "c"])
    ax = fig.axes[0]
    assert ax.images[0].get_array().tolist() == [[1.0, 1.0], [1.0, 0.0]]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["#2 (c)", "#0 (a)"]
    _render(fig)


def test_recovery_on_synthetic_data_with_known_features():
    X, _y, relevant = make_lfs_synthetic(60, 4, random_state=0)
    found = relevant.copy()
    found[:, -1] = True  # one noise feature selected everywhere
    found[0] = False  # sample 0 misses its relevant features
    scores = subspace_recovery(relevant, found)
    n_rel = relevant.sum()
    tp = n_rel - relevant[0].sum()
    assert scores.recall == pytest.approx(tp / n_rel)
    assert scores.precision == pytest.approx(tp / (tp + 59))
    fig = plot_feature_recovery(relevant, FixedLocal(found).fit(), n_samples=5)
    codes = fig.axes[0].images[0].get_array()
    assert codes.shape == (5, X.shape[1])
    assert set(np.unique(codes[0])) <= {0, 2}  # sample 0: only misses and true negatives
    assert codes[1, -1] == 3  # a false alarm on the noise feature
    assert "precision" in fig.axes[0].get_title()
    _render(fig)
    # A global selector is broadcast to every sample.
    glob = SelectKBest(k=2).fit(X, _y)
    codes = plot_feature_recovery(relevant, glob).axes[0].images[0].get_array()
    np.testing.assert_array_equal(codes[:, ~glob.get_support()] % 2, 0)  # never selected
    with pytest.raises(ValueError, match="shape"):
        subspace_recovery(relevant, found[:, :2])


def test_error_and_cardinality_curves_from_arrays_and_frames():
    fig = plot_error_vs_alpha([1, 2, 3], [[0.3, 0.2, 0.25], [0.4, 0.3, 0.3]], by=["LFS", "FDA"],
                              published=0.21)  # fmt: skip
    ax = fig.axes[0]
    assert [line.get_label() for line in ax.lines][:2] == ["LFS", "FDA"]
    assert ax.lines[2].get_ydata()[0] == pytest.approx(0.21)
    _render(fig)
    frame = pd.DataFrame(
        {"alpha": [2, 1, 1, 2], "cardinality": [3.0, 1.5, 1.0, 2.0], "std": 0.1,
         "dataset": ["Sonar", "Sonar", "DNA", "DNA"]}
    )  # fmt: skip
    ax = plot_cardinality_vs_alpha(frame, by="dataset").axes[0]
    assert ax.lines[0].get_xdata().tolist() == [1, 2]  # sorted by alpha
    assert ax.lines[0].get_ydata().tolist() == [1.5, 3.0]
    assert len(ax.collections) == 2  # std bands
    with pytest.raises(ValueError, match="missing"):
        plot_error_vs_alpha(frame)
    with pytest.raises(ValueError, match="points"):
        plot_error_vs_alpha([1, 2], [0.1, 0.2, 0.3])


def test_drawing_into_given_axes():
    from matplotlib.figure import Figure

    fig = Figure()
    left, right = fig.subplots(1, 2)
    assert plot_selection_frequency([0.1, 0.2], ax=left) is fig
    assert plot_error_vs_alpha([1, 2], [0.1, 0.2], ax=right) is fig
    assert len(right.lines) == 1


def test_lazy_names_and_the_lift_table_guard():
    assert "plot_lift_table" in dir(plotting)
    with pytest.raises(AttributeError, match="no attribute"):
        plotting.plot_nothing  # noqa: B018
    try:
        import localselect.plotting._lift  # noqa: F401
    except ModuleNotFoundError:
        with pytest.raises(ImportError, match="not available in this version"):
            plotting.plot_lift_table  # noqa: B018
    else:
        assert callable(plotting.plot_lift_table)


def test_infinite_scores_are_drawn_as_labelled_bars():
    # A Fisher score of inf, ranked first, was once drawn as an empty bar, with a
    # RuntimeWarning from matplotlib.
    import warnings

    from localselect import FisherScore

    y = np.repeat([0, 1], 10)
    X = np.column_stack([y.astype(float), np.arange(20.0) % 7, np.arange(20.0) % 3])
    fisher = FisherScore(n_features_to_select=2).fit(X, y)
    assert np.isposinf(fisher.feature_importances_[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_selection_frequency(fisher, top=3)
        fig.canvas.draw()
    heights = [p.get_height() for p in fig.axes[0].patches]
    finite = fisher.feature_importances_[1:]
    assert np.all(np.isfinite(heights))
    assert heights[0] == pytest.approx(1.1 * finite.max())
    assert fig.axes[0].patches[0].get_hatch() == "//"
    assert [t.get_text() for t in fig.axes[0].texts] == ["inf"]
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_local_subspaces_label_a_continuous_target_briefly():
    from localselect.plotting import plot_local_subspaces

    mask = np.array([[1, 0], [0, 1], [1, 1]], dtype=bool)
    fig = plot_local_subspaces(mask, sample_labels=np.array([3.14159265, 2.0, -0.000123456]))
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["#0 (3.14)", "#1 (2.0)", "#2 (-0.000123)"]
    fig = plot_local_subspaces(mask, sample_labels=["a", "b", "c"])
    assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == ["#0 (a)", "#1 (b)", "#2 (c)"]
