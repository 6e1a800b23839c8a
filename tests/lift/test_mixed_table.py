"""LLDS on a table with numeric and text columns: numbers cut at tertiles, text kept as values."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pandas as pd
import pytest

from localselect.lift import LiftFeatureSelector


def planted_frame(n=900, seed=0):
    """A numeric and a categorical signal, numeric and string noise; NaN in the noise."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    signal = rng.normal(size=n)
    y = ((signal > 0.4) | (colour == "red")).astype(int)
    frame = pd.DataFrame(
        {
            "noise_num": rng.normal(size=n),
            "colour": colour,
            "noise_str": rng.choice(["a", "b", "c"], n),
            "signal": signal,
        }
    )
    frame.loc[rng.random(n) < 0.05, "noise_num"] = np.nan
    return frame, y


def test_numeric_columns_of_a_text_table_are_cut_at_their_tertiles():
    frame, y = planted_frame()
    sel = LiftFeatureSelector(max_features=1).fit(frame, y)
    # the numeric columns hold three tertile bins, the text columns their values
    assert [list(c) for c in sel.categories_] == [
        [0.0, 1.0, 2.0],
        ["blue", "green", "grey", "red"],
        ["a", "b", "c"],
        [0.0, 1.0, 2.0],
    ]
    assert sel.discretizer_.columns == [0, 3]
    for j, name in ((0, "noise_num"), (1, "signal")):
        np.testing.assert_allclose(
            sel.discretizer_.edges_[:, j], np.nanquantile(frame[name], [1 / 3, 2 / 3])
        )
    scores = dict(zip([f[0] for f in sel.results_["features"]], sel.results_["score"]))
    # continuous columns no longer score 1 (each value its own level): noise scores near 0
    assert scores["noise_num"] < 0.02
    assert sel.results_["features"][0] == ("signal",)
    assert scores["signal"] > scores["colour"] > scores["noise_str"]
    assert scores["noise_num"] < scores["signal"]
    assert sel.get_support(indices=True).tolist() == [3]


def test_rows_of_a_text_table_are_answered_like_the_training_rows():
    frame, y = planted_frame()
    sel = LiftFeatureSelector(resolution="profiles", max_features=2, target_class=1).fit(frame, y)
    np.testing.assert_array_equal(sel.get_local_support(frame), sel.local_support_)
    assert sel.local_support_.any()
    # a raw row of the planted region (red) matches the profile (red,)
    assert ("red",) in [tuple(p) for p in sel.results_["profile"]]


def test_discretizer_none_refuses_continuous_columns_of_a_text_table():
    frame, y = planted_frame()
    with pytest.raises(ValueError, match=r"continuous \(non-integer\) values in columns \[0, 1\]"):
        LiftFeatureSelector(max_features=1, discretizer=None).fit(frame, y)


class _Columns(NamedTuple):
    """The shape of a fitted table's column record (names, nominal mask, levels)."""

    names: np.ndarray
    nominal: np.ndarray
    levels: tuple


def test_level_codes_of_nominal_columns_read_as_their_labels():
    """Coded input (level codes of the nominal columns, as floats) scores as the raw table."""
    frame, y = planted_frame()
    levels = (None, np.array(["blue", "green", "grey", "red"]), np.array(["a", "b", "c"]), None)
    coded = np.c_[
        frame["noise_num"],
        pd.Categorical(frame["colour"], categories=levels[1]).codes,
        pd.Categorical(frame["noise_str"], categories=levels[2]).codes,
        frame["signal"],
    ].astype(float)
    sel = LiftFeatureSelector(max_features=2)
    sel.input_columns_ = _Columns(
        np.array(list(frame.columns), dtype=object), np.array([False, True, True, False]), levels
    )
    labelled = sel._labelled(coded)
    assert labelled.dtype == object
    assert labelled[:, 1].tolist() == frame["colour"].tolist()
    assert np.isnan(coded[:, 0]).sum() == pd.isna(labelled[:, 0]).sum()
    reference = LiftFeatureSelector(max_features=2).fit(frame, y)
    assert sel.fit(labelled, y).results_["score"].tolist() == pytest.approx(
        reference.results_["score"].tolist()
    )


def test_planted_frame_with_category_dtype_through_the_table_layer():
    pytest.importorskip("localselect._tables")
    frame, y = planted_frame()
    frame["colour"] = frame["colour"].astype("category")
    sel = LiftFeatureSelector(max_features=1).fit(frame, y)
    assert sel.results_["features"][0] == ("signal",)
    scores = dict(zip([f[0] for f in sel.results_["features"]], sel.results_["score"]))
    assert scores["noise_num"] < 0.02
    assert ("red",) in [tuple(p) for p in sel.best_lift_profiles_] or sel.best_features_[0] == 3


@pytest.mark.parametrize("kind", ["pandas", "polars", "object array"])
def test_category_and_boolean_columns_answer_new_rows_like_the_fit(kind):
    rng = np.random.default_rng(0)
    n = 600
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    flag = rng.random(n) < 0.5
    signal = rng.normal(size=n)
    y = ((signal > 0.4) | (colour == "red") | (flag & (colour == "blue"))).astype(int)
    frame = pd.DataFrame(
        {
            "noise_num": rng.normal(size=n),
            "colour": pd.Categorical(colour),
            "flag": flag,
            "signal": signal,
        }
    )
    frame.loc[3, "noise_num"] = np.nan
    if kind == "polars":
        X = pytest.importorskip("polars").from_pandas(frame)
    elif kind == "object array":
        X = frame.to_numpy(dtype=object)
    else:
        X = frame
    sel = LiftFeatureSelector(resolution="profiles", max_features=2, target_class=1, top_k=40).fit(
        X, y
    )
    profiles = [tuple(p) for p in sel.results_["profile"]]
    # the planted regions (every row of them in class 1), as the columns' own values
    # (a level, a boolean)
    assert ("red",) in profiles and ("blue", True) in profiles
    np.testing.assert_array_equal(np.asarray(sel.get_local_support(X)), sel.local_support_)
    red = colour == "red"
    assert sel.local_support_[red, 1].all()


def test_a_category_column_with_numeric_labels_is_not_cut():
    """A nominal column keeps its levels even when they are non-integer numbers."""
    rng = np.random.default_rng(5)
    n = 500
    dose = rng.choice([0.5, 1.5, 2.5, 3.5, 4.5], n)
    signal = rng.normal(size=n)
    y = ((dose > 3) ^ (signal > 0)).astype(int)
    frame = pd.DataFrame({"dose": pd.Categorical(dose), "signal": signal})
    sel = LiftFeatureSelector(max_features=2).fit(frame, y)
    assert [list(c) for c in sel.categories_] == [[0.5, 1.5, 2.5, 3.5, 4.5], [0.0, 1.0, 2.0]]
    assert sel.discretizer_.columns == [1]
    np.testing.assert_array_equal(np.asarray(sel.get_local_support(frame)), sel.local_support_)
