"""The table of the Dask-collection tests, made block by block from a seed (not a test module).

Shared by the collection tests of each method (``tests/filters/test_collections.py``,
``tests/margin/test_relieff_collections.py``): the root ``conftest.py`` puts this folder on
``sys.path``, so they import it as ``dask_tables``. Block ``i`` is made by :func:`block`
on a worker (:func:`collections`) or in memory (:func:`in_memory`), so the client never
builds the table and the in-memory reference has the same rows.
"""

from __future__ import annotations

import numpy as np

ROWS, BLOCK, FEATURES = 4_000, 500, 8
TABLE_BYTES = ROWS * FEATURES * 8


def block(i, rows=BLOCK, features=FEATURES):
    """Block ``i`` of the table: three informative columns, the rest noise."""
    rng = np.random.default_rng(1000 + i)
    X = rng.normal(size=(rows, features))
    y = (X[:, 0] + 0.8 * X[:, 1] - 0.5 * X[:, 2] > 0).astype(np.int64) + (X[:, 3] > 1.2)
    return X, y


def in_memory(n_blocks=ROWS // BLOCK):
    """``(X, y)`` of the first ``n_blocks`` blocks, as numpy arrays."""
    parts = [block(i) for i in range(n_blocks)]
    return np.vstack([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def collections(n_blocks=ROWS // BLOCK):
    """``(X, y)`` as dask arrays whose blocks are generated on the workers."""
    import dask
    import dask.array as da

    parts = [dask.delayed(block, pure=True)(i) for i in range(n_blocks)]
    X = da.concatenate(
        [da.from_delayed(p[0], (BLOCK, FEATURES), np.float64) for p in parts], axis=0
    )
    y = da.concatenate([da.from_delayed(p[1], (BLOCK,), np.int64) for p in parts])
    return X, y


def check_nothing_gathered(spies, *, rows_on_client=0, lists_on_client=0):
    """Neither the client nor one task held the table (``spies`` of ``gather_spies``)."""
    plugin, received = spies
    assert received, "nothing was computed on the cluster"
    # The client receives statistics (and the few reference rows, and for ReliefF their
    # neighbour lists: distance and index per entry): far below the table.
    allowed = TABLE_BYTES / 10 + rows_on_client * FEATURES * 8 + lists_on_client * 16
    assert max(received) < allowed, received
    # No task result on a worker comes near the table: blocks at most.
    assert 0 < plugin.largest <= 2 * BLOCK * FEATURES * 8 + lists_on_client * 16, plugin.largest
