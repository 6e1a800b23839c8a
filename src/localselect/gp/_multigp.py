"""Shared-kernel multi-output GP regression with greedy max-variance observations.

Pichara and Soto fit one GP per feature, all with the same squared-exponential
isotropic kernel plus noise (sec. 4.2.2),

.. math:: k(x_p, x_q) = \\theta \\exp(-\\|x_p - x_q\\|^2 / (2 l^2)) + \\sigma_n^2 \\delta_{pq}.

Because the posterior variance, eq. (2), does not depend on the observed
values, every feature GP has the same variance surface: one set of greedily
chosen observation points and one Cholesky factor serve all features, and the
posterior means of all features come from one multi-output solve.

* :func:`se_kernel` -- the covariance above, without or with the noise term;
* :func:`jittered_cholesky` -- lower Cholesky factor, adding diagonal jitter only
  when the factorisation fails;
* :func:`log_marginal_likelihood` -- eq. (4) summed over all outputs, with the
  analytic gradient in log-hyperparameter space;
* :func:`fit_hyperparameters` -- L-BFGS-B on the summed log marginal likelihood;
* :func:`greedy_max_variance` -- sec. 4.2.1: add the candidate of largest
  posterior variance (eqs. (5)-(6)) until the held-out MSE stops improving,
  updating a pivoted Cholesky factor incrementally;
* :class:`SharedKernelGP` / :func:`fit_posterior` -- the fitted posterior:
  means for every output, one shared variance.

Hyperparameters are the vector ``(length_scale, signal_variance,
noise_variance)``; optimisers work on their natural logarithms. Nothing here
validates user input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_solve, cholesky, lapack, solve_triangular
from scipy.optimize import minimize

from localselect._typing import FloatArray

__all__ = [
    "GreedySelection",
    "HyperparameterFit",
    "SharedKernelGP",
    "fit_hyperparameters",
    "fit_posterior",
    "greedy_max_variance",
    "jittered_cholesky",
    "log_marginal_likelihood",
    "se_kernel",
    "sq_dists",
]


#: Bounds of (log length scale, log signal variance, log noise variance). The
#: inputs are standardised and the targets lie in [0, 1], so these are wide.
LOG_BOUNDS: tuple[tuple[float, float], ...] = (
    (np.log(1e-2), np.log(1e3)),
    (np.log(1e-6), np.log(1e2)),
    (np.log(1e-8), np.log(1e1)),
)


def sq_dists(A: FloatArray, B: FloatArray) -> FloatArray:
    """Squared Euclidean distances between the rows of ``A`` and ``B``, clipped at 0."""
    d = (A * A).sum(axis=1)[:, None] + (B * B).sum(axis=1)[None, :] - 2.0 * (A @ B.T)
    return np.maximum(d, 0.0)


def _gauss(sq: FloatArray, length_scale: float) -> FloatArray:
    """``exp(-sq / (2 l^2))`` with values below 1e-200 set to 0.

    Subnormal numbers slow BLAS and LAPACK down a hundredfold; covariances this
    small are zero for every purpose here.
    """
    E = np.exp(-0.5 * sq / length_scale**2)
    E[E < 1e-200] = 0.0
    return E


def se_kernel(
    A: FloatArray, B: FloatArray, hyper: FloatArray, *, noise: bool = False
) -> FloatArray:
    """Squared-exponential isotropic covariance ``theta * exp(-d^2 / (2 l^2))``.

    Parameters
    ----------
    A, B : ndarray of shape (n_a, n_features), (n_b, n_features)
        Inputs.
    hyper : ndarray of shape (3,)
        ``(length_scale, signal_variance, noise_variance)``.
    noise : bool, default=False
        Add ``noise_variance`` on the diagonal (only meaningful when ``A`` and
        ``B`` are the same points in the same order).

    Returns
    -------
    K : ndarray of shape (n_a, n_b)
    """
    length_scale, signal_variance, noise_variance = hyper
    K = signal_variance * _gauss(sq_dists(A, B), length_scale)
    if noise:
        K[np.diag_indices_from(K)] += noise_variance
    return K


def jittered_cholesky(K: FloatArray, max_tries: int = 8) -> FloatArray:
    """Lower Cholesky factor of ``K``, adding growing jitter to the diagonal on failure.

    The jitter starts at ``1e-10`` times the mean diagonal and grows tenfold per
    failed attempt; ``K`` itself is never modified.
    """
    try:
        return cholesky(K, lower=True, check_finite=False)
    except LinAlgError:
        pass
    base = 1e-10 * max(float(np.mean(np.diag(K))), np.finfo(np.float64).tiny)
    for k in range(max_tries):
        try:
            return cholesky(
                K + base * 10.0**k * np.eye(K.shape[0]), lower=True, check_finite=False
            )
        except LinAlgError:
            continue
    raise LinAlgError(
        f"covariance matrix is not positive definite even with jitter {base * 10.0**max_tries:g}"
    )


def log_marginal_likelihood(
    log_hyper: FloatArray, X: FloatArray, Y: FloatArray, *, eval_gradient: bool = False
) -> float | tuple[float, FloatArray]:
    """Eq. (4) summed over the columns of ``Y`` (one GP per column, shared kernel).

    .. math:: \\sum_j \\log p(y_j | X) = -\\tfrac12 \\operatorname{tr}(Y^T K^{-1} Y)
              - \\tfrac{M}{2} \\log |K| - \\tfrac{nM}{2} \\log 2\\pi

    Parameters
    ----------
    log_hyper : ndarray of shape (3,)
        Natural logarithms of ``(length_scale, signal_variance, noise_variance)``.
    X : ndarray of shape (n, n_features)
        Observation inputs.
    Y : ndarray of shape (n, n_outputs)
        Observed values, already centred on the prior mean.
    eval_gradient : bool, default=False
        Also return the gradient with respect to ``log_hyper``:
        ``0.5 * tr((A A^T - M K^{-1}) dK)`` with ``A = K^{-1} Y``.

    Returns
    -------
    lml : float
        The summed log marginal likelihood.
    grad : ndarray of shape (3,)
        Its gradient with respect to ``log_hyper``; only when ``eval_gradient``.
    """
    hyper = np.exp(log_hyper)
    n, m = Y.shape
    sq = sq_dists(X, X)
    E = _gauss(sq, hyper[0])
    K = hyper[1] * E
    K[np.diag_indices_from(K)] += hyper[2]
    L = jittered_cholesky(K)
    A = cho_solve((L, True), Y, check_finite=False)
    lml = -0.5 * float(np.sum(Y * A)) - m * float(np.log(np.diag(L)).sum())
    lml -= 0.5 * n * m * np.log(2.0 * np.pi)
    if not eval_gradient:
        return lml
    K_inv, info = lapack.dpotri(L, lower=1)
    if info != 0:  # pragma: no cover - L comes from a successful factorisation
        raise LinAlgError(f"dpotri failed with info={info}")
    K_inv = np.tril(K_inv) + np.tril(K_inv, -1).T
    inner = A @ A.T - m * K_inv
    dK_dlog_l = hyper[1] * E * sq / hyper[0] ** 2
    dK_dlog_sf = hyper[1] * E
    grad = 0.5 * np.array(
        [
            np.sum(inner * dK_dlog_l),
            np.sum(inner * dK_dlog_sf),
            hyper[2] * np.trace(inner),
        ]
    )
    return lml, grad


class HyperparameterFit(NamedTuple):
    """Result of :func:`fit_hyperparameters`."""

    hyper: FloatArray
    lml: float
    n_iter: int
    converged: bool


def fit_hyperparameters(
    X: FloatArray, Y: FloatArray, start: FloatArray, *, max_iter: int = 200
) -> HyperparameterFit:
    """Maximise the summed log marginal likelihood from ``start`` (L-BFGS-B, log space).

    Parameters
    ----------
    X : ndarray of shape (n, n_features)
        Observation inputs.
    Y : ndarray of shape (n, n_outputs)
        Observed values centred on the prior mean.
    start : ndarray of shape (3,)
        Starting ``(length_scale, signal_variance, noise_variance)``; clipped into
        the bounds :data:`LOG_BOUNDS`.
    max_iter : int, default=200
        Iterations of L-BFGS-B.

    Returns
    -------
    HyperparameterFit
        ``hyper`` (natural scale), ``lml`` at the optimum, ``n_iter`` and
        ``converged`` as reported by the optimiser.
    """
    lo = np.array([b[0] for b in LOG_BOUNDS])
    hi = np.array([b[1] for b in LOG_BOUNDS])
    x0 = np.clip(np.log(start), lo, hi)

    def objective(theta: FloatArray) -> tuple[float, FloatArray]:
        lml, grad = log_marginal_likelihood(theta, X, Y, eval_gradient=True)  # type: ignore[misc]
        return -lml, -grad

    res = minimize(
        objective,
        x0,
        jac=True,
        method="L-BFGS-B",
        bounds=LOG_BOUNDS,
        options={"maxiter": max_iter},
    )
    return HyperparameterFit(np.exp(res.x), float(-res.fun), int(res.nit), bool(res.success))


class GreedySelection(NamedTuple):
    """Result of :func:`greedy_max_variance`.

    ``order`` lists every candidate added, in order (indices into the
    candidates); the chosen observations are ``order[:n_selected]``, the prefix
    with the smallest held-out MSE. ``mse[k]`` is the held-out MSE with the
    first ``k`` observations (``mse[0]`` uses the prior mean only);
    ``variance[k]`` the largest posterior variance among the candidates when
    observation ``k`` was chosen.
    """

    order: NDArray[np.intp]
    n_selected: int
    mse: FloatArray
    variance: FloatArray


def greedy_max_variance(
    X_cand: FloatArray,
    Y_cand: FloatArray,
    X_hold: FloatArray,
    Y_hold: FloatArray,
    hyper: FloatArray,
    *,
    max_observations: int | None = None,
    min_observations: int = 1,
    patience: int = 20,
) -> GreedySelection:
    """Sec. 4.2.1: add the candidate of largest posterior variance, one at a time.

    The posterior variance at candidate ``c`` given observations ``S`` is
    ``k(c, c) + sigma_n^2 - k_cS (K_SS + sigma_n^2 I)^{-1} k_Sc`` (eq. (2), with
    the noise as in eq. (6)). It is the residual diagonal of a pivoted Cholesky
    factorisation of ``K_CC + sigma_n^2 I`` whose pivots are the chosen points:
    each new point adds one row ``v = (k(s, C) - l^T V) / d`` to
    ``V = L^{-1} K_SC`` and lowers every variance by ``v^2``, so nothing is
    refactorised. The held-out posterior means of all outputs are updated the
    same way (``mean_H += w z^T`` with the new rows ``w`` of ``L^{-1} K_SH`` and
    ``z`` of ``L^{-1} Y_S``).

    Selection stops when the best held-out MSE (over all outputs) was
    reached with at most half of the ``k`` observations added so far, i.e.
    when doubling the observations brought no improvement ("until the MSE
    does not change", sec. 4.2.1; checked from ``k = patience`` on, because
    the first, far-out points barely change the fit), when ``max_observations``
    points are chosen or when the candidates run out; the result keeps the
    prefix with the smallest MSE among those of at least ``min_observations``
    points (at least one point; all candidates if there are fewer). Ties in
    the variance go to the lowest candidate index.

    Parameters
    ----------
    X_cand : ndarray of shape (n_candidates, n_features)
        Candidate observation points.
    Y_cand : ndarray of shape (n_candidates, n_outputs)
        Their values, centred on the prior mean.
    X_hold : ndarray of shape (n_holdout, n_features)
        Held-out points for the stopping rule (may be empty: then the rule
        never fires and all ``max_observations`` are taken).
    Y_hold : ndarray of shape (n_holdout, n_outputs)
        Their values, centred on the prior mean.
    hyper : ndarray of shape (3,)
        ``(length_scale, signal_variance, noise_variance)``.
    max_observations : int, default=None
        Upper bound on the number of observations; ``None`` means all candidates.
    min_observations : int, default=1
        Lower bound on the kept prefix (capped by the candidates and
        ``max_observations``); the stopping rule compares the prefixes of at
        least this length, so it fires at ``2 * min_observations`` at the
        earliest.
    patience : int, default=20
        Number of observations before the stopping rule is checked.

    Returns
    -------
    GreedySelection
        Every candidate added, in order (``order``); the chosen observations
        are its prefix ``order[:n_selected]`` with the smallest held-out MSE
        (``mse``, one value per prefix length).

    Notes
    -----
    Time O(B (B + n_features) (n_candidates + n_holdout) + B n_holdout n_outputs)
    and memory O(B (n_candidates + n_holdout)) for B additions.
    """
    n_cand = X_cand.shape[0]
    budget = n_cand if max_observations is None else min(max_observations, n_cand)
    floor = max(1, min(min_observations, budget))
    noise = hyper[2]
    var = np.full(n_cand, hyper[1] + noise)
    V = np.empty((budget, n_cand))
    W = np.empty((budget, X_hold.shape[0]))
    pred_hold = np.zeros_like(Y_hold)
    chosen = np.zeros(n_cand, dtype=bool)
    order = np.empty(budget, dtype=np.intp)
    mse = [float(np.mean(Y_hold**2)) if Y_hold.size else 0.0]
    top_var = []
    best_k, best_mse = 1, np.inf
    Z = np.empty((budget, Y_cand.shape[1]))
    k = 0
    for k in range(budget):
        masked = np.where(chosen, -np.inf, var)
        s = int(np.argmax(masked))
        top_var.append(float(var[s]))
        d = np.sqrt(max(var[s], 1e-300))
        l_vec = V[:k, s]
        row = se_kernel(X_cand[s : s + 1], X_cand, hyper)[0]
        row[s] += noise
        V[k] = (row - l_vec @ V[:k]) / d
        W[k] = (se_kernel(X_cand[s : s + 1], X_hold, hyper)[0] - l_vec @ W[:k]) / d
        Z[k] = (Y_cand[s] - l_vec @ Z[:k]) / d
        var -= V[k] ** 2
        chosen[s] = True
        order[k] = s
        if Y_hold.size:
            pred_hold += np.outer(W[k], Z[k])
            mse.append(float(np.mean((pred_hold - Y_hold) ** 2)))
        else:
            mse.append(0.0)
        if mse[-1] < best_mse:
            best_k, best_mse = k + 1, mse[-1]
        if Y_hold.size and k + 1 >= max(patience, floor) and best_k <= (k + 1) // 2:
            break
    n_added = k + 1 if budget else 0
    if not Y_hold.size:
        best_k = n_added
    elif best_k < floor:
        best_k = min(floor, n_added)
    return GreedySelection(order[:n_added].copy(), best_k, np.asarray(mse), np.asarray(top_var))


class SharedKernelGP(NamedTuple):
    """A fitted shared-kernel GP: observations, factor and weights for every output.

    ``mean`` is the prior mean of each output; ``alpha = K^{-1} (Y_obs - mean)``.
    """

    X_obs: FloatArray
    hyper: FloatArray
    mean: FloatArray
    chol: FloatArray
    alpha: FloatArray

    def predict(self, X: FloatArray) -> tuple[FloatArray, FloatArray]:
        """Posterior means of every output and the shared predictive variance.

        Returns ``(means, variance)``: ``means`` of shape (n, n_outputs), eq. (1);
        ``variance`` of shape (n,), eq. (2) with the noise term, the same for all
        outputs and floored at ``1e-12`` times the prior variance.
        """
        Ks = se_kernel(X, self.X_obs, self.hyper)
        means = self.mean + Ks @ self.alpha
        v = solve_triangular(self.chol, Ks.T, lower=True, check_finite=False)
        prior = self.hyper[1] + self.hyper[2]
        variance = np.maximum(prior - np.einsum("ij,ij->j", v, v), 1e-12 * prior)
        return means, variance

    def predict_loo(self) -> tuple[FloatArray, FloatArray]:
        """Leave-one-out posterior at the observations themselves.

        For observation ``i``, the GP fitted to the other observations predicts
        ``mean_i + y_i - alpha_i / [K^{-1}]_ii`` with variance ``1 / [K^{-1}]_ii``
        (Rasmussen and Williams, eqs. (5.10)-(5.12)); the variance includes the
        noise term, as :meth:`predict`'s does. Time O(B^3), one inverse of the
        factor.

        Returns
        -------
        means : ndarray of shape (n_observations, n_outputs)
        variance : ndarray of shape (n_observations,)
        """
        K_inv, info = lapack.dpotri(self.chol, lower=1)
        if info != 0:  # pragma: no cover - chol comes from a successful factorisation
            raise LinAlgError(f"dpotri failed with info={info}")
        diag = np.diag(K_inv).copy()
        Ks = se_kernel(self.X_obs, self.X_obs, self.hyper, noise=True)
        observed = self.mean + Ks @ self.alpha  # = the observed values, up to rounding
        means = observed - self.alpha / diag[:, None]
        prior = self.hyper[1] + self.hyper[2]
        variance = np.clip(1.0 / diag, 1e-12 * prior, prior)
        return means, variance


def fit_posterior(
    X_obs: FloatArray, Y_obs: FloatArray, mean: FloatArray, hyper: FloatArray
) -> SharedKernelGP:
    """Factor ``K_SS + sigma_n^2 I`` once and solve for all outputs at once.

    Parameters
    ----------
    X_obs : ndarray of shape (n_observations, n_features)
        Observation inputs.
    Y_obs : ndarray of shape (n_observations, n_outputs)
        Observed values, one column per output (feature GP).
    mean : ndarray of shape (n_outputs,)
        Prior mean of each output.
    hyper : ndarray of shape (3,)
        ``(length_scale, signal_variance, noise_variance)``.

    Returns
    -------
    SharedKernelGP
        The observations, the Cholesky factor of ``K_SS + sigma_n^2 I`` and
        ``alpha = K^{-1} (Y_obs - mean)`` for every output.
    """
    K = se_kernel(X_obs, X_obs, hyper, noise=True)
    L = jittered_cholesky(K)
    alpha = cho_solve((L, True), Y_obs - mean, check_finite=False)
    return SharedKernelGP(X_obs, np.asarray(hyper, dtype=np.float64), mean, L, alpha)
