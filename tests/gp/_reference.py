"""Slow, obviously correct versions of the GP local feature selection kernels."""

from __future__ import annotations

import numpy as np


def scores_reference(X, y, discrete=None):
    """Eq. (3) with our sign and class averaging, by explicit loops (before scaling)."""
    n, m = X.shape
    discrete = np.zeros(m, bool) if discrete is None else discrete
    out = np.zeros((n, m))
    for i in range(n):
        same = [k for k in range(n) if k != i and y[k] == y[i]]
        other = [k for k in range(n) if y[k] != y[i]]
        for j in range(m):

            def kern(k, i=i, j=j):
                d = float(X[i, j] != X[k, j]) if discrete[j] else abs(X[i, j] - X[k, j])
                return np.exp(-(d**2) / 2) / np.sqrt(2 * np.pi)

            out[i, j] = np.mean([kern(k) for k in same]) - np.mean([kern(k) for k in other])
    return out


def kernel_reference(A, B, hyper):
    length_scale, signal_variance, _ = hyper
    K = np.empty((len(A), len(B)))
    for p in range(len(A)):
        for q in range(len(B)):
            K[p, q] = signal_variance * np.exp(-np.sum((A[p] - B[q]) ** 2) / (2 * length_scale**2))
    return K


def greedy_reference(X_cand, Y_cand, X_hold, Y_hold, hyper, n_steps):
    """Recompute every posterior variance and held-out mean from scratch at each step."""
    noise = hyper[2]
    chosen: list[int] = []
    mses = [float(np.mean(Y_hold**2))]
    for _ in range(n_steps):
        if chosen:
            Xs = X_cand[chosen]
            K = kernel_reference(Xs, Xs, hyper) + noise * np.eye(len(chosen))
            Kinv = np.linalg.inv(K)
            k_c = kernel_reference(X_cand, Xs, hyper)
            var = hyper[1] + noise - np.einsum("ij,jk,ik->i", k_c, Kinv, k_c)
        else:
            var = np.full(len(X_cand), hyper[1] + noise)
        var[chosen] = -np.inf
        chosen.append(int(np.argmax(var)))
        Xs = X_cand[chosen]
        K = kernel_reference(Xs, Xs, hyper) + noise * np.eye(len(chosen))
        pred = kernel_reference(X_hold, Xs, hyper) @ np.linalg.solve(K, Y_cand[chosen])
        mses.append(float(np.mean((pred - Y_hold) ** 2)))
    return np.array(chosen), np.array(mses)


def subspace_reference(power, abs_corr, gamma, over="all"):
    """Algorithm 2 for one query at a time, as written.

    ``over="all"``: the threshold's statistics run over every feature but the
    first chosen (step B as printed); ``"remaining"``: over those not yet added.
    """
    n, m = power.shape
    mask = np.zeros((n, m), bool)
    for q in range(n):
        D = power[q]
        chosen = [int(np.argmax(D))]
        while len(chosen) < m:
            rest = [j for j in range(m) if j not in chosen]
            stat = rest if over == "remaining" else [j for j in range(m) if j != chosen[0]]
            eta = len(chosen) / D.max()

            def score(j, eta=eta, chosen=chosen, D=D):
                return D[j] - sum(abs_corr[j, k] for k in chosen) / eta

            scores = np.array([score(j) for j in rest])
            stat_scores = np.array([score(j) for j in stat])
            T = stat_scores.mean() + gamma * stat_scores.std()
            h = int(np.argmax(scores))
            if scores[h] >= T - 1e-12 * max(abs(T), D.max()):
                chosen.append(rest[h])
            else:
                break
        mask[q, chosen] = True
    return mask
