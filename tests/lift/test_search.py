"""Lattice searches against the slow enumerating reference, and the pruning guarantee."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect.lift._measures import encode_discrete
from localselect.lift._search import (
    count_subsets,
    search_profiles,
    search_subsets,
)

from . import _reference as ref
from ._strategies import discrete_tables, to_array


def _columns(enc):
    def columns(subset):
        return enc.codes[:, list(subset)], [len(enc.categories[j]) for j in subset]

    return columns


def _values(enc, subset, codes):
    return tuple(int(enc.categories[j][c]) for j, c in zip(subset, codes))


@given(discrete_tables(max_rows=20, max_features=4), st.sampled_from([0.0, 0.1, 0.25, 0.5]))
def test_profile_search_finds_every_qualifying_profile(table, min_support):
    X, y = table
    enc = encode_discrete(to_array(X))
    y = np.asarray(y)
    m = len(X[0])
    for target in sorted(set(y.tolist())):
        expected = ref.all_profiles(
            X, y.tolist(), max_size=m, min_support=min_support, target=target
        )
        res = search_profiles(
            enc.codes, y, 3, max_size=m, min_support=min_support, top_k=10_000, targets=[target]
        )
        assert res.n_passed == len(expected)
        got = {
            (r["features"], _values(enc, r["features"], r["profile"])): (
                r["lift"],
                r["support"],
                r["n_complete"],
            )
            for r in res.records
        }
        assert set(got) == set(expected)
        for key, (lift, support, n_complete) in expected.items():
            assert got[key][0] == pytest.approx(lift)
            assert got[key][1] == pytest.approx(support)
            assert got[key][2] == n_complete
        scores = [r["score"] for r in res.records]
        assert scores == sorted(scores, reverse=True)


@given(discrete_tables(max_rows=16, max_features=3, max_levels=2), st.sampled_from([0.0, 0.3]))
def test_window_search_matches_reference(table, min_support):
    X, y = table
    enc = encode_discrete(to_array(X))
    m = len(X[0])
    expected = ref.all_windows(X, y, max_size=m, min_support=min_support)
    res = search_subsets(
        "windows",
        _columns(enc),
        np.asarray(y),
        3,
        m,
        max_size=m,
        min_support=min_support,
        top_k=10_000,
        targets=[0, 1, 2],
    )
    assert res.n_passed == len(expected)
    if not expected:
        assert res.records == []
        return
    best = max(v[0] for v in expected.values())
    assert res.records[0]["score"] == pytest.approx(best)
    for r in res.records:
        window = tuple(_values(enc, r["features"], p) for p in r["window"])
        eta, support = expected[(r["features"], window)]
        assert r["score"] == pytest.approx(eta)
        assert r["support"] == pytest.approx(support)


@given(discrete_tables(max_rows=20, max_features=4))
def test_feature_search_matches_reference(table):
    X, y = table
    enc = encode_discrete(to_array(X))
    m = len(X[0])
    expected = ref.all_subsets(X, y, max_size=m)
    res = search_subsets("features", _columns(enc), np.asarray(y), 3, m, max_size=m, top_k=1000)
    assert {r["features"] for r in res.records} == set(expected)
    for r in res.records:
        assert r["score"] == pytest.approx(expected[r["features"]], abs=1e-12)
    if expected:
        assert res.records[0]["score"] == pytest.approx(max(expected.values()), abs=1e-12)


def test_profile_search_respects_max_size_and_n_jobs():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(200, 6))
    codes[rng.random(codes.shape) < 0.05] = -1
    y = (codes[:, 0] == 1).astype(np.int64) + (codes[:, 2] == 2)
    one = search_profiles(codes, y, 3, max_size=2, min_support=0.05, top_k=50, targets=[1])
    two = search_profiles(
        codes, y, 3, max_size=2, min_support=0.05, top_k=50, targets=[1], n_jobs=2
    )
    assert all(len(r["features"]) <= 2 for r in one.records)
    assert one.records == two.records
    assert (one.n_visited, one.n_passed, one.n_frequent) == (
        two.n_visited,
        two.n_passed,
        two.n_frequent,
    )


def test_subset_limit_is_a_clear_error():
    assert count_subsets(40, 40) == 2**40 - 1
    enc = encode_discrete(np.zeros((4, 40)))
    with pytest.raises(ValueError, match="set max_features"):
        search_subsets(
            "features", _columns(enc), np.array([0, 1, 0, 1]), 2, 40, max_size=40, top_k=1
        )


def test_many_profiles_use_nested_windows_and_keep_the_unconstrained_optimum():
    # 5 levels x 2 features = 25 profiles > MAX_WINDOW_PROFILES: nested windows only.
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 5, size=(400, 2))
    y = (rng.random(400) < 0.2 + 0.15 * codes[:, 0]).astype(np.int64)
    enc = encode_discrete(codes)
    res = search_subsets(
        "windows", _columns(enc), y, 2, 2, max_size=2, min_support=0.0, top_k=5, targets=[1]
    )
    X = [tuple(r) for r in codes.tolist()]
    singles = ref.all_windows(X, y.tolist(), max_size=1, min_support=0.0)
    rows = ref.complete_rows(X, y.tolist(), (0, 1))
    best_single = max(ref.eta(rows, [p]) for p in {v for v, _ in rows})
    assert res.records[0]["score"] == pytest.approx(
        max(best_single, *[v[0] for v in singles.values()])
    )
    pair = [r for r in res.records if r["features"] == (0, 1)]
    assert pair and all(r["window"] for r in pair)
    for r in pair:
        window = tuple(_values(enc, (0, 1), p) for p in r["window"])
        assert r["score"] == pytest.approx(ref.eta(rows, window))


@pytest.mark.slow
def test_feature_search_on_a_million_rows_matches_direct_counts():
    """Counting stays exact at scale (mixed-radix codes on 10**6 rows)."""
    from localselect.lift import dependence

    rng = np.random.default_rng(0)
    X = rng.integers(0, 5, size=(1_000_000, 10))
    y = (X[:, 1] + X[:, 4] + rng.integers(0, 3, size=len(X))) % 4
    enc = encode_discrete(X)
    res = search_subsets("features", _columns(enc), y, 4, 10, max_size=3, top_k=3)
    assert res.n_visited == 175
    best = res.records[0]
    assert set(best["features"]) >= {1, 4}
    assert best["score"] == pytest.approx(dependence(X[:, list(best["features"])], y), abs=1e-12)


def test_count_subsets_stops_past_its_cap():
    # the exact count over 5,000 features took seconds before a refusal
    assert count_subsets(5000, 5000, cap=10) == 5000  # the first size already exceeds 10
    assert count_subsets(6, 3, cap=10**6) == count_subsets(6, 3) == 6 + 15 + 20
