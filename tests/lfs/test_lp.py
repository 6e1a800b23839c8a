"""LP (9): the exact solver against HiGHS, and the rounding of its vertices."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from localselect.lfs import solve_lfs_lp

from . import _reference_lp as numpy_lp
from ._reference import highs_eps_max, highs_lp
from ._reference_lp import eps_max_of, round_solution

KINDS = ["uniform", "integer_ties", "signed", "signed_ties", "rounded_ties", "zeros"]


def _instance(rng, kind):
    M = int(rng.integers(1, 40))
    alpha = int(rng.choice([1, rng.integers(1, M + 1), M, M + 3]))
    if kind == "uniform":
        a, b = rng.random(M), rng.random(M)
    elif kind == "integer_ties":
        a, b = (rng.integers(0, 3, M).astype(float) for _ in range(2))
    elif kind == "signed":
        a, b = rng.standard_normal(M), rng.standard_normal(M)
    elif kind == "signed_ties":
        a, b = (rng.integers(-2, 3, M).astype(float) for _ in range(2))
    elif kind == "rounded_ties":
        a, b = np.round(rng.random(M), 1), np.round(rng.random(M), 1)
    else:
        a, b = rng.random(M), rng.random(M)
        a[rng.random(M) < 0.5] = 0.0
        b[rng.random(M) < 0.5] = 0.0
    eps_max = eps_max_of(b, min(alpha, M))
    # At eps_max exactly, inside, and far below (the b constraint inactive); a
    # tenth of the instances are infeasible (just above eps_max).
    gap = abs(eps_max) + 1e-3
    eps = eps_max - rng.choice([0.0, rng.random() * gap, gap, 3 * gap + 1.0, -0.1 * gap])
    return a, b, alpha, float(eps)


@pytest.mark.parametrize("kind", KINDS)
def test_compiled_solver_matches_the_numpy_reference(kind):
    """``solve_lfs_lp`` (the library's compiled LP) against its numpy transcription."""
    rng = np.random.default_rng(100 + KINDS.index(kind))
    for _ in range(250):
        a, b, alpha, eps = _instance(rng, kind)
        try:
            ref = numpy_lp.solve_lfs_lp(a, b, alpha=alpha, epsilon=eps)
        except ValueError:
            with pytest.raises(ValueError, match="infeasible"):
                solve_lfs_lp(a, b, alpha=alpha, epsilon=eps)
            continue
        sol = solve_lfs_lp(a, b, alpha=alpha, epsilon=eps)
        scale = max(1.0, float(np.abs(a).sum()))
        assert abs(sol.fun - ref.fun) <= 1e-12 * scale, (a, b, alpha, eps)
        np.testing.assert_allclose(sol.x, ref.x, rtol=1e-12, atol=1e-12)
        # The multiplier is a ratio of differences of sums (summed in another
        # order): cancellation leaves it about 1e-11 relative of the reference.
        assert sol.multiplier == pytest.approx(ref.multiplier, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_objective_matches_highs(kind):
    # 6 kinds x 250 = 1,500 instances (about 1,200 feasible); tolerance 1e-9
    # relative (the acceptance bound).
    rng = np.random.default_rng(KINDS.index(kind))
    for _ in range(250):
        a, b, alpha, eps = _instance(rng, kind)
        ref = highs_lp(a, b, min(alpha, a.size), eps)
        if ref is None:  # HiGHS says infeasible: so must we
            with pytest.raises(ValueError, match="infeasible"):
                solve_lfs_lp(a, b, alpha=alpha, epsilon=eps)
            continue
        _, fun_ref = ref
        sol = solve_lfs_lp(a, b, alpha=alpha, epsilon=eps)
        assert abs(sol.fun - fun_ref) <= 1e-9 * max(1.0, abs(fun_ref)), (a, b, alpha, eps)
        x = sol.x
        assert np.all((x >= 0) & (x <= 1))
        assert 1 - 1e-12 <= x.sum() <= min(alpha, a.size) + 1e-12
        assert b @ x >= eps - 1e-9 * max(1.0, abs(eps))
        frac = (x > 0) & (x < 1)
        assert frac.sum() <= 2
        if frac.sum() == 2:  # two fractions only when the count constraint is tight
            assert np.isclose(x.sum(), 1) or np.isclose(x.sum(), min(alpha, a.size))


def test_eps_max_matches_highs():
    rng = np.random.default_rng(7)
    for _ in range(100):
        M = int(rng.integers(1, 30))
        alpha = int(rng.integers(1, M + 2))
        b = rng.standard_normal(M) * (rng.random(M) < 0.7)
        assert np.isclose(eps_max_of(b, min(alpha, M)), highs_eps_max(b, min(alpha, M)))


def test_infeasible_epsilon_raises():
    b = np.array([1.0, 2.0, 3.0])
    # eps_max with alpha = 2 is 2 + 3 = 5.
    with pytest.raises(ValueError, match=r"infeasible.*eps_max=5\.0"):
        solve_lfs_lp(np.ones(3), b, alpha=2, epsilon=5.5)
    assert solve_lfs_lp(np.ones(3), b, alpha=2, epsilon=5.0).fun == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"a": [1.0, np.nan], "b": [1.0, 1.0], "alpha": 1, "epsilon": 0.5}, "finite"),
        ({"a": [1.0], "b": [1.0, 1.0], "alpha": 1, "epsilon": 0.5}, "same length"),
        ({"a": [1.0, 2.0], "b": [1.0, 1.0], "alpha": 0, "epsilon": 0.5}, "alpha"),
        ({"a": [1.0, 2.0], "b": [1.0, 1.0], "alpha": 1.5, "epsilon": 0.5}, "alpha"),
        ({"a": [1.0, 2.0], "b": [1.0, 1.0], "alpha": 1, "epsilon": np.inf}, "epsilon"),
    ],
)
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        solve_lfs_lp(**kwargs)


def test_hand_example():
    # f2 = 1 and f3 = 1/2 gives a^T f = 2 + 2 = 4 with b^T f = 3 + 2 = 5;
    # the alternatives (f1 + f3: 5; f3 + f2/3: 4.67) cost more.
    sol = solve_lfs_lp([1.0, 2.0, 4.0], [1.0, 3.0, 4.0], alpha=2, epsilon=5.0)
    np.testing.assert_allclose(sol.x, [0.0, 1.0, 0.5])
    assert sol.fun == pytest.approx(4.0)


@given(
    st.lists(st.floats(0, 10), min_size=2, max_size=12),
    st.integers(0, 10_000),
    st.floats(0.05, 1.0),
    st.floats(0.1, 10.0),
)
def test_invariances(a_list, seed, beta, scale):
    """Feature permutation permutes nothing in the optimum; scaling a scales it."""
    a = np.array(a_list)
    rng = np.random.default_rng(seed)
    b = rng.random(a.size)
    alpha = int(rng.integers(1, a.size + 1))
    eps = beta * eps_max_of(b, alpha)
    base = solve_lfs_lp(a, b, alpha=alpha, epsilon=eps).fun
    perm = rng.permutation(a.size)
    assert solve_lfs_lp(a[perm], b[perm], alpha=alpha, epsilon=eps).fun == pytest.approx(
        base, rel=1e-9, abs=1e-12
    )
    assert solve_lfs_lp(scale * a, b, alpha=alpha, epsilon=eps).fun == pytest.approx(
        scale * base, rel=1e-9, abs=1e-12
    )


class TestRounding:
    a = np.array([1.0, 2.0, 4.0, 0.5])
    b = np.array([1.0, 3.0, 4.0, 0.0])

    def test_exact_enumerates_fractional_outcomes(self):
        x = np.array([0.0, 1.0, 0.5, 0.0])
        # Outcomes {1} (b = 3 < 5, infeasible) and {1, 2} (b = 7): the second wins.
        sel = round_solution(x, self.a, self.b, alpha=2, epsilon=5.0)
        np.testing.assert_array_equal(sel, [1, 2])

    def test_cheapest_feasible_outcome_wins(self):
        x = np.array([0.3, 0.0, 1.0, 0.6])
        # Feasible (b >= 4, count <= 2): {2} a=4, {2,3} a=4.5, {0,2} a=5: {2} wins.
        np.testing.assert_array_equal(round_solution(x, self.a, self.b, alpha=2, epsilon=4.0), [2])

    def test_no_feasible_outcome(self):
        x = np.array([0.0, 0.5, 0.0, 0.0])
        assert round_solution(x, self.a, self.b, alpha=1, epsilon=3.5) is None

    def test_draws_restrict_the_outcomes(self):
        x = np.array([0.3, 0.0, 1.0, 0.6])
        # Every draw above both fractions: only the outcome {2} appears.
        draws = np.full((5, 2), 0.99)
        np.testing.assert_array_equal(
            round_solution(x, self.a, self.b, alpha=3, epsilon=0.0, draws=draws), [2]
        )
        # Draws that always select feature 0 and 3 on top of 2: count 3 > alpha=2.
        draws = np.zeros((5, 2))
        assert round_solution(x, self.a, self.b, alpha=2, epsilon=0.0, draws=draws) is None

    def test_many_draws_reach_the_exact_answer(self):
        rng = np.random.default_rng(0)
        for _ in range(50):
            a, b = rng.random(8), rng.random(8)
            eps = 0.6 * eps_max_of(b, 3)
            sol = solve_lfs_lp(a, b, alpha=3, epsilon=eps)
            exact = round_solution(sol.x, a, b, alpha=3, epsilon=eps)
            nf = int(((sol.x > 0) & (sol.x < 1)).sum())
            drawn = round_solution(
                sol.x, a, b, alpha=3, epsilon=eps, draws=rng.random((20_000, nf))
            )
            if exact is None:
                assert drawn is None
            else:
                np.testing.assert_array_equal(exact, drawn)


@pytest.mark.parametrize("kind", KINDS)
def test_candidate_reduction_is_exact(kind):
    """lp_candidates drops only features no LP solution uses: the reduced solve (what
    solve_lfs_lp does for large M) returns the vertex of the full search, and HiGHS
    agrees on the objective."""
    from ._reference_lp import lp_candidates, prepare_lfs_lp, solve_prepared

    rng = np.random.default_rng(100 + KINDS.index(kind))
    n_reduced = 0
    for t in range(12):
        M = int(rng.choice([300, 1000, 3000]))
        alpha = int(rng.choice([1, 2, 5, 19, 30]))
        a, b, _, _ = _instance(np.random.default_rng(t), kind)
        a = np.resize(a, M) * rng.choice([1.0, 1.0, 0.5], M)  # long vectors, ties kept
        b = np.resize(b, M) * rng.choice([1.0, 1.0, 0.5], M)
        keep = lp_candidates(a, b, alpha)
        n_reduced += keep is not None
        full = prepare_lfs_lp(a, b, alpha)
        for beta in (0.05, 0.3, 0.77, 1.0):
            eps = beta * full.eps_max if full.eps_max > 0 else full.eps_max
            ref = solve_prepared(full, eps)
            sol = solve_lfs_lp(a, b, alpha=alpha, epsilon=eps)
            np.testing.assert_allclose(sol.x, ref.x, atol=1e-12)
            assert abs(sol.fun - ref.fun) <= 1e-12 * max(1.0, abs(ref.fun))
            if keep is not None:
                assert np.all(ref.x[np.setdiff1d(np.arange(M), keep)] == 0)
        if t < 3:
            _, fun_highs = highs_lp(a, b, alpha, eps)
            assert abs(sol.fun - fun_highs) <= 1e-9 * max(1.0, abs(fun_highs))
    assert n_reduced > 0 or kind in {"integer_ties", "signed_ties"}
