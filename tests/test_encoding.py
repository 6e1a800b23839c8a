"""localselect._encoding: a differing level weighs as a numeric column one range apart."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect._encoding import DISTANCES, encode, fit_encoding, to_input_columns
from localselect._tables import InputColumns, read_columns


def _mixed(rng, n=30):
    return pd.DataFrame(
        {
            "num": rng.normal(3.0, 5.0, n),
            "colour": pd.Categorical(rng.choice(["red", "green", "blue", "grey"], n)),
            "flag": rng.random(n) > 0.4,
            "count": rng.integers(0, 9, n),
            "word": rng.choice(["a", "b"], n).astype(object),
        }
    )


def _contributions(encoding, row_a, row_b, distance):
    """Per input column: the sum over its encoded columns of |d| (L1) or d^2."""
    diff = np.abs(row_a - row_b)
    per = diff if distance == "manhattan" else diff**2
    return np.add.reduceat(per, encoding.starts)


@pytest.mark.parametrize("distance", sorted(DISTANCES))
@given(seed=st.integers(0, 2**31 - 1))
def test_a_differing_level_adds_one_range(distance, seed):
    # The module's rule: nominal diff = 1 if the levels differ else 0, numeric diff
    # = |a - b| / range, as the Relief family's diff (Kononenko 1994); summed per
    # column as the method's distance sums it (|d| or d^2).
    rng = np.random.default_rng(seed)
    codes, columns = read_columns(_mixed(rng))
    encoding = fit_encoding(codes, columns, distance)
    Z = encode(encoding, codes)
    i, j = rng.choice(codes.shape[0], 2, replace=False)
    got = _contributions(encoding, Z[i], Z[j], distance)
    span = np.nanmax(codes, axis=0) - np.nanmin(codes, axis=0)
    numeric_diff = np.abs(codes[i] - codes[j]) / np.where(span > 0, span, 1.0)
    if distance == "squared_euclidean":
        numeric_diff = numeric_diff**2
    expected = np.where(columns.nominal, (codes[i] != codes[j]).astype(float), numeric_diff)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("distance", sorted(DISTANCES))
def test_numeric_range_apart_equals_a_differing_level(distance):
    # The extremes of a numeric column (one range apart) and two different levels
    # add the same amount: 1.
    df = pd.DataFrame({"x": [0.0, 4.0, 2.0], "c": ["u", "v", "u"]})
    codes, columns = read_columns(df)
    encoding = fit_encoding(codes, columns, distance)
    Z = encode(encoding, codes)
    per = _contributions(encoding, Z[0], Z[1], distance)
    np.testing.assert_allclose(per, [1.0, 1.0], rtol=0, atol=1e-15)


@pytest.mark.parametrize("distance", sorted(DISTANCES))
def test_a_missing_level_differs_by_half(distance):
    # A missing (or unseen) level is all zeros: half a differing level from any level.
    df = pd.DataFrame({"x": [0.0, 1.0, 2.0], "c": ["u", None, "v"]})
    codes, columns = read_columns(df)
    encoding = fit_encoding(codes, columns, distance)
    Z = encode(encoding, codes)
    assert not Z[1, encoding.starts[1] :].any()
    per = _contributions(encoding, Z[0], Z[1], distance)
    assert per[1] == pytest.approx(0.5, abs=1e-15)


def test_numeric_input_is_not_encoded():
    X = np.arange(12.0).reshape(4, 3)
    assert fit_encoding(X, InputColumns.numeric(3), "manhattan") is None


def test_layout_and_scales():
    df = pd.DataFrame({"x": [1.0, 3.0, 5.0], "c": ["b", "a", "c"], "k": [7.0, 7.0, 7.0]})
    codes, columns = read_columns(df)
    encoding = fit_encoding(codes, columns, "manhattan")
    # x, then c's three levels a, b, c, then the constant k (scale 1: all zeros)
    np.testing.assert_array_equal(encoding.source, [0, 1, 1, 1, 2])
    np.testing.assert_array_equal(encoding.starts, [0, 1, 4])
    Z = encode(encoding, codes)
    expected = np.array(
        [
            [0.0, 0.0, 0.5, 0.0, 0.0],
            [0.5, 0.5, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.5, 0.0],
        ]
    )
    np.testing.assert_array_equal(Z, expected)
    assert encoding.indicator_scale == 0.5
    np.testing.assert_array_equal(
        encoding.discrete(np.array([True, False, False])), [True, True, True, True, False]
    )


def test_to_input_columns_aggregates():
    df = pd.DataFrame({"x": [1.0, 3.0], "c": ["b", "a"], "d": ["p", "q"]})
    codes, columns = read_columns(df)
    encoding = fit_encoding(codes, columns, "squared_euclidean")
    values = np.array([[0.1, 0.2, 0.7, 0.3, 0.0], [0.9, 0.0, 0.0, 0.0, 0.4]])
    np.testing.assert_array_equal(
        to_input_columns(encoding, values), [[0.1, 0.7, 0.3], [0.9, 0.0, 0.4]]
    )
    np.testing.assert_array_equal(
        to_input_columns(encoding, values, "min"), [[0.1, 0.2, 0.0], [0.9, 0.0, 0.0]]
    )
    mask = values > 0.25
    out = to_input_columns(encoding, mask)
    assert out.dtype == bool
    np.testing.assert_array_equal(out, [[False, True, True], [True, False, True]])
    with pytest.raises(ValueError, match="expected 5 encoded columns"):
        to_input_columns(encoding, values[:, :4])


def test_unknown_distance_is_refused():
    codes, columns = read_columns(pd.DataFrame({"c": ["a", "b"]}))
    with pytest.raises(ValueError, match="distance must be one of"):
        fit_encoding(codes, columns, "cosine")
