"""RReliefF (continuous target) against a slow loop of the paper's pseudo-code and CORElearn.

The loop follows Robnik-Sikonja and Kononenko (Machine Learning 53, 2003,
Fig. 3) one reference at a time; ``r_reference/corelearn_rrelieff.json`` holds
CORElearn's scores (the R command that produced each is in the file).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from localselect import Relief, ReliefF
from localselect.margin._rrelieff import n_references, rank_weights, rrelieff

REF = Path(__file__).with_name("r_reference")


def slow_rrelieff(X, y, refs, k, weights="equal", sigma=20.0):
    """Fig. 3 of the paper, one reference and one neighbour at a time."""
    n, a = X.shape
    span = X.max(axis=0) - X.min(axis=0)
    y_span = y.max() - y.min()

    def diff(f, i, j):
        return abs(X[i, f] - X[j, f]) / span[f] if span[f] > 0 else 0.0

    def dist(i, j):
        return sum(diff(f, i, j) for f in range(a))

    n_dc, n_da, n_dcda = 0.0, np.zeros(a), np.zeros(a)
    for i in refs:
        others = sorted((j for j in range(n) if j != i), key=lambda j: (dist(i, j), j))
        near = others[: min(k, n - 1)]
        if weights == "equal":
            d = [1.0 / len(near)] * len(near)
        else:
            ranks, prev = [], None
            for r, j in enumerate(near):  # equal distances share the first one's rank
                ranks.append(ranks[-1] if prev is not None and dist(i, j) == prev else r)
                prev = dist(i, j)
            raw = [math.exp(-((r / sigma) ** 2)) for r in ranks]
            d = [v / sum(raw) for v in raw]
        for j, dij in zip(near, d, strict=True):
            dc = abs(y[i] - y[j]) / y_span
            n_dc += dc * dij
            for f in range(a):
                n_da[f] += diff(f, i, j) * dij
                n_dcda[f] += dc * diff(f, i, j) * dij
    m = len(refs)
    return n_dcda / n_dc - (n_da - n_dcda) / (m - n_dc)


def _table(seed, n, a):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a))
    y = X[:, 0] - 2 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n)
    return X, y


@pytest.mark.parametrize("weights", ["equal", "exp_rank"])
@pytest.mark.parametrize(
    ("seed", "n", "a", "k", "m", "sigma"),
    [
        (0, 30, 3, 5, None, 20.0),
        (1, 45, 4, 10, 12, 3.0),
        (2, 25, 2, 40, None, 2.0),
        (3, 60, 5, 1, 7, 1.0),
        (4, 35, 3, 7, 35, 0.5),
    ],
)
def test_kernel_equals_slow_loop(weights, seed, n, a, k, m, sigma):
    X, y = _table(seed, n, a)
    X[:, -1] = 2.5 if seed == 4 else X[:, -1]  # a constant feature scores exactly 0
    rng = np.random.RandomState(seed)
    refs = np.arange(n) if m is None else np.sort(rng.choice(n, m, replace=False))
    k_used = min(k, n - 1)
    expected = slow_rrelieff(X, y, refs, k_used, weights, sigma)
    for n_jobs in (1, 2):  # each thread owns its references and feature blocks
        got = rrelieff(X, y, refs, k_used, neighbor_weights=weights, sigma=sigma, n_jobs=n_jobs)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    if seed == 4:
        assert got[-1] == 0.0


def test_rank_weights_share_tied_ranks():
    d = np.array([[0.1, 0.2, 0.2, 0.3], [0.5, 0.5, 0.5, 0.5]])
    w = rank_weights(d, 2.0)
    raw = np.exp(-((np.array([0, 1, 1, 3]) / 2.0) ** 2))
    np.testing.assert_allclose(w[0], raw / raw.sum())
    np.testing.assert_allclose(w[1], 0.25)


def test_estimators_fit_a_continuous_target():
    X, y = _table(5, 80, 4)
    sel = ReliefF(
        n_neighbors=6, n_features_to_select=2, neighbor_weights="exp_rank", sigma=3.0
    ).fit(X, y)
    assert sel.task_ == "regression" and not hasattr(sel, "classes_")
    np.testing.assert_allclose(
        sel.feature_importances_,
        slow_rrelieff(X, y, np.arange(80), 6, "exp_rank", 3.0),
        rtol=1e-10,
    )
    assert set(sel.get_support(indices=True)) == {0, 1}
    # Relief on a continuous target: RReliefF with one nearest neighbour.
    rel = Relief(max_samples=30, random_state=0).fit(X, y)
    same = ReliefF(n_neighbors=1, max_samples=30, random_state=0).fit(X, y)
    np.testing.assert_array_equal(rel.feature_importances_, same.feature_importances_)
    assert rel.max_samples_ == 30


def test_task_override_constant_target_and_missing_values():
    X, y = _table(6, 50, 3)
    y_int = np.round(10 * y).astype(int)  # a quantity held as integers
    fitted = ReliefF(n_neighbors=5, task="regression").fit(X, y_int)
    assert fitted.task_ == "regression"
    np.testing.assert_allclose(
        fitted.feature_importances_,
        slow_rrelieff(X, y_int.astype(float), np.arange(50), 5),
        rtol=1e-10,
    )
    # scikit-learn's warning about many classes (its wording varies between versions)
    with pytest.warns(UserWarning, match="greater than 50%"):
        assert ReliefF(n_neighbors=5).fit(X, y_int).task_ == "classification"
    flat = ReliefF(n_neighbors=5, task="regression").fit(X, np.full(50, 1.5))
    np.testing.assert_array_equal(flat.feature_importances_, 0.0)
    # Missing values: CORElearn's rule (tests/margin/test_rrelieff_corelearn.py), no refusal.
    X[3, 1] = np.nan
    fitted = ReliefF(n_neighbors=5, task="regression").fit(X, y)
    assert np.isfinite(fitted.feature_importances_).all()
    assert fitted.feature_importances_[0] > fitted.feature_importances_[2]


def test_n_references_rules():
    assert n_references(None, 500) == 500
    assert n_references("sqrt", 500) == 22 and n_references("log", 500) == 6
    assert n_references(0.1, 500) == 50 and n_references(7, 500) == 7
    assert n_references("auto", 10_000) == 10_000
    assert n_references("auto", 20_000) == 5_000
    assert n_references("auto", 1_000_000) == 1_000
    with pytest.raises(ValueError, match="exceeds"):
        n_references(501, 500)


def _corelearn_runs():
    data = json.loads((REF / "corelearn_rrelieff.json").read_text())
    for name, table in data["tables"].items():
        for run in table["scores"]:
            yield pytest.param(table, run, id=f"{name}-{run['estimator']}-k{run['k']}")


@pytest.mark.parametrize(("table", "run"), list(_corelearn_runs()))
def test_equals_recorded_corelearn_scores(table, run):
    X, y = np.array(table["X"]), np.array(table["y"])
    weights = "equal" if run["estimator"] == "RReliefFequalK" else "exp_rank"
    sel = ReliefF(
        n_neighbors=run["k"],
        max_samples=None,
        neighbor_weights=weights,
        sigma=run["sigma"] or 20.0,
    ).fit(X, y)
    np.testing.assert_allclose(sel.feature_importances_, run["weights"], rtol=0, atol=1e-9)
