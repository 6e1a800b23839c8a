"""The inner validation of a GP fit: ``threshold="auto"``, ``n_neighbors="auto"``, safety net.

Not in the paper. Up to :data:`MAX_VALIDATION` training samples are the
queries, in the stratified folds of the score tables
(:mod:`localselect.gp._labelings`). For each fold the eq. (3) scores, the
feature GPs (same hyperparameters; the observations that fall in the
held-out fold move to their nearest point of the other folds, see
:func:`_fold_observations`) and the power floor are rebuilt on the other
folds only, so no query's label reaches its own subspace; its K-NN runs among
the other folds, in the subspaces of every candidate threshold and on all
features (:func:`~localselect.gp._validation.nested_knn_correct`).
:func:`validate_subspaces` returns the choice as an :class:`InnerValidation`.

Nothing here validates user input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._pairwise import row_chunks
from localselect.gp._labelings import ScoreTables
from localselect.gp._multigp import fit_posterior
from localselect.gp._queries import PowerModel, discriminative_power, null_posterior, power_floor
from localselect.gp._scores import raw_discriminative_scores, scale_scores
from localselect.gp._subspace import subspace_path
from localselect.gp._validation import NestedKNNScores, nested_knn_correct

__all__ = [
    "GAMMA_GRID",
    "MAX_VALIDATION",
    "N_NEIGHBORS_GRID",
    "FoldRule",
    "InnerValidation",
    "validate_subspaces",
]

Float = NDArray[np.float64]

#: Values of the threshold that ``threshold="auto"`` chooses from (besides all features).
#: They span the subspace sizes that win on the UCI sets of docs/gp.md.
GAMMA_GRID = (-np.inf, 0.5, 0.625, 0.75, 0.875, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0)

#: Values of K that ``n_neighbors="auto"`` chooses from (capped at the training
#: size): the paper's 8 and smaller ones, which win on small tables (Glass).
N_NEIGHBORS_GRID = (1, 3, 5, 8)

#: At most this many training samples are the validation queries of the
#: subspace choice (a random subset beyond it).
MAX_VALIDATION = 1000


class FoldRule(NamedTuple):
    """How each fold rebuilds the model's subspaces: the fit's settings.

    ``discrete`` and ``abs_corr`` describe the features (canonical order);
    the others are the estimator's parameters of the same names.
    """

    discrete: NDArray[np.bool_]
    abs_corr: Float
    score_scaling: str
    prior_mean: str
    reference_mean: float
    reference_std: float
    null_quantile: float | None
    threshold_over: str
    n_jobs: int | None


class InnerValidation(NamedTuple):
    """Result of :func:`validate_subspaces`.

    ``scores`` is the estimator's ``validation_scores_``; ``threshold`` the
    chosen threshold, ``all_features`` whether queries use all features
    (``threshold="auto"``, ``fallback`` and all features won), ``n_neighbors``
    the K queries use; ``subspaces_score`` and ``all_features_score`` the
    accuracies of the best subspaces and of all features (each at its best K).
    """

    scores: dict
    threshold: float
    all_features: bool
    n_neighbors: int
    subspaces_score: float
    all_features_score: float


def _fold_observations(Xs: Float, train: NDArray[np.intp], in_obs: NDArray[np.bool_]) -> NDArray:
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


def _fold_power(
    Xs: Float,
    train: NDArray[np.intp],
    labels: NDArray[np.intp],
    raw: Float | None,
    obs: NDArray[np.intp],
    hyper: Float,
    rule: FoldRule,
) -> PowerModel:
    """The feature GPs and the null GPs of a fold, from its training part only."""
    if raw is None:
        raw = raw_discriminative_scores(Xs, labels, rule.discrete, n_jobs=rule.n_jobs)
    rows = np.zeros(Xs.shape[0], dtype=bool)
    rows[train] = True
    fold = [scale_scores(r, Xs, rule.score_scaling, rows)[train] for r in raw]
    del raw
    prior = np.zeros(Xs.shape[1]) if rule.prior_mean == "zero" else fold[0].mean(axis=0)
    gp = fit_posterior(Xs[train][obs], fold[0][obs], prior, hyper)
    gp_null = null_posterior(Xs[train], fold[1:], obs, hyper, rule.prior_mean)
    return PowerModel(gp, gp_null, rule.reference_mean, rule.reference_std, rule.null_quantile)


def _fold_hits(
    Xs: Float,
    y: NDArray[np.intp],
    train: NDArray[np.intp],
    queries: NDArray[np.intp],
    model: PowerModel,
    rule: FoldRule,
    gammas: Float,
    ks: NDArray[np.intp],
) -> NestedKNNScores:
    """K-NN hits of a fold's queries among its training part, for every (K, threshold)."""
    power = discriminative_power(model, Xs[queries])
    floor = power_floor(model, Xs[queries])
    order, critical = subspace_path(
        power, rule.abs_corr, float(gammas.min()), floor, rule.threshold_over
    )
    return nested_knn_correct(
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


def _choose(
    correct: Float,
    correct_all: Float,
    size_sum: Float,
    n_queries: int,
    gammas: Float,
    ks: NDArray[np.intp],
    *,
    n_folds: int,
    auto: bool,
    fallback: bool,
) -> InnerValidation:
    """The most accurate (K, threshold), and whether all features win."""
    acc_k = correct / n_queries
    acc_all_k = correct_all / n_queries
    # Best (K, gamma): the highest accuracy, then the larger gamma, then the larger K.
    kb, best = max(np.ndindex(*acc_k.shape), key=lambda i: (acc_k[i], gammas[i[1]], ks[i[0]]))
    ka = max(range(ks.size), key=lambda i: (acc_all_k[i], ks[i]))
    acc, acc_all = acc_k[kb], float(acc_all_k[ka])
    scores = {
        "threshold": gammas.copy(),
        "subspaces": acc,
        "mean_size": size_sum / n_queries,
        "all_features": acc_all,
        "n_neighbors": ks.copy(),
        "subspaces_by_k": acc_k,
        "all_features_by_k": acc_all_k,
        "n_queries": int(n_queries),
        "n_folds": n_folds,
    }
    all_features = bool(auto and fallback and acc_all > acc[best])
    n_neighbors = int(ks[ka] if all_features else ks[kb])
    return InnerValidation(
        scores, float(gammas[best]), all_features, n_neighbors, float(acc[best]), acc_all
    )


def validate_subspaces(
    Xs: Float,
    y: NDArray[np.intp],
    rng: np.random.RandomState,
    tables: ScoreTables,
    observations: NDArray[np.intp],
    hyper: Float,
    rule: FoldRule,
    *,
    threshold: float | str,
    n_neighbors: int | str,
    fallback: bool,
) -> InnerValidation:
    """Inner cross-validation of K-NN in the subspaces against all features.

    Up to :data:`MAX_VALIDATION` training samples (drawn from ``rng``) are the
    queries, in the folds of ``tables``. With ``threshold="auto"`` the best of
    :data:`GAMMA_GRID` and of all features is kept (all features only when
    strictly better and ``fallback``; ties in the grid go to the larger
    threshold); with ``n_neighbors="auto"`` every K of
    :data:`N_NEIGHBORS_GRID` is scored on the same distances, for the
    subspaces and for all features, and the best kept (ties: the larger
    threshold, then the larger K). A fixed threshold or K is scored alone.

    Parameters
    ----------
    Xs : ndarray of shape (n_samples, n_features)
        Standardised training data.
    y : ndarray of shape (n_samples,)
        Class codes.
    rng : RandomState
        Source of the validation queries.
    tables : ScoreTables
        The folds, their labelings and (when computed) their raw scores.
    observations : ndarray of int
        The model's observation points (rows of ``Xs``).
    hyper : ndarray of shape (3,)
        The model's kernel hyperparameters.
    rule : FoldRule
        How the fold models are rebuilt.
    threshold, n_neighbors, fallback
        The estimator's parameters.

    Returns
    -------
    InnerValidation
    """
    n = Xs.shape[0]
    chosen = np.zeros(n, dtype=bool)
    chosen[rng.choice(n, min(n, MAX_VALIDATION), replace=False)] = True
    auto = isinstance(threshold, str)
    gammas = np.array(GAMMA_GRID if auto else (float(threshold),))
    grid = N_NEIGHBORS_GRID if n_neighbors == "auto" else (n_neighbors,)
    ks = np.array(sorted({min(int(k), n - 1) for k in grid}), dtype=np.intp)
    correct = np.zeros((ks.size, gammas.size))
    correct_all = np.zeros(ks.size)
    size_sum = np.zeros(gammas.size)
    n_queries = 0
    in_obs = np.zeros(n, dtype=bool)
    in_obs[observations] = True
    for (train, test), labels, raw in zip(tables.folds, tables.fold_labels, tables.fold_raw):
        queries = test[chosen[test]]
        if queries.size == 0:
            continue
        obs = _fold_observations(Xs, train, in_obs)
        model = _fold_power(Xs, train, labels, raw, obs, hyper, rule)
        del raw
        res = _fold_hits(Xs, y, train, queries, model, rule, gammas, ks)
        correct += res.correct
        correct_all += res.correct_all
        size_sum += res.sizes * queries.size
        n_queries += queries.size
    return _choose(
        correct,
        correct_all,
        size_sum,
        n_queries,
        gammas,
        ks,
        n_folds=len(tables.folds),
        auto=auto,
        fallback=fallback,
    )
