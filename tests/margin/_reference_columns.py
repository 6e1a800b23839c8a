"""Slow, obviously correct references for ``diff`` per input column (nominal, NaN, ramp).

One pair, one column at a time, following the texts they cite:

* :func:`corelearn_diff` and :func:`rrelieff`: RReliefF (Robnik-Sikonja and
  Kononenko 2003, Fig. 3) with CORElearn's ``diff`` (``estimationReg::CAdiff``,
  ``DAdiff``, ``NAnumDiff``, ``CARamp``) and its neighbour selection
  (``prepareDistanceFactors`` with ``marray::sortKsmallest``), transliterated;
* :func:`relieff_classes`: ReliefF (Kononenko 1994) with ``diff`` 0/1 for a
  nominal column and the class-conditional rule for a missing value
  (``1 - P(v | c)``; ``1 - sum_v P(v | c) P(v | c')`` when both are missing).

Only for small data in tests.
"""

from __future__ import annotations

import math

import numpy as np


def _laplace(values, n_bins, n_rows):
    """``P(v) = (n_v + 1) / (N + B - n_missing)`` for bins ``0 .. B-1`` (None: missing)."""
    n_missing = sum(v is None for v in values)
    return [
        (sum(1 for v in values if v == b) + 1) / (n_rows + n_bins - n_missing)
        for b in range(n_bins)
    ]


class CorelearnColumns:
    """CORElearn's ``diff`` of every column of ``X`` (NaN missing, ``nominal`` level codes)."""

    def __init__(self, X, nominal, n_levels, equal=0.0, different=1.0):
        self.X, self.nominal = X, nominal
        n, a = X.shape
        self.low, self.span, self.step, self.prob = [], [], [], []
        intervals = 5 if n // 5 >= 5 else max(2, n // 5)
        for f in range(a):
            known = [v for v in X[:, f] if not math.isnan(v)]
            low = min(known) if known else 0.0
            span = (max(known) - low) if known else 0.0
            self.low.append(low)
            self.span.append(span)
            if nominal[f]:
                bins = [None if math.isnan(v) else int(v) for v in X[:, f]]
                self.prob.append(_laplace(bins, n_levels[f], n))
                self.step.append(None)
            else:
                step = span / intervals * 1.000001 if span > 0 else math.inf
                bins = [None if math.isnan(v) else int((v - low) / step) for v in X[:, f]]
                self.prob.append(_laplace(bins, intervals, n))
                self.step.append(step)
        self.equal, self.different = equal, different

    def _bin(self, f, v):
        return int(v) if self.nominal[f] else int((v - self.low[f]) / self.step[f])

    def diff(self, f, i, j):
        u, v = self.X[i, f], self.X[j, f]
        p = self.prob[f]
        if math.isnan(u) and math.isnan(v):
            return 1.0 - sum(q * q for q in p)
        if math.isnan(u) or math.isnan(v):
            known = v if math.isnan(u) else u
            return 1.0 - p[self._bin(f, known)]
        if self.nominal[f]:
            return 0.0 if u == v else 1.0
        span = self.span[f]
        if span == 0:
            return 0.0
        return ramp(abs(u - v), span * self.equal, span * self.different)

    def distance(self, i, j):
        a = self.X.shape[1]
        cols = [f for f in range(a) if self.nominal[f]] + [
            f for f in range(a) if not self.nominal[f]
        ]
        total = 0.0
        for f in cols:  # CORElearn's order: the nominal columns, then the numeric ones
            total += self.diff(f, i, j)
        return total


def ramp(d, equal, different):
    """CORElearn's ``CARamp``: 0 up to ``equal``, 1 from ``different``, linear between."""
    if d >= different:
        return 1.0
    if d <= equal:
        return 0.0
    return (d - equal) * (1.0 / (different - equal))


def corelearn_neighbours(dist, i, k):
    """``prepareDistanceFactors``: the heap selection of ``k + 1``, then ``i`` removed.

    ``marray::sortKsmallest(k + 1)`` on ``(dist[j], j)`` records in index order
    (a min-heap, 1-based positions, strict comparisons of the keys), the
    record of ``i`` searched from the end and overwritten by the last (the
    nearest), and the ``k`` records before the last taken, nearest first.
    Returns the list of ``(index, distance)``.
    """
    table = [(dist[j], j) for j in range(len(dist))]
    edge = len(table)

    def pushdown(first, last):
        r = first
        while r <= last // 2:
            c2, c1, parent = 2 * r, 2 * r - 1, r - 1
            if last == c2:
                if table[parent][0] > table[c1][0]:
                    table[parent], table[c1] = table[c1], table[parent]
                break
            if table[parent][0] > table[c1][0] and not table[c1][0] > table[c2][0]:
                table[parent], table[c1] = table[c1], table[parent]
                r = c2
            elif table[parent][0] > table[c2][0] and table[c1][0] > table[c2][0]:
                table[parent], table[c2] = table[c2], table[parent]
                r = c2 + 1
            else:
                break

    kk = min(k + 1, edge)
    for r in range(edge // 2, 0, -1):
        pushdown(r, edge)
    e = edge
    while e > max(edge - kk, 1):
        e -= 1
        table[e], table[0] = table[0], table[e]
        pushdown(1, e)
    for p in range(edge - 1, -1, -1):
        if table[p][1] == i:
            table[p] = table[edge - 1]
            break
    return [(table[edge - 2 - t][1], table[edge - 2 - t][0]) for t in range(k)]


def rrelieff(X, y, nominal, n_levels, k, weights="equal", sigma=20.0, equal=0.0, different=1.0):
    """RReliefF, Fig. 3 of the paper, every row a reference, CORElearn's diff and neighbours."""
    n, a = X.shape
    cols = CorelearnColumns(X, nominal, n_levels, equal, different)
    y_span = max(y) - min(y)
    n_dc, n_da, n_dcda = 0.0, np.zeros(a), np.zeros(a)
    for i in range(n):
        dist = [cols.distance(i, j) for j in range(n)]
        near = corelearn_neighbours(dist, i, k)
        if weights == "equal":
            raw = [1.0] * k
        else:
            raw, factor = [], 1.0
            for t, (_, d) in enumerate(near):
                if t > 0 and d != near[t - 1][1]:
                    factor = math.exp(-(t * t) / (sigma * sigma))
                raw.append(factor)
        for (j, _), w in zip(near, raw, strict=True):
            dij = w / sum(raw)
            dc = ramp(abs(y[i] - y[j]), y_span * equal, y_span * different)
            n_dc += dc * dij
            for f in range(a):
                n_da[f] += cols.diff(f, i, j) * dij
                n_dcda[f] += dc * cols.diff(f, i, j) * dij
    return n_dcda / n_dc - (n_da - n_dcda) / (n - n_dc)


def relieff_classes(X, y, nominal, k):
    """ReliefF (Kononenko 1994) with per-column diff; missing values by class (see module)."""
    n, a = X.shape
    classes, counts = np.unique(y, return_counts=True)
    prior = dict(zip(classes, counts / n, strict=True))

    def known(f, c):
        vals = [X[r, f] for r in range(n) if not math.isnan(X[r, f]) and y[r] == c]
        return vals or [X[r, f] for r in range(n) if not math.isnan(X[r, f])]

    def scaled(f, v):
        vals = [w for w in X[:, f] if not math.isnan(w)]
        span = max(vals) - min(vals)
        return (v - min(vals)) / span if span > 0 else 0.0

    def entry(f, u, cu, v, cv):
        def eq(s, t):
            return (0.0 if s == t else 1.0) if nominal[f] else abs(scaled(f, s) - scaled(f, t))

        if not math.isnan(u) and not math.isnan(v):
            return eq(u, v)
        if math.isnan(u) and math.isnan(v):
            vu, vv = known(f, cu), known(f, cv)
            return sum(eq(s, t) for s in vu for t in vv) / (len(vu) * len(vv))
        value, cls = (v, cu) if math.isnan(u) else (u, cv)
        vals = known(f, cls)
        return sum(eq(value, t) for t in vals) / len(vals)

    def diff(i, j):
        return np.array([entry(f, X[i, f], y[i], X[j, f], y[j]) for f in range(a)])

    W = np.zeros(a)
    for i in range(n):
        d = {j: diff(i, j) for j in range(n) if j != i}
        for c in classes:
            members = sorted((j for j in d if y[j] == c), key=lambda j: (d[j].sum(), j))
            near = members[:k]
            if not near:
                continue
            mean = sum(d[j] for j in near) / len(near)
            if c == y[i]:
                W -= mean / n
            else:
                W += prior[c] / (1 - prior[y[i]]) * mean / n
    return W
