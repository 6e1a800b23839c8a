"""The "where" figure renders for 2, 10 and 40 regimes and 200 features, without warnings."""

import itertools
import warnings

import numpy as np
import pytest

from localselect.plotting import plot_regime_rows, plot_regimes
from localselect.regimes import find_regimes


def _answers(n_regimes, n_features, rows_per=20, seed=0):
    rng = np.random.default_rng(seed)
    patterns = rng.random((n_regimes, n_features)) < 0.1
    labels = np.repeat(np.arange(n_regimes), rows_per)
    relevance = patterns[labels] * rng.uniform(0.5, 1.0, (len(labels), n_features))
    X = patterns[labels] * 3.0 + rng.standard_normal((len(labels), n_features))
    y = rng.integers(0, 3, len(labels))
    return relevance, X, y


@pytest.mark.parametrize(("n_regimes", "n_features"), [(2, 8), (10, 200), (40, 200)])
def test_the_where_figure_renders_without_warnings(n_regimes, n_features, tmp_path):
    relevance, X, y = _answers(n_regimes, n_features)
    regimes = find_regimes(relevance, X, y, n_regimes=n_regimes, n_neighbors=0, random_state=0)
    assert regimes.n_regimes == n_regimes
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_regimes(regimes, X)
        fig.savefig(tmp_path / "where.png", dpi=60)
        rows = plot_regime_rows(regimes, relevance=relevance)
        rows.savefig(tmp_path / "rows.png", dpi=60)
    heat = fig.axes[1]
    labels = [t.get_text() for t in heat.get_xticklabels()]
    assert 0 < len(labels) <= 40  # thinned: never 200 labels on one axis
    assert len(heat.get_yticklabels()) == min(n_regimes, 40)
    assert heat.get_yticklabels()[0].get_text().startswith("R1 (n=")
    # no two feature labels overlap once drawn
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    boxes = [t.get_window_extent(renderer) for t in heat.get_xticklabels()]
    assert not any(a.overlaps(b) for a, b in itertools.pairwise(boxes))


def test_the_map_takes_a_user_embedding():
    relevance, X, y = _answers(3, 6)
    fig = plot_regimes(relevance, X, y, embedding=X[:, :2], random_state=0)
    assert "embedding" in fig.axes[0].get_title()
    with pytest.raises(ValueError, match="embedding must have shape"):
        plot_regimes(relevance, X, y, embedding=X[:, :3], random_state=0)


def test_regime_colours_are_readable_on_white():
    from localselect.plotting._regimes import MIN_CONTRAST, _colours, _luminance

    for n in (2, 10, 40):
        colours = _colours(n)
        assert len({c[:3] for c in colours}) == n
        assert all(1.05 / (_luminance(np.array(c[:3])) + 0.05) >= MIN_CONTRAST for c in colours)


def test_the_default_map_separates_regimes_among_noise_columns():
    # Two regimes told apart by x1's sign, 2 columns used, 38 of noise: a PCA of the
    # z-scored columns mixes the regimes; weighted by mean relevance the map separates them
    # (15-NN accuracy of the regime on the map: 'standard' ~0.6, 'relevance' >= 0.95).
    from sklearn.model_selection import cross_val_score
    from sklearn.neighbors import KNeighborsClassifier

    rng = np.random.default_rng(0)
    X = rng.standard_normal((600, 40))
    relevance = np.zeros((600, 40))
    relevance[:, 0] = 1.0
    relevance[X[:, 0] < 0, 1] = 1.0
    regimes = find_regimes(relevance, X, random_state=0)
    assert regimes.n_regimes == 2

    def map_accuracy(scale):
        fig = plot_regimes(regimes, X, scale=scale)
        points = [c.get_offsets() for c in fig.axes[0].collections]
        labels = np.repeat(np.arange(len(points)), [len(p) for p in points])
        return cross_val_score(KNeighborsClassifier(15), np.vstack(points), labels, cv=3).mean()

    assert map_accuracy("relevance") >= 0.95
    assert map_accuracy("standard") < 0.8
    assert "columns by relevance" in plot_regimes(regimes, X).axes[0].get_title()


def test_plot_regimes_draws_into_a_given_figure():
    from matplotlib.figure import Figure

    relevance, X, y = _answers(3, 6)
    given = Figure()
    fig = plot_regimes(relevance, X, y, random_state=0, fig=given)
    assert fig is given and len(fig.axes) == 3  # map, heat map, colour bar
