"""Numpy reference of the LFS linear program (9) and of the rounding of its solution.

The library solves LP (9) in compiled code (:mod:`localselect.lfs._lp`); this
transcription in numpy, checked against HiGHS, is the tests' slow reference.

LP (9) of Armanfard et al. (2016), for one representative point and one
``epsilon = beta * eps_max``::

    minimise    a^T f
    subject to  0 <= f_m <= 1,   1 <= sum(f) <= alpha,   b^T f >= epsilon.

Only two constraints besides the box, so an optimal vertex has at most two
fractional coordinates. We solve it by a one-dimensional search over the
multiplier ``lam >= 0`` of the ``b`` constraint: for a fixed ``lam`` the inner
problem ``min (a - lam b)^T f`` over the box and the count constraint is solved
by sorting (take the negative costs, at least one and at most ``alpha`` of
them). ``b^T f(lam)`` is non-decreasing in ``lam``; the optimal ``lam*`` is the
breakpoint where it crosses ``epsilon``, and an optimal vertex is built on the
face of inner solutions at ``lam*``.

The multiplier is found by a secant (Newton) search on the concave,
piecewise-linear dual function: each step intersects the lines of the current
lower and upper inner solutions, and the search stops when no inner solution
beats them, at the exact breakpoint. Each step is one O(M) partial sort; a few
steps suffice in practice (about 8 for M = 10,000).
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike

from localselect._typing import FloatArray, IntArray
from localselect.lfs._lp import LPSolution

__all__ = [
    "LFSProgram",
    "LPSolution",
    "lp_candidates",
    "prepare_lfs_lp",
    "round_solution",
    "solve_lfs_lp",
    "solve_prepared",
    "solve_sweep",
]


#: Relative slack when comparing ``b^T f`` with ``epsilon`` (rounding noise).
_FEAS_RTOL = 1e-12


class LFSProgram(NamedTuple):
    """What the programs of one representative share (see :func:`prepare_lfs_lp`)."""

    a: FloatArray
    b: FloatArray
    alpha: int
    eps_max: float
    scale: float  # magnitude of the costs, for the stopping test of the search
    zero: IntArray  # inner solution just right of lam = 0
    inf: IntArray  # inner solution as lam -> infinity (reaches eps_max)


def _take(c: FloatArray, n_neg: int, alpha: int, tiebreak: FloatArray | None = None) -> IntArray:
    """The ``clip(n_neg, 1, alpha)`` smallest costs, ties to the lower index.

    ``tiebreak`` (optional) orders items of equal cost before the index does.
    """
    s = min(max(n_neg, 1), alpha)
    if s >= c.size:
        return np.arange(c.size)
    kth = np.partition(c, s - 1)[s - 1]
    below = np.flatnonzero(c < kth)
    tied = np.flatnonzero(c == kth)
    if tiebreak is not None:
        tied = tied[np.argsort(tiebreak[tied], kind="stable")]
    return np.sort(np.concatenate((below, tied[: s - below.size])))


def eps_max_of(b: FloatArray, alpha: int) -> float:
    """Largest ``b^T f`` over the box and ``1 <= sum(f) <= alpha`` (LP (8))."""
    k = min(alpha, b.size)
    top = -np.sort(-b)[:k] if k * 8 > b.size else -np.sort(-np.partition(b, b.size - k)[-k:])
    n_pos = int(np.count_nonzero(top > 0))
    return float(top[: max(n_pos, 1)].sum())


def lp_candidates(a: FloatArray, b: FloatArray, alpha: int) -> IntArray | None:
    """Features that can be selected by some inner solution; None when no reduction pays.

    A feature ``m`` with at least ``alpha`` features ``j`` of ``a_j < a_m`` and
    ``b_j >= b_m`` has a strictly larger cost ``a_m - lam b_m`` than each of
    them for every ``lam >= 0`` (and ranks after them in both end-point
    orders), so it is never among the ``<= alpha`` cheapest features an inner
    solution takes, never in an optimal vertex the search builds, and never in
    the maximiser of LP (8). Dropping such features leaves the program's
    solution unchanged (indices map back in order, so ties still go to the
    lower index).

    The test is conservative: features are sorted by ``a`` and cut into
    blocks (never splitting equal ``a``); a feature is dropped when its ``b``
    is at most the ``alpha``-th largest ``b`` of all earlier blocks. Time
    O(M log M); the kept set is about one block plus ``alpha log(M / block)``
    features for unstructured ``a``, ``b``.

    Returns
    -------
    keep : ndarray of int or None
        Sorted indices of the kept features, or None when ``M <= 8 alpha``
        (or fewer than half the features would go).
    """
    M = a.size
    if max(8 * alpha, 256) >= M:
        return None
    order = np.argsort(a, kind="stable")
    a_sorted, b_sorted = a[order], b[order]
    size = max(4 * alpha, -(-M // 256))
    starts = np.unique(np.searchsorted(a_sorted, a_sorted[::size], side="left"))
    bounds = np.append(starts, M)
    drop = np.zeros(M, dtype=bool)
    top = np.empty(0)
    for lo, hi in pairwise(bounds):
        block = b_sorted[lo:hi]
        if top.size >= alpha:
            drop[lo:hi] = block <= top[0]  # top[0]: the alpha-th largest b before this block
        merged = np.concatenate((top, block))
        top = np.partition(merged, merged.size - alpha)[-alpha:] if merged.size > alpha else merged
        top = np.sort(top) if top.size >= alpha else top
    if 2 * np.count_nonzero(drop) < M:
        return None
    return np.sort(order[~drop])


def cost_scale(a: FloatArray, b: FloatArray, alpha: int) -> float:
    """Magnitude of the costs ``a - lam b``, for the stopping test of the search."""
    return float(np.abs(a).max() + np.abs(b).max()) * min(alpha, a.size) + 1e-300


def prepare_lfs_lp(
    a: FloatArray, b: FloatArray, alpha: int, *, scale: float | None = None
) -> LFSProgram:
    """The parts of LP (9) shared by every ``epsilon``: ``eps_max`` and the end points.

    Parameters
    ----------
    a, b : ndarray of shape (n_features,)
        Objective and constraint vectors (finite).
    alpha : int
        Upper bound on ``sum(f)``, at least 1.
    scale : float, optional
        Magnitude of the costs for the stopping test; by default from ``a``
        and ``b``. Pass the full program's value when ``a``, ``b`` are the
        :func:`lp_candidates` of a larger program, so both stop alike.

    Returns
    -------
    program : LFSProgram
        Input to :func:`solve_prepared`.
    """
    alpha = int(min(alpha, a.size))
    # lam -> 0+: cost a, ties broken towards larger b; lam -> inf: cost -b, ties to smaller a.
    n0 = int(np.count_nonzero((a < 0) | ((a == 0) & (b > 0))))
    zero = _take(a, n0, alpha, tiebreak=-b)
    ninf = int(np.count_nonzero((b > 0) | ((b == 0) & (a < 0))))
    inf = _take(-b, ninf, alpha, tiebreak=a)
    inf_b = float(b[inf].sum())
    if scale is None:
        scale = cost_scale(a, b, alpha)
    # eps_max is the b-sum of the maximiser itself (not eps_max_of's sorted sum, which
    # can exceed it by an ulp), so epsilon = eps_max is reached exactly by ``inf``.
    return LFSProgram(a, b, alpha, inf_b, scale, zero, inf)


def _bracket(
    prog: LFSProgram,
    eps: float,
    lower: IntArray | None = None,
    upper: IntArray | None = None,
) -> tuple[IntArray, IntArray | None, float, int]:
    """Inner solutions on both sides of the optimal multiplier.

    A secant (Newton) search on the concave, piecewise-linear dual function:
    intersect the lines of the current lower and upper inner solutions, solve
    the inner problem there, and stop when nothing beats the two lines. It
    visits each inner solution at most once, so it terminates.

    ``lower`` and ``upper`` optionally warm-start the search with inner
    solutions (optimal for some multiplier), e.g. those of a smaller epsilon:
    each is used on the side of ``eps`` its ``b^T f`` falls.

    Returns ``(right, left, lam, n_iter)``: ``right`` reaches ``eps``, ``left``
    does not (None when the multiplier is 0 and ``right`` is optimal alone).
    """
    a, b, alpha = prog.a, prog.b, prog.alpha
    lo = prog.zero
    if float(b[lo].sum()) >= eps:
        return lo, None, 0.0, 0
    hi = prog.inf
    b_lo = float(b[lo].sum())
    b_hi = float(b[hi].sum())
    for warm in (lower, upper):
        if warm is None:
            continue
        b_w = float(b[warm].sum())
        if b_w >= eps:
            if b_w < b_hi:
                hi, b_hi = warm, b_w
        elif b_w > b_lo:
            lo, b_lo = warm, b_w
    n_iter = 0
    lam = 0.0
    for n_iter in range(1, 10 * a.size + 100):  # noqa: B007 - finite by construction
        a_lo, b_lo = float(a[lo].sum()), float(b[lo].sum())
        a_hi, b_hi = float(a[hi].sum()), float(b[hi].sum())
        if b_hi <= b_lo:  # the two inner solutions coincide in b: nothing left to bracket
            break
        lam = (a_hi - a_lo) / (b_hi - b_lo)
        c = a - lam * b
        line = a_lo - lam * b_lo
        n_neg = int(np.count_nonzero(c < 0))
        new = _take(c, n_neg, alpha)
        value = float(c[new].sum())
        if value >= min(line, a_hi - lam * b_hi) - 1e-13 * prog.scale * max(1.0, lam):
            break
        if float(b[new].sum()) >= eps:
            hi = new
        else:
            lo = new
    return hi, lo, lam, n_iter


def _finish(
    f_right: FloatArray, f_left: FloatArray, bc: FloatArray, eps: float, alpha: int
) -> FloatArray:
    """A vertex with ``b^T f = eps`` on the face spanned by two inner solutions.

    Coordinates where the two solutions agree are kept; on the others (set D)
    any ``f_D`` in the box with a count between the two solutions' counts is
    inner-optimal at the multiplier, so we pick one with ``b_D^T f_D`` equal to
    the remaining target and the smallest count.
    """
    diff = f_right != f_left
    f = np.where(diff, 0.0, f_right)
    dpos = np.flatnonzero(diff)
    fixed_count = float(f.sum())
    target = eps - float(bc @ f)
    s_right, s_left = float(f_right.sum()), float(f_left.sum())
    lo = round(min(s_right, s_left) - fixed_count)
    hi = round(max(s_right, s_left) - fixed_count)
    order = dpos[np.argsort(bc[dpos], kind="stable")]  # ascending b
    bs = bc[order]
    n = bs.size
    gmin = np.concatenate(([0.0], np.cumsum(bs)))  # sum of the k smallest
    gmax = np.concatenate(([0.0], np.cumsum(bs[::-1])))  # sum of the k largest
    if lo == hi or gmin[lo] <= target <= gmax[lo]:
        if not gmin[lo] <= target <= gmax[lo]:
            return f_right
        # Slide a window of `lo` items up the b order: sums are non-decreasing.
        windows = gmin[lo:] - gmin[: n - lo + 1]
        k = int(np.searchsorted(windows, target, side="right")) - 1
        k = min(max(k, 0), n - lo)
        f[order[k : k + lo]] = 1.0
        if windows[k] < target and k + lo < n:
            j, l = order[k], order[k + lo]
            theta = (target - windows[k]) / (bc[l] - bc[j])
            f[j], f[l] = 1.0 - theta, theta
            total = fixed_count + lo
            if 0.0 < theta < 1.0 and 1 < total < alpha:
                f = _to_single_fraction(f, j, l, bc)
        return f
    if target > gmax[lo]:
        # Fewest items reaching the target: the largest b first.
        ks = np.flatnonzero(gmax[lo : hi + 1] >= target)
        if ks.size == 0:
            return f_right
        k = lo + int(ks[0])
        top = order[::-1]
        f[top[: k - 1]] = 1.0
        last = top[k - 1]
        f[last] = (target - gmax[k - 1]) / bc[last]
        return f
    ks = np.flatnonzero(gmin[lo : hi + 1] <= target)
    if ks.size == 0:
        return f_right
    k = lo + int(ks[0])
    f[order[: k - 1]] = 1.0
    last = order[k - 1]
    f[last] = (target - gmin[k - 1]) / bc[last]
    return f


def _to_single_fraction(f: FloatArray, j: int, l: int, bc: FloatArray) -> FloatArray:
    """Move along ``b_l e_j - b_j e_l`` (``b^T f`` fixed) until one coordinate is 0 or 1.

    Used when the count constraint is not tight, so the two-fraction point is
    not a vertex; the direction lowers the count (the objective is constant on
    this face because the tied cost is 0 there).
    """
    dj, dl = bc[l], -bc[j]
    if dj == 0.0 and dl == 0.0:
        return f
    if dj + dl > 0:  # make the count decrease
        dj, dl = -dj, -dl
    steps = []
    for v, d in ((f[j], dj), (f[l], dl)):
        if d > 0:
            steps.append((1.0 - v) / d)
        elif d < 0:
            steps.append(-v / d)
    t = min(steps)
    f = f.copy()
    f[j] = min(max(f[j] + t * dj, 0.0), 1.0)
    f[l] = min(max(f[l] + t * dl, 0.0), 1.0)
    for idx in (j, l):  # snap the coordinate that reached its bound
        if abs(f[idx]) <= 1e-15:
            f[idx] = 0.0
        elif abs(f[idx] - 1.0) <= 1e-15:
            f[idx] = 1.0
    return f


def solve_prepared(
    prog: LFSProgram,
    epsilon: float,
    *,
    lower: IntArray | None = None,
    upper: IntArray | None = None,
) -> LPSolution:
    """Solve LP (9) for one ``epsilon`` given :func:`prepare_lfs_lp`'s output.

    ``epsilon`` must not exceed ``prog.eps_max`` (beyond a relative 1e-12
    slack, within which it is treated as ``eps_max``). ``lower`` and
    ``upper`` optionally warm-start the search with inner solutions (index
    arrays), e.g. a smaller ``epsilon``'s (see :func:`solve_sweep`).
    """
    return _solve(prog, epsilon, lower, upper)[0]


def _solve(
    prog: LFSProgram, epsilon: float, lower: IntArray | None, upper: IntArray | None
) -> tuple[LPSolution, IntArray, IntArray | None]:
    eps = min(float(epsilon), prog.eps_max)
    right, left, lam, n_iter = _bracket(prog, eps, lower, upper)
    f_right = np.zeros(prog.a.size)
    f_right[right] = 1.0
    if left is None:
        x = f_right
    else:
        f_left = np.zeros(prog.a.size)
        f_left[left] = 1.0
        x = _finish(f_right, f_left, prog.b, eps, prog.alpha)
    return LPSolution(x, float(prog.a @ x), float(lam), n_iter), right, left


def solve_sweep(prog: LFSProgram, epsilons: FloatArray) -> list[LPSolution]:
    """Solve LP (9) for increasing ``epsilons``, each search warm-started by the last.

    The inner solutions that bracket one epsilon's multiplier are inner
    solutions for the next, so each search starts from them instead of the
    end points; the multipliers (and hence the optimal values) are those of
    independent searches.
    """
    out = []
    right: IntArray | None = None
    left: IntArray | None = None
    for eps in epsilons:
        sol, right, left = _solve(prog, float(eps), left, right)
        out.append(sol)
    return out


def solve_lfs_lp(a: ArrayLike, b: ArrayLike, *, alpha: int, epsilon: float) -> LPSolution:
    """Numpy reference of :func:`localselect.lfs.solve_lfs_lp` (same arguments, result, errors)."""
    a_arr = np.asarray(a, dtype=np.float64)  # valid input: the library checks it
    b_arr = np.asarray(b, dtype=np.float64)
    alpha = min(int(alpha), a_arr.size)
    keep = lp_candidates(a_arr, b_arr, alpha)
    if keep is None:
        prog = prepare_lfs_lp(a_arr, b_arr, alpha)
        check_feasible(prog, float(epsilon))
        return solve_prepared(prog, float(epsilon))
    # Exact reduction to the features some inner solution can take (lp_candidates).
    prog = prepare_lfs_lp(a_arr[keep], b_arr[keep], alpha, scale=cost_scale(a_arr, b_arr, alpha))
    check_feasible(prog, float(epsilon))
    sol = solve_prepared(prog, float(epsilon))
    x = np.zeros(a_arr.size)
    x[keep] = sol.x
    return LPSolution(x, float(a_arr @ x), sol.multiplier, sol.n_iter)


def check_feasible(prog: LFSProgram, epsilon: float) -> None:
    """Raise ValueError when ``epsilon`` exceeds ``eps_max`` beyond rounding slack."""
    if epsilon > prog.eps_max + _FEAS_RTOL * max(abs(prog.eps_max), 1e-300):
        raise ValueError(
            f"LP (9) is infeasible: epsilon={epsilon!r} exceeds eps_max={prog.eps_max!r}, "
            f"the largest b^T f with 0 <= f <= 1 and 1 <= sum(f) <= {prog.alpha}. "
            "Lower epsilon (LFS uses beta * eps_max with beta in (0, 1])."
        )


def round_solution(
    x: FloatArray,
    a: FloatArray,
    b: FloatArray,
    *,
    alpha: int,
    epsilon: float,
    draws: FloatArray | None = None,
) -> IntArray | None:
    """Randomised rounding of an LP vertex: the best feasible 0/1 outcome.

    Each ``f_m`` becomes 1 with probability ``x_m``. Integral entries are
    fixed, so the outcomes differ only in the (at most two) fractional
    entries. With ``draws=None`` every outcome of positive probability is
    enumerated (the limit of infinitely many draws); otherwise ``draws`` of
    shape ``(n_rounding, n_fractional)`` are uniforms on [0, 1) and only the
    outcomes they produce (``u < x_m``) are considered. Among outcomes with
    ``1 <= sum(f) <= alpha`` and ``b^T f >= epsilon`` the one with the
    smallest ``a^T f`` wins (ties: fewer features, then the lexicographically
    smaller pattern of fractional entries, 0 before 1).

    Returns
    -------
    selected : ndarray of int or None
        Sorted indices of the selected features, or None if no outcome is
        feasible.
    """
    ones = np.flatnonzero(x >= 1.0)
    frac = np.flatnonzero((x > 0.0) & (x < 1.0))
    nf = frac.size
    patterns = (np.arange(2**nf)[:, None] >> np.arange(nf)[::-1]) & 1  # lexicographic
    prob_ok = np.ones(2**nf, dtype=bool)
    if draws is not None:
        hits = (draws < x[frac]).astype(np.int64)
        codes = hits @ (1 << np.arange(nf)[::-1]) if nf else np.zeros(len(draws), np.int64)
        prob_ok = np.zeros(2**nf, dtype=bool)
        prob_ok[np.unique(codes)] = True
    count = ones.size + patterns.sum(axis=1)
    a_val = a[ones].sum() + patterns @ a[frac]
    b_val = b[ones].sum() + patterns @ b[frac]
    slack = _FEAS_RTOL * max(abs(epsilon), 1e-300)
    ok = prob_ok & (count >= 1) & (count <= alpha) & (b_val >= epsilon - slack)
    if not ok.any():
        return None
    idx = np.flatnonzero(ok)
    best = idx[np.lexsort((idx, count[idx], a_val[idx]))[0]]
    return np.sort(np.concatenate((ones, frac[patterns[best] == 1])))
