"""Fast margin kernels against the slow loop references of ``_reference.py``."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn.exceptions import ConvergenceWarning

from localselect._pairwise import PairDiffs
from localselect.margin import DegenerateMarginWarning
from localselect.margin import _matrix_kernels as MK
from localselect.margin import _nn_kernels as NK
from localselect.margin import _solvers as S
from localselect.margin import _vector_kernels as VK
from localselect.margin._pairs import AllPairs

_spec = importlib.util.spec_from_file_location(
    "margin_reference", Path(__file__).with_name("_reference.py")
)
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)


def _problem(seed, n=14, a=4, n_classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a))
    codes = np.arange(n) % n_classes
    rng.shuffle(codes)
    sw = rng.uniform(0.1, 1.0, size=n)
    U = rng.uniform(size=(a, a))
    W = (U + U.T) / np.linalg.norm(U + U.T)
    return X, codes.astype(np.intp), sw, W


@given(st.integers(0, 10_000), st.integers(2, 3), st.sampled_from([0.3, 1.0, 4.0]))
def test_immigrate_step_matches_reference(seed, n_classes, sigma):
    X, codes, sw, W = _problem(seed, n_classes=n_classes)
    expected_sigma, expected_entropy = ref.immigrate_step(X, codes, W, sigma, sw)
    # tiny blocks force several pair blocks, the cache is off: the general path
    pairs = PairDiffs(X, block_memory=1e-4, working_memory=0.0)
    assert len(pairs) > 1
    step = MK.immigrate_step(X, codes, W, sigma, sw, pairs=pairs)
    np.testing.assert_allclose(step.scatter, expected_sigma, rtol=0, atol=1e-10)
    assert step.entropy == pytest.approx(expected_entropy, abs=1e-10)


def test_immigrate_step_is_the_same_for_every_n_jobs():
    X, codes, sw, W = _problem(3, n=40, a=5)
    pairs = PairDiffs(X, block_memory=1e-3)
    one = MK.immigrate_step(X, codes, W, 1.0, sw, pairs=pairs, n_jobs=1)
    two = MK.immigrate_step(X, codes, W, 1.0, sw, pairs=pairs, n_jobs=2)
    np.testing.assert_array_equal(one.scatter, two.scatter)
    assert one.entropy == two.entropy


@given(st.integers(0, 10_000), st.booleans())
def test_weight_update_matches_reference_and_constraints(seed, nonnegative):
    X, codes, sw, W = _problem(seed, a=5)
    Sigma, _ = ref.immigrate_step(X, codes, W, 1.0, sw)
    W_new = MK.update_weight_matrix(Sigma, nonnegative=nonnegative)
    if W_new is None:  # no negative eigenvalue: the reference would divide by zero
        assert np.all(np.linalg.eigvalsh(Sigma) >= -1e-12 * np.abs(Sigma).max())
        return
    np.testing.assert_allclose(W_new, ref.update_weight_matrix(Sigma, nonnegative), atol=1e-10)
    np.testing.assert_array_equal(W_new, W_new.T)
    assert np.linalg.norm(W_new) == pytest.approx(1.0, abs=1e-12)
    if nonnegative:
        assert W_new.min() >= 0.0
    else:  # Theorem 3.1's W is positive semi-definite
        assert np.linalg.eigvalsh(W_new).min() >= -1e-12


def test_recorded_cost_is_eq_3_5():
    X, codes, sw, W0 = _problem(11, n=12, a=3)
    res = S.immigrate(AllPairs(X, codes), W0, 1.0, sample_weight=sw, max_iter=1, warn=False)
    # cost after one iteration: the new W with the probabilities of the old W
    Sigma, entropy = ref.immigrate_step(X, codes, W0, 1.0, sw)
    W1 = ref.update_weight_matrix(Sigma)
    assert res.cost[0] == pytest.approx(np.sum(W1 * Sigma) + entropy, abs=1e-10)
    np.testing.assert_allclose(res.weights, W1, atol=1e-10)


def test_alternation_lowers_the_cost_for_fixed_probabilities():
    # Step 2 minimises tr(W Sigma) over the constraint set: no feasible W does better.
    X, codes, sw, W0 = _problem(5, n=20, a=4)
    step = MK.immigrate_step(X, codes, W0, 1.0, sw)
    W = MK.update_weight_matrix(step.scatter, nonnegative=False)
    best = np.sum(W * step.scatter)
    rng = np.random.default_rng(0)
    for _ in range(200):
        B = rng.normal(size=(4, 2))
        V = B @ B.T
        V /= np.linalg.norm(V)
        assert np.sum(V * step.scatter) >= best - 1e-10


def test_degenerate_sigma_keeps_previous_w_and_warns():
    # Two identical copies of each class: hits at distance 0, so Sigma has no
    # negative eigenvalue once misses are far: (-mu)^+ = 0.
    X = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
    codes = np.array([0, 0, 1, 1])
    W0 = np.eye(2) / np.sqrt(2)
    with pytest.warns(DegenerateMarginWarning, match="no negative eigenvalue"):
        res = S.immigrate(AllPairs(X, codes), W0, 1.0)
    assert res.degenerate and res.n_iter == 1
    np.testing.assert_array_equal(res.weights, W0)


def test_small_sigma_gives_finite_weights():
    X, codes, _, W0 = _problem(2, n=30, a=4)
    X = X * 30.0  # q ~ 1e4: exp(-q / 1e-3) underflows without log-sum-exp
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        res = S.immigrate(AllPairs(X, codes), W0, 1e-3, max_iter=3)
    assert np.all(np.isfinite(res.weights)) and np.all(np.isfinite(res.cost))


@given(st.integers(0, 10_000), st.booleans())
def test_expected_distances_match_reference(seed, vector):
    X, codes, _, W = _problem(seed, n=12, a=3, n_classes=3)
    Xq = np.random.default_rng(seed + 1).normal(size=(5, 3))
    M = np.diag(W).copy() if vector else W
    got = MK.expected_distances(Xq, X, codes, 3, M, 0.7, block_memory=1e-4)
    np.testing.assert_allclose(
        got, ref.expected_distances(Xq, X, codes, [0, 1, 2], M, 0.7), atol=1e-10
    )


def test_leave_one_out_distances_drop_the_sample_itself():
    X, codes, _, W = _problem(4, n=10, a=3)
    got = MK.expected_distances(X, X, codes, 2, W, 1.0, leave_one_out=True)
    for i in range(10):
        keep = np.arange(10) != i
        expected = ref.expected_distances(X[i : i + 1], X[keep], codes[keep], [0, 1], W, 1.0)
        np.testing.assert_allclose(got[i], expected[0], atol=1e-10)


@given(st.integers(0, 10_000), st.booleans(), st.integers(2, 3))
def test_margin_vector_matches_reference(seed, outlier, n_classes):
    X, codes, sw, W = _problem(seed, n_classes=n_classes)
    w = np.diag(W).copy()
    z, ent = ref.margin_vector_step(X, codes, w, 0.8, sw, outlier=outlier)
    pairs = PairDiffs(X, block_memory=1e-4, working_memory=0.0)
    step = VK.margin_vector_step(X, codes, w, 0.8, sw, outlier=outlier, pairs=pairs)
    np.testing.assert_allclose(step.z, z, atol=1e-10)
    assert step.entropy == pytest.approx(ent, abs=1e-10)


RELIEFF_ENGINES = ["numpy", "numba"]


@pytest.mark.parametrize("engine", RELIEFF_ENGINES)
@pytest.mark.parametrize("block_memory", [1e-4, None])
@given(st.integers(0, 10_000), st.integers(2, 3), st.integers(1, 6))
def test_relieff_matches_reference(engine, block_memory, seed, n_classes, k):
    X, codes, _, _ = _problem(seed, n=15, a=4, n_classes=n_classes)
    # Integers 0..4 with both ends in every column: the range-scaled values are
    # multiples of 1/4, so every distance is exact whatever the summation order
    # and its many ties are real; both sides break them by lower index.
    X = np.clip(np.round(X + 2), 0, 4)
    X[:2] = [[0.0], [4.0]]
    # block_memory=1e-4 forces row blocks (numpy) and per-tile distances (numba)
    got = NK.relieff(X, codes, k, block_memory=block_memory, engine=engine)
    np.testing.assert_allclose(got, ref.relieff(X, codes, k), atol=1e-12)


@given(st.integers(0, 10_000))
def test_relief_matches_reference(seed):
    X, codes, _, _ = _problem(seed, n=15, a=4, n_classes=3)
    got = NK.relief(X, codes, np.arange(15))
    np.testing.assert_allclose(got, ref.relief(X, codes), atol=1e-12)


def test_im4e_weights_sum_to_one_and_ignore_noise():
    rng = np.random.default_rng(0)
    codes = np.repeat([0, 1], 30).astype(np.intp)
    X = np.column_stack([codes + 0.2 * rng.normal(size=60), rng.normal(size=(60, 4))])
    res = S.im4e(AllPairs(X, codes), 1.0, max_iter=30)
    assert res.weights.sum() == pytest.approx(1.0)
    assert res.weights.min() >= 0 and np.argmax(res.weights) == 0
    assert res.converged
