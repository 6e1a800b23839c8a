"""``diff`` per input column in the Relief family, against slow references.

The references (``_reference_columns.py``) compute one pair and one column at
a time: CORElearn's ``diff`` (nominal 0/1, the missing-value probabilities,
the ramp) and neighbour selection for RReliefF, and Kononenko's ReliefF with
0/1 nominal columns and class-conditional missing values for class labels.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from localselect import IRelief, Relief, ReliefF, Simba
from localselect._runtime import Reporter
from localselect.margin import _column_diff
from localselect.margin._common import encode_nominal, input_kinds
from localselect.margin._relieff_numba import corelearn_select
from localselect.margin._rrelieff import rrelieff

_spec = importlib.util.spec_from_file_location(
    "margin_reference_columns", Path(__file__).with_name("_reference_columns.py")
)
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)
CorelearnColumns = ref.CorelearnColumns
corelearn_neighbours = ref.corelearn_neighbours
relieff_classes = ref.relieff_classes
slow_rrelieff = ref.rrelieff


class _Columns:
    """A stand-in for the fitted ``input_columns_`` (the nominal mask and levels)."""

    def __init__(self, nominal, n_levels):
        self.nominal = np.asarray(nominal, dtype=bool)
        self.levels = tuple(
            np.arange(n) if nom else None for nom, n in zip(nominal, n_levels, strict=True)
        )


def _mixed(seed, n, missing=0.1, integers=True):
    """A 3-level factor, a continuous column, an integer (or continuous) one, a 2-level factor."""
    rng = np.random.default_rng(seed)
    third = rng.integers(0, 4, n).astype(float) if integers else rng.normal(size=n)
    X = np.column_stack([rng.integers(0, 3, n), rng.normal(size=n), third, rng.integers(0, 2, n)])
    X = X.astype(float)
    X[rng.random(X.shape) < missing] = np.nan
    y = 2.0 * (X[:, 0] == 1) + np.nan_to_num(X[:, 1]) + 0.3 * rng.normal(size=n)
    return X, y, np.array([True, False, False, True]), np.array([3, 0, 0, 2])


def _fit(est, X, target, nominal, n_levels, task):
    """The fit after validation, with the column kinds the table reader gives."""
    est.input_columns_ = _Columns(nominal, n_levels)
    est.task_, est.n_features_in_ = task, X.shape[1]
    est._fit(X, target, Reporter.for_estimator(est))
    return est.feature_importances_


@pytest.mark.parametrize(
    ("seed", "n", "k", "options"),
    [
        (0, 30, 5, {}),
        (1, 40, 7, {"weights": "exp_rank", "sigma": 3.0}),
        (2, 24, 23, {"weights": "exp_rank", "sigma": 20.0}),  # k = N - 1, fewer than 25 rows
        (3, 35, 4, {"equal": 0.05, "different": 0.3}),
        (4, 50, 10, {"equal": 0.2, "different": 0.2}),  # a step: equal == different
    ],
)
def test_rrelieff_equals_slow_reference(seed, n, k, options):
    X, y, nominal, n_levels = _mixed(seed, n)
    expected = slow_rrelieff(X, y, nominal, n_levels, k, **options)
    got = rrelieff(
        X,
        y,
        np.arange(n),
        k,
        neighbor_weights=options.get("weights", "equal"),
        sigma=options.get("sigma", 20.0),
        nominal=nominal,
        n_levels=n_levels,
        numeric_equal=options.get("equal", 0.0),
        numeric_different=options.get("different", 1.0),
    )
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # through the estimator, the column kinds read from ``input_columns_``
    est = ReliefF(
        n_neighbors=k,
        max_samples=None,
        neighbor_weights=options.get("weights", "equal"),
        sigma=options.get("sigma", 20.0),
        numeric_equal=options.get("equal", 0.0),
        numeric_different=options.get("different", 1.0),
    )
    np.testing.assert_array_equal(_fit(est, X, y, nominal, n_levels, "regression"), got)


def test_missing_value_tables_are_corelearns_probabilities():
    # 10 rows: a 3-level column with counts (4, 3, 1) and 2 missing; B = max(2, 10 // 5) = 2.
    col = np.array([0, 0, 0, 0, 1, 1, 1, 2, np.nan, np.nan])
    num = np.array([0.0, 1, 2, 3, 4, 5, 6, 7, 8, np.nan])
    spec = _column_diff.column_diff(np.column_stack([col, num]), np.array([True, False]))
    p = np.array([5, 4, 2]) / (10 + 3 - 2)  # (n_v + 1) / (N + L - n_missing)
    np.testing.assert_allclose(spec.missing[0, :4], [1 - np.sum(p**2), *(1 - p)])
    # numeric: two intervals of width 4.000004 (widened by 1e-6): 0..4 and 5..8, 1 missing
    q = np.array([6, 5]) / (10 + 2 - 1)
    np.testing.assert_allclose(spec.missing[1, :3], [1 - np.sum(q**2), *(1 - q)])
    ref = CorelearnColumns(np.column_stack([col, num]), [True, False], [3, 0])
    assert ref.diff(0, 8, 9) == pytest.approx(spec.missing[0, 0])
    assert ref.diff(1, 9, 7) == pytest.approx(spec.missing[1, 2])


def test_heap_selection_keeps_corelearns_tied_samples():
    # Eleven samples at distance 1 around sample 0: which five are kept is the heap's choice.
    row = np.array([0.0, *([1.0] * 11), 0.5, 2.0])
    keys, vals = np.empty(14), np.empty(14, dtype=np.int64)
    idx, dist = np.empty(6, dtype=np.int64), np.empty(6)
    corelearn_select(row, 0, 6, keys, vals, idx, dist)
    expected = corelearn_neighbours(list(row), 0, 6)
    assert [int(j) for j in idx] == [j for j, _ in expected]
    assert idx[0] == 12 and set(idx[1:]) <= set(range(1, 12))
    assert list(idx[1:]) != sorted(idx[1:])[:5] or sorted(idx[1:]) != list(range(1, 6))
    # duplicates of the reference beyond k: the nearest record is dropped, as in CORElearn
    dup = np.zeros(5)
    corelearn_select(dup, 2, 2, np.empty(5), np.empty(5, dtype=np.int64), idx[:2], dist[:2])
    assert [int(j) for j in idx[:2]] == [j for j, _ in corelearn_neighbours(list(dup), 2, 2)]


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(3, 40),
    k=st.integers(1, 12),
    values=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    ref=st.integers(0, 39),
)
def test_heap_selection_matches_transliteration(n, k, values, ref):
    row = np.array(values[:n], dtype=float)
    i = ref % n
    row[i] = values[-1] % 2  # the reference may or may not be among the nearest
    k = min(k, n - 1)
    idx, dist = np.empty(k, dtype=np.int64), np.empty(k)
    corelearn_select(row, i, k, np.empty(n), np.empty(n, dtype=np.int64), idx, dist)
    expected = corelearn_neighbours(list(row), i, k)
    # The same distances in the same order, and at each distance the same samples
    # (samples at equal distance inside the k may come in another order: same weights).
    np.testing.assert_array_equal(dist, [d for _, d in expected])
    for value in set(dist):
        assert sorted(int(j) for j, d in zip(idx, dist, strict=True) if d == value) == sorted(
            j for j, d in expected if d == value
        )


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(6, 30), perm_seed=st.integers(0, 100))
def test_rrelieff_level_relabelling_and_finiteness(seed, n, perm_seed):
    """Renaming the levels of a factor changes nothing; the weights are finite, in [-1, 1]."""
    X, y, nominal, n_levels = _mixed(seed, n, missing=0.15, integers=False)
    k = min(5, n - 1)
    base = rrelieff(X, y, np.arange(n), k, nominal=nominal, n_levels=n_levels)
    assert np.all(np.isfinite(base)) and np.all(np.abs(base) <= 1 + 1e-12)
    perm = np.random.default_rng(perm_seed).permutation(3)
    X2 = X.copy()
    known = ~np.isnan(X[:, 0])
    X2[known, 0] = perm[X[known, 0].astype(int)]
    again = rrelieff(X2, y, np.arange(n), k, nominal=nominal, n_levels=n_levels)
    np.testing.assert_allclose(again, base, rtol=1e-12, atol=1e-12)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**16), scale=st.floats(0.5, 100.0), shift=st.floats(-5.0, 5.0))
def test_numeric_diff_is_invariant_to_affine_rescaling(seed, scale, shift):
    X, y, nominal, n_levels = _mixed(seed, 25, missing=0.1, integers=False)
    base = rrelieff(X, y, np.arange(25), 4, nominal=nominal, n_levels=n_levels)
    X2 = X.copy()
    X2[:, 1] = X[:, 1] * scale + shift
    moved = rrelieff(X2, y, np.arange(25), 4, nominal=nominal, n_levels=n_levels)
    np.testing.assert_allclose(moved, base, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(("seed", "missing"), [(0, 0.0), (1, 0.1), (2, 0.2)])
def test_relieff_classes_equals_slow_reference(seed, missing):
    X, _, nominal, n_levels = _mixed(seed, 36, missing=missing, integers=False)
    rng = np.random.default_rng(seed)
    codes = ((np.nan_to_num(X[:, 0]) == 2) ^ (rng.random(36) < 0.2)).astype(np.intp)
    got = _fit(ReliefF(n_neighbors=4), X, codes, nominal, n_levels, "classification")
    np.testing.assert_allclose(got, relieff_classes(X, codes, nominal, 4), rtol=1e-10, atol=1e-12)


def test_encoding_makes_a_level_change_one_unit():
    X = np.array([[0.0, 2.0, 1.0], [2.0, 4.0, 0.0], [1.0, 3.0, np.nan]])
    enc = encode_nominal(X, np.array([True, False, True]), np.array([3, 0, 2]), power=1)
    np.testing.assert_array_equal(enc.groups, [0, 0, 0, 1, 2])
    assert np.abs(enc.X[0, :3] - enc.X[1, :3]).sum() == 1.0  # levels 0 and 2
    np.testing.assert_array_equal(enc.X[:, 3], [0.0, 1.0, 0.5])  # range-scaled numeric
    assert np.isnan(enc.X[2, 4])
    sq = encode_nominal(X, np.array([True, False, True]), np.array([3, 0, 2]), power=2)
    assert math.isclose(np.sum((sq.X[0, :3] - sq.X[1, :3]) ** 2), 1.0)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", [Relief, IRelief, Simba, ReliefF])
def test_family_gives_one_weight_per_input_column(cls):
    rng = np.random.default_rng(7)
    n = 60
    level = rng.integers(0, 4, n)
    codes = (level >= 2).astype(np.intp)  # the factor decides the class
    X = np.column_stack([level, rng.normal(size=n), rng.normal(size=n)]).astype(float)
    est = cls()
    got = _fit(est, X, codes, [True, False, False], [4, 0, 0], "classification")
    assert got.shape == (3,)
    assert got[0] > max(got[1], got[2])


def test_input_kinds_defaults_to_numeric():
    class Plain:
        pass

    nominal, n_levels = input_kinds(Plain(), 3)
    assert not nominal.any() and n_levels.tolist() == [0, 0, 0]
    holder = Plain()
    holder.input_columns_ = _Columns([True, False], [5, 0])
    assert input_kinds(holder, 2)[1].tolist() == [5, 0]
    assert not input_kinds(holder, 4)[0].any()  # another column count: numbers only


def test_ramp_is_refused_for_class_labels_and_checked():
    X, _, _, _ = _mixed(0, 20, missing=0.0)
    codes = (X[:, 1] > 0).astype(int)
    with pytest.raises(ValueError, match="continuous target"):
        ReliefF(numeric_equal=0.04, numeric_different=0.1).fit(X, codes)
    with pytest.raises(ValueError, match="numeric_equal <= numeric_different"):
        ReliefF(numeric_equal=0.5, numeric_different=0.1).fit(X, X[:, 1])


def test_regression_with_nan_fits_through_the_public_api():
    """``--missing auto`` keeps NaN for ReliefF: a continuous target with NaN must fit."""
    X, y, _, _ = _mixed(3, 80, missing=0.1, integers=False)
    X[:, [0, 3]] = np.random.default_rng(3).normal(size=(80, 2))  # numbers only
    X[::7, 2] = np.nan
    fitted = ReliefF(n_neighbors=5, task="regression").fit(X, y)
    assert np.isfinite(fitted.feature_importances_).all()
    assert np.argmax(fitted.feature_importances_) == 1


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**16), n=st.integers(5, 60), k=st.integers(1, 8), top=st.integers(1, 4)
)
def test_settled_candidates_are_corelearns_neighbours(seed, n, k, top):
    """Numeric complete data: the tiled search's candidates settled = CORElearn's heap."""
    from localselect.margin import _relieff_numba as RN

    rng = np.random.default_rng(seed)
    X = rng.integers(0, top + 1, size=(n, 3)).astype(float)  # small integers: many ties
    k = min(k, n - 1)
    refs = np.arange(n, dtype=np.int64)
    spec = _column_diff.column_diff(X, np.zeros(3, dtype=bool))
    cand, _, near_d = RN.nearest(
        RN.scaled(X, 1),
        np.zeros(n, dtype=np.intp),
        np.array([[min(k + 1, n - 1)]]),
        np.ones((1, 1)),
        refs,
        1,
        2**20,
    )
    idx, dist = _column_diff.settle(spec, refs, cand, near_d, k, 1)
    heap_idx, heap_dist = _column_diff.mixed_nearest(spec, refs, k, 1)
    np.testing.assert_array_equal(dist, heap_dist)
    for r in range(n):
        for value in set(dist[r]):
            assert sorted(idx[r][dist[r] == value]) == sorted(heap_idx[r][heap_dist[r] == value])


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("cls", [Relief, IRelief, Simba, ReliefF])
@pytest.mark.parametrize("task", ["classification", "regression"])
def test_planted_frame_through_the_public_fit(cls, task):
    """A frame with category, string and numeric columns and NaN: one weight per column."""
    pd = pytest.importorskip("pandas")
    if task == "regression" and cls in (IRelief, Simba):
        pytest.skip("class labels only")
    rng = np.random.default_rng(11)
    n = 150
    signal = rng.normal(size=n)
    level = rng.choice(["a", "b", "c", "d"], n)
    frame = pd.DataFrame(
        {
            "signal": signal,
            "level": pd.Categorical(level),
            "noise": rng.normal(size=n),
            "text": rng.choice(["x", "y", "z"], n).astype(object),
        }
    )
    frame.loc[rng.random(n) < 0.05, "noise"] = np.nan
    frame.loc[rng.random(n) < 0.05, "text"] = None
    value = 2 * signal + 2 * np.isin(level, ["a", "b"]) + 0.3 * rng.normal(size=n)
    y = value if task == "regression" else (value > np.median(value)).astype(int)
    est = cls(task=task) if cls in (Relief, ReliefF) else cls()
    w = est.fit(frame, y).feature_importances_
    assert w.shape == (4,) and np.isfinite(w).all()
    assert w[0] > max(w[2], w[3])  # the numeric signal above both noise columns
    if cls is ReliefF:  # k neighbours: the factor's signal shows too
        assert w[1] > max(w[2], w[3])
    assert list(est.get_feature_names_out()) == [
        c for c, keep in zip(frame.columns, est.get_support(), strict=True) if keep
    ]
