"""The compiled per-representative core against the numpy solver and the slow reference."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
import pytest
from sklearn.datasets import make_classification

from localselect._runtime import _kernels as K
from localselect._runtime import ensure_compiled, listen
from localselect.lfs import LocalFeatureSelection
from localselect.lfs import _estimator as E
from localselect.lfs import _fit as F
from localselect.lfs import _lp as LP
from localselect.lfs import _regions as R

from . import _reference as ref
from ._reference_lp import (
    cost_scale,
    lp_candidates,
    prepare_lfs_lp,
    round_solution,
    solve_sweep,
)
from .test_lp import KINDS, _instance


def _small(seed, n=24, m=6, classes=2):
    X, y = make_classification(
        n_samples=n,
        n_features=m,
        n_informative=3,
        n_redundant=0,
        n_classes=classes,
        n_clusters_per_class=1,
        random_state=seed,
    )
    return (X - X.mean(0)) / X.std(0), y


def _numpy_sweep(a, b, alpha, n_beta):
    """What the estimator's numpy path did: reduce, prepare, sweep."""
    alpha = min(alpha, a.size)
    keep = lp_candidates(a, b, alpha)
    if keep is None:
        keep = np.arange(a.size)
        prog = prepare_lfs_lp(a, b, alpha)
    else:
        prog = prepare_lfs_lp(a[keep], b[keep], alpha, scale=cost_scale(a, b, alpha))
    eps = np.minimum(np.arange(1, n_beta + 1) / n_beta * prog.eps_max, prog.eps_max)
    return prog, keep, eps, solve_sweep(prog, eps)


@pytest.mark.parametrize("kind", KINDS)
def test_compiled_sweep_and_rounding_match_the_numpy_solver(kind):
    """Vertices of LP (9) and their exact roundings agree with ``_lp`` (itself checked
    against HiGHS in test_lp.py), short and long vectors (the lp_candidates reduction)."""
    rng = np.random.default_rng(200 + KINDS.index(kind))
    for t in range(60):
        a, b, alpha, _ = _instance(rng, kind)
        if t % 3 == 0:  # long vectors: the reduction to lp_candidates runs
            M = int(rng.choice([300, 1200]))
            a = np.resize(a, M) * rng.choice([1.0, 1.0, 0.5], M)
            b = np.resize(b, M) * rng.choice([1.0, 1.0, 0.5], M)
        alpha = min(alpha, a.size)
        n_beta = int(rng.choice([1, 5, 20]))
        prog, keep, eps, sols = _numpy_sweep(a, b, alpha, n_beta)
        xs, eps_c, keep_c, a_c, b_c, _ = LP.lp_sweep(a, b, alpha, n_beta)
        np.testing.assert_array_equal(keep_c, keep)
        np.testing.assert_allclose(eps_c, eps, rtol=1e-14)  # sums in index order
        for n in range(n_beta):
            # Equal up to the summation order (numpy sums pairwise, the core in index order).
            np.testing.assert_allclose(xs[n], sols[n].x, rtol=0, atol=1e-9)
            expected = round_solution(sols[n].x, prog.a, prog.b, alpha=alpha, epsilon=eps[n])
            ok, sel, _ = LP._round(xs[n], a_c, b_c, alpha, eps[n], np.zeros(1), 0, 1, False)
            if expected is None:
                assert not ok
            else:
                assert ok
                np.testing.assert_array_equal(sel, expected)


def test_compiled_random_rounding_uses_the_draws_in_order():
    x = np.array([0.3, 0.0, 1.0, 0.6])
    a = np.array([1.0, 2.0, 4.0, 0.5])
    b = np.array([1.0, 3.0, 4.0, 0.0])
    draws = np.random.default_rng(0).random(40)
    for offset in (0, 10):
        expected = round_solution(
            x, a, b, alpha=3, epsilon=4.0, draws=draws[offset : offset + 10].reshape(5, 2)
        )
        ok, sel, used = LP._round(x, a, b, 3, 4.0, draws, offset, 5, True)
        assert ok and used == 10
        np.testing.assert_array_equal(sel, expected)


@pytest.mark.parametrize("seed", range(3))
def test_compiled_weights_distances_and_scores_match_loops(seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.standard_normal((25, 5)), 1)  # rounded: distance ties happen
    y = rng.integers(0, 3, 25)
    y[:3] = [0, 1, 2]
    y[3:6] = [0, 1, 2]
    support = rng.random((25, 5)) < 0.4
    support[4] = False
    W = ref.weights(X, list(y), support, 0.7)
    XT = np.ascontiguousarray(X.T)  # the compiled core reads points feature-major
    d = np.empty(25)
    for distinct in (True, False):
        table, lengths, counts = F.subset_table(support, distinct)
        for i in range(0, 25, 3):
            same = y == y[i]
            w = R._weights(XT, same, i, table, lengths, counts, np.arange(len(table)), 0.7, d)
            np.testing.assert_allclose(w, W[i], rtol=1e-12, atol=1e-15)
    for i in range(0, 25, 4):
        same = y == y[i]
        a, b = R._class_distances(X, same, i, W[i])
        same_j = [j for j in range(25) if y[j] == y[i] and j != i]
        opp_j = [j for j in range(25) if y[j] != y[i]]
        a_ref = sum(W[i, j] * (X[i] - X[j]) ** 2 for j in same_j) / len(same_j)
        b_ref = sum(W[i, j] * (X[i] - X[j]) ** 2 for j in opp_j) / len(opp_j)
        np.testing.assert_allclose(a, a_ref, rtol=1e-12)
        np.testing.assert_allclose(b, b_ref, rtol=1e-12)
        for _ in range(3):
            feats = np.sort(rng.choice(5, size=int(rng.integers(1, 5)), replace=False))
            r, s = R._loo_score(XT, same, i, feats.astype(np.int64), 0.2, d, -np.inf)
            r_ref, s_ref = ref.score(X, list(y), i, list(feats), 0.2)
            assert r == pytest.approx(r_ref, rel=1e-12)
            assert s == pytest.approx(s_ref, abs=1e-12)
            # A floor (the best score of a smaller beta) stops a losing candidate
            # early: its score becomes -inf exactly when it cannot beat the floor.
            for floor in (s - 0.05, s - 1e-15, s, s + 0.05):
                _, s_floor = R._loo_score(XT, same, i, feats.astype(np.int64), 0.2, d, floor)
                assert s_floor == (s if s > floor else -np.inf)


@pytest.mark.parametrize("rounding", ["exact", "random"])
@pytest.mark.parametrize(("seed", "classes"), [(10, 2), (11, 3)])
def test_estimator_matches_slow_reference_at_any_thread_count(rounding, seed, classes):
    X, y = _small(seed, n=27, m=7, classes=classes)
    kw = dict(sigma=1.0, n_beta=6, n_rounding=150, random_state=seed)
    paper = dict(alpha=3, gamma=0.2, tau=2)  # the reference keeps the paper's names
    ours = dict(max_features=3, impurity=0.2, max_iter=2)
    support, radii, betas = ref.fit(X, y, rounding=rounding, **paper, **kw)
    for n_jobs in (1, 2, 3):
        est = LocalFeatureSelection(rounding=rounding, n_jobs=n_jobs, **ours, **kw).fit(X, y)
        np.testing.assert_array_equal(est.local_support_, support)
        np.testing.assert_allclose(est.radii_, radii, rtol=1e-12)
        np.testing.assert_array_equal(est.betas_, betas)


@pytest.mark.parametrize("n_candidates", [None, 8])
def test_thread_count_does_not_change_any_bit(n_candidates):
    X, y = _small(12, n=150, m=20, classes=3)
    kw = dict(max_features=4, n_beta=8, n_candidates=n_candidates)
    fits = [LocalFeatureSelection(n_jobs=j, **kw).fit(X, y) for j in (1, 2, 4)]
    for other in fits[1:]:
        np.testing.assert_array_equal(other.local_support_, fits[0].local_support_)
        np.testing.assert_array_equal(other.radii_, fits[0].radii_)
        np.testing.assert_array_equal(other.betas_, fits[0].betas_)
        np.testing.assert_array_equal(other.local_scores_, fits[0].local_scores_)


def _child_fit(queue, X, y):  # pragma: no cover - runs in the child
    queue.put(LocalFeatureSelection(max_features=3, n_beta=5, n_jobs=2).fit(X, y).local_support_)


@pytest.mark.skipif("fork" not in mp.get_all_start_methods(), reason="needs the fork start method")
def test_a_forked_child_can_fit_after_the_parent_did():
    # The core runs on plain threads (no OpenMP runtime), so a fork after a fit is safe.
    X, y = _small(13, n=40, m=8)
    expected = LocalFeatureSelection(max_features=3, n_beta=5, n_jobs=2).fit(X, y).local_support_
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    child = ctx.Process(target=_child_fit, args=(queue, X, y))
    child.start()
    child.join(300)
    assert child.exitcode == 0
    np.testing.assert_array_equal(queue.get(timeout=5), expected)


class _Recorder:
    def __init__(self):
        self.events = []

    def start(self, task):
        self.events.append(("start", task.total))

    def update(self, task):
        self.events.append(("update", task.done))

    def finish(self, task):
        self.events.append(("finish", task.done))


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_progress_counts_representatives(n_jobs):
    X, y = _small(14, n=60, m=6)
    ensure_compiled(F.FIT_KERNEL)  # a cold numba cache would report its compile task first
    rec = _Recorder()
    with listen(rec):
        est = LocalFeatureSelection(max_features=2, n_beta=4, max_iter=3, n_jobs=n_jobs).fit(X, y)
    assert rec.events[0] == ("start", 3 * 60)
    updates = [done for kind, done in rec.events if kind == "update"]
    assert len(updates) > 1 and updates == sorted(updates)
    assert rec.events[-1] == ("finish", est.n_iter_ * 60)


def test_a_cold_compile_is_reported_once(monkeypatch, caplog):
    """With numba's cache cold, the fit logs and shows that it compiles."""
    X, y = _small(16, n=20, m=4)
    LocalFeatureSelection(max_features=2, n_beta=3).fit(X, y)  # compiled in this process
    assert ensure_compiled(F.FIT_KERNEL) is False
    real = F.fit_block

    class Cold:  # the compiled kernel, seen as neither in memory nor on disk
        signatures: list = []
        calls = 0

        def __call__(self, *args):
            import time

            if self.calls == 0:
                time.sleep(1.2)  # a slow "compile": long enough for the status ticker
            self.calls += 1
            return real(*args)

    cold = Cold()
    monkeypatch.setattr(F, "fit_block", cold)
    monkeypatch.setattr(E, "FIT_KERNEL", F.FIT_KERNEL._replace(dispatchers=(cold,)))
    monkeypatch.setattr(K, "_cached_on_disk", lambda dispatcher: False)
    rec = _Recorder()
    with listen(rec), caplog.at_level("INFO", logger="localselect.lfs._estimator"):
        est = LocalFeatureSelection(max_features=2, n_beta=3, verbose=1).fit(X, y)
    assert caplog.messages.count(F.COMPILE_MESSAGE) == 1
    assert rec.events[0] == ("start", None)  # the compile task, before the fit's
    assert ("update", 0) in rec.events
    assert ("start", est.max_iter * 20) in rec.events  # then the fit's own task


def test_auto_switches_to_nearest_candidates_past_the_threshold(monkeypatch):
    X, y = _small(15, n=80, m=6)
    small = LocalFeatureSelection(max_features=2, n_beta=4).fit(X, y)
    assert small.n_candidates_ is None and small.candidates_ is None
    exact = LocalFeatureSelection(max_features=2, n_beta=4, n_candidates=None).fit(X, y)
    np.testing.assert_array_equal(small.local_support_, exact.local_support_)
    monkeypatch.setattr(E, "AUTO_EXACT_MAX_SAMPLES", 50)
    monkeypatch.setattr(E, "AUTO_N_CANDIDATES", 10)
    big = LocalFeatureSelection(max_features=2, n_beta=4).fit(X, y)
    assert big.n_candidates_ == 10
    cand = LocalFeatureSelection(max_features=2, n_beta=4, n_candidates=10).fit(X, y)
    np.testing.assert_array_equal(big.candidates_, cand.candidates_)
    np.testing.assert_array_equal(big.local_support_, cand.local_support_)
    assert big.candidates_.shape[1] <= 1 + 2 * 10  # memory O(N n_candidates)


@pytest.mark.slow
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_ctrl_c_stops_a_fit_in_the_cli(tmp_path, n_jobs):
    """SIGINT during the compiled core's blocks: the CLI exits 130 within seconds."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import pandas as pd

    X, y = _small(16, n=900, m=60)
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(60)]).assign(label=y)
    frame.to_csv(tmp_path / "data.csv", index=False)
    cmd = [
        sys.executable, "-m", "localselect", "select", "--method", "lfs",
        "--input", str(tmp_path / "data.csv"), "--target", "label",
        "--params", "max_iter=50", "n_candidates=None", "rounding='random'", "random_state=0",
        "--n-jobs", str(n_jobs),
        "--out", str(tmp_path / "out"),
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ),
        # A background job of a non-interactive shell inherits SIGINT ignored.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(20)  # past imports and loading the compiled core, inside the fit
    assert proc.poll() is None, proc.stderr.read()
    proc.send_signal(signal.SIGINT)
    t = time.perf_counter()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err
    assert time.perf_counter() - t < 30


@pytest.mark.parametrize(
    ("n", "m", "p"), [(60, 7, 0.3), (200, 3, 0.5), (90, 21, 0.1), (30, 1, 0.5)]
)
def test_subset_table_matches_unique_rows(n, m, p):
    """The packed-bytes dedup keeps np.unique(axis=0)'s rows, order and counts."""
    rng = np.random.default_rng(n + m)
    support = rng.random((n, m)) < p
    support[n // 2] = support[1]  # at least one repeated subset
    table, lengths, counts = F.subset_table(support, distinct=True)
    rows, inverse = np.unique(support, axis=0, return_inverse=True)
    np.testing.assert_array_equal(lengths, rows.sum(axis=1))
    np.testing.assert_array_equal(counts, np.bincount(inverse.ravel()))
    for r, row in enumerate(rows):
        np.testing.assert_array_equal(table[r, : lengths[r]], np.flatnonzero(row))


def test_read_only_input_uses_the_compiled_specialisations():
    """A read-only X (pandas values, joblib memmaps) must not compile the core again."""
    from localselect.lfs import _candidate_votes as V

    X, y = _small(21, n=40, m=5)
    for n_candidates in (None, 5):
        LocalFeatureSelection(max_features=2, n_candidates=n_candidates).fit(X, y).predict(X)
    before = (len(R.fit_block.signatures), len(V.candidate_sphere_votes.signatures))
    X_ro = X.copy()
    X_ro.setflags(write=False)
    for n_candidates in (None, 5):
        model = LocalFeatureSelection(max_features=2, n_candidates=n_candidates).fit(X_ro, y)
        model.predict(X_ro)
        assert model.X_fit_.flags.writeable
    after = (len(R.fit_block.signatures), len(V.candidate_sphere_votes.signatures))
    assert after == before
