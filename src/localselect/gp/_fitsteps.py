"""Fit steps of :class:`~localselect.GPLocalFeatureSelection`: Algorithm 1, inner validation.

Functions of the estimator being fitted (``est``), which they read parameters
from and write fitted attributes to; split from the estimator's module to keep
both readable next to the paper.

* :func:`algorithm1` -- observation selection alternating with hyperparameter
  fitting (sec. 4.2, Algorithm 1), from :func:`initial_hyperparameters`;
* :func:`validate_subspaces` -- the inner cross-validation behind
  ``threshold="auto"`` and the safety net (not in the paper).
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

from localselect._pairwise import row_chunks
from localselect.gp._multigp import fit_hyperparameters, fit_posterior, greedy_max_variance
from localselect.gp._scores import gaussian_kl, raw_discriminative_scores, scale_scores
from localselect.gp._subspace import subspace_path
from localselect.gp._validation import nested_knn_correct

__all__ = [
    "GAMMA_GRID",
    "N_NEIGHBORS_GRID",
    "algorithm1",
    "initial_hyperparameters",
    "validate_subspaces",
]

#: Observation selection stops once doubling the observations brought no better
#: held-out MSE, checked from _PATIENCE observations on (sec. 4.2.1: "until
#: the MSE does not change").
_PATIENCE = 20

#: Size of the random subset of candidates on which the starting
#: hyperparameters are fitted when ``init_hyperparameters`` is None.
_INIT_SUBSET = 200

#: Values of the threshold that ``threshold="auto"`` chooses from (besides all features).
#: They span the subspace sizes that win on the UCI sets of docs/gp.md.
GAMMA_GRID = (-np.inf, 0.5, 0.625, 0.75, 0.875, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0)

#: Values of K that ``n_neighbors="auto"`` chooses from (capped at the training
#: size): the paper's 8 and smaller ones, which win on small tables (Glass).
N_NEIGHBORS_GRID = (1, 3, 5, 8)

#: At most this many training samples are the validation queries of the
#: subspace choice (a random subset beyond it).
_MAX_VALIDATION = 1000

#: At most this many held-out samples join the observations in the likelihood
#: of Algorithm 1's hyperparameter step (the cost is cubic in their number).
_MAX_LIKELIHOOD_HOLDOUT = 500


def initial_hyperparameters(est, Xs, Yc, candidates, rng) -> np.ndarray:
    """Starting hyperparameters of Algorithm 1 (see ``init_hyperparameters``)."""
    # Maximum likelihood on a random subset of the candidates, from the data-driven
    # guess (length scale sqrt(n_features), half signal, half noise) and from the
    # user's start if given; the better likelihood wins. A start whose length scale
    # is far below the distances between points has a vanishing gradient.
    starts = []
    if est.init_hyperparameters is not None:
        start = np.asarray(est.init_hyperparameters, dtype=np.float64)
        if start.shape != (3,) or not np.all(np.isfinite(start)) or np.any(start <= 0):
            raise ValueError(
                "init_hyperparameters must be 3 positive finite numbers (length_scale, "
                f"signal_variance, noise_variance); got {est.init_hyperparameters!r}."
            )
        starts.append(start)
    v = max(float(np.mean(Yc[candidates] ** 2)), 1e-6)
    subset = candidates[rng.permutation(candidates.size)[:_INIT_SUBSET]]
    starts.append(np.array([np.sqrt(Xs.shape[1]), v / 2.0, v / 2.0]))
    fits = [fit_hyperparameters(Xs[subset], Yc[subset], s) for s in starts]
    return max(fits, key=lambda f: f.lml).hyper


def algorithm1(
    est,
    Xs: np.ndarray,
    scores: np.ndarray,
    prior_mean: np.ndarray,
    candidates: np.ndarray,
    hold: np.ndarray,
    rng: np.random.RandomState,
) -> None:
    """Alternate observation selection and hyperparameter fitting (Algorithm 1)."""
    Yc = scores - prior_mean
    hyper = initial_hyperparameters(est, Xs, Yc, candidates, rng)
    converged = False
    history: list[tuple] = []  # (sorted observations, observations, fit, selection)
    for it in range(1, est.max_iter + 1):
        sel = greedy_max_variance(
            Xs[candidates],
            Yc[candidates],
            Xs[hold],
            Yc[hold],
            hyper,
            max_observations=est.max_observations,
            min_observations=est.min_observations,
            patience=_PATIENCE,
        )
        obs = candidates[sel.order[: sel.n_selected]]
        key = np.sort(obs)
        # The held-out points join the likelihood: a max-variance design has no
        # close pairs, so the noise is not identifiable from it alone.
        fit_on = np.concatenate([obs, hold[:_MAX_LIKELIHOOD_HOLDOUT]])
        res = fit_hyperparameters(Xs[fit_on], Yc[fit_on], hyper)
        change = float(np.max(np.abs(np.log(res.hyper) - np.log(hyper))))
        est._log(
            2,
            "iteration %d: %d observations, hyperparameters %s, lml %.4g, change %.3g",
            it,
            obs.size,
            np.array2string(res.hyper, precision=4),
            res.lml,
            change,
        )
        if est.callback is not None:
            est.callback(it, res.lml)
        seen = [t for t, past in enumerate(history) if np.array_equal(past[0], key)]
        history.append((key, obs, res, sel))
        hyper = res.hyper
        if change <= est.tol:
            converged = True
            break
        if seen:
            # The same observations again: Algorithm 1 cycles from here on. Keep
            # the member of the cycle whose observations predict the held-out
            # scores best.
            cycle = history[seen[0] :]
            best = min(cycle, key=lambda h: h[3].mse[h[3].n_selected])
            _, obs, res, sel = best
            hyper = res.hyper
            converged = True
            est._log(2, "observations repeat: cycle of %d iterations", len(cycle) - 1)
            break
    est.n_iter_ = it
    if not converged:
        warnings.warn(
            f"Algorithm 1 did not converge in max_iter={est.max_iter} iterations (last "
            f"log-hyperparameter change {change:.3g} > tol={est.tol}); increase "
            "max_iter or tol.",
            ConvergenceWarning,
            stacklevel=3,
        )
    est._obs_canonical = obs
    est.observation_indices_ = est._rows[obs]
    est.holdout_indices_ = np.sort(est._rows[hold])
    est.holdout_mse_ = sel.mse
    est.log_marginal_likelihood_ = res.lml
    est.kernel_ = ConstantKernel(hyper[1], "fixed") * RBF(hyper[0], "fixed") + WhiteKernel(
        hyper[2], "fixed"
    )
    est._gp = fit_posterior(Xs[obs], scores[obs], prior_mean, hyper)
    est._log(1, "%d observations, kernel %s", obs.size, est.kernel_)


# -------------------------------------------------------------- queries


def _fold_observations(Xs: np.ndarray, train: np.ndarray, in_obs: np.ndarray) -> np.ndarray:
    """The model's observation design moved into a validation fold's training part.

    Observations in the training part stay; each one in the held-out part is
    replaced by its nearest training-part point (Euclidean, lowest index on
    ties), so the fold's GP keeps about as many observations at about the same
    places. With few observations (12 on 100,000 rows of a smooth problem),
    dropping a third of them instead made the fold's GPs far weaker than the
    model's and the validation then preferred all features wrongly.
    Returns positions in ``train``.
    """
    keep = np.flatnonzero(in_obs[train])
    moved = np.flatnonzero(in_obs)
    moved = moved[~np.isin(moved, train)]
    if moved.size == 0:
        return keep
    X_train = Xs[train]
    sq_train = np.einsum("ij,ij->i", X_train, X_train)
    near = np.empty(moved.size, dtype=np.intp)
    for rows in row_chunks(moved.size, 8 * 2 * train.size):
        Q = Xs[moved[rows]]
        d = sq_train[None, :] - 2.0 * (Q @ X_train.T)
        near[rows] = np.argmin(d, axis=1)
    return np.unique(np.concatenate([keep, near]))


def validate_subspaces(est, Xs, rng, folds, fold_labels, fold_raw) -> None:
    """Inner cross-validation of K-NN in the subspaces against all features.

    Up to ``_MAX_VALIDATION`` training samples are the queries, in stratified
    folds (5, or fewer when a class is smaller). For each fold the eq. (3)
    scores, the feature GPs (same hyperparameters; the observations that
    fall in the held-out fold move to their nearest point of the other
    folds, see :func:`_fold_observations`) and the power floor are rebuilt
    on the other folds only, so no query's label reaches its own subspace;
    its K-NN runs among the other folds. With ``threshold="auto"`` the best of
    :data:`GAMMA_GRID` and of all features is kept (all features only when strictly better; ties in
    the grid go to the larger ``threshold``); with ``n_neighbors="auto"`` every
    K of :data:`N_NEIGHBORS_GRID` is scored on the same distances, for the
    subspaces and for all features, and the best kept (ties: the larger
    ``threshold``, then the larger K). A warning says when the subspaces do worse
    than all features.
    """
    n = Xs.shape[0]
    y = est.y_fit_
    n_splits = len(folds)
    chosen = np.zeros(n, dtype=bool)
    chosen[rng.choice(n, min(n, _MAX_VALIDATION), replace=False)] = True
    threshold = est.threshold
    auto = isinstance(threshold, str)
    gammas = np.array(GAMMA_GRID if auto else (float(threshold),))
    grid = N_NEIGHBORS_GRID if est.n_neighbors == "auto" else (est.n_neighbors,)
    ks = np.array(sorted({min(int(k), n - 1) for k in grid}), dtype=np.intp)
    hyper = est._gp.hyper
    correct = np.zeros((ks.size, gammas.size))
    correct_all = np.zeros(ks.size)
    size_sum = np.zeros(gammas.size)
    n_queries = 0
    in_obs = np.zeros(n, dtype=bool)
    in_obs[est._obs_canonical] = True
    for (train, test), labels, raw in zip(folds, fold_labels, fold_raw):
        queries = test[chosen[test]]
        if queries.size == 0:
            continue
        obs = _fold_observations(Xs, train, in_obs)
        if raw is None:
            raw = raw_discriminative_scores(Xs, labels, est._discrete, n_jobs=est.n_jobs)
        rows = np.zeros(n, dtype=bool)
        rows[train] = True
        fold = [scale_scores(r, Xs, est.score_scaling, rows)[train] for r in raw]
        del raw
        prior = np.zeros(Xs.shape[1]) if est.prior_mean == "zero" else fold[0].mean(axis=0)
        gp = fit_posterior(Xs[train][obs], fold[0][obs], prior, hyper)
        gp_null = est._null_gp(Xs[train], fold[1:], obs, hyper)
        means, variance = gp.predict(Xs[queries])
        power = gaussian_kl(
            means,
            variance[:, None],
            float(est.reference_mean),
            float(est.reference_std) ** 2,
        )
        floor = est._floor(gp_null, Xs[queries])
        order, critical = subspace_path(
            power, est._abs_corr, float(gammas.min()), floor, est.threshold_over
        )
        res = nested_knn_correct(
            Xs[queries],
            y[queries],
            None,
            order,
            critical,
            Xs[train],
            y[train],
            gammas,
            np.minimum(ks, train.size),
        )
        correct += res.correct
        correct_all += res.correct_all
        size_sum += res.sizes * queries.size
        n_queries += queries.size
    acc_k = correct / n_queries
    acc_all_k = correct_all / n_queries
    # Best (K, gamma): the highest accuracy, then the larger gamma, then the larger K.
    kb, best = max(np.ndindex(*acc_k.shape), key=lambda i: (acc_k[i], gammas[i[1]], ks[i[0]]))
    ka = max(range(ks.size), key=lambda i: (acc_all_k[i], ks[i]))
    acc, acc_all = acc_k[kb], float(acc_all_k[ka])
    est.validation_scores_ = {
        "threshold": gammas.copy(),
        "subspaces": acc,
        "mean_size": size_sum / n_queries,
        "all_features": acc_all,
        "n_neighbors": ks.copy(),
        "subspaces_by_k": acc_k,
        "all_features_by_k": acc_all_k,
        "n_queries": int(n_queries),
        "n_folds": n_splits,
    }
    est.threshold_ = float(gammas[best])
    est.all_features_ = bool(auto and est.fallback and acc_all > acc[best])
    est.n_neighbors_ = int(ks[ka] if est.all_features_ else ks[kb])
    if acc_all > acc[best]:
        if est.all_features_:
            action = "queries use all features (all_features_=True)"
        elif auto:
            action = "pass fallback=True to let queries use all features then"
        else:
            action = "pass threshold='auto', fallback=True to let queries use all features then"
        warnings.warn(
            f"{type(est).__name__}: the local subspaces scored {acc[best]:.3f} "
            f"(threshold={gammas[best]:g}) in the model's own {n_splits}-fold validation, "
            f"below K-NN on all features ({acc_all:.3f}); {action}. Both scores are "
            "in validation_scores_.",
            UserWarning,
            stacklevel=4,
        )
    est._log(
        1,
        "validation on %d samples: subspaces %s, all features %.3f; threshold_ = %g",
        n_queries,
        np.array2string(acc, precision=3),
        acc_all,
        est.threshold_,
    )
