"""FisherScore and MRMR fitted on Dask collections equal their in-memory fits.

On a real ``LocalCluster`` (two worker processes, the ``dask_client`` fixture):
FisherScore and MRMR computed from a ``dask.array`` / ``dask.dataframe`` equal the
in-memory results on the same rows (``rtol=1e-9``; MRMR's ranking exactly), and
neither the client nor one task ever holds the whole table (a scheduler plugin
records the largest task result, a spy on ``Client.gather`` the largest result the
client receives). Without a cluster: mRMR's order from summed counts is the
in-memory greedy order, and block progress is reported.

The tables are generated on the workers, block by block from a seed
(``tests/dask_tables.py``), so the client never builds them either; the in-memory
reference calls the same generator.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from dask_cluster import CLUSTER_MARKS, gather_spies  # noqa: E402
from dask_tables import BLOCK, FEATURES, ROWS, check_nothing_gathered  # noqa: E402
from dask_tables import block as _block  # noqa: E402
from dask_tables import collections as _collections  # noqa: E402
from dask_tables import in_memory as _in_memory  # noqa: E402
from task_recorder import TaskRecorder  # noqa: E402

from localselect import MRMR, FisherScore  # noqa: E402
from localselect.filters._collections import _state_counts, mrmr_from_counts  # noqa: E402
from localselect.filters._mrmr import discretize_three_states, mrmr_order  # noqa: E402


def _slow(test):
    """The marks of a cluster test (``CLUSTER_MARKS``: slow, deaf to the cluster's warnings)."""
    for mark in CLUSTER_MARKS:
        test = mark(test)
    return test


@pytest.fixture
def spies(dask_client, monkeypatch):
    """``(plugin, received)``: the largest task result and the results the client gathered."""
    with gather_spies(dask_client, monkeypatch) as found:
        yield found


@_slow
def test_fisher_equals_in_memory_without_gathering(dask_client, spies):
    X, y = _in_memory()
    expected = FisherScore(n_features_to_select=3).fit(X, y)
    fitted = FisherScore(n_features_to_select=3).fit(*_collections())
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip
    np.testing.assert_array_equal(fitted.get_support(), expected.get_support())
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)
    assert fitted.n_features_in_ == FEATURES and fitted.task_ == "classification"
    check_nothing_gathered(spies)


@_slow
def test_mrmr_ranking_equals_in_memory_without_gathering(dask_client, spies):
    X, y = _in_memory()
    expected = MRMR(n_features_to_select=6).fit(X, y)
    fitted = MRMR(n_features_to_select=6).fit(*_collections())
    np.testing.assert_array_equal(fitted.ranking_, expected.ranking_)
    check_nothing_gathered(spies)


@_slow
@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_dataframe_with_string_labels(dask_client):
    X, y = _in_memory(4)
    names = [f"f{j}" for j in range(FEATURES)]
    labels = np.array(["low", "mid", "high"])[y]
    import pandas as pd

    frame = dd.from_pandas(pd.DataFrame(X, columns=names), npartitions=3)
    target = dd.from_pandas(pd.Series(labels), npartitions=3)
    fitted = FisherScore(n_features_to_select=2).fit(frame, target)
    expected = FisherScore(n_features_to_select=2).fit(pd.DataFrame(X, columns=names), labels)
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip
    assert list(fitted.feature_names_in_) == names
    assert fitted.classes_.tolist() == ["high", "low", "mid"]
    out = fitted.transform(frame)
    assert isinstance(out, dd.DataFrame)
    expected_out = expected.transform(pd.DataFrame(X, columns=names))
    np.testing.assert_allclose(out.compute().to_numpy(), expected_out, rtol=0)


@_slow
def test_parquet_columns_fused_differently_still_align(dask_client, tmp_path):
    """``dd.read_parquet`` of small files fuses the partitions of a projected column.

    ``frame["y"]`` then has fewer partitions than ``frame.drop(columns="y")``; the
    row blocks are counted on the arrays themselves and ``y`` follows ``X``'s blocks.
    """
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    from localselect._runtime._collections import row_blocks

    names = [f"f{j}" for j in range(FEATURES)]
    for i in range(4):
        X, y = _block(i, rows=50)
        frame = pd.DataFrame(X, columns=names).assign(y=y)
        frame.to_parquet(tmp_path / f"part-{i}.parquet")
    lazy = dd.read_parquet(sorted(str(p) for p in tmp_path.glob("*.parquet")))
    X_lazy, y_lazy = lazy.drop(columns="y"), lazy["y"]
    blocks = row_blocks(X_lazy, y_lazy)
    assert blocks.y.chunks[0] == blocks.X.chunks[0]
    assert blocks.n_samples == 200 and blocks.offsets.tolist()[0] == 0
    table = lazy.compute()
    np.testing.assert_array_equal(blocks.y.compute(), table["y"].to_numpy())
    fitted = FisherScore().fit(X_lazy, y_lazy)
    expected = FisherScore().fit(table.drop(columns="y"), table["y"])
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip


@_slow
def test_mrmr_f_criteria_and_regression_refuse_a_collection(dask_client):
    X, y = _collections(1)
    with pytest.raises(ValueError, match="only criterion='mid' on class labels"):
        MRMR(criterion="fcq").fit(X, y)
    with pytest.raises(ValueError, match="only criterion='mid' on class labels"):
        MRMR(task="regression").fit(X, y)


def _check_block_progress(recorder, n_blocks):
    seen = {task.description: (task.done, task.total, task.unit) for task in recorder.tasks}
    assert seen["summary blocks"] == (n_blocks, n_blocks, "blocks"), seen
    assert seen["fisher blocks"] == (n_blocks, n_blocks, "blocks"), seen


@_slow
def test_collection_fit_reports_blocks_done_on_a_cluster(dask_client):
    from localselect._runtime import listen

    X, y = _collections()
    recorder = TaskRecorder()
    with listen(recorder):
        fitted = FisherScore().fit(X, y)
    _check_block_progress(recorder, ROWS // BLOCK)
    expected = FisherScore().fit(*_in_memory())
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip


@_slow
def test_collection_fit_reports_blocks_done_on_a_local_scheduler():
    from localselect._runtime import listen

    X, y = _collections()
    recorder = TaskRecorder()
    with dask.config.set(scheduler="threads"), listen(recorder):
        fitted = FisherScore().fit(X, y)
    _check_block_progress(recorder, ROWS // BLOCK)
    expected = FisherScore().fit(*_in_memory())
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip


@pytest.mark.parametrize("n_features_to_select", [1, 4, 8, 20])
def test_mrmr_order_from_summed_counts_is_the_in_memory_order(n_features_to_select):
    """The collection fit's order (its counts summed over blocks) equals ``mrmr_order``."""
    X, y = _in_memory(2)
    X[:, 5] = X[:, 0] + 0.01 * X[:, 5]  # a redundant copy of an informative column
    states = discretize_three_states(X)
    mean, std = X.mean(axis=0), X.std(axis=0)
    classes = np.unique(y)
    tables = [
        _state_counts(X[i : i + 300], y[i : i + 300], i, mean - std, mean + std, classes)
        for i in range(0, len(y), 300)
    ]
    relevance_joint = sum(t[0] for t in tables)
    pair_joint = sum(t[1] for t in tables)
    order = mrmr_from_counts(relevance_joint, pair_joint, n_features_to_select)
    np.testing.assert_array_equal(order, mrmr_order(states, y, n_features_to_select))
