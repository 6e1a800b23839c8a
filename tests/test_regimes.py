"""find_regimes: rows grouped by the features they use (issue 39)."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from localselect import ConditionalSaliencySelection, LocalFeatureSelection, ReliefF
from localselect.datasets import make_instancewise_synthetic, make_lfs_synthetic
from localselect.regimes import find_regimes


def _truth(relevant):
    """Rows grouped by their true relevant set."""
    return np.unique(relevant, axis=0, return_inverse=True)[1].ravel()


def test_identical_subsets_make_one_regime_each():
    masks = np.zeros((9, 4), dtype=bool)
    masks[:5, [0, 3]] = True
    masks[5:, [1, 3]] = True
    regimes = find_regimes(masks, random_state=0)
    assert regimes.sizes.tolist() == [5, 4]
    assert regimes.labels.tolist() == [0] * 5 + [1] * 4
    assert [sorted(f.tolist()) for f in regimes.features] == [[0, 3], [1, 3]]
    assert regimes.shared.tolist() == [3]
    assert "Every regime uses x4" in regimes.describe()


def test_same_random_state_same_regimes_and_class_mix():
    X, y, _ = make_lfs_synthetic(120, 6, random_state=0)
    lfs = LocalFeatureSelection(random_state=0).fit(X, y)
    first = find_regimes(lfs, X, y, random_state=3)
    again = find_regimes(lfs, X, y, random_state=3)
    np.testing.assert_array_equal(first.labels, again.labels)
    assert first.silhouettes == again.silhouettes
    assert first.class_counts.sum() == 120 and first.class_counts.shape == (first.n_regimes, 2)
    np.testing.assert_array_equal(first.class_counts.sum(axis=1), first.sizes)


def test_a_global_selector_gives_one_regime():
    X, y, _ = make_lfs_synthetic(80, 6, random_state=0)
    relief = ReliefF(n_features_to_select=2).fit(X, y)
    regimes = find_regimes(relief, X, y, random_state=0)
    assert regimes.n_regimes == 1 and regimes.scope == "global"
    assert sorted(regimes.features[0].tolist()) == sorted(relief.get_support(indices=True))
    assert regimes.describe().startswith("The answer is global")


def test_continuous_target_gives_its_mean_per_regime():
    masks = np.repeat(np.eye(2, dtype=bool), 5, axis=0)
    y = np.r_[np.full(5, 1.5), np.full(5, -2.0)] + np.linspace(0, 0.01, 10)
    regimes = find_regimes(masks, y=y, random_state=0)
    assert regimes.class_counts is None
    np.testing.assert_allclose(regimes.target_mean, [1.5022, -1.9922], atol=1e-3)
    assert "mean target" in regimes.describe()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_lfs_regimes_match_the_generators_truth(seed):
    # make_lfs_synthetic(300, 20): three true row groups ({x1}, {x2}, {x1, x2});
    # measured ARI 0.82-0.92 on the training rows and held-out rows of seeds 0-2.
    X, y, relevant = make_lfs_synthetic(300, 20, random_state=seed)
    lfs = LocalFeatureSelection(random_state=0).fit(X, y)
    regimes = find_regimes(lfs, X, y, random_state=0)
    assert regimes.n_regimes == 3
    assert adjusted_rand_score(_truth(relevant), regimes.labels) >= 0.8


@pytest.mark.slow
def test_syn4_regimes_match_the_switch():
    # Syn4 (INVASE): x1 x2 where x11 < 0, x3..x6 where x11 >= 0. Measured: ARI 0.82 on
    # the 10,000 training rows of seed 0, 0.80 on 2,000 held-out rows.
    X, y, relevant = make_instancewise_synthetic(10_000, "syn4", random_state=0)
    saliency = ConditionalSaliencySelection(random_state=0).fit(X, y)
    regimes = find_regimes(saliency, X, y, random_state=0)
    assert regimes.n_regimes == 2
    assert adjusted_rand_score(_truth(relevant), regimes.labels) >= 0.8
