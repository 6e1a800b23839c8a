"""The LFS linear program (9), solved exactly (numba): the one LP of the library.

LP (9) of Armanfard et al. (2016), for one representative point and one
``epsilon = beta * eps_max``::

    minimise    a^T f
    subject to  0 <= f_m <= 1,   1 <= sum(f) <= alpha,   b^T f >= epsilon.

Only two constraints besides the box, so an optimal vertex has at most two
fractional coordinates. The solver searches the multiplier ``lam >= 0`` of the
``b`` constraint: for a fixed ``lam`` the inner problem ``min (a - lam b)^T f``
over the box and the count constraint is solved by a partial sort (take the
negative costs, at least one and at most ``alpha`` of them). ``b^T f(lam)`` is
non-decreasing in ``lam``; the optimal ``lam*`` is the breakpoint where it
crosses ``epsilon``, and an optimal vertex is built on the face of inner
solutions at ``lam*``. The multiplier is found by a secant (Newton) search on
the concave, piecewise-linear dual function: each step intersects the lines of
the current lower and upper inner solutions, and the search stops when no inner
solution beats them, at the exact breakpoint (about 8 steps for M = 10,000).

Before the search, features no inner solution can take are dropped
(:func:`_lp_candidates`, an exact reduction). :func:`lp_sweep` solves the
programs of one representative for every beta, each search warm-started by
the previous one, and :func:`_round` rounds a vertex to a subset (sec. 3.1);
the fit (:mod:`localselect.lfs._regions`) calls them. :func:`solve_lfs_lp` is
the public entry to the same code for one program. The numpy transcription in
``tests/lfs/_reference_lp.py`` is the tests' slow reference; sums here run in
index order, so values agree with it to the last bits.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import ArrayLike

from localselect._runtime import kernel_input
from localselect._typing import FloatArray

__all__ = ["LPSolution", "lp_solve", "lp_sweep", "solve_lfs_lp"]

#: Relative slack when comparing ``b^T f`` with ``epsilon`` (rounding noise).
_FEAS_RTOL = 1e-12


@njit(nogil=True, cache=True)
def _sum_at(v, idx):  # pragma: no cover - compiled
    s = 0.0
    for t in range(idx.size):
        s += v[idx[t]]
    return s


@njit(nogil=True, cache=True)
def _take(c, n_neg, alpha, tiebreak, use_tiebreak):  # pragma: no cover - compiled
    """The ``clip(n_neg, 1, alpha)`` smallest costs, ties by ``tiebreak`` then index."""
    m = c.size
    s = min(max(n_neg, 1), alpha)
    if s >= m:
        return np.arange(m)
    kth = np.partition(c, s - 1)[s - 1]
    out = np.empty(s, dtype=np.int64)
    n_below = 0
    n_tied = 0
    for j in range(m):
        if c[j] < kth:
            out[n_below] = j
            n_below += 1
        elif c[j] == kth:
            n_tied += 1
    tied = np.empty(n_tied, dtype=np.int64)
    t = 0
    for j in range(m):
        if c[j] == kth:
            tied[t] = j
            t += 1
    if use_tiebreak:
        tied = tied[np.argsort(tiebreak[tied], kind="mergesort")]
    out[n_below:] = tied[: s - n_below]
    return np.sort(out)


@njit(nogil=True, cache=True)
def _take_cost(a, b, lam, alpha, buf_v, buf_i):  # pragma: no cover - compiled
    """``_take(a - lam b, n_neg, alpha)`` without forming the costs: insertion into
    the ``alpha`` smallest (strict comparisons keep the lower index among ties)."""
    m = a.size
    kept = 0
    n_neg = 0
    for j in range(m):
        v = a[j] - lam * b[j]
        if v < 0:
            n_neg += 1
        if kept == alpha and v >= buf_v[kept - 1]:
            continue
        pos = kept if kept < alpha else alpha - 1
        while pos > 0 and v < buf_v[pos - 1]:
            buf_v[pos] = buf_v[pos - 1]
            buf_i[pos] = buf_i[pos - 1]
            pos -= 1
        buf_v[pos] = v
        buf_i[pos] = j
        if kept < alpha:
            kept += 1
    s = min(max(n_neg, 1), alpha, m)
    return np.sort(buf_i[:s])


@njit(nogil=True, cache=True)
def _lp_candidates(a, b, alpha):  # pragma: no cover - compiled
    """``lp_candidates`` of ``_lp``: (True, kept indices) or (False, empty)."""
    m = a.size
    if max(8 * alpha, 256) >= m:
        return False, np.empty(0, dtype=np.int64)
    order = np.argsort(a, kind="mergesort")
    a_sorted = a[order]
    b_sorted = b[order]
    size = max(4 * alpha, -(-m // 256))
    starts = np.unique(np.searchsorted(a_sorted, a_sorted[::size]))
    bounds = np.append(starts, m)
    drop = np.zeros(m, dtype=np.bool_)
    top = np.empty(0)
    for q in range(bounds.size - 1):
        lo, hi = bounds[q], bounds[q + 1]
        block = b_sorted[lo:hi]
        if top.size >= alpha:
            drop[lo:hi] = block <= top[0]
        merged = np.concatenate((top, block))
        if merged.size > alpha:
            top = np.sort(np.partition(merged, merged.size - alpha)[merged.size - alpha :])
        else:
            top = np.sort(merged) if merged.size >= alpha else merged
    n_drop = 0
    for j in range(m):
        n_drop += drop[j]
    if 2 * n_drop < m:
        return False, np.empty(0, dtype=np.int64)
    return True, np.sort(order[~drop])


@njit(nogil=True, cache=True)
def _bracket(a, b, alpha, scale, zero, inf, eps, lower, has_lower, upper, has_upper):
    # pragma: no cover - compiled
    """``_bracket`` of ``_lp``: (right, left, has_left, multiplier, n_iter)."""
    lo = zero
    if _sum_at(b, lo) >= eps:
        return lo, lo, False, 0.0, 0
    hi = inf
    b_lo = _sum_at(b, lo)
    b_hi = _sum_at(b, hi)
    for w in range(2):
        if (w == 0 and not has_lower) or (w == 1 and not has_upper):
            continue
        warm = lower if w == 0 else upper
        b_w = _sum_at(b, warm)
        if b_w >= eps:
            if b_w < b_hi:
                hi = warm
                b_hi = b_w
        elif b_w > b_lo:
            lo = warm
            b_lo = b_w
    n_iter = 0
    lam = 0.0
    buf_v = np.empty(alpha)
    buf_i = np.empty(alpha, dtype=np.int64)
    for n_iter in range(1, 10 * a.size + 100):  # noqa: B007 - finite by construction
        a_lo, b_lo = _sum_at(a, lo), _sum_at(b, lo)
        a_hi, b_hi = _sum_at(a, hi), _sum_at(b, hi)
        if b_hi <= b_lo:
            break
        lam = (a_hi - a_lo) / (b_hi - b_lo)
        line = a_lo - lam * b_lo
        new = _take_cost(a, b, lam, alpha, buf_v, buf_i)
        value = 0.0
        for t in range(new.size):
            value += a[new[t]] - lam * b[new[t]]
        if value >= min(line, a_hi - lam * b_hi) - 1e-13 * scale * max(1.0, lam):
            break
        if _sum_at(b, new) >= eps:
            hi = new
        else:
            lo = new
    return hi, lo, True, lam, n_iter


@njit(nogil=True, cache=True)
def _to_single_fraction(f, j, l, bc):  # pragma: no cover - compiled
    """``_to_single_fraction`` of ``_lp`` (in place)."""
    dj, dl = bc[l], -bc[j]
    if dj == 0.0 and dl == 0.0:
        return
    if dj + dl > 0:
        dj, dl = -dj, -dl
    t = np.inf
    for v, d in ((f[j], dj), (f[l], dl)):
        if d > 0:
            t = min(t, (1.0 - v) / d)
        elif d < 0:
            t = min(t, -v / d)
    f[j] = min(max(f[j] + t * dj, 0.0), 1.0)
    f[l] = min(max(f[l] + t * dl, 0.0), 1.0)
    for idx in (j, l):
        if abs(f[idx]) <= 1e-15:
            f[idx] = 0.0
        elif abs(f[idx] - 1.0) <= 1e-15:
            f[idx] = 1.0


@njit(nogil=True, cache=True)
def _finish(f_right, f_left, bc, eps, alpha):  # pragma: no cover - compiled
    """``_finish`` of ``_lp``: a vertex with ``b^T f = eps`` on the face of two solutions."""
    m = f_right.size
    f = np.zeros(m)
    n_diff = 0
    fixed_count = 0.0
    s_right = 0.0
    s_left = 0.0
    for j in range(m):
        s_right += f_right[j]
        s_left += f_left[j]
        if f_right[j] != f_left[j]:
            n_diff += 1
        else:
            f[j] = f_right[j]
            fixed_count += f[j]
    dpos = np.empty(n_diff, dtype=np.int64)
    t = 0
    bf = 0.0
    for j in range(m):
        if f_right[j] != f_left[j]:
            dpos[t] = j
            t += 1
        bf += bc[j] * f[j]
    target = eps - bf
    lo = int(np.rint(min(s_right, s_left) - fixed_count))
    hi = int(np.rint(max(s_right, s_left) - fixed_count))
    order = dpos[np.argsort(bc[dpos], kind="mergesort")]
    bs = bc[order]
    n = bs.size
    gmin = np.zeros(n + 1)
    gmax = np.zeros(n + 1)
    for q in range(n):
        gmin[q + 1] = gmin[q] + bs[q]
        gmax[q + 1] = gmax[q] + bs[n - 1 - q]
    if lo == hi or gmin[lo] <= target <= gmax[lo]:
        if not gmin[lo] <= target <= gmax[lo]:
            return f_right.copy()
        windows = gmin[lo:] - gmin[: n - lo + 1]
        k = int(np.searchsorted(windows, target, side="right")) - 1
        k = min(max(k, 0), n - lo)
        for q in range(k, k + lo):
            f[order[q]] = 1.0
        if windows[k] < target and k + lo < n:
            j, l = order[k], order[k + lo]
            theta = (target - windows[k]) / (bc[l] - bc[j])
            f[j] = 1.0 - theta
            f[l] = theta
            total = fixed_count + lo
            if 0.0 < theta < 1.0 and 1 < total < alpha:
                _to_single_fraction(f, j, l, bc)
        return f
    if target > gmax[lo]:
        k = -1
        for q in range(lo, hi + 1):
            if gmax[q] >= target:
                k = q
                break
        if k < 0:
            return f_right.copy()
        for q in range(k - 1):
            f[order[n - 1 - q]] = 1.0
        last = order[n - k]
        f[last] = (target - gmax[k - 1]) / bc[last]
        return f
    k = -1
    for q in range(lo, hi + 1):
        if gmin[q] <= target:
            k = q
            break
    if k < 0:
        return f_right.copy()
    for q in range(k - 1):
        f[order[q]] = 1.0
    last = order[k - 1]
    f[last] = (target - gmin[k - 1]) / bc[last]
    return f


@njit(nogil=True, cache=True)
def _round(x, a, b, alpha, eps, draws, offset, n_rounding, use_draws):
    # pragma: no cover - compiled
    """``round_solution`` of ``_lp``: (feasible, selected indices, draws used)."""
    m = x.size
    n_ones = 0
    nf = 0
    for j in range(m):
        if x[j] >= 1.0:
            n_ones += 1
        elif x[j] > 0.0:
            nf += 1
    ones = np.empty(n_ones, dtype=np.int64)
    frac = np.empty(nf, dtype=np.int64)
    p1 = 0
    p2 = 0
    for j in range(m):
        if x[j] >= 1.0:
            ones[p1] = j
            p1 += 1
        elif x[j] > 0.0:
            frac[p2] = j
            p2 += 1
    n_pat = 1 << nf
    seen = np.ones(n_pat, dtype=np.bool_)
    used = 0
    if use_draws:
        seen[:] = False
        for r in range(n_rounding):
            code = 0
            for t in range(nf):
                if draws[offset + r * nf + t] < x[frac[t]]:
                    code |= 1 << (nf - 1 - t)
            seen[code] = True
        used = n_rounding * nf
    a1 = _sum_at(a, ones)
    b1 = _sum_at(b, ones)
    slack = _FEAS_RTOL * max(abs(eps), 1e-300)
    best = -1
    best_a = 0.0
    best_count = 0
    for p in range(n_pat):
        if not seen[p]:
            continue
        count = n_ones
        av = 0.0
        bv = 0.0
        for t in range(nf):
            if (p >> (nf - 1 - t)) & 1:
                count += 1
                av += a[frac[t]]
                bv += b[frac[t]]
        av = a1 + av
        bv = b1 + bv
        if count < 1 or count > alpha or bv < eps - slack:
            continue
        if best < 0 or av < best_a or (av == best_a and count < best_count):
            best, best_a, best_count = p, av, count
    if best < 0:
        return False, np.empty(0, dtype=np.int64), used
    sel = np.empty(best_count, dtype=np.int64)
    sel[:n_ones] = ones
    q = n_ones
    for t in range(nf):
        if (best >> (nf - 1 - t)) & 1:
            sel[q] = frac[t]
            q += 1
    return True, np.sort(sel), used


@njit(nogil=True, cache=True)
def _cost_scale(a, b, alpha):  # pragma: no cover - compiled
    return (np.abs(a).max() + np.abs(b).max()) * min(alpha, a.size) + 1e-300


@njit(nogil=True, cache=True)
def _prepare(a, b, alpha):  # pragma: no cover - compiled
    """``prepare_lfs_lp`` of ``_lp``: (alpha, zero, inf, eps_max)."""
    alpha = min(alpha, a.size)
    n0 = 0
    ninf = 0
    for j in range(a.size):
        n0 += (a[j] < 0) or (a[j] == 0 and b[j] > 0)
        ninf += (b[j] > 0) or (b[j] == 0 and a[j] < 0)
    zero = _take(a, n0, alpha, -b, True)
    inf = _take(-b, ninf, alpha, a, True)
    return alpha, zero, inf, _sum_at(b, inf)


@njit(nogil=True, cache=True)
def _reduce(a, b, alpha):  # pragma: no cover - compiled
    """The program after the exact reduction (:func:`_lp_candidates`), prepared.

    Returns ``(keep, a_red, b_red, scale, alpha_red, zero, inf, eps_max)``
    (``keep`` all features when nothing is dropped; ``scale`` of the full costs).
    """
    m = a.size
    alpha = min(alpha, m)
    reduced, keep = _lp_candidates(a, b, alpha)
    scale = _cost_scale(a, b, alpha)
    if reduced:
        a = a[keep]
        b = b[keep]
    else:
        keep = np.arange(m)
    alpha_p, zero, inf, eps_max = _prepare(a, b, alpha)
    return keep, a, b, scale, alpha_p, zero, inf, eps_max


@njit(nogil=True, cache=True)
def _vertex(right, left, has_left, b, eps, alpha):  # pragma: no cover - compiled
    """The optimal vertex on the face of the bracketing inner solutions (``_finish``)."""
    f_right = np.zeros(b.size)
    f_right[right] = 1.0
    if not has_left:
        return f_right
    f_left = np.zeros(b.size)
    f_left[left] = 1.0
    return _finish(f_right, f_left, b, eps, alpha)


@njit(nogil=True, cache=True)
def lp_sweep(a, b, alpha, n_beta):  # pragma: no cover - compiled
    """Vertices of LP (9) for ``epsilon = n / n_beta * eps_max``, n = 1..n_beta.

    The compiled twin of ``solve_sweep(prepare_lfs_lp(...))`` after the
    ``lp_candidates`` reduction, as the estimator runs it. Returns
    ``(X, eps, keep, a_red, b_red, n_iter)``: ``X[n - 1]`` the vertex
    over the kept features ``keep`` (all features when nothing is dropped),
    ``eps[n - 1]`` the epsilon it meets.
    """
    keep, a, b, scale, alpha_p, zero, inf, eps_max = _reduce(a, b, alpha)
    xs = np.zeros((n_beta, a.size))
    epsilons = np.empty(n_beta)
    right = zero
    left = zero
    has_right = False
    has_left = False
    n_iter = 0
    for n in range(1, n_beta + 1):
        eps = min((n / n_beta) * eps_max, eps_max)
        epsilons[n - 1] = eps
        new_right, new_left, new_has_left, _, it = _bracket(
            a, b, alpha_p, scale, zero, inf, eps, left, has_left, right, has_right
        )
        n_iter += it
        xs[n - 1] = _vertex(new_right, new_left, new_has_left, b, eps, alpha_p)
        right, left, has_right, has_left = new_right, new_left, True, new_has_left
    return xs, epsilons, keep, a, b, n_iter


@njit(nogil=True, cache=True)
def lp_solve(a, b, alpha, epsilon):  # pragma: no cover - compiled
    """One program: ``(feasible, eps_max, x, multiplier, n_iter)``, ``x`` over all features.

    Infeasible (``epsilon`` above ``eps_max`` beyond a relative 1e-12 slack):
    ``feasible`` is False and ``x`` is empty. Otherwise ``epsilon`` is capped at
    ``eps_max``.
    """
    keep, a_red, b_red, scale, alpha_p, zero, inf, eps_max = _reduce(a, b, alpha)
    if epsilon > eps_max + _FEAS_RTOL * max(abs(eps_max), 1e-300):
        return False, eps_max, np.empty(0), 0.0, 0
    eps = min(epsilon, eps_max)
    right, left, has_left, lam, n_iter = _bracket(
        a_red, b_red, alpha_p, scale, zero, inf, eps, zero, False, zero, False
    )
    x = np.zeros(a.size)
    x[keep] = _vertex(right, left, has_left, b_red, eps, alpha_p)
    return True, eps_max, x, lam, n_iter


class LPSolution(NamedTuple):
    """An optimal vertex of LP (9).

    Attributes
    ----------
    x : ndarray of shape (n_features,)
        The vertex: entries in [0, 1], at most two strictly fractional.
    fun : float
        The optimal objective ``a^T x``.
    multiplier : float
        Optimal Lagrange multiplier of ``b^T f >= epsilon`` (0 when inactive).
    n_iter : int
        Inner (sorting) problems solved by the search.
    """

    x: FloatArray
    fun: float
    multiplier: float
    n_iter: int


def solve_lfs_lp(a: ArrayLike, b: ArrayLike, *, alpha: int, epsilon: float) -> LPSolution:
    """Solve the LFS linear program (9) exactly and return an optimal vertex.

    ``minimise a^T f  subject to  0 <= f <= 1,  1 <= sum(f) <= alpha,
    b^T f >= epsilon`` (Armanfard et al. 2016, eq. (9)).

    Parameters
    ----------
    a : array-like of shape (n_features,)
        Objective: in LFS, the weighted within-class squared distances (eq. (5)).
    b : array-like of shape (n_features,)
        Constraint vector: in LFS, the weighted between-class squared
        distances (eq. (5)).
    alpha : int
        Upper bound on the number of selected features, at least 1; values
        above ``n_features`` act as ``n_features``.
    epsilon : float
        Lower bound on ``b^T f``; at most ``eps_max``, the optimum of LP (8)
        (the sum of the ``alpha`` largest positive ``b``, or the largest ``b``
        when none is positive).

    Returns
    -------
    solution : LPSolution
        ``x`` (an optimal vertex, at most two fractional entries), ``fun``,
        ``multiplier`` (of the ``b`` constraint) and ``n_iter``.

    Raises
    ------
    ValueError
        If ``a`` and ``b`` are not finite 1-D arrays of the same length, if
        ``alpha < 1``, or if ``epsilon > eps_max`` (the program is infeasible).

    See Also
    --------
    LocalFeatureSelection : The estimator that solves these programs.

    Notes
    -----
    Time O(M) per step of the secant search over the multiplier (a partial
    sort), which visits each inner solution at most once. Ties are
    broken towards the lower feature index; among optimal points on the final
    face, the one with the fewest selected features is returned.

    Examples
    --------
    >>> from localselect.lfs import solve_lfs_lp
    >>> sol = solve_lfs_lp([1.0, 2.0, 4.0], [1.0, 3.0, 4.0], alpha=2, epsilon=5.0)
    >>> sol.x, sol.fun
    (array([0. , 1. , 0.5]), 4.0)
    """
    a_arr = kernel_input(np.asarray(a, dtype=np.float64))
    b_arr = kernel_input(np.asarray(b, dtype=np.float64))
    if a_arr.ndim != 1 or b_arr.shape != a_arr.shape or a_arr.size == 0:
        raise ValueError(
            f"a and b must be non-empty 1-D arrays of the same length; got shapes "
            f"{a_arr.shape} and {b_arr.shape}."
        )
    if not (np.isfinite(a_arr).all() and np.isfinite(b_arr).all()):
        raise ValueError("a and b must be finite; remove NaN or inf entries.")
    if int(alpha) != alpha or alpha < 1:
        raise ValueError(f"alpha must be an integer >= 1; got {alpha!r}.")
    if not np.isfinite(epsilon):
        raise ValueError(f"epsilon must be finite; got {epsilon!r}.")
    alpha = min(int(alpha), a_arr.size)
    feasible, eps_max, x, lam, n_iter = lp_solve(a_arr, b_arr, alpha, float(epsilon))
    if not feasible:
        raise ValueError(
            f"LP (9) is infeasible: epsilon={epsilon!r} exceeds eps_max={eps_max!r}, "
            f"the largest b^T f with 0 <= f <= 1 and 1 <= sum(f) <= {alpha}. "
            "Lower epsilon (LFS uses beta * eps_max with beta in (0, 1])."
        )
    return LPSolution(x, float(a_arr @ x), float(lam), int(n_iter))
