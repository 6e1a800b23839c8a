"""Compiled per-representative core of LFS (numba): lines 4-11 of Algorithm 1.

One call of :func:`_fit_block` does, for each representative of a block and
with no Python in between: the eq. (10) weights from the previous subsets,
the distances ``a``, ``b`` of eq. (5), the exact search of LP (9) for every
beta (the algorithm of :mod:`localselect.lfs._lp`, transcribed), exact or
random rounding, and the radius and leave-one-out score of each candidate
subset (sec. 3.2); the best beta wins, ties to the smallest.

:func:`fit_iteration` runs the blocks on Python threads, as
:mod:`localselect.margin._relieff_numba` does: the compiled functions are
serial and release the GIL, and each representative owns its outputs, so the
result does not depend on the number of threads. (numba's ``parallel=True``
would start an OpenMP runtime, after which a forked child process aborts.)

Differences from the numpy code in :mod:`localselect.lfs._lp`,
``_regions`` and ``_weights`` (which the tests keep as references), all in
the last bits only: sums run in index order (numpy sums pairwise), and the
eq. (10) weights are summed over distinct subsets weighted by their
multiplicity, from coordinate differences.

The leave-one-out search sorts the points by their distance to the
representative in the subspace; by the triangle inequality a point ``q`` can
be a nearest neighbour of ``p`` only if ``|d(q, x_i) - d(p, x_i)|`` is at most
their distance. Each point takes an upper bound of its nearest distance from
a few points of adjacent rank and computes the distances to every point in
the window of ranks that bound allows (with a relative 1e-9 margin for
rounding). Distances are sums of squared differences in feature order, with
the loops feature-outer so that the sums of different points run side by
side (and vectorise) while each keeps its order; neighbour ties are compared
exactly.

Nothing here validates user input.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Any, NamedTuple

import numpy as np
from joblib.parallel import get_active_backend
from numba import njit
from numpy.typing import NDArray

from localselect._parallel import Parallel, delayed
from localselect._progress import progress_task

__all__ = [
    "COMPILE_MESSAGE",
    "IterationResult",
    "ensure_compiled",
    "fit_iteration",
    "subset_table",
]

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
BoolArray = NDArray[np.bool_]

#: Relative slack when comparing ``b^T f`` with ``epsilon`` (as in ``_lp``).
_FEAS_RTOL = 1e-12
#: Radius used when the impurity test fails at distance 0 (as in ``_regions``).
_TINY_RADIUS = 1e-6
#: Relative rounding margin of the triangle-inequality pruning.
_PRUNE_RTOL = 1e-9


# --------------------------------------------------------------------------- #
# LP (9): the exact search of localselect.lfs._lp, transcribed
# --------------------------------------------------------------------------- #


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
def lp_sweep(a, b, alpha, n_beta):  # pragma: no cover - compiled
    """Vertices of LP (9) for ``epsilon = n / n_beta * eps_max``, n = 1..n_beta.

    The compiled twin of ``solve_sweep(prepare_lfs_lp(...))`` after the
    ``lp_candidates`` reduction, as the estimator runs it. Returns
    ``(X, eps, keep, a_red, b_red, alpha_red, n_iter)``: ``X[n - 1]`` the vertex
    over the kept features ``keep`` (all features when nothing is dropped),
    ``eps[n - 1]`` the epsilon it meets.
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
    mp = a.size
    xs = np.zeros((n_beta, mp))
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
        f_right = np.zeros(mp)
        f_right[new_right] = 1.0
        if new_has_left:
            f_left = np.zeros(mp)
            f_left[new_left] = 1.0
            xs[n - 1] = _finish(f_right, f_left, b, eps, alpha_p)
        else:
            xs[n - 1] = f_right
        right, left, has_right, has_left = new_right, new_left, True, new_has_left
    return xs, epsilons, keep, a, b, n_iter


# --------------------------------------------------------------------------- #
# Regions: eq. (10) weights, eq. (5) distances, radius and leave-one-out score
# --------------------------------------------------------------------------- #


_INV_LN2 = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01  # ln 2 in two parts (fdlibm): k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_SHIFTER = 6755399441055744.0  # 1.5 * 2**52: adding it rounds to the nearest integer
_EXP_MIN = -708.0  # below this exp(x) < 3.4e-308 is taken as 0
_TAYLOR = tuple(1.0 / math.factorial(q) for q in range(14))


@njit(nogil=True, cache=True)
def _exp_nonpositive(x, out, scale):  # pragma: no cover - compiled
    """``out = exp(x)`` for ``x <= 0``, within one ulp of libm, in loops that vectorise.

    numba calls libm's ``exp`` once per element (about 9 ns); the eq. (10)
    weights need one per point and previous subset. Here ``x = k ln 2 + r``
    with ``|r| <= ln(2) / 2``, ``exp(r)`` is its Taylor polynomial of degree
    13 (remainder below 4e-18) and ``2**k`` is built in the exponent bits of
    ``scale``. Values below ``_EXP_MIN`` give 0 (libm: a subnormal).
    """
    n = x.size
    for j in range(n):
        scale[j] = max(x[j], _EXP_MIN) * _INV_LN2 + _SHIFTER
    for j in range(n):
        xj = max(x[j], _EXP_MIN)
        k = scale[j] - _SHIFTER
        r = (xj - k * _LN2_HI) - k * _LN2_LO
        p = _TAYLOR[13]
        for q in range(12, -1, -1):
            p = p * r + _TAYLOR[q]
        out[j] = p
    bits = scale.view(np.int64)
    for j in range(n):  # the low mantissa bits of shifted k hold 2**51 + k
        bits[j] = (bits[j] + 1023) << 52
    for j in range(n):
        out[j] = out[j] * scale[j] if x[j] >= _EXP_MIN else 0.0


@njit(nogil=True, cache=True)
def _subspace_distances(XT, i, feats, out):  # pragma: no cover - compiled
    """``out[j] = ||x_i - x_j||`` over ``feats``, by differences in feature order.

    The loops run feature-outer over the feature-major ``XT``, so the sums of
    different points are independent (and vectorise) while each keeps its order.
    """
    out[:] = 0.0
    for t in range(feats.size):
        xf = XT[feats[t]]
        xi = xf[i]
        for j in range(out.size):
            diff = xi - xf[j]
            out[j] += diff * diff
    for j in range(out.size):
        out[j] = np.sqrt(out[j])


@njit(nogil=True, cache=True)
def _weights(XT, same, i, table, lengths, counts, rows, sigma, d):  # pragma: no cover
    """Eq. (10): ``sum_p count_p exp(-(d_p(j) - min d_p)^2 / sigma)``, normalised per side.

    ``XT`` holds the points feature-major (one contiguous row per feature that
    ``table`` names), so the sums over points run along memory.
    """
    n = XT.shape[1]
    w = np.zeros(n)
    arg = np.empty(n)
    term = np.empty(n)
    scale = np.empty(n)
    for r in rows:
        k = lengths[r]
        cnt = counts[r]
        if k == 0:  # every distance 0: weight exp(0) = 1
            for j in range(n):
                w[j] += cnt
            continue
        _subspace_distances(XT, i, table[r, :k], d)
        d_i = d[i]
        d[i] = np.inf  # i is not its own nearest same-class point
        d_same = np.inf
        d_opp = np.inf
        for j in range(n):
            if same[j]:
                d_same = min(d_same, d[j])
            else:
                d_opp = min(d_opp, d[j])
        d[i] = d_i
        for j in range(n):
            e = d[j] - (d_same if same[j] else d_opp)
            arg[j] = -(e * e) / sigma
        _exp_nonpositive(arg, term, scale)
        for j in range(n):
            w[j] += cnt * term[j]
    w[i] = 0.0
    t_same = 0.0
    t_opp = 0.0
    for j in range(n):
        if same[j]:
            t_same += w[j]
        else:
            t_opp += w[j]
    for j in range(n):
        tot = t_same if same[j] else t_opp
        if tot > 0:
            w[j] /= tot
    return w


@njit(nogil=True, cache=True)
def _class_distances(Xl, same, i, w):  # pragma: no cover - compiled
    """Eq. (5): ``a`` over ``i``'s class (``i`` excluded), ``b`` over the rest.

    ``Xl`` holds the points row-major: the sums of all features advance side
    by side (and vectorise), each over the points in order.
    """
    n, m = Xl.shape
    a = np.zeros(m)
    b = np.zeros(m)
    n_same = 0
    for j in range(n):
        n_same += same[j]
        if j == i:
            continue
        wj = w[j]
        out = a if same[j] else b
        for f in range(m):
            diff = Xl[j, f] - Xl[i, f]
            out[f] += wj * (diff * diff)
    return a / (n_same - 1), b / (n - n_same)


@njit(nogil=True, cache=True)
def _radius(dist, order, same, gamma, n_same_total, n):  # pragma: no cover - compiled
    """Sec. 3.2: the radius from the points ``order`` (the nearest, sorted, with ties).

    Returns ``(radius, n_in, n_in_same)``, the points within the radius and
    those of the representative's class, or ``radius = -1`` when deciding
    needs points beyond ``order`` (fewer than ``n``).
    """
    cnt = order.size
    complete = cnt == n
    n_opp_total = n - n_same_total
    # The first distinct distance u_k whose ball fails the impurity test.
    cum_same = 0.0
    cum_opp = 0.0
    u_prev = 0.0
    u_first = dist[order[0]]
    radius = -1.0
    g = 0
    pos = 0
    while pos < cnt:
        u = dist[order[pos]]
        while pos < cnt and dist[order[pos]] == u:
            if same[order[pos]]:
                cum_same += 1.0
            else:
                cum_opp += 1.0
            pos += 1
        if gamma * (cum_same - 1) / (n_same_total - 1) < cum_opp / n_opp_total:
            radius = u_first if g == 0 else 0.5 * (u_prev + u)
            break
        u_prev = u
        g += 1
    if radius < 0:
        if not complete:
            return -1.0, 0, 0
        radius = dist[order[n - 1]]
    if radius == 0.0:  # g == 0: the second distinct distance, if any, caps the tiny radius
        u_second = np.inf
        for q in range(pos, cnt):
            if dist[order[q]] != u_first:
                u_second = dist[order[q]]
                break
        if u_second == np.inf and not complete:
            return -1.0, 0, 0
        radius = _TINY_RADIUS if u_second == np.inf else min(_TINY_RADIUS, 0.5 * u_second)
    # Every point beyond ``order`` is farther than its last, which is >= the radius.
    n_in = 0
    n_in_same = 0
    while n_in < cnt and dist[order[n_in]] <= radius:
        n_in_same += same[order[n_in]]
        n_in += 1
    return radius, n_in, n_in_same


@njit(nogil=True, cache=True)
def _loo_score(XT, same, i, feats, gamma, dist, floor):  # pragma: no cover - compiled
    """Radius (sec. 3.2) and leave-one-out score ``DR / N_same - FAR / N_other``.

    A candidate that cannot beat ``floor`` (the best score of a smaller beta)
    stops early with score ``-inf``: ``(DR + same-class points not yet
    classified) / N_same - FAR / N_other`` bounds the final score from above
    (in floating point too: division and subtraction are monotone), so once it
    is at most ``floor`` the candidate loses, ties going to the smaller beta.
    """
    n = XT.shape[1]
    k = feats.size
    _subspace_distances(XT, i, feats, dist)
    n_same_total = 0
    for j in range(n):
        n_same_total += same[j]
    n_opp_total = n - n_same_total
    # The radius needs the nearest points only: sort the nearest few, more if needed.
    n_sorted = min(n, 64)
    while True:
        if n_sorted >= n:
            order = np.argsort(dist)  # the order among equal distances does not matter
        else:
            near = np.nonzero(dist <= np.partition(dist, n_sorted)[n_sorted])[0]
            order = near[np.argsort(dist[near])]
        radius, n_in, left_same = _radius(dist, order, same, gamma, n_same_total, n)
        if radius >= 0.0:
            break
        n_sorted *= 8
    if left_same / n_same_total <= floor:
        return radius, -np.inf
    if order.size < n:
        order = np.argsort(dist)
    # The subspace in rank order (feature-major), for the neighbour searches.
    ranked = np.empty(n)
    same_r = np.empty(n, dtype=np.bool_)
    Zs = np.empty((k, n))
    for r in range(n):
        ranked[r] = dist[order[r]]
        same_r[r] = same[order[r]]
    for t in range(k):
        xf = XT[feats[t]]
        for r in range(n):
            Zs[t, r] = xf[order[r]]
    buf = np.empty(n)
    dr = 0
    far = 0
    for pp in range(n_in):
        if (dr + left_same) / n_same_total - far / n_opp_total <= floor:
            return radius, -np.inf
        left_same -= same_r[pp]
        dp = ranked[pp]
        # An upper bound of the nearest distance from a few neighbours in rank ...
        ub = np.inf
        for r in range(max(0, pp - 4), min(n, pp + 5)):
            if r == pp:
                continue
            s = 0.0
            for t in range(k):
                diff = Zs[t, pp] - Zs[t, r]
                s += diff * diff
            ub = min(ub, s)
        # ... then every point that can be as near: |d(q, x_i) - d(p, x_i)| <= d(p, q).
        bound = np.sqrt(ub)
        tol = bound + _PRUNE_RTOL * (2.0 * dp + 3.0 * bound)
        lo = np.searchsorted(ranked, dp - tol)
        hi = np.searchsorted(ranked, dp + tol, side="right")
        buf[lo:hi] = 0.0
        for t in range(k):
            zp = Zs[t, pp]
            for r in range(lo, hi):
                diff = zp - Zs[t, r]
                buf[r] += diff * diff
        buf[pp] = np.inf
        best = np.inf
        for r in range(lo, hi):
            best = min(best, buf[r])
        n_tied = 0
        n_tied_same = 0
        for r in range(lo, hi):
            if buf[r] == best:
                n_tied += 1
                n_tied_same += same_r[r]
        if n_tied_same > n_tied - n_tied_same:
            if same_r[pp]:
                dr += 1
            else:
                far += 1
    score = dr / n_same_total - far / n_opp_total
    return radius, score if score > floor else -np.inf


@njit(nogil=True, cache=True)
def _one_representative(
    Xl, XT, same, i, w, alpha, gamma, n_beta, draws, use_draws, n_rounding, support_row
):  # pragma: no cover - compiled
    """Lines 5-11 of Algorithm 1 for one representative; writes ``support_row``.

    Returns ``(radius, beta, score, n_lp_iter)`` (0, NaN, -inf when no beta
    gives a feasible rounding).
    """
    n, m = Xl.shape
    a, b = _class_distances(Xl, same, i, w)
    alpha = min(alpha, m)
    xs, epsilons, keep, a_red, b_red, n_iter = lp_sweep(a, b, alpha, n_beta)
    dist = np.empty(n)
    scored = np.full((n_beta, alpha), -1, dtype=np.int64)
    scored_len = np.zeros(n_beta, dtype=np.int64)
    scored_val = np.empty((n_beta, 2))
    n_scored = 0
    best_n = -1
    best_score = -np.inf
    best_radius = 0.0
    best_s = -1
    offset = 0
    for n_b in range(1, n_beta + 1):
        ok, sel, used = _round(
            xs[n_b - 1],
            a_red,
            b_red,
            alpha,
            epsilons[n_b - 1],
            draws,
            offset,
            n_rounding,
            use_draws,
        )
        offset += used
        if not ok:
            continue
        feats = keep[sel]
        s_idx = -1
        for q in range(n_scored):
            if scored_len[q] == feats.size:
                match = True
                for t in range(feats.size):
                    if scored[q, t] != feats[t]:
                        match = False
                        break
                if match:
                    s_idx = q
                    break
        if s_idx < 0:
            radius, score = _loo_score(XT, same, i, feats, gamma, dist, best_score)
            s_idx = n_scored
            scored[s_idx, : feats.size] = feats
            scored_len[s_idx] = feats.size
            scored_val[s_idx, 0] = radius
            scored_val[s_idx, 1] = score
            n_scored += 1
        if best_n < 0 or scored_val[s_idx, 1] > best_score:
            best_n = n_b
            best_score = scored_val[s_idx, 1]
            best_radius = scored_val[s_idx, 0]
            best_s = s_idx
    if best_n < 0:
        return 0.0, np.nan, -np.inf, n_iter
    for t in range(scored_len[best_s]):
        support_row[scored[best_s, t]] = True
    return best_radius, best_n / n_beta, best_score, n_iter


@njit(nogil=True, cache=True)
def _fit_block(
    X,
    XT,
    y,
    reps,
    universe,
    table,
    lengths,
    counts,
    sigma,
    alpha,
    gamma,
    n_beta,
    draws,
    use_draws,
    n_rounding,
    support,
    radii,
    betas,
    scores,
    n_iter,
):  # pragma: no cover - compiled
    """Every representative of ``reps``: weights, LP sweep, rounding, scores.

    ``universe`` of shape (0, 0) means the exact method (every training point;
    ``table`` holds the distinct previous subsets, ``counts`` their
    multiplicities); otherwise row ``i`` lists ``i``'s candidate points (padded
    with -1) and ``table`` holds every training point's previous subset.
    ``X`` holds the training points row-major and ``XT`` feature-major (one
    contiguous row per feature), for sums over features and over points.
    """
    n = XT.shape[1]
    exact = universe.shape[0] == 0
    all_rows = np.arange(table.shape[0])
    for t in range(reps.size):
        i = reps[t]
        if exact:
            Xl = X
            XTl = XT
            same = y == y[i]
            i_loc = i
            rows = all_rows
            d = np.empty(n)
        else:
            width = 0
            while width < universe.shape[1] and universe[i, width] >= 0:
                width += 1
            rows = universe[i, :width].copy()
            Xl = X[rows]
            XTl = XT[:, rows]
            same = y[rows] == y[i]
            i_loc = 0
            while rows[i_loc] != i:
                i_loc += 1
            d = np.empty(width)
        w = _weights(XTl, same, i_loc, table, lengths, counts, rows, sigma, d)
        radii[i], betas[i], scores[i], n_iter[i] = _one_representative(
            Xl,
            XTl,
            same,
            i_loc,
            w,
            alpha,
            gamma,
            n_beta,
            draws[t],
            use_draws,
            n_rounding,
            support[i],
        )


# --------------------------------------------------------------------------- #
# Python driver: blocks of representatives on threads
# --------------------------------------------------------------------------- #


class IterationResult(NamedTuple):
    """One iteration of Algorithm 1 over all representatives."""

    support: BoolArray
    radii: FloatArray
    betas: FloatArray
    scores: FloatArray
    n_lp_iter: int


def subset_table(support: BoolArray, distinct: bool) -> tuple[IntArray, IntArray, FloatArray]:
    """Previous subsets as a padded table: ``(features, lengths, counts)``.

    ``distinct=True`` keeps each distinct subset once with its multiplicity
    (the exact method); otherwise one row per training point, count 1.
    """
    if distinct:
        # Rows packed to bytes compare as one opaque value (much faster than
        # unique(axis=0) on many features), in the same lexicographic order.
        packed = np.ascontiguousarray(np.packbits(support, axis=1))
        keys = packed.view(np.dtype((np.void, max(1, packed.shape[1])))).ravel()
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        rows = support[first]
        counts = np.bincount(inverse.ravel(), minlength=rows.shape[0]).astype(np.float64)
    else:
        rows = support
        counts = np.ones(support.shape[0])
    lengths = rows.sum(axis=1).astype(np.int64)
    width = max(1, int(lengths.max()) if lengths.size else 1)
    table = np.zeros((rows.shape[0], width), dtype=np.int64)
    r, c = np.nonzero(rows)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    table[r, np.arange(r.size) - starts[r]] = c
    return table, lengths, counts


def _compiled_input(X, y) -> tuple[FloatArray, IntArray]:
    """``X`` (float64) and ``y`` (int64) as writable C-contiguous arrays.

    numba compiles one specialisation per array type, and read-only is a
    type: a read-only ``X`` (a pandas frame's values, a joblib memmap) would
    compile the whole core again, silently, in the middle of a fit.
    """
    X = np.require(X, dtype=np.float64, requirements=["C", "W"])
    y = np.require(y, dtype=np.int64, requirements=["C", "W"])
    return X, y


def _run_block(X, XT, y, reps, args, rand, seeds, outputs) -> None:
    """The compiled core on one block (``XT``: ``X`` feature-major), writing into ``outputs``."""
    use_draws, n_rounding, n_draws = rand
    if use_draws:
        draws = np.stack([np.random.default_rng(int(seeds[i])).random(n_draws) for i in reps])
    else:
        draws = np.zeros((reps.size, 1))
    univ, table, lengths, counts, sigma, alpha, gamma, n_beta = args
    _fit_block(
        X, XT, y, reps, univ, table, lengths, counts, sigma, alpha, gamma, n_beta,
        draws, use_draws, n_rounding, *outputs,
    )  # fmt: skip


def _block_result(X, y, reps, args, rand, seeds):
    """One block as a joblib task: its rows of (support, radii, betas, scores, n_iter)."""
    X, y = _compiled_input(X, y)  # joblib's memmaps are read-only
    XT = np.ascontiguousarray(X.T)
    n, m = X.shape
    outputs = (
        np.zeros((n, m), dtype=bool),
        np.zeros(n),
        np.full(n, np.nan),
        np.full(n, -np.inf),
        np.zeros(n, dtype=np.int64),
    )
    _run_block(X, XT, y, reps, args, rand, seeds, outputs)
    return tuple(out[reps] for out in outputs)


def _external_backend() -> bool:
    """Whether the caller chose a joblib backend other than joblib's own (e.g. Dask)."""
    backend, _ = get_active_backend()
    own = {"LokyBackend", "ThreadingBackend", "SequentialBackend", "MultiprocessingBackend"}
    return type(backend).__name__ not in own


def fit_iteration(
    X: FloatArray,
    y: IntArray,
    support: BoolArray,
    universe: IntArray | None,
    seeds: IntArray,
    *,
    alpha: int,
    gamma: float,
    sigma: float,
    n_beta: int,
    rounding: str,
    n_rounding: int,
    n_threads: int = 1,
    advance: Callable[[int], None] | None = None,
) -> IterationResult:
    """One iteration of Algorithm 1 (lines 3-12): every representative's new subset.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,)
        Class codes.
    support : ndarray of shape (n_samples, n_features), dtype=bool
        Previous subsets (all False in the first iteration).
    universe : ndarray of shape (n_samples, n_universe) or None
        Candidate points of each representative (see ``nearest_candidates``),
        or None for the exact method.
    seeds : ndarray of shape (n_samples,)
        Random-rounding seed of each representative: the draws are
        ``np.random.default_rng(seed).random`` consumed in order, beta after
        beta, ``(n_rounding, n_fractional)`` at a time.
    n_threads : int
        Threads over blocks of representatives.
    advance : callable, optional
        Called with the number of representatives of each finished block.
    """
    X, y = _compiled_input(X, y)
    XT = np.ascontiguousarray(X.T)  # feature-major, for the sums over points
    n, m = X.shape
    exact = universe is None
    table, lengths, counts = subset_table(support, distinct=exact)
    univ = np.empty((0, 0), dtype=np.int64) if exact else np.ascontiguousarray(universe, np.int64)
    out_support = np.zeros((n, m), dtype=bool)
    radii = np.zeros(n)
    betas = np.full(n, np.nan)
    scores = np.full(n, -np.inf)
    n_iter = np.zeros(n, dtype=np.int64)
    use_draws = rounding == "random"
    # Block sizes: enough blocks for progress and balance, few enough to amortise calls;
    # random rounding holds 2 n_beta n_rounding uniforms per representative of a block.
    n_blocks = max(min(n, 8 * n_threads), min(n, 200))
    if use_draws:
        n_blocks = max(n_blocks, -(-n // 8))
    blocks = [np.arange(k, n, n_blocks, dtype=np.int64) for k in range(n_blocks)]
    args = (univ, table, lengths, counts, float(sigma), int(alpha), float(gamma), int(n_beta))
    rand = (use_draws, int(n_rounding), 2 * n_beta * n_rounding)

    def run(reps: IntArray) -> int:
        _run_block(X, XT, y, reps, args, rand, seeds, (out_support, radii, betas, scores, n_iter))
        return int(reps.size)

    if n_threads > 1 and _external_backend():
        # A joblib backend set by the caller (e.g. Dask): blocks are its tasks.
        parts = Parallel(n_jobs=n_threads, return_as="generator")(
            delayed(_block_result)(X, y, reps, args, rand, seeds) for reps in blocks
        )
        for reps, part in zip(blocks, parts):
            for dest, src in zip((out_support, radii, betas, scores, n_iter), part):
                dest[reps] = src
            if advance is not None:
                advance(reps.size)
    elif n_threads <= 1 or n_blocks == 1:
        for reps in blocks:
            done = run(reps)
            if advance is not None:
                advance(done)
    else:
        run(blocks[0])  # compiles (or loads) the kernel once, on this thread
        if advance is not None:
            advance(blocks[0].size)
        pool = ThreadPoolExecutor(n_threads)
        try:
            pending = {pool.submit(run, reps) for reps in blocks[1:]}
            while pending:
                finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    done = fut.result()
                    if advance is not None:
                        advance(done)
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return IterationResult(out_support, radii, betas, scores, int(n_iter.sum()))


#: Name of the thread that compiles the core (see :func:`compiling`).
COMPILE_THREAD = "localselect-lfs-compile"


def compiling() -> bool:
    """Whether a thread is compiling the core right now (after a Ctrl-C, say).

    numba cannot be stopped mid-compile, and an interpreter that finalises
    under it may crash; the command line then leaves with ``os._exit``.
    """
    return any(t.name == COMPILE_THREAD and t.is_alive() for t in threading.enumerate())


#: What a fit reports while numba compiles the core (first use after installing).
COMPILE_MESSAGE = "compiling the LFS core once (about a minute; cached afterwards)"


def _cached_on_disk() -> bool:
    """Whether numba's disk cache holds a compiled :func:`_fit_block` for this source."""
    try:  # numba's cache index (private API): empty when missing or stale
        cache: Any = _fit_block._cache  # type: ignore[attr-defined]
        return bool(cache._cache_file._load_index())
    except Exception:
        return False


def ensure_compiled(verbose: int = 0, logger=None) -> bool:
    """Compile the core before a fit when numba's cache is cold, and say so.

    The first fit after installing (or after an edit of this module) compiles
    :func:`_fit_block` and everything it calls, about a minute of CPU time.
    When neither this process nor the disk cache has it, this logs
    :data:`COMPILE_MESSAGE` at INFO (``verbose >= 1``) and compiles on a tiny
    problem inside a progress task of that name, which the command line
    shows as a status line with the elapsed time. Otherwise it does nothing
    (a cached core loads in a few seconds on the first call).

    Returns
    -------
    compiled : bool
        Whether this call compiled the core.
    """
    if _fit_block.signatures or _cached_on_disk():
        return False
    if verbose >= 1 and logger is not None:
        logger.info(COMPILE_MESSAGE)
    X = np.array([[0.0, 1.0], [0.5, 0.0], [2.0, 1.5], [2.5, 3.0]])
    y = np.array([0, 0, 1, 1])
    failure: list[BaseException] = []
    done = threading.Event()

    def compile_core() -> None:
        try:
            fit_iteration(
                X, y, np.zeros(X.shape, dtype=bool), None, np.zeros(4, dtype=np.int64),
                alpha=1, gamma=0.2, sigma=1.0, n_beta=2, rounding="exact", n_rounding=1,
            )  # fmt: skip
        except BaseException as exc:  # handed to the caller's thread
            failure.append(exc)
        finally:
            done.set()

    # numba compiles on a worker thread: a Ctrl-C landing inside LLVM's callbacks
    # on the main thread would be swallowed there and break the compile, while
    # here the main thread only waits, so KeyboardInterrupt stops the fit at once.
    with progress_task(None, COMPILE_MESSAGE, unit="", verbose=0, logger=logger) as task:
        threading.Thread(target=compile_core, name=COMPILE_THREAD, daemon=True).start()
        while not done.wait(0.5):
            task.advance(0)  # listeners draw a task only when it reports
    if failure:
        raise failure[0]
    return True
