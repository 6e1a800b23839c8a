"""Tables as estimator input: read_columns, and frames through the encoded estimators."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.validation import check_array

import localselect
from localselect._tables import InputColumns, read_columns
from localselect.utils import fast_params

ENCODED = [
    "FisherScore",
    "IM4E",
    "Immigrate",
    "BoostedImmigrate",
    "LocalFeatureSelection",
    "GPLocalFeatureSelection",
]
#: The encoded estimators whose tags take NaN (the margin family's kernels).
TAKES_NAN = {"IM4E", "Immigrate", "BoostedImmigrate"}


def _every_kind(n=90, seed=0):
    """A frame with every column kind; the class depends on ``signal`` and ``colour == "red"``."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    signal = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "signal": signal,
            "colour": pd.Categorical(colour),
            "word": pd.array(rng.choice(["x", "y", "z"], n), dtype="string"),
            "label": rng.choice(["p", "q"], n).astype(object),
            "flag": rng.random(n) > 0.5,
            "count": rng.integers(0, 7, n),
            "noise": rng.normal(size=n),
        },
        index=pd.RangeIndex(100, 100 + n, name="row"),
    )
    y = np.where(signal + 1.5 * (colour == "red") > 0.5, "yes", "no")
    return frame, y


# ----------------------------------------------------------------- read_columns
def test_read_columns_every_kind():
    df = pd.DataFrame(
        {
            "cat": pd.Categorical(["b", "a", None, "b"]),
            "str": pd.array(["y", None, "x", "y"], dtype="string"),
            "obj": np.array(["u", np.nan, "w", "u"], dtype=object),
            "bool": [True, False, True, True],
            "int": [3, 1, 2, 3],
            "float": [0.5, np.nan, 1.5, 2.5],
            "nullable": pd.array([1, None, 3, 4], dtype="Int64"),
        }
    )
    codes, columns = read_columns(df)
    assert codes.dtype == np.float64
    np.testing.assert_array_equal(columns.names, df.columns)
    np.testing.assert_array_equal(columns.nominal, [True, True, True, True, False, False, False])
    assert list(columns.levels[0]) == ["a", "b"]
    assert list(columns.levels[1]) == ["x", "y"]
    assert list(columns.levels[2]) == ["u", "w"]
    assert list(columns.levels[3]) == [False, True]
    assert columns.levels[4] is None
    expected = np.array(
        [
            [1, 1, 0, 1, 3, 0.5, 1],
            [0, np.nan, np.nan, 0, 1, np.nan, np.nan],
            [np.nan, 0, 1, 1, 2, 1.5, 3],
            [1, 1, 0, 1, 3, 2.5, 4],
        ]
    )
    np.testing.assert_array_equal(codes, expected)


def test_read_columns_new_rows_use_the_fitted_levels():
    fit = pd.DataFrame({"c": ["a", "b", "c"], "x": [1.0, 2.0, 3.0]})
    _, columns = read_columns(fit)
    new = pd.DataFrame({"c": ["c", "zebra", "a", "yak"], "x": [0.0, 1.0, 2.0, 3.0]})
    with pytest.warns(UserWarning, match=r"Column 'c' has 2 value\(s\) not seen in fit.*'yak'"):
        codes, again = read_columns(new, columns)
    assert again is columns
    np.testing.assert_array_equal(codes[:, 0], [2, np.nan, 0, np.nan])
    # a category dtype at predict is coded with the fitted levels, not its own
    cats = pd.DataFrame({"c": pd.Categorical(["b", "a"], categories=["b", "a"]), "x": [1, 2]})
    codes, _ = read_columns(cats, columns)
    np.testing.assert_array_equal(codes[:, 0], [1, 0])


def test_read_columns_missing_values_refused_by_name():
    df = pd.DataFrame({"ok": ["a", "b"], "gap": ["a", None], "x": [1.0, np.inf]})
    with pytest.raises(ValueError, match="column\\(s\\) 'gap', 'x'"):
        read_columns(df, allow_nan=False)
    # a complete string column is fine without NaN
    codes, _ = read_columns(df[["ok"]], allow_nan=False)
    np.testing.assert_array_equal(codes[:, 0], [0, 1])


def test_read_columns_numeric_array_is_unchanged():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(20, 4)).astype(np.float32)
    codes, columns = read_columns(X)
    np.testing.assert_array_equal(codes, check_array(X, dtype=np.float64))
    assert codes.dtype == np.float64
    assert not columns.nominal.any()
    np.testing.assert_array_equal(columns.names, ["x0", "x1", "x2", "x3"])
    np.testing.assert_array_equal(columns.names, InputColumns.numeric(4).names)


def test_read_columns_object_array_and_fitted_levels():
    X = np.array([["a", 1.0], ["b", 2.0], ["a", 3.0]], dtype=object)
    codes, columns = read_columns(X)
    np.testing.assert_array_equal(columns.nominal, [True, False])
    np.testing.assert_array_equal(codes, [[0, 1], [1, 2], [0, 3]])
    new = np.array([["b", 5.0]], dtype=object)
    codes, _ = read_columns(new, columns)
    np.testing.assert_array_equal(codes, [[1, 5]])


def test_read_columns_refusals():
    with pytest.raises(ValueError, match="Column 'when' has type Datetime"):
        read_columns(pd.DataFrame({"when": pd.to_datetime(["2020-01-01", "2021-01-01"])}))
    _, columns = read_columns(pd.DataFrame({"x": [1.0, 2.0], "c": ["a", "b"]}))
    with pytest.raises(ValueError, match="X has 1 columns, but the estimator was fitted on 2"):
        read_columns(pd.DataFrame({"x": [1.0]}), columns)
    with pytest.raises(ValueError, match="Column 'x' was numeric in fit"):
        read_columns(pd.DataFrame({"x": ["big"], "c": ["a"]}), columns)


def test_read_columns_polars_equals_pandas():
    pl = pytest.importorskip("polars")
    df, _ = _every_kind(20)
    codes, columns = read_columns(df)
    pcodes, pcolumns = read_columns(pl.from_pandas(df))
    np.testing.assert_array_equal(pcodes, codes)
    np.testing.assert_array_equal(pcolumns.nominal, columns.nominal)
    np.testing.assert_array_equal(pcolumns.names, columns.names)
    for a, b in zip(pcolumns.levels, columns.levels, strict=True):
        assert (a is None and b is None) or list(a) == list(b)


# ------------------------------------------------------------ the estimators
def _fitted(name, frame, y):
    cls = getattr(localselect, name)
    est = cls(**fast_params(name, "check"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence at the fast settings
        return est.fit(frame, y)


@pytest.mark.parametrize("name", ENCODED)
def test_every_column_kind_through_the_encoded_estimators(name):
    frame, y = _every_kind()
    est = _fitted(name, frame, y)
    names = list(frame.columns)
    np.testing.assert_array_equal(est.feature_names_in_, names)
    assert est.n_features_in_ == len(names)
    np.testing.assert_array_equal(
        est.input_columns_.nominal, [False, True, True, True, True, False, False]
    )
    # colour (3 levels), word (3), label (2), flag (2) as indicators: 3 + 10 columns
    assert est.encoding_.n_encoded == 13
    support = est.get_support()
    assert support.shape == (len(names),) and support.dtype == bool
    if hasattr(est, "feature_importances_"):
        assert est.feature_importances_.shape == (len(names),)

    local = est.get_local_support(frame)
    assert isinstance(local, pd.DataFrame)
    assert list(local.columns) == names
    assert local.index.equals(frame.index)
    assert local.to_numpy().dtype == bool
    relevance = est.local_relevance(frame)
    assert isinstance(relevance, pd.DataFrame) and list(relevance.columns) == names
    values = relevance.to_numpy()
    assert ((values >= 0) & (values <= 1)).all()
    assert (values[local.to_numpy()] > 0).all()
    if est.relevance_scope == "local":
        # the training rows' answers are those of the same rule on the training frame
        np.testing.assert_array_equal(est.get_local_support(), local.to_numpy())
        np.testing.assert_array_equal(support, local.to_numpy().any(axis=0))
    else:
        assert (local.to_numpy() == support[None, :]).all()

    out = est.transform(frame)
    assert isinstance(out, pd.DataFrame)
    if est.relevance_scope == "local":
        assert list(out.columns) == names
        # a boolean column holds a missing value as pandas' nullable boolean
        expected = frame.dtypes.where(frame.columns != "flag", pd.BooleanDtype())
        assert (out.dtypes == expected).all()
        off = ~local.to_numpy()
        assert (out["signal"].to_numpy()[off[:, 0]] == 0).all()
        assert out["colour"][off[:, 1]].isna().all()
        keep = local["colour"].to_numpy()
        assert (out["colour"][keep] == frame["colour"][keep]).all()
        np.testing.assert_array_equal(est.get_feature_names_out(), names)
    else:
        assert list(out.columns) == [n for n, s in zip(names, support, strict=True) if s]
        np.testing.assert_array_equal(est.get_feature_names_out(), out.columns)

    if hasattr(est, "discriminative_power"):  # GP: one power per input column
        assert est.discriminative_power(frame.iloc[:4]).shape == (4, len(names))
    if hasattr(est, "predict"):
        new = frame.iloc[:6].copy()
        new["colour"] = new["colour"].cat.add_categories(["purple"])
        new.loc[new.index[0], "colour"] = "purple"
        with pytest.warns(UserWarning, match="Column 'colour'.*'purple'"):
            pred = est.predict(new)
        assert pred.shape == (6,)
        assert set(pred) <= set(est.classes_)
        np.testing.assert_array_equal(est.predict(frame.iloc[:6]), est.predict(frame.iloc[:6]))


@pytest.mark.parametrize("name", ENCODED)
def test_missing_values_follow_the_estimators_tags(name):
    frame, y = _every_kind()
    frame.loc[frame.index[3], "noise"] = np.nan
    frame.loc[frame.index[5], "colour"] = np.nan
    if name in TAKES_NAN:
        est = _fitted(name, frame, y)
        assert est.get_support().shape == (7,)
    else:
        with pytest.raises(ValueError, match="column\\(s\\) 'colour', 'noise'"):
            _fitted(name, frame, y)


@pytest.mark.parametrize("name", ENCODED)
def test_numeric_frame_fits_as_the_array(name):
    # no nominal column: nothing is encoded, the fit is that of the array
    frame, y = _every_kind(70, seed=3)
    numeric = frame[["signal", "count", "noise"]]
    a = _fitted(name, numeric, y)
    b = _fitted(name, numeric.to_numpy(dtype=np.float64), y)
    assert not hasattr(a, "encoding_") and not hasattr(b, "encoding_")
    np.testing.assert_array_equal(a.get_support(), b.get_support())
    X = numeric.to_numpy(dtype=np.float64)
    out = b.get_local_support(X)
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(a.get_local_support(numeric).to_numpy(), out)
    if hasattr(b, "feature_importances_"):  # the same numbers, maybe summed in another order
        np.testing.assert_allclose(a.feature_importances_, b.feature_importances_, rtol=1e-12)
    if hasattr(b, "predict"):
        np.testing.assert_array_equal(a.predict(numeric), b.predict(X))


@pytest.mark.parametrize("name", ["FisherScore", "LocalFeatureSelection"])
def test_polars_frames(name):
    pl = pytest.importorskip("polars")
    frame, y = _every_kind()
    pframe = pl.from_pandas(frame.reset_index(drop=True))
    a = _fitted(name, frame, y)
    b = _fitted(name, pframe, y)
    np.testing.assert_array_equal(b.feature_names_in_, frame.columns)
    np.testing.assert_array_equal(a.get_support(), b.get_support())
    local = b.get_local_support(pframe)
    assert isinstance(local, pl.DataFrame) and local.columns == list(frame.columns)
    np.testing.assert_array_equal(local.to_numpy(), a.get_local_support(frame).to_numpy())
    out = b.transform(pframe)
    assert isinstance(out, pl.DataFrame)
    if b.relevance_scope == "local":
        assert out.columns == list(frame.columns) and out.schema == pframe.schema


@pytest.mark.parametrize("name", ENCODED)
def test_the_planted_signals_rank_above_the_noise(name):
    # A numeric and a nominal signal (through its indicators) above the numeric and
    # string noise, at the demo settings: feature_importances_ of a global method,
    # the mean relevance over the training rows of a local one.
    frame, y = _every_kind(300, seed=7)
    cls = getattr(localselect, name)
    est = cls(**fast_params(name, "demo"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(frame, y)
    if est.relevance_scope == "local":
        scores = np.asarray(est.local_relevance(frame)).mean(axis=0)
    else:
        scores = est.feature_importances_
    score = dict(zip(frame.columns, scores, strict=True))
    noise = max(score["word"], score["label"], score["noise"])
    assert score["signal"] > noise
    assert score["colour"] > noise


@pytest.mark.parametrize("name", ["LocalFeatureSelection", "Immigrate"])
def test_a_table_fit_survives_a_model_file(name, tmp_path):
    # the records of a table fit (InputColumns, ColumnEncoding) are trusted types
    from localselect.cli._model_io import load_model, save_model

    frame, y = _every_kind()
    est = _fitted(name, frame, y)
    path = tmp_path / "model.skops"
    save_model({"estimator": est}, path)
    again = load_model(path)["estimator"]
    np.testing.assert_array_equal(again.predict(frame), est.predict(frame))
    np.testing.assert_array_equal(again.get_support(), est.get_support())
    assert again.input_columns_.levels[1].tolist() == ["blue", "green", "red"]


def test_an_object_column_of_numbers_is_numeric():
    frame = pd.DataFrame(
        {"n": pd.Series([1.5, None, 3, 4.25], dtype=object), "t": ["a", "b", "a", None]}
    )
    X, columns = read_columns(frame)
    assert columns.nominal.tolist() == [False, True]
    np.testing.assert_array_equal(X[:, 0], [1.5, np.nan, 3.0, 4.25])
