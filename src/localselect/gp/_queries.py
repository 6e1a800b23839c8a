"""What a fitted GP model computes at queries: power, power floor, subspaces, K-NN votes.

The fitted pieces each computation needs are small records
(:class:`PowerModel`, :class:`SubspaceModel`, :class:`KNNModel`) built by the
estimator from its fitted attributes and current parameters; the parallel
tasks over blocks of queries receive these records, not the estimator.

Nothing here validates user input: queries arrive standardised, in the
canonical column order (:mod:`localselect.gp._layout`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._pairwise import row_chunks
from localselect._runtime import Reporter, map_tasks
from localselect.gp._multigp import SharedKernelGP, fit_posterior
from localselect.gp._scores import gaussian_kl
from localselect.gp._subspace import select_subspaces
from localselect.gp._validation import knn_votes, masked_sq_dists

__all__ = [
    "KNNModel",
    "PowerModel",
    "SubspaceModel",
    "discriminative_power",
    "null_posterior",
    "power_floor",
    "query_proba",
    "query_subspaces",
]

Float = NDArray[np.float64]


class PowerModel(NamedTuple):
    """The feature GPs, the null GPs of the power floor, and the reference ``y*``.

    ``gp_null`` is None without a floor; ``null_quantile`` None switches the
    floor off as well.
    """

    gp: SharedKernelGP
    gp_null: SharedKernelGP | None
    reference_mean: float
    reference_std: float
    null_quantile: float | None


class SubspaceModel(NamedTuple):
    """What Algorithm 2 needs at a query: the power, the correlations and the threshold.

    ``threshold`` None gives every feature (the safety net).
    """

    power: PowerModel
    abs_corr: Float
    threshold: float | None
    threshold_over: str


class KNNModel(NamedTuple):
    """The subspaces and the training data of the K-NN of each query's subspace.

    ``X_fit_sq`` is ``X_fit * X_fit``, ``onehot`` the ``(n_train, n_classes)``
    indicator of the training labels, ``n_neighbors`` the K used.
    """

    subspaces: SubspaceModel
    X_fit: Float
    X_fit_sq: Float
    onehot: Float
    n_neighbors: int


def _kl_power(gp: SharedKernelGP, model: PowerModel, Xs: Float) -> Float:
    means, variance = gp.predict(Xs)
    return gaussian_kl(
        means, variance[:, None], float(model.reference_mean), float(model.reference_std) ** 2
    )


def discriminative_power(model: PowerModel, Xs: Float) -> Float:
    """``D_j(x) = KL(N(mu_j(x), s(x)^2) || N(mu*, sigma*^2))`` of every feature GP (sec. 4.3)."""
    return _kl_power(model.gp, model, Xs)


def power_floor(model: PowerModel, Xs: Float) -> Float | None:
    """Per-query floor: the ``null_quantile`` of the power under permuted labels (or None)."""
    if model.gp_null is None or model.null_quantile is None:
        return None  # no floor (also after set_params(null_quantile=None))
    power = _kl_power(model.gp_null, model, Xs)
    return np.quantile(power, float(model.null_quantile), axis=1)


def null_posterior(
    Xs: Float, null_scores: list[Float], obs: NDArray[np.intp], hyper: Float, prior_mean: str
) -> SharedKernelGP | None:
    """GP of the eq. (3) scores under permuted labels (the power floor's null), or None.

    The permutations' scores share the observations ``obs`` and the kernel
    ``hyper`` of the feature GPs; ``prior_mean`` as the estimator's.
    """
    if not null_scores:
        return None
    Y = np.hstack(null_scores)
    prior = np.zeros(Y.shape[1]) if prior_mean == "zero" else Y.mean(axis=0)
    return fit_posterior(Xs[obs], Y[obs], prior, hyper)


def block_subspaces(model: SubspaceModel, Xs: Float) -> NDArray[np.bool_]:
    """Algorithm 2's subspace of each query of a block."""
    if model.threshold is None:
        return np.ones(Xs.shape, dtype=bool)
    floor = power_floor(model.power, Xs)
    power = discriminative_power(model.power, Xs)
    return select_subspaces(power, model.abs_corr, model.threshold, floor, model.threshold_over)


def block_proba(model: KNNModel, Xs: Float) -> Float:
    """K-NN votes of a block of queries, each in its own subspace, as class frequencies."""
    mask = block_subspaces(model.subspaces, Xs).astype(np.float64)
    sq = masked_sq_dists(Xs, mask, model.X_fit, model.X_fit_sq)
    k = model.n_neighbors
    return knn_votes(sq, model.onehot, k) / k


def _over_blocks(
    func: Callable[[Any, Float], NDArray],
    model: Any,
    Xs: Float,
    blocks: list[slice],
    description: str,
    *,
    n_jobs: int | None,
    log: Reporter,
) -> list[NDArray]:
    """``func(model, Xs[rows])`` for every block of queries, in parallel, with progress."""
    out = []
    with log.task(Xs.shape[0], description, unit="queries") as task:
        results = map_tasks(func, ((model, Xs[r]) for r in blocks), n_jobs, generator=True)
        for rows, res in zip(blocks, results):
            out.append(res)
            task.advance(rows.stop - rows.start)
    return out


def query_subspaces(
    model: SubspaceModel, Xs: Float, *, n_jobs: int | None, log: Reporter
) -> NDArray[np.bool_]:
    """Algorithm 2's subspaces of the queries ``Xs``, in blocks of bounded memory."""
    n_obs = model.power.gp.X_obs.shape[0]
    blocks = row_chunks(Xs.shape[0], 8 * (3 * n_obs + 4 * Xs.shape[1]))
    masks = _over_blocks(
        block_subspaces, model, Xs, blocks, "GP subspaces", n_jobs=n_jobs, log=log
    )
    return np.vstack(masks) if masks else np.zeros((0, Xs.shape[1]), dtype=bool)


def query_proba(model: KNNModel, Xs: Float, *, n_jobs: int | None, log: Reporter) -> Float:
    """Class frequencies among the K nearest training samples in each query's subspace."""
    n_train = model.X_fit.shape[0]
    blocks = row_chunks(Xs.shape[0], 8 * (4 * n_train + 8 * Xs.shape[1]))
    parts = _over_blocks(block_proba, model, Xs, blocks, "GP local K-NN", n_jobs=n_jobs, log=log)
    if not parts:
        return np.zeros((0, model.onehot.shape[1]))
    return np.vstack(parts)
