"""The saliency selector on tables with nominal columns and missing values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from localselect.saliency import ConditionalSaliencySelection, FewHeldOutRowsWarning
from localselect.saliency._mixed import ConditionalNullSampler, mixed_grid


def test_grid_of_a_nominal_column_holds_its_levels_in_proportion():
    rng = np.random.default_rng(0)
    codes = rng.choice([0.0, 1.0, 2.0], size=1000, p=[0.5, 0.25, 0.25])
    x = rng.normal(size=1000)
    x[:50] = np.nan
    grid = mixed_grid(np.c_[x, codes], np.array([False, True]), 8)
    np.testing.assert_allclose(grid[:, 0], np.nanquantile(x, (np.arange(8) + 0.5) / 8))
    # levels only, in proportion to their frequency: 4 of 8 values are level 0
    assert set(grid[:, 1]) <= {0.0, 1.0, 2.0}
    assert np.sum(grid[:, 1] == 0.0) == 4


def test_nominal_draws_follow_the_other_columns_and_missing_cells_stay_missing():
    rng = np.random.default_rng(1)
    n = 2000
    x = rng.normal(size=n)
    level = (x > 0).astype(float) + (x > 1)  # three levels, a function of x
    X = np.c_[x, level]
    nominal = np.array([False, True])
    sampler = ConditionalNullSampler(nominal).fit(X[:1500])
    rows = X[1500:].copy()
    rows[:20, 1] = np.nan
    rows[20:30, 0] = np.nan
    K = ConditionalNullSampler(nominal).fit(X[:1500]).for_rows(rows)(np.random.RandomState(0))
    assert np.isnan(K[:20, 1]).all() and np.isnan(K[20:30, 0]).all()
    assert not np.isnan(K[30:]).any()
    assert set(np.unique(K[20:, 1])) <= {0.0, 1.0, 2.0}
    # a conditional draw, not the marginal: the level of x's neighbours, nearly always its own
    agree = np.mean(K[30:, 1] == rows[30:, 1])
    assert agree > 0.9
    # the numeric column given the level: within the level's range of x
    K2 = sampler.for_rows(X[1500:])(np.random.RandomState(1))
    means = [K2[X[1500:, 1] == v, 0].mean() for v in (0.0, 1.0, 2.0)]
    assert means[0] < 0.0 < means[1] < means[2]
    assert means[2] > 0.7  # x given x > 1: mean about 1.5


def test_numeric_draws_are_the_linear_gaussian_conditional():
    rng = np.random.default_rng(2)
    n = 4000
    x0 = rng.normal(size=n)
    x1 = 2.0 * x0 + 0.1 * rng.normal(size=n)
    X = np.c_[x0, x1, rng.integers(0, 3, n).astype(float)]
    sampler = ConditionalNullSampler(np.array([False, False, True])).fit(X)
    K = sampler.for_rows(X)(np.random.RandomState(0))
    resid = K[:, 1] - 2.0 * x0
    # the conditional mean 2 x0 and the residual standard deviation 0.1 (sample, 4,000 rows)
    assert abs(resid.mean()) < 0.01
    assert resid.std() == pytest.approx(0.1, rel=0.1)


def planted_frame(n, seed=0):
    """A numeric and a categorical signal, numeric noise (with NaN) and string noise."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    signal = rng.normal(size=n)
    y = signal + 1.5 * (colour == "red") - 1.0 * (colour == "blue") + 0.3 * rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "noise_num": rng.normal(size=n),
            "colour": pd.Categorical(colour),
            "noise_str": rng.choice(["a", "b", "c"], n).astype(object),
            "signal": signal,
        }
    )
    frame.loc[rng.random(n) < 0.05, "noise_num"] = np.nan
    return frame, y


def test_planted_frame_keeps_the_signals_per_row():
    frame, y = planted_frame(3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewHeldOutRowsWarning)
        sel = ConditionalSaliencySelection(random_state=0).fit(frame, y)
    # the boosted model takes the nominal columns as categories
    assert sorted(sel.estimator_.is_categorical_.tolist()) == [False, False, True, True]
    frequency = sel.local_support_.mean(axis=0)
    assert frequency[1] > 0.9 and frequency[3] > 0.9
    assert frequency[0] < 0.1 and frequency[2] < 0.1
    relevance = sel.local_relevance_.mean(axis=0)
    assert relevance[0] < relevance[3]
    # new rows: a level not seen in fit and a missing value are answered, the level named
    rows = frame.iloc[:4].copy()
    rows["noise_str"] = rows["noise_str"].astype(object)
    rows.loc[rows.index[0], "noise_str"] = "zz"
    rows.loc[rows.index[1], "signal"] = np.nan
    with pytest.warns(UserWarning, match="zz"):
        mask = np.asarray(sel.get_local_support(rows))
    assert mask.shape == (4, 4)
    assert mask[2:, 3].all()


def test_numeric_table_with_missing_values():
    rng = np.random.default_rng(3)
    n = 3000
    X = rng.normal(size=(n, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    X[rng.random((n, 4)) < 0.05] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewHeldOutRowsWarning)
        sel = ConditionalSaliencySelection(random_state=0).fit(X, y)
    frequency = sel.local_support_.mean(axis=0)
    assert frequency[0] > 0.8
    assert frequency[1:].max() < 0.1


@pytest.mark.parametrize(
    ("params", "match"),
    [({"per_row": "relative"}, "per_row='heldout'"), ({"screen": True}, "screen=False")],
)
def test_paths_without_nominal_support_refuse_with_advice(params, match):
    frame, y = planted_frame(300)
    frame = frame.fillna(0.0)
    with pytest.raises(ValueError, match=match):
        ConditionalSaliencySelection(random_state=0, **params).fit(frame, y)


def test_nominal_column_that_follows_the_signal_but_is_null_given_it_is_not_kept():
    """The null draw of a nominal column is conditional on the others: a column that
    tracks the signal, but tells nothing more about y, keeps p-values near uniform."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 4000
    s = rng.normal(size=n)
    z = np.digitize(s + 0.5 * rng.normal(size=n), [-0.7, 0.0, 0.7])
    y = np.sin(2 * s) + s + 0.3 * rng.normal(size=n)
    frame = pd.DataFrame({"s": s, "z": pd.Categorical(np.array(list("abcd"))[z])})
    sel = ConditionalSaliencySelection(random_state=0).fit(frame, y)
    frequency = sel.local_support_.mean(axis=0)
    assert frequency[0] > 0.95
    assert frequency[1] < 0.1
    # 1 - p of a null column averages about 1/2 (uniform p), far from the signal's 1
    assert sel.local_relevance_[:, 1].mean() < 0.7


def test_model_screen_on_a_wide_table_with_nominal_columns():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    n = 3000
    colour = rng.choice(["red", "green", "blue", "grey"], n)
    signal = rng.normal(size=n)
    y = signal + 1.5 * (colour == "red") - 1.0 * (colour == "blue") + 0.3 * rng.normal(size=n)
    columns = {"colour": pd.Categorical(colour), "signal": signal}
    columns.update({f"n{j}": rng.normal(size=n) for j in range(18)})
    columns.update({f"s{j}": rng.choice(list("abcde"), n).astype(object) for j in range(3)})
    frame = pd.DataFrame(columns)
    frame.loc[rng.random(n) < 0.05, "n0"] = np.nan
    sel = ConditionalSaliencySelection(random_state=0).fit(frame, y)
    assert hasattr(sel, "model_screen_pvalues_")  # more than 20 columns: the screen ran
    assert {0, 1} <= set(sel.screened_.tolist())
    frequency = sel.local_support_.mean(axis=0)
    assert frequency[:2].min() > 0.9
    assert frequency[2:].max() < 0.1


def test_model_file_of_a_table_fit_loads_and_answers_alike(tmp_path):
    """The boosted model's categorical preprocessor is among the types a model file trusts."""
    pytest.importorskip("skops")
    from localselect.cli._model_io import load_model, save_model

    frame, y = planted_frame(1500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FewHeldOutRowsWarning)
        sel = ConditionalSaliencySelection(random_state=0).fit(frame, y)
    path = tmp_path / "model.skops"
    save_model({"estimator": sel}, path)
    loaded = load_model(path)["estimator"]
    rows = frame.iloc[:40]
    np.testing.assert_array_equal(
        np.asarray(loaded.get_local_support(rows)), np.asarray(sel.get_local_support(rows))
    )
