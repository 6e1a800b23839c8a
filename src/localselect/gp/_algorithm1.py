"""Algorithm 1 of Pichara and Soto: observation selection alternating with hyperparameters.

* :func:`holdout_split` and :func:`candidate_points` -- the held-out samples of
  the stopping rule (sec. 4.2.1) and the candidate observations (every other
  sample, or their k-medoids centres, sec. 4.5);
* :func:`initial_hyperparameters` -- the start of the alternation (not in the
  paper: fitted on a random subset rather than drawn at random);
* :func:`algorithm1` -- greedy max-variance observations (eqs. (5)-(6)) and
  maximum likelihood (eq. (4)) in turn, until the hyperparameters settle or
  the observations repeat; returns an :class:`Algorithm1Fit`.

Nothing here validates user input.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from localselect._runtime import Reporter
from localselect.gp._medoids import k_medoids
from localselect.gp._multigp import (
    SharedKernelGP,
    fit_hyperparameters,
    fit_posterior,
    greedy_max_variance,
)

__all__ = [
    "Algorithm1Fit",
    "algorithm1",
    "candidate_points",
    "holdout_split",
    "initial_hyperparameters",
]

Float = NDArray[np.float64]

#: Observation selection stops once doubling the observations brought no better
#: held-out MSE, checked from _PATIENCE observations on (sec. 4.2.1: "until
#: the MSE does not change").
_PATIENCE = 20

#: Size of the random subset of candidates on which the starting
#: hyperparameters are fitted when ``init_hyperparameters`` is None.
_INIT_SUBSET = 200

#: At most this many held-out samples join the observations in the likelihood
#: of Algorithm 1's hyperparameter step (the cost is cubic in their number).
_MAX_LIKELIHOOD_HOLDOUT = 500


class Algorithm1Fit(NamedTuple):
    """Result of :func:`algorithm1`.

    ``observations`` are the chosen observation points (rows of the data
    :func:`algorithm1` was given, in the order chosen); ``hyper`` the fitted
    ``(length_scale, signal_variance, noise_variance)``; ``gp`` the posterior
    of every feature GP on those observations; ``lml`` eq. (4) summed over the
    feature GPs; ``holdout_mse`` the held-out MSE after 0, 1, ... greedy
    additions in the last iteration; ``n_iter`` the iterations run.
    """

    observations: NDArray[np.intp]
    hyper: Float
    gp: SharedKernelGP
    lml: float
    holdout_mse: Float
    n_iter: int
    converged: bool


def holdout_split(
    n_samples: int, holdout_fraction: float, rng: np.random.RandomState
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """``(hold, pool)``: a random ``holdout_fraction`` of the samples, and the others.

    At least one sample stays in the pool.
    """
    order = rng.permutation(n_samples)
    n_hold = round(holdout_fraction * n_samples)
    n_hold = min(n_hold, n_samples - 1)
    return order[:n_hold], order[n_hold:]


def candidate_points(
    Xs: Float,
    pool: NDArray[np.intp],
    n_medoids: int | None,
    rng: np.random.RandomState,
    log: Reporter,
) -> NDArray[np.intp]:
    """Candidate observations: the ``pool``, or its ``n_medoids`` k-medoids centres."""
    if n_medoids is None:
        return pool
    log(1, "k-medoids: %d centres among %d samples", n_medoids, pool.size)
    km = k_medoids(Xs[pool], n_medoids, rng)
    return pool[km.medoids]


def initial_hyperparameters(
    start: Float | None,
    Xs: Float,
    Yc: Float,
    candidates: NDArray[np.intp],
    rng: np.random.RandomState,
) -> Float:
    """Starting hyperparameters of Algorithm 1 (see ``init_hyperparameters``).

    Maximum likelihood on a random subset of the candidates, from the
    data-driven guess (length scale sqrt(n_features), half signal, half noise)
    and from the user's ``start`` if given; the better likelihood wins. A
    start whose length scale is far below the distances between points has a
    vanishing gradient.
    """
    starts = [] if start is None else [start]
    v = max(float(np.mean(Yc[candidates] ** 2)), 1e-6)
    subset = candidates[rng.permutation(candidates.size)[:_INIT_SUBSET]]
    starts.append(np.array([np.sqrt(Xs.shape[1]), v / 2.0, v / 2.0]))
    fits = [fit_hyperparameters(Xs[subset], Yc[subset], s) for s in starts]
    return max(fits, key=lambda f: f.lml).hyper


def algorithm1(
    Xs: Float,
    scores: Float,
    prior_mean: Float,
    candidates: NDArray[np.intp],
    hold: NDArray[np.intp],
    rng: np.random.RandomState,
    *,
    start: Float | None,
    max_iter: int,
    tol: float,
    max_observations: int | None,
    min_observations: int,
    callback: Callable[[int, float], object] | None,
    log: Reporter,
) -> Algorithm1Fit:
    """Alternate observation selection and hyperparameter fitting (Algorithm 1).

    Parameters
    ----------
    Xs : ndarray of shape (n_samples, n_features)
        Standardised training data.
    scores : ndarray of shape (n_samples, n_features)
        Eq. (3) scores, one feature GP each.
    prior_mean : ndarray of shape (n_features,)
        Prior mean of each feature GP.
    candidates, hold : ndarray of int
        Candidate observations and held-out samples (rows of ``Xs``).
    rng : RandomState
        Source of the starting subset (:func:`initial_hyperparameters`).
    start : ndarray of shape (3,) or None
        The user's starting hyperparameters, checked.
    max_iter, tol, max_observations, min_observations, callback
        As the estimator's parameters.
    log : Reporter
        The fit's reporter (iterations at depth 2).

    Returns
    -------
    Algorithm1Fit
        A ``ConvergenceWarning`` is raised when ``max_iter`` ends the
        alternation. When a set of observations repeats (a cycle), the member
        of the cycle whose observations predict the held-out scores best is
        kept.
    """
    Yc = scores - prior_mean
    hyper = initial_hyperparameters(start, Xs, Yc, candidates, rng)
    converged = False
    history: list[tuple] = []  # (sorted observations, observations, fit, selection)
    for it in range(1, max_iter + 1):
        sel = greedy_max_variance(
            Xs[candidates],
            Yc[candidates],
            Xs[hold],
            Yc[hold],
            hyper,
            max_observations=max_observations,
            min_observations=min_observations,
            patience=_PATIENCE,
        )
        obs = candidates[sel.order[: sel.n_selected]]
        key = np.sort(obs)
        # The held-out points join the likelihood: a max-variance design has no
        # close pairs, so the noise is not identifiable from it alone.
        fit_on = np.concatenate([obs, hold[:_MAX_LIKELIHOOD_HOLDOUT]])
        res = fit_hyperparameters(Xs[fit_on], Yc[fit_on], hyper)
        change = float(np.max(np.abs(np.log(res.hyper) - np.log(hyper))))
        log(
            2,
            "iteration %d: %d observations, hyperparameters %s, lml %.4g, change %.3g",
            it,
            obs.size,
            np.array2string(res.hyper, precision=4),
            res.lml,
            change,
        )
        if callback is not None:
            callback(it, res.lml)
        seen = [t for t, past in enumerate(history) if np.array_equal(past[0], key)]
        history.append((key, obs, res, sel))
        hyper = res.hyper
        if change <= tol:
            converged = True
            break
        if seen:
            # The same observations again: Algorithm 1 cycles from here on. Keep
            # the member of the cycle whose observations predict the held-out
            # scores best.
            cycle = history[seen[0] :]
            _, obs, res, sel = min(cycle, key=lambda h: h[3].mse[h[3].n_selected])
            hyper = res.hyper
            converged = True
            log(2, "observations repeat: cycle of %d iterations", len(cycle) - 1)
            break
    if not converged:
        warnings.warn(
            f"Algorithm 1 did not converge in max_iter={max_iter} iterations (last "
            f"log-hyperparameter change {change:.3g} > tol={tol}); increase "
            "max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    gp = fit_posterior(Xs[obs], scores[obs], prior_mean, hyper)
    return Algorithm1Fit(obs, hyper, gp, res.lml, sel.mse, it, converged)
