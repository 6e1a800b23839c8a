"""LiftFeatureSelector: the paper's Table 5, the three resolutions, input handling, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.tree import DecisionTreeClassifier

from localselect import LiftFeatureSelector
from localselect.lift import MahalanobisQuantileDiscretizer, dependence

# ALGORITHMS.md section 4: feature codes of HouseVotes84 in the order V1..V16.
CODES = [
    "HI",
    "WP",
    "AB",
    "PF",
    "SA",
    "RG",
    "ST",
    "AN",
    "MM",
    "IM",
    "SC",
    "ES",
    "SR",
    "CR",
    "DF",
    "EA",
]


#: Table 5 of Marcondes, Simonis and Barrera (2017), "Feature selection based on the Local
#: Lift Dependence Scale": the 27 profiles of HouseVotes84 with relative frequency >= 0.15
#: among the complete instances, as (party, features, profile, lift printed to 2 decimals,
#: sample size). The same numbers as the benchmarks' llds/published/llds_table5.json.
TABLE5 = [
    ("democrat", "AB PF SA RG MM ES SR EA", "y n n n y n n y", 1.94, 277),
    ("democrat", "HI AB PF SA RG MM ES SR EA", "y y n n n y n n y", 1.94, 275),
    ("democrat", "AB PF RG ST MM ES SR EA", "y n n y y n n y", 1.94, 279),
    ("democrat", "HI AB PF RG ST MM ES SR EA", "y y n n y y n n y", 1.94, 277),
    ("democrat", "AB PF SA RG ST MM ES SR EA", "y n n n y y n n y", 1.94, 276),
    ("democrat", "HI AB PF SA RG ST MM ES SR EA", "y y n n n y y n n y", 1.94, 274),
    ("democrat", "AB PF SA RG MM ES SR CR EA", "y n n n y n n n y", 1.94, 275),
    ("democrat", "AB PF RG ST MM ES SR CR EA", "y n n y y n n n y", 1.94, 276),
    ("democrat", "AB PF SA RG ST MM ES SR CR EA", "y n n n y y n n n y", 1.94, 274),
    ("democrat", "AB PF RG ST MM ES SR DF EA", "y n n y y n n y y", 1.94, 269),
    ("democrat", "AB PF SA RG ST MM ES SR DF EA", "y n n n y y n n y y", 1.94, 266),
    ("republican", "WP PF SC ES CR", "n y n y y", 2.65, 342),
    ("republican", "AB PF AN SC CR DF", "n y n n y n", 2.64, 369),
    ("republican", "PF AN IM ES CR DF", "y n y y y n", 2.64, 361),
    ("republican", "PF AN SC CR DF", "y n n y n", 2.64, 373),
    ("republican", "AB PF AN SC ES", "n y n n y", 2.63, 376),
    ("republican", "HI AB PF AN SC ES", "n n y n n y", 2.63, 373),
    ("republican", "AB PF AN SC ES CR", "n y n n y y", 2.63, 368),
    ("republican", "HI AB PF AN SC ES CR", "n n y n n y y", 2.63, 365),
    ("republican", "PF AN SC DF", "y n n n", 2.63, 380),
    ("republican", "AB PF AN SC DF", "n y n n n", 2.63, 376),
    ("republican", "PF AN IM ES DF", "y n y y n", 2.63, 368),
    ("republican", "AB PF AN SC ES DF", "n y n n y n", 2.63, 360),
    ("republican", "HI AB PF AN SC CR DF", "n n y n n y n", 2.63, 365),
    ("republican", "PF AN SC ES CR DF", "y n n y y n", 2.63, 356),
    ("republican", "AB PF AN SC ES CR DF", "n y n n y y n", 2.63, 353),
    ("republican", "HI AB PF AN SC ES CR DF", "n n y n n y y n", 2.63, 350),
]


@pytest.fixture(scope="module")
def house_votes(data_home):
    from localselect.datasets import load_dataset

    X, y = load_dataset("HouseVotes84", data_home=data_home, as_frame=True)
    X = X.copy()
    X.columns = CODES
    return X, y


@pytest.fixture(scope="module")
def table5_fits(house_votes):
    X, y = house_votes
    return {
        party: LiftFeatureSelector("profiles", min_support=0.15, target_class=party, top_k=30).fit(
            X, y
        )
        for party in ("democrat", "republican")
    }


def test_table5_best_lifts(table5_fits):
    # ALGORITHMS.md check 2: best lifts 1.9437 (democrat) and 2.6512 (republican),
    # printed 1.94 and 2.65 in Table 5.
    dem = table5_fits["democrat"].results_
    rep = table5_fits["republican"].results_
    assert dem["lift"].iloc[0] == pytest.approx(1.9437, abs=5e-5)
    assert rep["lift"].iloc[0] == pytest.approx(2.6512, abs=5e-5)
    assert rep.iloc[0]["features"] == ("WP", "PF", "SC", "ES", "CR")
    assert rep.iloc[0]["profile"] == ("n", "y", "n", "y", "y")
    assert rep.iloc[0]["n_complete"] == 342
    assert rep.iloc[0]["support"] == pytest.approx(0.152, abs=5e-4)  # 52 / 342


def test_table5_all_profiles_in_top30(table5_fits):
    assert len(TABLE5) == 27
    for party, features, profile, lift, sample_size in TABLE5:
        found = table5_fits[party].results_
        key = (tuple(features.split()), tuple(profile.split()))
        hits = found[[(f, p) == key for f, p in zip(found["features"], found["profile"])]]
        assert len(hits) == 1, f"{party} profile {key} is not in the top 30"
        hit = hits.iloc[0]
        assert hit["n_complete"] == sample_size
        assert round(hit["lift"], 2) == pytest.approx(lift, abs=0.0051)


def test_table5_lattice_size(table5_fits):
    # ALGORITHMS.md: 33,908 qualifying profiles, about 84,000 visited.
    fit = table5_fits["democrat"]
    assert fit.n_passed_ == 33_908
    assert 80_000 <= fit.n_visited_ <= 88_000
    assert fit.n_counted_ >= fit.n_visited_


def test_algorithms_md_check2_profiles(house_votes):
    X, y = house_votes
    cols = ["AB", "PF", "SA", "RG", "MM", "ES", "SR", "EA"]
    sub = X[cols].dropna()
    assert len(sub) == 277
    match = (sub == ["y", "n", "n", "n", "y", "n", "n", "y"]).all(axis=1)
    assert match.mean() == pytest.approx(0.224, abs=5e-4)
    dem = (y.loc[sub.index] == "democrat").to_numpy()
    lift = dem[match.to_numpy()].mean() / dem.mean()
    assert lift == pytest.approx(1.9371, abs=5e-5)


def test_features_and_windows_on_house_votes(house_votes):
    X, y = house_votes
    feats = LiftFeatureSelector("features", max_features=2).fit(X, y)
    best = feats.results_.iloc[0]
    assert best["score"] == pytest.approx(dependence(X[list(best["features"])], y))
    assert feats.get_support().sum() == len(best["features"])
    assert feats.results_["score"].is_monotonic_decreasing
    win = LiftFeatureSelector(
        "windows", max_features=1, min_support=0.3, target_class="republican"
    ).fit(X, y)
    top = win.results_.iloc[0]
    assert top["support"] >= 0.3
    assert top["score"] == pytest.approx(
        dependence(X[list(top["features"])], y, window=top["window"])
    )


def test_result_columns_and_types():
    X = pd.DataFrame({"a": list("xxyyxxyy"), "b": list("uvuvuvuv")})
    y = np.array(["p", "p", "q", "q", "p", "p", "q", "q"])
    for resolution in ("features", "windows", "profiles"):
        sel = LiftFeatureSelector(resolution, top_k=3).fit(X, y)
        assert list(sel.results_.columns) == [
            "features",
            "profile",
            "window",
            "score",
            "lift",
            "support",
            "n_complete",
            "target_class",
        ]
        assert len(sel.results_) >= 1
        assert sel.get_feature_names_out().tolist() == ["a"]
    prof = LiftFeatureSelector("profiles", top_k=2).fit(X, y)
    assert set(prof.results_["target_class"]) == {"p", "q"}
    assert prof.results_["lift"].max() == pytest.approx(2.0)


def test_missing_values_use_complete_cases():
    X = pd.DataFrame({"a": ["x", "x", "y", "y", None, None], "b": [0, 1, 0, 1, 0, 1]})
    y = [1, 1, 0, 0, 0, 0]
    sel = LiftFeatureSelector("profiles", target_class=1, max_features=1).fit(X, y)
    best = sel.results_.iloc[0]
    assert best["features"] == ("a",) and best["profile"] == ("x",)
    assert best["n_complete"] == 4
    assert best["lift"] == pytest.approx(2.0)  # P(1 | x) = 1, P(1) = 2/4 among complete rows


def test_numpy_integer_input_and_pipeline():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 3, size=(120, 5)).astype(float)
    y = (X[:, 3] == 2).astype(int)
    sel = LiftFeatureSelector(max_features=2).fit(X, y)
    assert 3 in sel.get_support(indices=True)
    pipe = make_pipeline(
        LiftFeatureSelector(max_features=1), DecisionTreeClassifier(random_state=0)
    )
    assert pipe.fit(X, y).score(X, y) == 1.0


def test_per_feature_discretizer():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(300, 4))
    y = (X[:, 1] > 0.5).astype(int)
    disc = KBinsDiscretizer(n_bins=4, encode="ordinal", strategy="uniform")
    sel = LiftFeatureSelector("profiles", max_features=2, target_class=1, discretizer=disc)
    sel.fit(X, y)
    assert 1 in sel.results_.iloc[0]["features"] or sel.results_.iloc[0]["features"] == ("x1",)
    assert sel.get_support()[1]


def test_joint_discretizer_profiles_are_bins():
    rng = np.random.default_rng(2)
    X = np.abs(rng.normal(size=(400, 3)))
    y = (X[:, 0] ** 2 + X[:, 2] ** 2 > 2.0).astype(int)
    sel = LiftFeatureSelector(
        "windows", max_features=2, discretizer=MahalanobisQuantileDiscretizer(n_bins=5)
    ).fit(X, y)
    best = sel.results_.iloc[0]
    assert all(len(p) == 1 and p[0] in range(5) for p in best["window"])
    prof = LiftFeatureSelector(
        "profiles",
        max_features=2,
        target_class=1,
        min_support=0.15,
        discretizer=MahalanobisQuantileDiscretizer(n_bins=5),
    ).fit(X, y)
    top = prof.results_.iloc[0]
    assert top["features"] == ("x0", "x2") and top["profile"] == (4,)
    assert top["support"] == pytest.approx(0.2)


def test_verbose_logs(caplog):
    X = np.array([[0, 1], [1, 0], [0, 0], [1, 1]])
    with caplog.at_level("INFO", logger="localselect.lift._selector"):
        LiftFeatureSelector(verbose=1).fit(X, [0, 1, 0, 1])
    assert "LLDS features search" in caplog.text


@pytest.mark.parametrize(
    ("params", "X", "y", "match"),
    [
        (
            {"discretizer": None},
            np.array([[0.5, 1.0], [0.2, 2.0], [0.1, 0.0]]),
            [0, 1, 0],
            "discretizer=mahalanobis:3",
        ),
        ({"min_support": 1.5}, np.array([[0, 1], [1, 0]]), [0, 1], "min_support"),
        ({"min_support": -0.1}, np.array([[0, 1], [1, 0]]), [0, 1], "min_support"),
        ({"target_class": "zzz"}, np.array([[0, 1], [1, 0]]), [0, 1], "not a class of y"),
        ({}, np.array([[0, 1], [1, 0]]), [1, 1], "1 class"),
        ({}, np.array([[0, np.inf], [1, 0]]), [0, 1], "infinity"),
        (
            {"resolution": "profiles", "min_support": 0.9},
            np.array([[0, 1], [1, 0], [2, 2], [3, 3]]),
            [0, 1, 0, 1],
            "No profile reaches min_support",
        ),
        ({"resolution": "bogus"}, np.array([[0, 1], [1, 0]]), [0, 1], "resolution"),
    ],
)
def test_bad_input(params, X, y, match):
    with pytest.raises(ValueError, match=match):
        LiftFeatureSelector(**params).fit(X, y)


def test_a_discretizer_cuts_only_the_numeric_columns_of_a_table():
    X = np.array([["a", "b"], ["b", "a"]], dtype=object)  # text only: kept as its levels
    sel = LiftFeatureSelector(discretizer=KBinsDiscretizer(encode="ordinal")).fit(X, [0, 1])
    assert sel.discretizer_ is None
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"t": rng.choice(["u", "v"], 60), "x": rng.normal(size=60)})
    kbins = KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform")
    sel = LiftFeatureSelector(discretizer=kbins).fit(frame, rng.integers(0, 2, 60))
    codes = sel.discretizer_.transform(frame.to_numpy(dtype=object))
    assert set(codes[:, 1]) <= {0.0, 1.0, 2.0} and set(codes[:, 0]) == {"u", "v"}


def test_constant_feature_and_string_labels():
    X = pd.DataFrame({"c": [1, 1, 1, 1], "d": ["u", "v", "u", "v"]})
    sel = LiftFeatureSelector().fit(X, ["a", "b", "a", "b"])
    assert np.isfinite(sel.results_["score"]).all()
    assert sel.results_.iloc[0]["features"] == ("d",)


def test_default_discretizer_bins_continuous_columns_by_tertiles():
    # The default must take continuous (and negative) data, as
    # scikit-learn's check_positive_only_tag_during_fit requires.
    from sklearn.utils.estimator_checks import check_positive_only_tag_during_fit

    check_positive_only_tag_during_fit("LiftFeatureSelector", LiftFeatureSelector())
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    X = np.column_stack([y + 0.4 * rng.normal(size=120), rng.normal(size=120), y % 2])
    X[::7, 0] = np.nan
    auto = LiftFeatureSelector(max_features=1).fit(X, y)
    # Column 0 cut at its sample tertiles by hand; column 2 (integers) kept as it is.
    q1, q2 = np.nanquantile(X[:, 0], [1 / 3, 2 / 3])
    by_hand = X.copy()
    by_hand[:, 0] = np.where(np.isnan(X[:, 0]), np.nan, (X[:, 0] > q1) * 1.0 + (X[:, 0] > q2))
    q1, q2 = np.quantile(X[:, 1], [1 / 3, 2 / 3])
    by_hand[:, 1] = (X[:, 1] > q1) * 1.0 + (X[:, 1] > q2)
    explicit = LiftFeatureSelector(max_features=1, discretizer=None).fit(by_hand, y)
    assert auto.results_.equals(explicit.results_)
    assert [len(c) for c in auto.categories_] == [3, 3, 2]
