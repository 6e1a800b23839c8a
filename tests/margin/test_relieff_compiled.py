"""The compiled ReliefF kernel (numba) against the numpy kernel."""

from __future__ import annotations

import multiprocessing as mp
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from localselect.margin import _nn_kernels as K


def _data(seed, n, a, n_classes):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, a))
    y = rng.permutation(np.arange(n) % n_classes).astype(np.intp)
    X[:, 0] += y  # one informative feature
    X[:, 1] = 3.0  # a constant feature scores exactly 0
    return X, y


@pytest.mark.parametrize(
    ("n", "a", "n_classes", "k"),
    [(40, 7, 2, 3), (53, 300, 3, 10), (97, 33, 4, 5), (17, 5, 2, 20)],
)
def test_compiled_equals_numpy_on_both_distance_paths(n, a, n_classes, k):
    X, y = _data(n + a, n, a, n_classes)
    expected = K.relieff(X, y, k, engine="numpy")
    whole = K.relieff(X, y, k, engine="numba")  # one N x N matrix, pairs once
    tiled = K.relieff(X, y, k, engine="numba", block_memory=1e-6)  # distances per tile
    np.testing.assert_allclose(whole, expected, rtol=0, atol=1e-13)
    np.testing.assert_allclose(tiled, expected, rtol=0, atol=1e-13)
    assert whole[1] == 0.0


def test_compiled_result_does_not_depend_on_threads():
    X, y = _data(0, 120, 250, 3)
    one = K.relieff(X, y, 7, engine="numba", n_jobs=1)
    two = K.relieff(X, y, 7, engine="numba", n_jobs=2)
    np.testing.assert_array_equal(one, two)


def test_compiled_breaks_ties_by_lower_index_like_numpy():
    rng = np.random.default_rng(3)
    # Values 0, 1, 2 with both ends in every column scale to multiples of 1/2:
    # distances are exact in any summation order, so their ties are real.
    X = rng.integers(0, 3, size=(60, 5)).astype(float)
    X[:2] = [[0.0], [2.0]]
    y = rng.integers(0, 2, size=60).astype(np.intp)
    np.testing.assert_allclose(
        K.relieff(X, y, 6, engine="numba"), K.relieff(X, y, 6, engine="numpy"), atol=1e-13
    )


def test_unknown_engine_is_rejected():
    X, y = _data(2, 10, 3, 2)
    with pytest.raises(ValueError, match="engine must be"):
        K.relieff(X, y, 2, engine="cuda")


def _child_scores(queue, X, y):  # pragma: no cover - runs in the child
    queue.put(K.relieff(X, y, 5, engine="numba", n_jobs=2))


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs the fork start method")
def test_a_forked_child_can_run_the_kernel_after_the_parent_did():
    # numba's parallel=True would start OpenMP threads, after which a forked
    # child aborts; the kernel runs on plain threads instead.
    X, y = _data(4, 90, 40, 2)
    expected = K.relieff(X, y, 5, engine="numba", n_jobs=2)
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_scores, args=(queue, X, y))
    child.start()
    child.join(120)
    assert child.exitcode == 0
    np.testing.assert_array_equal(queue.get(timeout=5), expected)


def test_concurrent_calls_from_threads_agree():
    X, y = _data(5, 90, 40, 3)
    expected = K.relieff(X, y, 5, engine="numba", n_jobs=2)
    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda _: K.relieff(X, y, 5, engine="numba", n_jobs=2), range(4)))
    for result in results:
        np.testing.assert_array_equal(result, expected)
