"""Compiled regions of LFS (numba): lines 4-11 of Algorithm 1 for blocks of representatives.

One call of :func:`fit_block` does, for each representative of a block and
with no Python in between: the eq. (10) weights from the previous subsets,
the distances ``a``, ``b`` of eq. (5), the exact search of LP (9) for every
beta (:func:`localselect.lfs._lp.lp_sweep`), exact or random rounding, and
the radius and leave-one-out score of each candidate subset (sec. 3.2); the
best beta wins, ties to the smallest. The driver is :mod:`localselect.lfs._fit`.

Differences from the numpy references in the tests (``_reference_numpy``),
all in the last bits only: sums run in index order (numpy sums pairwise), and
the eq. (10) weights are summed over distinct subsets weighted by their
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

import numpy as np
from numba import njit

from localselect.lfs._lp import _round, lp_sweep

__all__ = ["fit_block"]

#: Radius used when the impurity test fails at distance 0 (as in the references).
_TINY_RADIUS = 1e-6
#: Relative rounding margin of the triangle-inequality pruning.
_PRUNE_RTOL = 1e-9


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
def _radius_by_rank(dist, same, gamma, n_same_total, n):  # pragma: no cover - compiled
    """Sec. 3.2's radius from the nearest points only: sort the nearest few, more if needed.

    Returns ``(radius, n_in, n_in_same, order)``, ``order`` the points sorted
    by distance (at least those the radius needed; all of them for ``n`` or
    fewer points).
    """
    n_sorted = min(n, 64)
    while True:
        if n_sorted >= n:
            order = np.argsort(dist)  # the order among equal distances does not matter
        else:
            near = np.nonzero(dist <= np.partition(dist, n_sorted)[n_sorted])[0]
            order = near[np.argsort(dist[near])]
        radius, n_in, n_in_same = _radius(dist, order, same, gamma, n_same_total, n)
        if radius >= 0.0:
            return radius, n_in, n_in_same, order
        n_sorted *= 8


@njit(nogil=True, cache=True)
def _in_rank_order(XT, feats, dist, same, order):  # pragma: no cover - compiled
    """The distances, classes and subspace coordinates (feature-major) in rank order."""
    n = order.size
    k = feats.size
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
    return ranked, same_r, Zs


@njit(nogil=True, cache=True)
def _nearest_agree(ranked, same_r, Zs, pp, buf):  # pragma: no cover - compiled
    """Whether most of point ``pp``'s nearest neighbours (ties all counted) share its class.

    ``pp`` is a rank; the candidates are the points whose distance to the
    representative can be that near (triangle inequality, see the module).
    """
    n = ranked.size
    k = Zs.shape[0]
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
    return n_tied_same > n_tied - n_tied_same


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
    _subspace_distances(XT, i, feats, dist)
    n_same_total = 0
    for j in range(n):
        n_same_total += same[j]
    n_opp_total = n - n_same_total
    radius, n_in, left_same, order = _radius_by_rank(dist, same, gamma, n_same_total, n)
    if left_same / n_same_total <= floor:
        return radius, -np.inf
    if order.size < n:
        order = np.argsort(dist)
    # The subspace in rank order (feature-major), for the neighbour searches.
    ranked, same_r, Zs = _in_rank_order(XT, feats, dist, same, order)
    buf = np.empty(n)
    dr = 0
    far = 0
    for pp in range(n_in):
        if (dr + left_same) / n_same_total - far / n_opp_total <= floor:
            return radius, -np.inf
        left_same -= same_r[pp]
        if _nearest_agree(ranked, same_r, Zs, pp, buf):
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
def fit_block(
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
