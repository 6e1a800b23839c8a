"""Row blocks of Dask collections and their summary (``localselect._runtime._collections``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from localselect._runtime import _collections as C

dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")


@pytest.fixture
def filtered():
    """A dataframe whose partition lengths are unknown (rows dropped by ``dropna``)."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(1000, 3)), columns=list("abc"))
    frame["d"] = rng.integers(0, 50, size=1000)  # an integer column: summarised as floats
    frame.loc[::7, "a"] = np.nan
    with dask.config.set(scheduler="synchronous"):
        yield dd.from_pandas(frame, npartitions=4).dropna(), frame.dropna()


def test_the_column_summary_equals_the_fit_summary_without_counting_rows(filtered, monkeypatch):
    lazy, frame = filtered
    expected = C.summarise(C.row_blocks(lazy))
    counted = []
    monkeypatch.setattr(C, "_known_rows", lambda *a: counted.append(1) or a)
    found = C.summarise_columns(lazy)
    assert not counted  # one pass: the rows of each block are not counted first
    assert found.n == expected.n == len(frame)
    for field in ("lo", "hi", "mean", "m2"):  # the same blocks merged in the same order
        np.testing.assert_allclose(getattr(found, field), getattr(expected, field), rtol=1e-12)
    np.testing.assert_allclose(found.mean, frame.mean().to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(found.m2 / found.n, frame.var(ddof=0).to_numpy(), rtol=1e-10)
