"""ReliefF's reference rows (``max_samples``): exact for the drawn rows, all rows when small."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from localselect import ReliefF
from localselect.margin import _nn_kernels as K
from localselect.margin import _rrelieff
from localselect.margin._rrelieff import reference_rows


def slow_relieff(X, y, refs, k):
    """Kononenko's ReliefF summed over the reference rows ``refs`` only, one at a time."""
    n, a = X.shape
    span = X.max(axis=0) - X.min(axis=0)
    classes, counts = np.unique(y, return_counts=True)
    prior = dict(zip(classes, counts / n, strict=True))
    Xs = np.where(span > 0, (X - X.min(axis=0)) / np.where(span > 0, span, 1), 0.0)
    W = np.zeros(a)
    for i in refs:
        dist = np.abs(Xs - Xs[i]).sum(axis=1)
        for c in classes:
            members = sorted(
                (j for j in range(n) if y[j] == c and j != i), key=lambda j: (dist[j], j)
            )[:k]
            if not members:
                continue
            mean = np.abs(Xs[members] - Xs[i]).mean(axis=0)
            W += (-mean if c == y[i] else prior[c] / (1 - prior[y[i]]) * mean) / len(refs)
    return W


def _data(seed, n=120, a=6, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a))
    y = rng.permutation(np.arange(n) % n_classes)
    X[:, 0] += y
    return X, y


@pytest.mark.parametrize("max_samples", [17, 0.25, "sqrt", "log"])
def test_sampled_references_are_exact(max_samples):
    X, y = _data(1)
    sel = ReliefF(n_neighbors=5, max_samples=max_samples, random_state=3).fit(X, y)
    refs = reference_rows(max_samples, len(X), np.random.RandomState(3))
    assert sel.max_samples_ == len(refs) < len(X)
    expected = slow_relieff(X, y, refs, 5)
    np.testing.assert_allclose(sel.feature_importances_, expected, rtol=1e-10, atol=1e-14)
    numpy_engine = K.relieff(X, y, 5, engine="numpy", refs=refs)
    np.testing.assert_allclose(numpy_engine, expected, rtol=1e-10, atol=1e-14)


def test_auto_uses_every_row_on_small_tables():
    X, y = _data(2)
    auto = ReliefF(n_neighbors=5).fit(X, y)
    every = ReliefF(n_neighbors=5, max_samples=None, random_state=9).fit(X, y)
    assert auto.max_samples_ == len(X)
    np.testing.assert_array_equal(auto.feature_importances_, every.feature_importances_)
    np.testing.assert_allclose(
        auto.feature_importances_, slow_relieff(X, y, np.arange(len(X)), 5), rtol=1e-10
    )


def test_auto_samples_large_tables_and_logs_it(monkeypatch, caplog):
    monkeypatch.setattr(_rrelieff, "AUTO_PAIR_BUDGET", 100**2)
    monkeypatch.setattr(_rrelieff, "MIN_AUTO_REFERENCES", 40)
    X, y = _data(4, n=150)
    with caplog.at_level(logging.INFO, logger="localselect.margin._relief"):
        sel = ReliefF(n_neighbors=4, random_state=0).fit(X, y)
    assert sel.max_samples_ == 66  # max(40, 10_000 // 150)
    assert "66 of 150 samples drawn as reference rows" in caplog.text
    refs = reference_rows("auto", 150, np.random.RandomState(0))
    np.testing.assert_allclose(sel.feature_importances_, slow_relieff(X, y, refs, 4), rtol=1e-10)


def test_sampling_is_seeded_and_missing_values_take_the_numpy_path():
    X, y = _data(5)
    a = ReliefF(n_neighbors=3, max_samples=30, random_state=1).fit(X, y)
    b = ReliefF(n_neighbors=3, max_samples=30, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.feature_importances_, b.feature_importances_)
    X[5, 2] = np.nan
    c = ReliefF(n_neighbors=3, max_samples=30, random_state=1).fit(X, y)
    refs = reference_rows(30, len(X), np.random.RandomState(1))
    np.testing.assert_allclose(c.feature_importances_, K.relieff(X, y, 3, refs=refs))
    assert np.isfinite(c.feature_importances_).all()
