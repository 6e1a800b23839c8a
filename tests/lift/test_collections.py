"""LiftFeatureSelector on Dask collections: contingency counts on the workers.

Dask's synchronous scheduler for the quick checks (exact tertile edges equal
``np.quantile`` bit for bit, through many narrowing passes; every resolution
equal to the in-memory fit: ranking, counters, regions, edges; the
refusals; a refit on a collection keeps no attribute of an earlier in-memory fit
that it does not set); a real ``LocalCluster`` (slow) for the fit whose table is
generated on the workers, with spies showing that neither the client nor one
task holds the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dask = pytest.importorskip("dask")

import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.preprocessing import KBinsDiscretizer  # noqa: E402

from localselect import LiftFeatureSelector  # noqa: E402
from localselect._runtime._collections import row_blocks  # noqa: E402
from localselect.lift import _collection_codes  # noqa: E402
from localselect.lift._collections import TERTILES  # noqa: E402

ROWS, BLOCK, FEATURES = 6_000, 750, 6


def _block(i, rows=BLOCK):
    """Block ``i``: four continuous columns (one with ties), an integer column, y."""
    rng = np.random.default_rng(2000 + i)
    X = rng.normal(size=(rows, FEATURES))
    X[:, 3] = np.round(X[:, 3] * 2) / 2  # non-integer, many ties
    X[:, 4] = rng.integers(0, 4, rows)
    X[:, 5] = rng.standard_t(1.5, rows)  # heavy tails
    y = (X[:, 0] + 0.8 * X[:, 1] > 0).astype(np.int64) + (X[:, 4] == 3)
    return X, y


def _in_memory(n_blocks=ROWS // BLOCK):
    parts = [_block(i) for i in range(n_blocks)]
    return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _same_fit(fitted, expected):
    pd.testing.assert_frame_equal(fitted.results_, expected.results_, check_exact=False,
                                  rtol=1e-9)  # fmt: skip
    assert [r[:2] for r in fitted.results_.itertuples(index=False)] == [
        r[:2] for r in expected.results_.itertuples(index=False)
    ]
    assert fitted.regions_ == expected.regions_
    np.testing.assert_array_equal(fitted.best_features_, expected.best_features_)
    counters = ("n_counted_", "n_visited_", "n_passed_", "max_features_")
    assert [getattr(fitted, a) for a in counters] == [getattr(expected, a) for a in counters]
    np.testing.assert_array_equal(fitted.discretizer_.edges_, expected.discretizer_.edges_)
    assert fitted.discretizer_.columns == expected.discretizer_.columns
    for got, want in zip(fitted.categories_, expected.categories_, strict=True):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)


@pytest.fixture
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 100, 1001])
def test_exact_quantiles_equal_numpy(synchronous, monkeypatch, n):
    # A tiny gather limit and few bins force many narrowing passes.
    monkeypatch.setattr(_collection_codes, "GATHER_VALUES", 2)
    monkeypatch.setattr(_collection_codes, "N_BINS", 4)
    rng = np.random.default_rng(n)
    X = np.column_stack([
        rng.normal(size=n), np.round(rng.normal(size=n)), rng.standard_cauchy(n) * 1e6,
        np.full(n, 0.3), rng.exponential(size=n) ** 8,
    ])  # fmt: skip
    blocks = row_blocks(da.from_array(X, chunks=(max(n // 3, 1), 5)))
    cols = np.arange(5)
    for q in (TERTILES, np.array([0.0, 0.1, 0.5, 0.999, 1.0])):
        got = _collection_codes.exact_quantiles(blocks, cols, q, X.min(axis=0), X.max(axis=0))
        np.testing.assert_array_equal(got, np.quantile(X, q, axis=0))


@pytest.mark.parametrize(
    "resolution, params",
    [
        ("features", {"max_features": 3}),
        ("windows", {"max_features": 2, "min_support": 0.1}),
        ("profiles", {"max_features": 3, "min_support": 0.05}),
        ("profiles", {"max_features": 2, "min_support": 0.0, "target_class": 1}),
    ],
)
def test_every_resolution_equals_in_memory(synchronous, resolution, params):
    X, y = _in_memory(4)
    expected = LiftFeatureSelector(resolution, max_seconds=None, **params).fit(X, y)
    Xd = da.from_array(X, chunks=(700, FEATURES))
    fitted = LiftFeatureSelector(resolution, **params).fit(Xd, da.from_array(y, chunks=700))
    _same_fit(fitted, expected)
    assert fitted.discretizer_.columns == [0, 1, 2, 3, 5]
    # Per-row answers of the collection fit, block by block, equal the in-memory ones.
    mask = fitted.get_local_support(Xd)
    np.testing.assert_array_equal(mask.compute(), expected.get_local_support(X))
    assert not hasattr(fitted, "local_relevance_")


@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_named_dataframe_equals_in_memory(synchronous):
    X, y = _in_memory(2)
    names = [f"f{j}" for j in range(FEATURES)]
    frame = pd.DataFrame(X, columns=names)
    labels = np.array(["a", "b", "c"])[y]
    expected = LiftFeatureSelector(max_features=2, max_seconds=None).fit(frame, labels)
    fitted = LiftFeatureSelector(max_features=2).fit(
        dd.from_pandas(frame, npartitions=3), dd.from_pandas(pd.Series(labels), npartitions=3)
    )
    _same_fit(fitted, expected)
    assert fitted.results_["features"].iloc[0] == expected.results_["features"].iloc[0]
    assert list(fitted.get_feature_names_out()) == list(expected.get_feature_names_out())


def test_refusals(synchronous):
    X, y = _in_memory(1)
    Xd, yd = da.from_array(X, chunks=(300, FEATURES)), da.from_array(y, chunks=300)
    with pytest.raises(ValueError, match=r"max_features='auto'.*integer"):
        LiftFeatureSelector().fit(Xd, yd)
    with pytest.raises(ValueError, match="discretizer='auto'"):
        LiftFeatureSelector(max_features=1, discretizer=KBinsDiscretizer()).fit(Xd, yd)
    with pytest.raises(ValueError, match=r"continuous \(non-integer\) values in columns \[0"):
        LiftFeatureSelector(max_features=1, discretizer=None).fit(Xd, yd)
    with pytest.raises(ValueError, match="target_class=7"):
        LiftFeatureSelector("profiles", max_features=1, target_class=7).fit(Xd, yd)


def test_a_refit_on_a_collection_keeps_nothing_of_an_in_memory_fit(synchronous):
    """The training rows' answers and a continuous target's bin edges go with the refit."""
    X, y = _in_memory(1)
    est = LiftFeatureSelector("profiles", max_features=2, min_support=0.05, max_seconds=None)
    est.set_params(task="regression").fit(X, X[:, 0] + X[:, 1])
    assert hasattr(est, "target_edges_") and hasattr(est, "local_support_")
    Xd, yd = da.from_array(X, chunks=(300, FEATURES)), da.from_array(y, chunks=300)
    est.set_params(task="auto").fit(Xd, yd)
    stale = ("target_edges_", "local_support_", "local_relevance_")
    assert not any(hasattr(est, name) for name in stale)
    _same_fit(est, clone(est).fit(X, y))


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::FutureWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
@pytest.mark.parametrize(
    "resolution, params",
    [("features", {"max_features": 2}), ("profiles", {"max_features": 3, "min_support": 0.05})],
)
def test_cluster_fit_equals_in_memory_without_gathering(
    dask_client, monkeypatch, resolution, params
):
    pytest.importorskip("distributed")
    from dask_cluster import gather_spies

    with gather_spies(dask_client, monkeypatch) as (plugin, received):
        parts = [dask.delayed(_block, pure=True)(i) for i in range(ROWS // BLOCK)]
        Xd = da.concatenate(
            [da.from_delayed(p[0], (BLOCK, FEATURES), np.float64) for p in parts], axis=0
        )
        yd = da.concatenate([da.from_delayed(p[1], (BLOCK,), np.int64) for p in parts])
        fitted = LiftFeatureSelector(resolution, **params).fit(Xd, yd)
    X, y = _in_memory()
    expected = LiftFeatureSelector(resolution, max_seconds=None, **params).fit(X, y)
    _same_fit(fitted, expected)
    table = ROWS * FEATURES * 8
    assert received and max(received) < table / 5, received  # tables, histograms: not rows
    assert 0 < plugin.largest <= 2 * BLOCK * FEATURES * 8, plugin.largest
