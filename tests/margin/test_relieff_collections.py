"""ReliefF on a Dask collection (the DiReliefF design) equals ReliefF in memory.

On a real ``LocalCluster`` (two worker processes, the ``dask_client`` fixture):
``ReliefF.fit`` on a ``dask.array`` draws the in-memory fit's reference rows and
gets its weights (``rtol=1e-9``); with every row a reference the weights are the
in-memory kernel's; with sampled reference rows they are those of an obvious loop
over the references; and neither the client nor one task holds the table beyond the
reference rows and their neighbour lists.

The tables are generated on the workers, block by block from a seed
(``tests/dask_tables.py``); the in-memory reference calls the same generator.
"""

from __future__ import annotations

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")

from dask_cluster import CLUSTER_MARKS, gather_spies  # noqa: E402
from dask_tables import check_nothing_gathered  # noqa: E402
from dask_tables import collections as _collections  # noqa: E402
from dask_tables import in_memory as _in_memory  # noqa: E402

from localselect import ReliefF  # noqa: E402
from localselect.margin import relieff, relieff_weights_dask  # noqa: E402

pytestmark = CLUSTER_MARKS


@pytest.fixture
def spies(dask_client, monkeypatch):
    """``(plugin, received)``: the largest task result and the results the client gathered."""
    with gather_spies(dask_client, monkeypatch) as found:
        yield found


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
    check_nothing_gathered(spies, rows_on_client=300, lists_on_client=300 * 3 * 10)


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
    check_nothing_gathered(spies, rows_on_client=len(refs))
