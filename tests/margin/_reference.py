"""Slow, obviously correct references for the margin kernels: loops and explicit sums.

Each function follows the paper's formula term by term, one sample at a time,
so it can be read against the text (Zhao, Hong and Liu; Sun 2007; Kononenko
1994). They are only for small data in tests.
"""

from __future__ import annotations

import numpy as np


def _hits_misses(y, n):
    hits = [j for j in range(len(y)) if y[j] == y[n] and j != n]
    misses = [j for j in range(len(y)) if y[j] != y[n]]
    return hits, misses


def _softmax(values, sigma):
    # exp(-v / sigma) / sum exp(-v / sigma), shifted by the minimum for safety.
    v = np.asarray(values, dtype=float)
    e = np.exp(-(v - v.min()) / sigma)
    return e / e.sum()


def _entropy(p):
    return -sum(pi * np.log(pi) for pi in p if pi > 0)


def quad(xi, xj, W):
    """q(x_i, x_j) = |x_i - x_j|^T W |x_i - x_j|, eq. (3.3), as a double sum."""
    d = np.abs(xi - xj)
    return sum(W[a, b] * d[a] * d[b] for a in range(len(d)) for b in range(len(d)))


def immigrate_step(X, y, W, sigma, sample_weight):
    """Sigma of Theorem 3.1 and sum_n D_n (E_miss - E_hit), one sample at a time."""
    n_samples, a = X.shape
    Sigma = np.zeros((a, a))
    entropy = 0.0
    for n in range(n_samples):
        hits, misses = _hits_misses(y, n)
        alpha = _softmax([quad(X[n], X[h], W) for h in hits], sigma)  # eq. (3.6)
        beta = _softmax([quad(X[n], X[m], W) for m in misses], sigma)
        S_H = sum(
            p * np.outer(np.abs(X[n] - X[h]), np.abs(X[n] - X[h])) for p, h in zip(alpha, hits)
        )
        S_M = sum(
            p * np.outer(np.abs(X[n] - X[m]), np.abs(X[n] - X[m])) for p, m in zip(beta, misses)
        )
        Sigma += sample_weight[n] * (S_H - S_M)
        entropy += sample_weight[n] * (_entropy(beta) - _entropy(alpha))
    return Sigma, entropy


def update_weight_matrix(Sigma, nonnegative=True):
    """W = sum_i eta_i psi_i psi_i^T, eta = (-mu)^+ / ||(-mu)^+||_2 (eq. (3.8), (3.17))."""
    mu, psi = np.linalg.eigh(Sigma)
    eta = np.maximum(-mu, 0.0)
    eta = eta / np.sqrt(np.sum(eta**2))
    W = np.zeros_like(Sigma)
    for i in range(len(mu)):
        W += eta[i] * np.outer(psi[:, i], psi[:, i])
    if nonnegative:
        W = np.maximum(W, 0.0)
        W = W / np.sqrt(np.sum(W**2))
    return W


def immigrate_cost(X, y, W, sigma, sample_weight):
    """Cost (3.5)/(3.19) with alpha, beta at their optimum (3.6) for this W."""
    total = 0.0
    for n in range(X.shape[0]):
        hits, misses = _hits_misses(y, n)
        qh = [quad(X[n], X[h], W) for h in hits]
        qm = [quad(X[n], X[m], W) for m in misses]
        alpha, beta = _softmax(qh, sigma), _softmax(qm, sigma)
        total += sample_weight[n] * (np.dot(alpha, qh) - np.dot(beta, qm))
        total += sigma * sample_weight[n] * (_entropy(beta) - _entropy(alpha))
    return total


def expected_distances(X_query, X_train, y_train, classes, W, sigma):
    """s_c(x) = sum_{y_n = c} alpha_n^c(x) q(x, x_n), eq. (3.18)."""
    out = np.zeros((len(X_query), len(classes)))
    for i, x in enumerate(X_query):
        for c, label in enumerate(classes):
            members = [n for n in range(len(y_train)) if y_train[n] == label]
            if W.ndim == 1:
                q = [float(W @ np.abs(x - X_train[n])) for n in members]
            else:
                q = [quad(x, X_train[n], W) for n in members]
            out[i, c] = np.dot(_softmax(q, sigma), q)
    return out


def margin_vector_step(X, y, w, sigma, sample_weight, outlier=False):
    """z = sum_n s_n (sum_M beta |d| - sum_H alpha |d|) for the distance w^T |d|.

    With ``outlier`` s_n also carries I-RELIEF's gamma_n = 1 - sum_M f / sum_{j != n} f,
    f = exp(-w^T |d| / sigma) (Sun 2007).
    """
    n_samples, a = X.shape
    z = np.zeros(a)
    entropy = 0.0
    for n in range(n_samples):
        hits, misses = _hits_misses(y, n)
        qh = [float(w @ np.abs(X[n] - X[h])) for h in hits]
        qm = [float(w @ np.abs(X[n] - X[m])) for m in misses]
        alpha, beta = _softmax(qh, sigma), _softmax(qm, sigma)
        s = sample_weight[n]
        if outlier:
            f_miss = sum(np.exp(-q / sigma) for q in qm)
            f_all = f_miss + sum(np.exp(-q / sigma) for q in qh)
            s *= 1.0 - f_miss / f_all
        for p, m in zip(beta, misses):
            z += s * p * np.abs(X[n] - X[m])
        for p, h in zip(alpha, hits):
            z -= s * p * np.abs(X[n] - X[h])
        entropy += s * (_entropy(beta) - _entropy(alpha))
    return z, entropy


def relieff(X, y, k):
    """ReliefF with range-normalised diffs and Manhattan neighbours, one sample at a time."""
    n_samples, a = X.shape
    span = X.max(axis=0) - X.min(axis=0)
    classes, counts = np.unique(y, return_counts=True)
    prior = dict(zip(classes, counts / n_samples))

    def diff(i, j):
        return np.array(
            [abs(X[i, f] - X[j, f]) / span[f] if span[f] > 0 else 0.0 for f in range(a)]
        )

    W = np.zeros(a)
    for i in range(n_samples):
        dist = [diff(i, j).sum() if j != i else np.inf for j in range(n_samples)]
        for c in classes:
            members = [j for j in range(n_samples) if y[j] == c and j != i]
            members.sort(key=lambda j: (dist[j], j))  # nearest first, ties to the lower index
            near = members[:k]
            if not near:
                continue
            mean = sum(diff(i, j) for j in near) / len(near)
            if c == y[i]:
                W -= mean / n_samples
            else:
                W += prior[c] / (1 - prior[y[i]]) * mean / n_samples
    return W


def relief(X, y):
    """Algorithm 1 with M = N: nearest hit/miss by Euclidean distance, squared diffs."""
    n_samples, a = X.shape
    w = np.zeros(a)
    for i in range(n_samples):
        hits, misses = _hits_misses(y, i)
        nh = min(hits, key=lambda j: (np.sum((X[i] - X[j]) ** 2), j))
        nm = min(misses, key=lambda j: (np.sum((X[i] - X[j]) ** 2), j))
        w += ((X[i] - X[nm]) ** 2 - (X[i] - X[nh]) ** 2) / n_samples
    return w
