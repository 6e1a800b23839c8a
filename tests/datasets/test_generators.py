"""The papers' synthetic designs, checked against their text.

References: Armanfard, Reilly and Komeili 2016 (LFS), sec. 4 and 4.2;
Zhao, Hong and Liu (IMMIGRATE), sec. 4.1; Pichara and Soto (GP local feature
selection), sec. 5.1, Algorithm 3.
"""

from __future__ import annotations

from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from localselect.datasets import (
    make_immigrate_synthetic,
    make_lfs_synthetic,
    make_subspace_classification,
)

GENERATORS = [
    (make_lfs_synthetic, {"n_samples": 30, "n_irrelevant": 5}),
    (make_immigrate_synthetic, {"n_per_class": 15, "n_noise_features": 3}),
    (make_subspace_classification, {"n_samples": 40, "n_features": 12}),
]
GENERATOR_IDS = ["lfs", "immigrate", "subspace"]


# --------------------------------------------------------------------------- #
# Shared behaviour
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(("make", "kwargs"), GENERATORS, ids=GENERATOR_IDS)
def test_output_types(make, kwargs):
    X, y, relevant = make(**kwargs, random_state=0)
    assert X.dtype == np.float64
    assert y.dtype == np.int64
    assert relevant.dtype == bool
    assert X.ndim == 2
    assert y.shape == (X.shape[0],)
    assert relevant.shape == X.shape
    assert np.isfinite(X).all()


@pytest.mark.parametrize(("make", "kwargs"), GENERATORS, ids=GENERATOR_IDS)
def test_random_state_determines_output(make, kwargs):
    first = make(**kwargs, random_state=3)
    second = make(**kwargs, random_state=3)
    third = make(**kwargs, random_state=np.random.RandomState(3))
    for a, b, c in zip(first, second, third, strict=True):
        assert_array_equal(a, b)
        assert_array_equal(a, c)
    other = make(**kwargs, random_state=4)
    assert not np.array_equal(first[0], other[0])


@pytest.mark.parametrize(("make", "kwargs"), GENERATORS, ids=GENERATOR_IDS)
def test_random_state_instance_is_advanced(make, kwargs):
    rng = np.random.RandomState(0)
    X1 = make(**kwargs, random_state=rng)[0]
    X2 = make(**kwargs, random_state=rng)[0]
    assert not np.array_equal(X1, X2)


@pytest.mark.parametrize(("make", "kwargs"), GENERATORS, ids=GENERATOR_IDS)
def test_bad_random_state(make, kwargs):
    with pytest.raises(ValueError, match="random_state"):
        make(**kwargs, random_state="seed")


# --------------------------------------------------------------------------- #
# LFS, Armanfard et al. 2016, sec. 4 (Fig. 3) and 4.2 (Fig. 4)
# --------------------------------------------------------------------------- #


def test_lfs_class_and_subclass_sizes():
    # Balanced classes; Y1 split evenly between '+' (0) and '◊' (1).
    X, y, _, subclass = make_lfs_synthetic(
        101, n_irrelevant=7, return_subclass=True, random_state=0
    )
    assert X.shape == (101, 9)
    assert_array_equal(np.bincount(subclass), [25, 25, 51])
    assert_array_equal(y, subclass == 2)
    assert_array_equal(np.bincount(y), [50, 51])


def test_lfs_expected_features_per_subclass():
    # Sec. 4.2: x1 for '+', x2 for '◊', both for Y2; irrelevant features never.
    _, _, relevant, subclass = make_lfs_synthetic(
        60, n_irrelevant=4, return_subclass=True, random_state=1
    )
    expected = {0: [True, False], 1: [False, True], 2: [True, True]}
    for s, cols in expected.items():
        assert_array_equal(relevant[subclass == s, :2], np.tile(cols, ((subclass == s).sum(), 1)))
    assert not relevant[:, 2:].any()


def test_lfs_zscores():
    # Sec. 4: every feature is transformed to its z-score.
    X, _, _ = make_lfs_synthetic(50, n_irrelevant=20, random_state=2)
    assert_allclose(X.mean(axis=0), 0.0, atol=1e-12)
    assert_allclose(X.std(axis=0), 1.0, rtol=1e-12)


def test_lfs_cluster_geometry():
    # Before z-scoring: '+' ~ N((4, 0), I), '◊' ~ N((0, 4), I), Y2 ~ N((0, 0), I)
    # with weights 1/4, 1/4, 1/2. Each relevant feature has mean 1 and variance
    # 1 + 16 * (1/4) * (3/4) = 4, so in z units the subclass means of x1 are
    # (4 - 1) / 2 = 1.5 for '+' and (0 - 1) / 2 = -0.5 otherwise (x2 symmetric),
    # and the within-subclass standard deviation is 1 / 2.
    X, _, _, subclass = make_lfs_synthetic(
        40_000, n_irrelevant=2, return_subclass=True, random_state=3
    )
    expected_means = np.array([[1.5, -0.5, 0, 0], [-0.5, 1.5, 0, 0], [-0.5, -0.5, 0, 0]])
    for s in range(3):
        Xs = X[subclass == s]
        assert_allclose(Xs.mean(axis=0), expected_means[s], atol=0.05)
        assert_allclose(Xs[:, :2].std(axis=0), 0.5, atol=0.02)
        # x1 and x2 are independent within a subclass.
        assert abs(np.corrcoef(Xs[:, 0], Xs[:, 1])[0, 1]) < 0.05


def test_lfs_class_sep_sets_the_distance():
    X, _, _, subclass = make_lfs_synthetic(
        20_000, n_irrelevant=0, class_sep=0.0, return_subclass=True, random_state=4
    )
    for s in range(3):
        assert_allclose(X[subclass == s].mean(axis=0), 0.0, atol=0.05)


def test_lfs_relevant_part_does_not_depend_on_n_irrelevant():
    # A sweep over n_irrelevant (Fig. 4) contaminates the same data.
    X1, y1, _ = make_lfs_synthetic(40, n_irrelevant=1, random_state=5)
    X2, y2, _ = make_lfs_synthetic(40, n_irrelevant=300, random_state=5)
    assert_array_equal(y1, y2)
    assert_allclose(X1[:, :2], X2[:, :2], rtol=1e-12)


def test_lfs_shuffle():
    _, _, _, subclass = make_lfs_synthetic(
        20, n_irrelevant=1, shuffle=False, return_subclass=True, random_state=0
    )
    assert_array_equal(subclass, np.repeat([0, 1, 2], [5, 5, 10]))
    _, _, _, shuffled = make_lfs_synthetic(
        20, n_irrelevant=1, return_subclass=True, random_state=0
    )
    assert not np.array_equal(shuffled, subclass)
    assert_array_equal(np.sort(shuffled), subclass)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_samples": 3}, "n_samples"),
        ({"n_samples": 10.5}, "n_samples"),
        ({"n_irrelevant": -1}, "n_irrelevant"),
        ({"class_sep": -1.0}, "class_sep"),
    ],
)
def test_lfs_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_lfs_synthetic(**kwargs)


# --------------------------------------------------------------------------- #
# IMMIGRATE, Zhao, Hong and Liu, sec. 4.1 (Fig. 2 and 3)
# --------------------------------------------------------------------------- #

SIGNAL_COV = np.array([[1.0, 0.5], [0.5, 1.0]])
NOISE_COV = np.array([[8.0, 4.0], [4.0, 8.0]])


def test_immigrate_sizes_and_noise_count():
    X, y, _, is_noise = make_immigrate_synthetic(
        100, noise_level=0.1, n_noise_features=3, return_noise=True, random_state=0
    )
    assert X.shape == (200, 5)
    assert_array_equal(np.bincount(y), [100, 100])
    # "10% samples from the noise distributions" (Fig. 2), in each class.
    assert_array_equal(np.bincount(y[is_noise], minlength=2), [10, 10])


@pytest.mark.parametrize(
    ("n_per_class", "noise_level", "n_noise"),
    [(10, 0.0, 0), (10, 0.25, 3), (10, 0.24, 2), (100, 0.05, 5), (100, 0.5, 50), (3, 0.99, 3)],
)
def test_immigrate_noise_rounding(n_per_class, noise_level, n_noise):
    _, y, _, is_noise = make_immigrate_synthetic(
        n_per_class, noise_level, return_noise=True, random_state=0
    )
    assert_array_equal(np.bincount(y[is_noise], minlength=2), [n_noise, n_noise])


def test_immigrate_distributions():
    # Class 1: N((4, 2), C), class 2: N((6, 0), C), C = [[1, .5], [.5, 1]];
    # their noise: N((8, -2), 8C) and N((2, 4), 8C).
    X, y, _, is_noise = make_immigrate_synthetic(
        20_000, noise_level=0.5, return_noise=True, random_state=1
    )
    groups = [
        (0, False, [4, 2], SIGNAL_COV, 0.05),
        (1, False, [6, 0], SIGNAL_COV, 0.05),
        (0, True, [8, -2], NOISE_COV, 0.3),
        (1, True, [2, 4], NOISE_COV, 0.3),
    ]
    for label, noise, mean, cov, tol in groups:
        Xg = X[(y == label) & (is_noise == noise)]
        assert len(Xg) == 10_000
        assert_allclose(Xg.mean(axis=0), mean, atol=3 * tol / 5)
        assert_allclose(np.cov(Xg.T), cov, atol=tol)


def test_immigrate_slope_one_line_separates_clean_classes():
    # Fig. 2: a line of slope 1 separates the labels. x2 - x1 has mean -2 for
    # class 1, -6 for class 2 and variance 1 + 1 - 2 * 0.5 = 1, so the line
    # x2 - x1 = -4 errs with probability Phi(-2) = 0.0228.
    X, y = make_immigrate_synthetic(5000, noise_level=0.0, random_state=2)[:2]
    error = np.mean((X[:, 1] - X[:, 0] > -4) != (y == 0))
    assert abs(error - 0.0228) < 0.006


def test_immigrate_noise_lies_on_the_other_side():
    # The noise of each class sits across the line: x2 - x1 has mean -10 for
    # class-1 noise and +2 for class-2 noise.
    X, y, _, is_noise = make_immigrate_synthetic(
        2000, noise_level=0.5, return_noise=True, random_state=3
    )
    d = X[:, 1] - X[:, 0]
    assert d[(y == 0) & is_noise].mean() < -8
    assert d[(y == 1) & is_noise].mean() > 0


def test_immigrate_relevant_and_noise_features():
    X, _, relevant = make_immigrate_synthetic(
        3000, noise_level=0.2, n_noise_features=4, random_state=4
    )
    assert relevant[:, :2].all()
    assert not relevant[:, 2:].any()
    assert_allclose(X[:, 2:].mean(axis=0), 0.0, atol=0.1)
    assert_allclose(X[:, 2:].std(axis=0), 1.0, atol=0.05)


def test_immigrate_features_do_not_depend_on_n_noise_features():
    X1, y1, _ = make_immigrate_synthetic(30, random_state=5)
    X2, y2, _ = make_immigrate_synthetic(30, n_noise_features=10, random_state=5)
    assert_array_equal(y1, y2)
    assert_array_equal(X1, X2[:, :2])


def test_immigrate_no_shuffle_order():
    _, y, _, is_noise = make_immigrate_synthetic(
        10, noise_level=0.2, shuffle=False, return_noise=True, random_state=0
    )
    assert_array_equal(y, np.repeat([0, 1], 10))
    assert_array_equal(is_noise, np.tile(np.arange(10) < 2, 2))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"noise_level": 1.0}, "noise_level"),
        ({"noise_level": -0.1}, "noise_level"),
        ({"n_per_class": 1}, "n_per_class"),
        ({"n_noise_features": -2}, "n_noise_features"),
    ],
)
def test_immigrate_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_immigrate_synthetic(**kwargs)


# --------------------------------------------------------------------------- #
# GP local selection, Pichara and Soto, sec. 5.1, Algorithm 3
# --------------------------------------------------------------------------- #


def _subspace_table(relevant, subspace):
    """Mask of each subspace id, checking that all its samples share it."""
    table = {}
    for s in np.unique(subspace):
        rows = relevant[subspace == s]
        assert (rows == rows[0]).all()
        table[int(s)] = rows[0]
    return table


def test_subspace_paper_configuration():
    # Sec. 5.1: 500 points, 50 features, 4 classes, 6 candidate subspaces.
    X, y, relevant, subspace = make_subspace_classification(return_subspace=True, random_state=0)
    assert X.shape == (500, 50)
    assert set(np.unique(subspace)) == set(range(-1, 6))
    assert set(np.unique(y)) == set(range(4))
    table = _subspace_table(relevant, subspace)
    assert not table[-1].any()
    masks = np.array([table[s] for s in range(6)])
    # Distinct subspaces with the default sizes 2..10.
    assert len({m.tobytes() for m in masks}) == 6
    assert ((masks.sum(axis=1) >= 2) & (masks.sum(axis=1) <= 10)).all()


def test_subspace_labels_follow_subspaces():
    # "Points generated from the same subspace have the same label", and every
    # class has at least one subspace of B.
    _, y, _, subspace = make_subspace_classification(
        300, n_features=10, n_classes=3, n_subspaces=5, return_subspace=True, random_state=1
    )
    labels = {int(s): np.unique(y[subspace == s]) for s in np.unique(subspace)}
    assert all(len(v) == 1 for v in labels.values())
    assert {int(labels[s][0]) for s in range(5)} == {0, 1, 2}


def test_subspace_selection_is_uniform_over_b_prime():
    # S_p is drawn uniformly from B' (7 elements): about 20000 / 7 each.
    _, _, _, subspace = make_subspace_classification(
        20_000, n_features=20, return_subspace=True, random_state=2
    )
    counts = np.bincount(subspace + 1)
    assert len(counts) == 7
    assert_allclose(counts / 20_000, 1 / 7, atol=0.015)


def test_subspace_feature_distributions():
    # Features of S_p come from G_j = N(mu_j, cluster_std^2), the others from
    # U[0, 1). With shared distributions, G_j is the same in every subspace.
    n_features, std = 6, 0.05
    X, _, relevant, subspace = make_subspace_classification(
        8000,
        n_features=n_features,
        n_classes=2,
        n_subspaces=4,
        subspace_size=(2, 4),
        cluster_std=std,
        return_subspace=True,
        random_state=3,
    )
    uniform = X[~relevant]
    assert uniform.min() >= 0.0
    assert uniform.max() < 1.0
    assert_allclose(uniform.var(), 1 / 12, rtol=0.05)
    for j in range(n_features):
        in_j = relevant[:, j]
        if not in_j.any():
            continue
        means = [X[in_j & (subspace == s), j].mean() for s in np.unique(subspace[in_j])]
        assert np.ptp(means) < 0.01
        assert 0 <= np.mean(means) < 1
        assert_allclose(X[in_j, j].std(), std, rtol=0.1)


def test_subspace_per_subspace_distributions():
    # shared_distributions=False: a feature shared by several subspaces has its
    # own centre in each (three 3-subsets of 4 features overlap pairwise).
    X, _, relevant, subspace = make_subspace_classification(
        3000,
        n_features=4,
        n_classes=2,
        n_subspaces=3,
        subspace_size=3,
        cluster_std=0.01,
        shared_distributions=False,
        empty_subspace=False,
        return_subspace=True,
        random_state=4,
    )
    assert subspace.min() == 0
    spreads = []
    for j in range(4):
        in_j = relevant[:, j]
        means = [X[in_j & (subspace == s), j].mean() for s in np.unique(subspace[in_j])]
        if len(means) > 1:
            spreads.append(np.ptp(means))
    assert len(spreads) >= 2
    assert max(spreads) > 0.1


def test_subspace_fixed_size_and_all_subsets():
    # n_subspaces equal to the number of subsets: every non-empty subset of 3
    # features is drawn exactly once (the enumeration path).
    _, _, relevant, subspace = make_subspace_classification(
        70,
        n_features=3,
        n_classes=2,
        n_subspaces=7,
        subspace_size=(1, 3),
        return_subspace=True,
        random_state=5,
    )
    table = _subspace_table(relevant, subspace)
    subsets = {tuple(np.flatnonzero(table[s])) for s in range(7)}
    assert subsets == {(0,), (1,), (2,), (0, 1), (0, 2), (1, 2), (0, 1, 2)}

    _, _, relevant = make_subspace_classification(
        50, n_features=300, n_classes=2, n_subspaces=3, subspace_size=4, random_state=5
    )
    assert set(relevant.sum(axis=1)) <= {0, 4}


def test_subspace_every_element_generates_a_sample():
    _, y, _, subspace = make_subspace_classification(
        7, n_features=5, n_classes=3, n_subspaces=6, return_subspace=True, random_state=6
    )
    assert_array_equal(np.sort(subspace), np.arange(-1, 6))
    assert set(y) == {0, 1, 2}


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_classes": 1}, "n_classes"),
        ({"n_samples": 0}, "n_samples"),
        ({"n_samples": 6}, "n_samples=6 must be at least"),
        ({"n_subspaces": 3}, "n_subspaces=3 must be at least n_classes=4"),
        ({"n_features": 3, "subspace_size": (1, 3), "n_subspaces": 8}, "distinct subspaces"),
        ({"n_features": 4, "subspace_size": 2, "n_subspaces": 7}, r"at most 6\)"),
        ({"subspace_size": 51}, "subspace_size"),
        ({"subspace_size": (5, 3)}, "subspace_size"),
        ({"subspace_size": (0, 3)}, "subspace_size"),
        ({"subspace_size": (1, 2, 3)}, "subspace_size"),
        ({"subspace_size": (1.0, 3)}, "subspace_size"),
        ({"subspace_size": 0}, "subspace_size"),
        ({"cluster_std": -0.1}, "cluster_std"),
    ],
)
def test_subspace_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_subspace_classification(**kwargs)


# --------------------------------------------------------------------------- #
# Properties over parameter ranges
# --------------------------------------------------------------------------- #


@given(
    n_samples=st.integers(4, 40),
    n_irrelevant=st.integers(0, 6),
    seed=st.integers(0, 2**31 - 1),
)
def test_lfs_property(n_samples, n_irrelevant, seed):
    X, y, relevant = make_lfs_synthetic(n_samples, n_irrelevant, random_state=seed)
    assert X.shape == relevant.shape == (n_samples, 2 + n_irrelevant)
    assert np.isfinite(X).all()
    assert_array_equal(np.bincount(y), [n_samples // 2, n_samples - n_samples // 2])
    assert relevant[:, :2].any(axis=1).all()


@given(
    n_per_class=st.integers(2, 30),
    noise_level=st.floats(0.0, 0.99),
    n_noise_features=st.integers(0, 4),
    seed=st.integers(0, 2**31 - 1),
)
def test_immigrate_property(n_per_class, noise_level, n_noise_features, seed):
    X, y, relevant, is_noise = make_immigrate_synthetic(
        n_per_class,
        noise_level,
        n_noise_features=n_noise_features,
        return_noise=True,
        random_state=seed,
    )
    assert X.shape == relevant.shape == (2 * n_per_class, 2 + n_noise_features)
    assert np.isfinite(X).all()
    n_noise = np.bincount(y[is_noise], minlength=2)
    assert n_noise[0] == n_noise[1]
    assert abs(n_noise[0] - noise_level * n_per_class) <= 0.5


@st.composite
def _subspace_args(draw):
    n_features = draw(st.integers(1, 12))
    low = draw(st.integers(1, n_features))
    high = draw(st.integers(low, n_features))
    n_classes = draw(st.integers(2, 4))
    capacity = sum(comb(n_features, k) for k in range(low, high + 1))
    # When capacity < n_classes this asks for too many subspaces: an error case.
    n_subspaces = draw(st.integers(n_classes, max(n_classes, min(capacity, 8))))
    empty = draw(st.booleans())
    n_samples = draw(st.integers(n_subspaces + int(empty), 40))
    return {
        "n_samples": n_samples,
        "n_features": n_features,
        "n_classes": n_classes,
        "n_subspaces": n_subspaces,
        "subspace_size": (low, high),
        "empty_subspace": empty,
        "shared_distributions": draw(st.booleans()),
        "random_state": draw(st.integers(0, 2**31 - 1)),
    }


@given(args=_subspace_args())
def test_subspace_property(args):
    if args["n_subspaces"] > _capacity(args):
        with pytest.raises(ValueError, match="distinct subspaces"):
            make_subspace_classification(**args)
        return
    X, y, relevant, subspace = make_subspace_classification(**args, return_subspace=True)
    assert X.shape == relevant.shape == (args["n_samples"], args["n_features"])
    assert np.isfinite(X).all()
    assert set(np.unique(y)) == set(range(args["n_classes"]))
    low, high = args["subspace_size"]
    sizes = relevant[subspace >= 0].sum(axis=1)
    assert ((sizes >= low) & (sizes <= high)).all()
    assert not relevant[subspace < 0].any()


def _capacity(args):
    low, high = args["subspace_size"]
    return sum(comb(args["n_features"], k) for k in range(low, high + 1))
