"""A slow, obviously correct LFS: loops, HiGHS and random rounding, as in the paper.

Written straight from the paper (Algorithm 1, eqs. (5), (8)-(11)) and
ALGORITHMS.md section 1, with no vectorisation and no structure exploited, to
check the fast implementation on small data. Seeds follow the estimator's
contract: ``check_random_state(random_state).randint(0, 2**31 - 1, (tau, N))``
gives one seed per iteration and representative, and each beta draws
``(n_rounding, n_fractional)`` uniforms from ``np.random.default_rng(seed)``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import linprog
from sklearn.utils import check_random_state


def highs_lp(a, b, alpha, eps):
    """LP (9) by HiGHS; returns (x, fun) or None when infeasible."""
    M = len(a)
    A = np.vstack([np.ones(M), -np.ones(M), -np.asarray(b)])
    res = linprog(a, A_ub=A, b_ub=[alpha, -1.0, -eps], bounds=(0, 1), method="highs")
    if res.status != 0:
        return None
    return res.x, res.fun


def highs_eps_max(b, alpha):
    """LP (8) by HiGHS."""
    M = len(b)
    A = np.vstack([np.ones(M), -np.ones(M)])
    res = linprog(-np.asarray(b), A_ub=A, b_ub=[alpha, -1.0], bounds=(0, 1), method="highs")
    return -res.fun


def dist(u, v, feats):
    return math.sqrt(sum((u[m] - v[m]) ** 2 for m in feats))


def weights(X, y, support, sigma):
    """Eq. (10) with loops: W[i][j]."""
    N = len(X)
    W = np.zeros((N, N))
    for i in range(N):
        same = [j for j in range(N) if y[j] == y[i] and j != i]
        opp = [j for j in range(N) if y[j] != y[i]]
        for p in range(N):
            feats = [m for m in range(X.shape[1]) if support[p][m]]
            for group in (same, opp):
                d = {j: dist(X[i], X[j], feats) for j in group}
                dmin = min(d.values())
                for j in group:
                    W[i][j] += math.exp(-((d[j] - dmin) ** 2) / sigma) / N
        for group in (same, opp):
            total = sum(W[i][j] for j in group)
            for j in group:
                W[i][j] /= total
    return W


def radius(X, y, i, feats, gamma):
    N = len(X)
    n_same = sum(1 for j in range(N) if y[j] == y[i])
    n_opp = N - n_same
    d = [dist(X[i], X[j], feats) for j in range(N)]
    u = sorted(set(d))
    for k, uk in enumerate(u):
        ns = sum(1 for j in range(N) if d[j] <= uk and y[j] == y[i])
        no = sum(1 for j in range(N) if d[j] <= uk and y[j] != y[i])
        if gamma * (ns - 1) / (n_same - 1) < no / n_opp:
            r = u[0] if k == 0 else (u[k - 1] + uk) / 2
            if r == 0:
                r = 1e-6 if len(u) == 1 else min(1e-6, u[1] / 2)
            return r
    return u[-1]


def classified_as(X, y, p, target, feats, exclude_self=True):
    """Whether point p's nearest other training points are mostly of class target."""
    N = len(X)
    d = {j: dist(X[p], X[j], feats) for j in range(N) if not (exclude_self and j == p)}
    dmin = min(d.values())
    tied = [j for j in d if d[j] <= dmin]
    n_t = sum(1 for j in tied if y[j] == target)
    return n_t > len(tied) - n_t


def score(X, y, i, feats, gamma):
    N = len(X)
    r = radius(X, y, i, feats, gamma)
    n_same = sum(1 for j in range(N) if y[j] == y[i])
    dr = far = 0
    for p in range(N):
        if dist(X[i], X[p], feats) <= r and classified_as(X, y, p, y[i], feats):
            if y[p] == y[i]:
                dr += 1
            else:
                far += 1
    return r, dr / n_same - far / (N - n_same)


def fit(
    X,
    y,
    *,
    alpha=19,
    gamma=0.2,
    tau=2,
    sigma=1.0,
    n_beta=20,
    n_rounding=2000,
    random_state=0,
    rounding="random",
):
    """Algorithm 1. Returns (support, radii, betas).

    ``rounding="exact"`` takes every outcome of positive probability (each
    fractional entry 0 or 1) instead of ``n_rounding`` draws.
    """
    X = np.asarray(X, dtype=float)
    y = list(y)
    N, M = X.shape
    alpha = min(alpha, M)
    seeds = check_random_state(random_state).randint(0, 2**31 - 1, size=(tau, N))
    support = np.zeros((N, M), dtype=bool)
    for it in range(tau):
        W = weights(X, y, support, sigma)
        new = np.zeros((N, M), dtype=bool)
        radii, betas = np.zeros(N), np.full(N, np.nan)
        for i in range(N):
            same = [j for j in range(N) if y[j] == y[i] and j != i]
            opp = [j for j in range(N) if y[j] != y[i]]
            a = np.zeros(M)
            b = np.zeros(M)
            for m in range(M):
                a[m] = sum(W[i][j] * (X[i, m] - X[j, m]) ** 2 for j in same) / len(same)
                b[m] = sum(W[i][j] * (X[i, m] - X[j, m]) ** 2 for j in opp) / len(opp)
            eps_max = highs_eps_max(b, alpha)
            rng = np.random.default_rng(seeds[it][i])
            best = None
            for n in range(1, n_beta + 1):
                eps = n / n_beta * eps_max
                sol = highs_lp(a, b, alpha, min(eps, eps_max))
                if sol is None:
                    continue
                x = np.clip(sol[0], 0.0, 1.0)
                x[x < 1e-9] = 0.0
                x[x > 1 - 1e-9] = 1.0
                frac = [m for m in range(M) if 0 < x[m] < 1]
                if rounding == "exact":
                    draws = [
                        [0.0 if bit else 1.0 for bit in bits]
                        for bits in itertools.product((0, 1), repeat=len(frac))
                    ]
                else:
                    draws = rng.random((n_rounding, len(frac)))
                outcomes = set()
                for row in draws:
                    f = [x[m] == 1.0 for m in range(M)]
                    for col, m in enumerate(frac):
                        f[m] = bool(row[col] < x[m])
                    outcomes.add(tuple(f))
                feasible = []
                for f in outcomes:
                    count = sum(f)
                    bf = sum(b[m] for m in range(M) if f[m])
                    if 1 <= count <= alpha and bf >= eps - 1e-12 * abs(eps):
                        af = sum(a[m] for m in range(M) if f[m])
                        feasible.append((af, count, f))
                if not feasible:
                    continue
                feasible.sort(key=lambda t: (t[0], t[1]))
                f = feasible[0][2]
                feats = [m for m in range(M) if f[m]]
                r, s = score(X, y, i, feats, gamma)
                if best is None or s > best[0]:
                    best = (s, feats, r, n / n_beta)
            if best is not None:
                new[i, best[1]] = True
                radii[i], betas[i] = best[2], best[3]
        support = new
    return support, radii, betas


def predict(X_train, y_train, support, radii, X_query):
    """Eq. (11) with loops, and the no-vote fallback. Returns the similarities S."""
    classes = sorted(set(y_train))
    N = len(X_train)
    out = []
    for q in X_query:
        sphere = dict.fromkeys(classes, 0.0)
        nearest = dict.fromkeys(classes, 0.0)
        eta = dict.fromkeys(classes, 0)
        for i in range(N):
            feats = [m for m in range(X_train.shape[1]) if support[i][m]]
            if not feats:
                continue
            c = y_train[i]
            eta[c] += 1
            d = [dist(q, X_train[j], feats) for j in range(N)]
            dmin = min(d)
            tied = [j for j in range(N) if d[j] <= dmin]
            n_c = sum(1 for j in tied if y_train[j] == c)
            wins = n_c > len(tied) - n_c
            nearest[c] += wins
            if d[i] <= radii[i] and wins:
                sphere[c] += 1
        votes = sphere if any(sphere.values()) else nearest
        out.append([votes[c] / eta[c] if eta[c] else 0.0 for c in classes])
    return np.array(out)
