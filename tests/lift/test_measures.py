"""Lift, eta and mutual information: the paper's numbers, properties, and a slow reference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect.lift import dependence, lift_table, mutual_information
from localselect.lift._measures import (
    contingency,
    encode_discrete,
    eta_from_counts,
    joint_codes,
    lift_from_counts,
)

from . import _reference as ref
from ._strategies import discrete_tables, to_array

# Table 7 of Marcondes et al. (Covertype; rows: quintiles 1-5 of the Mahalanobis
# distance of (E, HH, HF); columns: cover types 1-7): the counts in parentheses.
TABLE7_COUNTS = np.array(
    [
        [3244, 54473, 35344, 2747, 3385, 17010, 0],
        [18816, 90872, 410, 0, 5663, 357, 84],
        [40195, 75562, 0, 0, 445, 0, 0],
        [70427, 45314, 0, 0, 0, 0, 461],
        [79158, 17080, 0, 0, 0, 0, 19965],
    ],
    dtype=float,
)
# Table 7's printed lifts (3 significant digits).
TABLE7_LIFTS = np.array(
    [
        [0.0766, 0.961, 4.94, 5, 1.78, 4.9, 0],
        [0.444, 1.6, 0.0573, 0, 2.98, 0.103, 0.0205],
        [0.949, 1.33, 0, 0, 0.234, 0, 0],
        [1.66, 0.8, 0, 0, 0, 0, 0.112],
        [1.87, 0.301, 0, 0, 0, 0, 4.87],
    ]
)


def test_table7_counts_total_covertype():
    assert TABLE7_COUNTS.sum() == 581_012  # Covertype has 581,012 instances


def test_table7_lifts():
    # Printed to 3 significant digits: relative tolerance 0.5% (5 vs 4.998 etc.).
    np.testing.assert_allclose(lift_from_counts(TABLE7_COUNTS), TABLE7_LIFTS, rtol=6e-3, atol=1e-4)


def test_table8_windows_from_table7():
    # Table 8: eta({Quintile 5}) = 0.38 and eta({Quintiles 1, 5}) = 0.36 for (E, HH, HF),
    # printed to 2 decimals (ALGORITHMS.md: 0.381 and 0.361).
    assert eta_from_counts(TABLE7_COUNTS, [4]) == pytest.approx(0.381, abs=5e-4)
    assert eta_from_counts(TABLE7_COUNTS, [0, 4]) == pytest.approx(0.361, abs=5e-4)


def test_table7_end_to_end_from_rows():
    """The public functions on the 581,012 rows that Table 7 counts."""
    rows, cols = np.nonzero(TABLE7_COUNTS)
    reps = TABLE7_COUNTS[rows, cols].astype(int)
    x = np.repeat(np.array([f"Q{r + 1}" for r in rows]), reps)
    y = np.repeat(cols + 1, reps)
    assert dependence(x, y, window=["Q5"]) == pytest.approx(0.381, abs=5e-4)
    assert dependence(x, y, window={"Q1", "Q5"}) == pytest.approx(0.361, abs=5e-4)
    table = lift_table(x, y)
    np.testing.assert_allclose(table["lift"].to_numpy(), TABLE7_LIFTS, rtol=6e-3, atol=1e-4)
    np.testing.assert_array_equal(table["count"].to_numpy(), TABLE7_COUNTS)
    np.testing.assert_allclose(table[("frequency", "")], 0.2, atol=6e-3)  # "0.20" per row
    assert table.attrs["n_complete"] == 581_012
    assert dependence(x, y) == pytest.approx(mutual_information(x, y))


def test_lift_table_hand_example_and_missing():
    X = pd.DataFrame({"a": ["u", "u", "v", "v", None], "b": [1, 2, 1, np.nan, 2]})
    y = ["p", "q", "p", "q", "q"]
    t = lift_table(X, y)
    # Complete on (a, b): rows 0, 1, 2 -> P(p) = 2/3; profile (u, 1) is p: lift 1.5.
    assert t.attrs["n_complete"] == 3
    assert t.loc[("u", 1), ("lift", "p")] == pytest.approx(1.5)
    assert t.loc[("u", 2), ("lift", "q")] == pytest.approx(3.0)
    assert t.loc[("u", 2), ("count", "p")] == 0
    assert list(t.index.names) == ["a", "b"]


@given(discrete_tables())
def test_lift_table_matches_reference(table):
    X, y = table
    rows = ref.complete_rows(X, y, range(len(X[0])))
    if len({c for _, c in rows}) < 2:
        with pytest.raises(ValueError, match=r"1 class|No row is complete"):
            lift_table(to_array(X), y)
        return
    t = lift_table(to_array(X), y)
    for profile in {v for v, _ in rows}:
        key = profile[0] if len(profile) == 1 else profile
        for c in sorted({c for _, c in rows}):
            assert t.loc[key, ("lift", c)] == pytest.approx(ref.lift(rows, profile, c))


@given(discrete_tables(), st.data())
def test_eta_matches_reference(table, data):
    X, y = table
    rows = ref.complete_rows(X, y, range(len(X[0])))
    if len({c for _, c in rows}) < 2:
        return
    Xa = to_array(X)
    assert dependence(Xa, y) == pytest.approx(ref.eta(rows), abs=1e-12)
    assert mutual_information(Xa, y, normalize=False) == pytest.approx(
        ref.mutual_information(rows), abs=1e-12
    )
    observed = sorted({v for v, _ in rows})
    window = data.draw(st.lists(st.sampled_from(observed), min_size=1, unique=True))
    win = [w[0] if len(w) == 1 else w for w in window]
    assert dependence(Xa, y, window=win) == pytest.approx(ref.eta(rows, window), abs=1e-12)


@given(discrete_tables())
def test_eta_properties(table):
    X, y = table
    rows = ref.complete_rows(X, y, range(len(X[0])))
    if len({c for _, c in rows}) < 2:
        return
    Xa = to_array(X)
    eta = dependence(Xa, y)
    assert 0.0 <= eta <= 1.0
    # Whole-range eta is the normalised mutual information I / H(Y).
    h = ref.entropy([c for _, c in rows])
    assert eta == pytest.approx(mutual_information(Xa, y, normalize=False) / h, abs=1e-12)
    assert eta == pytest.approx(mutual_information(Xa, y))


@given(discrete_tables(missing=False, max_features=1), st.integers(0, 5))
def test_eta_is_one_when_y_is_a_function_of_x(table, shift):
    X, _ = table
    x = np.array([row[0] for row in X])
    if len(set(x)) < 2:
        return
    y = (x * 7 + shift) % 5  # injective on {0, 1, 2}: y a function of x
    assert dependence(x, y) == pytest.approx(1.0)
    assert mutual_information(x, y) == pytest.approx(1.0)


def test_eta_zero_for_independent_variables():
    # The product design: every (x, y) combination equally often -> P(x, y) = P(x) P(y).
    x, y = np.meshgrid(np.arange(3), np.arange(4), indexing="ij")
    x, y = np.tile(x.ravel(), 5), np.tile(y.ravel(), 5)
    assert dependence(x, y) == pytest.approx(0.0, abs=1e-15)
    assert dependence(x, y, window=[1]) == pytest.approx(0.0, abs=1e-15)
    np.testing.assert_allclose(lift_table(x, y)["lift"].to_numpy(), 1.0)


@given(discrete_tables(missing=False, max_features=1))
def test_lift_is_symmetric(table):
    X, y = table
    x = [row[0] for row in X]
    if len(set(x)) < 2:
        return
    forward = lift_table(x, y)["lift"]
    backward = lift_table(y, x)["lift"]
    np.testing.assert_allclose(forward.to_numpy(), backward.to_numpy().T)


def test_joint_codes_compress_without_overflow():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 300, size=(500, 6))  # 300**6 > 2**24: compressed
    codes[3, 2] = -1
    joint, n_levels = joint_codes(codes, [300] * 6)
    assert joint[3] == -1
    keep = joint >= 0
    # Same joint code iff same row of codes.
    _, inv_rows = np.unique(codes[keep], axis=0, return_inverse=True)
    _, inv_joint = np.unique(joint[keep], return_inverse=True)
    np.testing.assert_array_equal(inv_rows.ravel(), inv_joint)
    assert joint.max() < n_levels


def test_contingency_counts_profiles():
    enc = encode_discrete(
        np.array([["a", "x"], ["a", "x"], ["b", None], ["b", "y"]], dtype=object)
    )
    table = contingency(enc.codes, np.array([0, 1, 1, 1]), 2)
    assert table.n_complete == 3
    np.testing.assert_array_equal(table.counts, [[1, 1], [0, 1]])


@pytest.mark.parametrize(
    ("X", "y", "match"),
    [
        (["a", "b"], [1, 1], "1 class"),
        (["a", "b", "c"], [1, 2], "rows but y has"),
        ([None, None], [1, 2], "No row is complete"),
    ],
)
def test_measure_errors(X, y, match):
    with pytest.raises(ValueError, match=match):
        dependence(X, y)


def test_window_errors():
    with pytest.raises(ValueError, match="No complete case"):
        dependence(["a", "b"], [0, 1], window=["zzz"])
    with pytest.raises(ValueError, match="has 1 values; X has 2 features"):
        dependence(np.array([[0, 1], [1, 0]]), [0, 1], window=[(0,)])


def test_string_labels_pandas_and_constant_feature():
    X = pd.DataFrame({"c": ["k"] * 6})
    y = pd.Series(["p", "q", "p", "q", "p", "q"])
    assert dependence(X, y) == 0.0
    assert math.isfinite(mutual_information(X, y, normalize=False))
