"""Slow references for the margin kernels on data with missing values (NaN).

The difference rule of :mod:`localselect.margin._missing`, written one entry at
a time from its definition, and the Relief, ReliefF, IM4E/I-RELIEF and
IMMIGRATE formulas of :mod:`tests.margin._reference` written on top of it.
"""

from __future__ import annotations

import numpy as np


def _softmax(values, sigma):
    v = np.asarray(values, dtype=float)
    e = np.exp(-(v - v.min()) / sigma)
    return e / e.sum()


def _entropy(p):
    return -sum(pi * np.log(pi) for pi in p if pi > 0)


def _known(X, y, c, f):
    """Known values of feature f in class c (None: every class); pooled if the class has none."""
    vals = [X[n, f] for n in range(len(X)) if not np.isnan(X[n, f]) and (c is None or y[n] == c)]
    if not vals and c is not None:
        return _known(X, y, None, f)
    return vals


def entry_diff(X, y, a, ca, b, cb, f):
    """Difference of values a (class ca) and b (class cb) of feature f; None: no class."""
    if not np.isnan(a) and not np.isnan(b):
        return abs(a - b)
    if np.isnan(a) and np.isnan(b):
        va, vb = _known(X, y, ca, f), _known(X, y, cb, f)
        if not va:
            return 0.0
        return sum(abs(u - v) for u in va for v in vb) / (len(va) * len(vb))
    value, cls = (b, ca) if np.isnan(a) else (a, cb)
    vals = _known(X, y, cls, f)
    if not vals:
        return 0.0
    return sum(abs(value - v) for v in vals) / len(vals)


def diff(X, y, i, j):
    """Completed |x_i - x_j| of two training samples."""
    return np.array([entry_diff(X, y, X[i, f], y[i], X[j, f], y[j], f) for f in range(X.shape[1])])


def query_diff(X, y, x, j):
    """Completed |x - x_j| of a query (no class) and a training sample."""
    return np.array([entry_diff(X, y, x[f], None, X[j, f], y[j], f) for f in range(X.shape[1])])


def relief(X, y):
    """Algorithm 1 with M = N on completed differences."""
    n_samples, a = X.shape
    w = np.zeros(a)
    for i in range(n_samples):
        d = {j: diff(X, y, i, j) for j in range(n_samples) if j != i}
        hits = [j for j in d if y[j] == y[i]]
        misses = [j for j in d if y[j] != y[i]]
        nh = min(hits, key=lambda j: (np.sum(d[j] ** 2), j))
        nm = min(misses, key=lambda j: (np.sum(d[j] ** 2), j))
        w += (d[nm] ** 2 - d[nh] ** 2) / n_samples
    return w


def relieff(X, y, k):
    """ReliefF on completed differences of range-scaled features."""
    n_samples, a = X.shape
    span = np.nanmax(X, axis=0) - np.nanmin(X, axis=0)
    Xs = np.column_stack(
        [
            (X[:, f] - np.nanmin(X[:, f])) / span[f] if span[f] > 0 else 0 * X[:, f]
            for f in range(a)
        ]
    )
    classes, counts = np.unique(y, return_counts=True)
    prior = dict(zip(classes, counts / n_samples))
    W = np.zeros(a)
    for i in range(n_samples):
        d = {j: diff(Xs, y, i, j) for j in range(n_samples) if j != i}
        for c in classes:
            members = sorted((j for j in d if y[j] == c), key=lambda j: (d[j].sum(), j))
            near = members[:k]
            if not near:
                continue
            mean = sum(d[j] for j in near) / len(near)
            if c == y[i]:
                W -= mean / n_samples
            else:
                W += prior[c] / (1 - prior[y[i]]) * mean / n_samples
    return W


def margin_vector_step(X, y, w, sigma, sample_weight, outlier=False):
    """z and the entropy term of IM4E / I-RELIEF on completed differences."""
    n_samples, a = X.shape
    z = np.zeros(a)
    entropy = 0.0
    for n in range(n_samples):
        hits = [j for j in range(n_samples) if y[j] == y[n] and j != n]
        misses = [j for j in range(n_samples) if y[j] != y[n]]
        dh = [diff(X, y, n, h) for h in hits]
        dm = [diff(X, y, n, m) for m in misses]
        qh, qm = [float(w @ d) for d in dh], [float(w @ d) for d in dm]
        alpha, beta = _softmax(qh, sigma), _softmax(qm, sigma)
        s = sample_weight[n]
        if outlier:
            f_miss = sum(np.exp(-q / sigma) for q in qm)
            s *= 1.0 - f_miss / (f_miss + sum(np.exp(-q / sigma) for q in qh))
        z += s * (sum(p * d for p, d in zip(beta, dm)) - sum(p * d for p, d in zip(alpha, dh)))
        entropy += s * (_entropy(beta) - _entropy(alpha))
    return z, entropy


def immigrate_step(X, y, W, sigma, sample_weight):
    """Sigma of Theorem 3.1 on completed differences."""
    n_samples, a = X.shape
    Sigma = np.zeros((a, a))
    entropy = 0.0
    for n in range(n_samples):
        hits = [j for j in range(n_samples) if y[j] == y[n] and j != n]
        misses = [j for j in range(n_samples) if y[j] != y[n]]
        dh = [diff(X, y, n, h) for h in hits]
        dm = [diff(X, y, n, m) for m in misses]
        alpha = _softmax([d @ W @ d for d in dh], sigma)
        beta = _softmax([d @ W @ d for d in dm], sigma)
        S_H = sum(p * np.outer(d, d) for p, d in zip(alpha, dh))
        S_M = sum(p * np.outer(d, d) for p, d in zip(beta, dm))
        Sigma += sample_weight[n] * (S_H - S_M)
        entropy += sample_weight[n] * (_entropy(beta) - _entropy(alpha))
    return Sigma, entropy


def expected_distances(X_query, X_train, y_train, classes, W, sigma):
    """Eq. (3.18) with completed query differences (queries have no class)."""
    out = np.zeros((len(X_query), len(classes)))
    for i, x in enumerate(X_query):
        for c, label in enumerate(classes):
            members = [n for n in range(len(y_train)) if y_train[n] == label]
            ds = [query_diff(X_train, y_train, x, n) for n in members]
            q = [float(W @ d) if W.ndim == 1 else float(d @ W @ d) for d in ds]
            out[i, c] = np.dot(_softmax(q, sigma), q)
    return out
