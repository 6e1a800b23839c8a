"""Slow, obviously correct LLDS references: dictionaries and loops over rows.

Every quantity is computed from its definition (ALGORITHMS.md section 4) on
Python tuples, counting only the rows complete on the features considered.
Use on small tables only.
"""

from __future__ import annotations

import math
from collections import Counter
from itertools import combinations, product


def complete_rows(X, y, subset):
    """(profile tuple, label) of every row complete on ``subset`` and on y."""
    rows = []
    for row, label in zip(X, y):
        values = tuple(row[j] for j in subset)
        if label is None or any(v is None for v in values):
            continue
        rows.append((values, label))
    return rows


def lift(rows, profile, label):
    n = len(rows)
    n_x = sum(1 for v, _ in rows if v == profile)
    n_y = sum(1 for _, c in rows if c == label)
    n_xy = sum(1 for v, c in rows if v == profile and c == label)
    return n_xy * n / (n_x * n_y) if n_xy else 0.0


def eta(rows, window=None):
    """eta(W) = sum_W P(x) KL(P(Y|x)||P(Y)) / sum_W P(x) CE(P(Y|x), P(Y))."""
    n = len(rows)
    p_y = {c: k / n for c, k in Counter(c for _, c in rows).items()}
    n_x = Counter(v for v, _ in rows)
    n_xy = Counter(rows)
    profiles = set(n_x) if window is None else set(window) & set(n_x)
    num = den = 0.0
    for x in profiles:
        p_x = n_x[x] / n
        for c in p_y:
            p_c_x = n_xy[(x, c)] / n_x[x]
            if p_c_x > 0:
                num += p_x * p_c_x * math.log(p_c_x / p_y[c])
                den += -p_x * p_c_x * math.log(p_y[c])
    return 0.0 if den <= 0 else num / den


def mutual_information(rows):
    n = len(rows)
    p_y = Counter(c for _, c in rows)
    p_x = Counter(v for v, _ in rows)
    return sum(
        k / n * math.log((k / n) / (p_x[x] / n * p_y[c] / n))
        for (x, c), k in Counter(rows).items()
    )


def entropy(labels):
    n = len(labels)
    return -sum(k / n * math.log(k / n) for k in Counter(labels).values())


def all_profiles(X, y, *, max_size, min_support, target):
    """Every (subset, profile) with support >= min_support, and its lift for ``target``.

    Returns a dict (subset, profile) -> (lift, support, n_complete).
    """
    m = len(X[0])
    values = [sorted({row[j] for row in X if row[j] is not None}) for j in range(m)]
    out = {}
    for k in range(1, max_size + 1):
        for subset in combinations(range(m), k):
            rows = complete_rows(X, y, subset)
            if not rows:
                continue
            for profile in product(*(values[j] for j in subset)):
                count = sum(1 for v, _ in rows if v == profile)
                if count == 0 or count < min_support * len(rows) - 1e-9:
                    continue
                out[(subset, profile)] = (
                    lift(rows, profile, target),
                    count / len(rows),
                    len(rows),
                )
    return out


def all_subsets(X, y, *, max_size):
    """eta of the whole range of every subset of at most ``max_size`` features."""
    m = len(X[0])
    out = {}
    for k in range(1, max_size + 1):
        for subset in combinations(range(m), k):
            rows = complete_rows(X, y, subset)
            if rows:
                out[subset] = eta(rows)
    return out


def all_windows(X, y, *, max_size, min_support):
    """eta(W) of every window with support >= min_support: (subset, window) -> (eta, support)."""
    m = len(X[0])
    out = {}
    for k in range(1, max_size + 1):
        for subset in combinations(range(m), k):
            rows = complete_rows(X, y, subset)
            if not rows:
                continue
            observed = sorted(set(v for v, _ in rows))
            for r in range(1, len(observed) + 1):
                for window in combinations(observed, r):
                    support = sum(1 for v, _ in rows if v in window) / len(rows)
                    if support >= min_support - 1e-12:
                        out[(subset, window)] = (eta(rows, window), support)
    return out
