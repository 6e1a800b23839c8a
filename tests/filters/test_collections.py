"""Data on a Dask cluster (issue 38, items 2 and 3): fits and per-row answers on collections.

On a real ``LocalCluster`` (two worker processes, the ``dask_client`` fixture):
FisherScore, MRMR and the sampled-reference ReliefF weights computed from a
``dask.array`` / ``dask.dataframe`` equal the in-memory results on the same rows
(``rtol=1e-9``); the per-row answers of fitted selectors come back as dask
collections equal to the in-memory answers; and neither the client nor one
task ever holds the whole table (a scheduler plugin records the largest task
result, a spy on ``Client.gather`` the largest result the client receives).

The tables are generated on the workers, block by block from a seed, so the
client never builds them either; the in-memory reference calls the same
generator.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
from dask_cluster import CLUSTER_MARKS, gather_spies  # noqa: E402
from task_recorder import TaskRecorder  # noqa: E402

from localselect import MRMR, FisherScore, LocalFeatureSelection, ReliefF, Simba  # noqa: E402
from localselect.margin import relieff, relieff_weights_dask  # noqa: E402

pytestmark = CLUSTER_MARKS

ROWS, BLOCK, FEATURES = 4_000, 500, 8
TABLE_BYTES = ROWS * FEATURES * 8


def _block(i, rows=BLOCK, features=FEATURES):
    """Block ``i`` of the table: three informative columns, the rest noise."""
    rng = np.random.default_rng(1000 + i)
    X = rng.normal(size=(rows, features))
    y = (X[:, 0] + 0.8 * X[:, 1] - 0.5 * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1.2)
    return X, y


def _in_memory(n_blocks=ROWS // BLOCK):
    parts = [_block(i) for i in range(n_blocks)]
    return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def _collections(n_blocks=ROWS // BLOCK):
    """``(X, y)`` as dask arrays whose blocks are generated on the workers."""
    parts = [dask.delayed(_block, pure=True)(i) for i in range(n_blocks)]
    X = da.concatenate(
        [da.from_delayed(p[0], (BLOCK, FEATURES), np.float64) for p in parts], axis=0
    )
    y = da.concatenate([da.from_delayed(p[1], (BLOCK,), np.int64) for p in parts])
    return X, y


@pytest.fixture
def spies(dask_client, monkeypatch):
    """``(plugin, received)``: the largest task result and the results the client gathered."""
    with gather_spies(dask_client, monkeypatch) as found:
        yield found


def _check_nothing_gathered(spies, *, rows_on_client=0, lists_on_client=0):
    plugin, received = spies
    assert received, "nothing was computed on the cluster"
    # The client receives statistics (and the few reference rows, and for ReliefF their
    # neighbour lists: distance and index per entry): far below the table.
    allowed = TABLE_BYTES / 10 + rows_on_client * FEATURES * 8 + lists_on_client * 16
    assert max(received) < allowed, received
    # No task result on a worker comes near the table: blocks at most.
    assert 0 < plugin.largest <= 2 * BLOCK * FEATURES * 8 + lists_on_client * 16, plugin.largest


def test_fisher_equals_in_memory_without_gathering(dask_client, spies):
    X, y = _in_memory()
    expected = FisherScore(n_features_to_select=3).fit(X, y)
    fitted = FisherScore(n_features_to_select=3).fit(*_collections())
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip
    np.testing.assert_array_equal(fitted.get_support(), expected.get_support())
    np.testing.assert_array_equal(fitted.classes_, expected.classes_)
    assert fitted.n_features_in_ == FEATURES and fitted.task_ == "classification"
    _check_nothing_gathered(spies)


def test_mrmr_ranking_equals_in_memory_without_gathering(dask_client, spies):
    X, y = _in_memory()
    expected = MRMR(n_features_to_select=6).fit(X, y)
    fitted = MRMR(n_features_to_select=6).fit(*_collections())
    np.testing.assert_array_equal(fitted.ranking_, expected.ranking_)
    _check_nothing_gathered(spies)


def test_relieff_fit_equals_in_memory_on_the_same_reference_rows(dask_client, spies):
    """ReliefF.fit on a collection draws the in-memory fit's reference rows."""
    X, y = _in_memory()
    params = {"max_samples": 300, "n_neighbors": 10, "n_features_to_select": 3, "random_state": 4}
    expected = ReliefF(**params).fit(X, y)
    fitted = ReliefF(**params).fit(*_collections())
    assert fitted.max_samples_ == expected.max_samples_ == 300
    np.testing.assert_allclose(fitted.feature_importances_, expected.feature_importances_,
                               rtol=1e-9)  # fmt: skip
    np.testing.assert_array_equal(fitted.get_support(), expected.get_support())
    # neighbour lists: 300 reference rows x 3 classes x k = 10
    _check_nothing_gathered(spies, rows_on_client=300, lists_on_client=300 * 3 * 10)


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


def _relieff_slow(X, codes, refs, k):
    """Kononenko's update over the reference rows ``refs`` only: an obvious loop."""
    lo, span = X.min(axis=0), X.max(axis=0) - X.min(axis=0)
    Xs = (X - lo) / np.where(span > 0, span, 1.0) * (span > 0)
    counts = np.bincount(codes)
    priors = counts / len(codes)
    total = np.zeros(X.shape[1])
    for i in refs:
        dist = np.abs(Xs - Xs[i]).sum(axis=1)
        dist[i] = np.inf
        for c in range(len(counts)):
            k_c = min(k, counts[c] - (c == codes[i]))
            members = np.flatnonzero(codes == c)
            nearest = members[np.argsort(dist[members], kind="stable")[:k_c]]
            diff = np.abs(Xs[nearest] - Xs[i]).mean(axis=0)
            coef = -1.0 if c == codes[i] else priors[c] / (1 - priors[codes[i]])
            total += coef * diff
    return total / len(refs)


@pytest.mark.parametrize("k", [1, 5])
def test_relieff_all_rows_as_references_equals_the_kernel(dask_client, k):
    # Every row a reference: the in-memory kernel's case (the client then holds the
    # references and their neighbour lists, by request).
    X, y = _in_memory(2)
    weights = relieff_weights_dask(*_collections(2), np.arange(len(y)), k)
    np.testing.assert_allclose(weights, relieff(X, y, k, engine="numpy"), rtol=1e-9)


def test_relieff_sampled_references_without_gathering(dask_client, spies):
    X, y = _in_memory()
    refs = np.sort(np.random.default_rng(5).choice(len(y), size=40, replace=False))
    weights = relieff_weights_dask(*_collections(), refs, 10)
    np.testing.assert_allclose(weights, _relieff_slow(X, y, refs, 10), rtol=1e-9)
    assert np.argsort(-weights)[:2].tolist() == [0, 1]
    _check_nothing_gathered(spies, rows_on_client=len(refs))


def test_per_row_answers_of_a_local_selector(dask_client):
    X, y = _in_memory(1)
    model = LocalFeatureSelection(max_features=3, n_beta=4, max_iter=1).fit(X[:120], y[:120])
    Xd = da.from_array(X, chunks=(90, 4))
    for name in ("get_local_support", "local_relevance", "transform", "predict"):
        answer = getattr(model, name)(Xd)
        assert isinstance(answer, da.Array), name
        np.testing.assert_allclose(answer.compute(), getattr(model, name)(X), rtol=1e-12)
    with pytest.raises(ValueError, match="indices=True"):
        model.get_local_support(Xd, indices=True)


def test_estimators_without_a_dask_fit_refuse_by_name(dask_client):
    X, y = _collections(1)
    listed = r"Simba has no fit on Dask.*FisherScore, LiftFeatureSelector, MRMR, ReliefF"
    with pytest.raises(ValueError, match=listed):
        Simba().fit(X, y)
    with pytest.raises(ValueError, match="shadow features"):
        ReliefF(n_features_to_select="auto").fit(X, y)
    with pytest.raises(ValueError, match="permutation null"):
        FisherScore(n_features_to_select="auto").fit(X, y)


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
