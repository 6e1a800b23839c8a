"""Non-regression: epsilon at eps_max when summation order changes the last bit.

``lfs-table1`` crashed with ``ZeroDivisionError`` in the dual search: eps_max was
the sorted sum of the alpha largest b, which can exceed the b-sum of the
maximising index set by one ulp, so with a warm start at that set nothing
bracketed epsilon. eps_max is now the maximiser's own b-sum.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linprog

from ._reference_lp import eps_max_of, prepare_lfs_lp, solve_prepared


def _ulp_cases(n_cases: int = 20):
    """Random (a, b, alpha) whose sorted top-alpha sum differs from the index-order sum."""
    rng = np.random.default_rng(0)
    found = 0
    while found < n_cases:
        m = int(rng.integers(5, 40))
        alpha = int(rng.integers(2, m))
        a = rng.random(m)
        b = rng.random(m) * 10.0 ** rng.integers(-3, 4, size=m)
        prog = prepare_lfs_lp(a, b, alpha)
        if eps_max_of(b, alpha) != float(b[prog.inf].sum()):
            found += 1
            yield a, b, alpha


def test_eps_max_is_reached_exactly_by_the_maximiser():
    for a, b, alpha in _ulp_cases():
        prog = prepare_lfs_lp(a, b, alpha)
        assert prog.eps_max == float(b[prog.inf].sum())
        # Warm start at the maximiser itself, as the beta sweep does at beta = 1.
        for lower in (None, prog.inf, prog.zero):
            sol = solve_prepared(prog, eps_max_of(b, alpha), lower=lower)
            assert b @ sol.x >= prog.eps_max * (1 - 1e-12)
            ref = linprog(
                a,
                A_ub=np.vstack([np.ones_like(a), -np.ones_like(a), -b]),
                b_ub=[alpha, -1.0, -prog.eps_max],
                bounds=(0, 1),
                method="highs",
            )
            assert ref.status == 0
            # At epsilon = eps_max the feasible set is tiny: HiGHS's primal feasibility
            # tolerance (1e-7 on the b row) buys objective at the rate of the multiplier,
            # so agreement is to 1e-6 relative here (1e-9 in the main LP tests).
            np.testing.assert_allclose(sol.fun, ref.fun, rtol=1e-6, atol=1e-9)
