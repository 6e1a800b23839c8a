"""The held-out rule of the saliency selector: a per-row test of each feature on unseen rows.

``per_row="heldout"`` of :class:`~localselect.saliency.ConditionalSaliencySelection`.
The model is fitted on part of the rows; on the held-out rows, each feature's
loss change when it is replaced by a model-X knockoff draw
(:mod:`localselect.saliency._losschange`, Candès et al. 2018) is stored, with
the rows' saliency profiles. A row's p-value for a feature is a one-sided
z-test of the mean loss change over held-out rows near it in profile space
(:func:`~localselect.saliency._perrow.pool_rows`,
:func:`~localselect.saliency._perrow.loss_change_pvalues`). :func:`fit_heldout`
returns the fitted test as a :class:`HeldOutTest` record; its
:meth:`HeldOutTest.answer` gives the p-values of new rows, and keeps the last
answer (:class:`LastAnswer`) so that another ``fdr`` only redoes
Benjamini-Hochberg.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect.saliency._knockoffs import gaussian_knockoffs, shrunk_covariance
from localselect.saliency._losschange import knockoff_loss_changes, row_loss
from localselect.saliency._mixed import ConditionalNullSampler
from localselect.saliency._models import ModelFactory, fitted_saliency
from localselect.saliency._perrow import loss_change_pvalues, pool_rows
from localselect.saliency._saliency import unit_profiles

__all__ = [
    "FewHeldOutRowsWarning",
    "HeldOutTest",
    "LastAnswer",
    "fit_heldout",
    "floor_support",
    "heldout_split",
]


class FewHeldOutRowsWarning(UserWarning):
    """The per-row test has fewer held-out rows than its error rate was measured to need."""


#: Held-out rows from which ``per_row="heldout"`` was measured within nominal + 2 points of
#: per-row FDR (10,000 rows at ``heldout_fraction=0.3``); fewer give FewHeldOutRowsWarning.
_CALIBRATED_HELDOUT = 3000

#: Rows answered at once (bounds the neighbour lists' memory).
_ANSWER_ROWS = 4096

#: The last answer's p-values are kept up to this many numbers (64 MiB).
_CACHED_NUMBERS = 2**23

#: Candidates per pooled row among which support-consistent rows come first.
_CANDIDATES_PER_NEIGHBOR = 4

#: ``pool_profiles="auto"`` stores the held-out profiles once per feature up to this many
#: numbers (128 MiB): ``n_modelled ** 2 * n_heldout``.
_SWAPPED_BUDGET = 2**24

#: The support compared by ``support_agreement``: saliency at least this of the row's largest.
_AGREEMENT_FLOOR = 0.05


def heldout_split(
    n: int,
    heldout_fraction: float,
    profile_fraction: float,
    n_neighbors: int,
    rng: np.random.RandomState,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """Held-out, profile-model and model rows of ``n`` rows (one permutation of ``rng``).

    Parameters
    ----------
    n : int
        Rows.
    heldout_fraction, profile_fraction : float
        Shares of the held-out rows and of the profile model's rows.
    n_neighbors : int
        Held-out rows pooled with a row (at least 2).
    rng : RandomState

    Returns
    -------
    held, profile, train : ndarray of int
        Disjoint row indices.

    Raises
    ------
    ValueError
        Fewer than 2 rows for one of the parts, or ``n_neighbors < 2``.
    """
    m = round(heldout_fraction * n)
    b = round(profile_fraction * n)
    if m < 2 or n_neighbors < 2:
        raise ValueError(
            "per_row='heldout' needs at least 2 held-out rows and n_neighbors >= 2; "
            f"got {m} rows (heldout_fraction={heldout_fraction}) and "
            f"n_neighbors={n_neighbors}."
        )
    if n - m - b < 2 or (profile_fraction > 0 and b < 2):
        raise ValueError(
            f"heldout_fraction={heldout_fraction} and profile_fraction="
            f"{profile_fraction} leave {n - m - b} of {n} rows for the model and "
            f"{b} for the profile model; each needs at least 2 (lower the fractions, or "
            "set profile_fraction=0 to read profiles from the model itself)."
        )
    perm = rng.permutation(n)
    return perm[:m], perm[m : m + b], perm[m + b :]


class LastAnswer:
    """The pooled p-values and floor of the last rows answered (a :class:`HeldOutTest`'s cache).

    Created with the test at ``fit`` (and anew when a fitted estimator is
    unpickled); answering rows fills it in place.
    """

    __slots__ = ("entry",)

    def __init__(self):
        self.entry = None  # (key, p, floor), replaced whole: threads see one answer or another

    def get(self, key):
        """``(p, floor)`` kept for ``key``, or None."""
        entry = self.entry
        return entry[1:] if entry is not None and entry[0] == key else None

    def keep(self, key, p, floor):
        """Keep ``(p, floor)`` for ``key`` unless ``p`` holds over ``_CACHED_NUMBERS``."""
        if p.size <= _CACHED_NUMBERS:
            self.entry = (key, p, floor)


def floor_support(S: NDArray[np.float64], fraction: float) -> NDArray[np.bool_]:
    """Features whose saliency at a row is positive and at least ``fraction`` of its largest.

    Parameters
    ----------
    S : ndarray of shape (n_rows, n_features)
        Saliency profiles.
    fraction : float

    Returns
    -------
    mask : ndarray of shape (n_rows, n_features) of bool
    """
    return (fraction * S.max(axis=1, keepdims=True) <= S) & (S > 0)


class HeldOutTest(NamedTuple):
    """The fitted held-out test: what answering a row needs, and the last answer.

    Parameters
    ----------
    estimator : estimator
        The model whose loss changed (``estimator_``).
    profile_estimator : estimator
        The model whose saliency profiles choose the pools (``estimator``
        itself unless a second model was fitted).
    grid : ndarray of shape (n_quantiles, n_modelled)
        Replacement values of the saliency.
    loss_change : ndarray of shape (n_heldout, n_modelled)
        Loss changes of the held-out rows.
    reference_saliency : ndarray of shape (n_heldout, n_modelled)
        The held-out rows' profiles.
    swapped_saliency : ndarray of shape (n_modelled, n_heldout, n_modelled) or None
        The held-out rows' profiles with feature ``j`` replaced by a knockoff
        draw, for each ``j``; None to pool every feature on
        ``reference_saliency``.
    regression : bool
        A continuous target.
    cache : LastAnswer
        The last answer.
    """

    estimator: Any
    profile_estimator: Any
    grid: NDArray[np.float64]
    loss_change: NDArray[np.float64]
    reference_saliency: NDArray[np.float64]
    swapped_saliency: NDArray[np.float64] | None
    regression: bool
    cache: LastAnswer

    def saliency(self, Z: NDArray[np.float64], model: Any = None) -> NDArray[np.float64]:
        """Saliency of ``model`` (``estimator`` by default) at the rows ``Z``."""
        model = self.estimator if model is None else model
        return fitted_saliency(model, Z, self.grid, regression=self.regression)

    def answer(
        self,
        Z: NDArray[np.float64],
        *,
        n_neighbors: int,
        support_agreement: float,
        min_saliency: float,
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """The pooled p-values and the ``min_saliency`` floor of rows in the modelled columns.

        They do not depend on ``fdr``: the last rows' answer is kept (up to
        ``_CACHED_NUMBERS`` p-values), so that ``local_relevance`` after
        ``get_local_support``, or the support at another ``fdr``, only redoes
        Benjamini-Hochberg.

        Parameters
        ----------
        Z : ndarray of shape (n_rows, n_modelled)
            Rows, standardised, in the modelled columns.
        n_neighbors : int
            Held-out rows pooled with a row.
        support_agreement : float
            Jaccard index of the supports of the rows pooled first.
        min_saliency : float
            The floor: a feature's saliency at the row relative to its largest.

        Returns
        -------
        p : ndarray of shape (n_rows, n_modelled)
            One-sided p-values.
        floor : ndarray of shape (n_rows, n_modelled) of bool
            Features at or above the floor.
        """
        key = (
            hashlib.blake2b(np.ascontiguousarray(Z).tobytes(), digest_size=16).hexdigest(),
            Z.shape,
            n_neighbors,
            support_agreement,
            min_saliency,
        )
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        p = np.empty(Z.shape)
        floor = np.empty(Z.shape, dtype=bool)
        for start in range(0, Z.shape[0], _ANSWER_ROWS):
            rows = slice(start, start + _ANSWER_ROWS)
            p[rows], floor[rows] = self.block(
                Z[rows], (n_neighbors, support_agreement), min_saliency
            )
        self.cache.keep(key, p, floor)
        return p, floor

    def block(
        self, Z: NDArray[np.float64], pooling: tuple[int, float], min_saliency: float
    ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """:meth:`answer` for one block of rows, without the cache (``pooling``: its
        ``n_neighbors`` and ``support_agreement``)."""
        S = self.saliency(Z, self.profile_estimator)
        rows = unit_profiles(S), floor_support(S, _AGREEMENT_FLOOR)  # once for every feature
        if self.swapped_saliency is not None:
            p = np.empty(S.shape)
            for j, Sj in enumerate(self.swapped_saliency):
                idx = self.pools(rows, Sj, pooling)
                p[:, j] = loss_change_pvalues(self.loss_change[:, j : j + 1], idx)[:, 0]
        else:
            p = loss_change_pvalues(
                self.loss_change, self.pools(rows, self.reference_saliency, pooling)
            )
        if self.profile_estimator is not self.estimator:
            S = self.saliency(Z)
        return p, floor_support(S, min_saliency)

    def pools(
        self,
        rows: tuple[NDArray[np.float64], NDArray[np.bool_]],
        reference: NDArray[np.float64],
        pooling: tuple[int, float],
    ) -> NDArray[np.intp]:
        """Held-out rows pooled with each row (``rows``: its unit profiles and support): its
        nearest ``n_neighbors`` ``reference`` profiles, those sharing its support first
        (``pooling``: ``n_neighbors`` and ``support_agreement``)."""
        profiles, support = rows
        n_neighbors, support_agreement = pooling
        m = reference.shape[0]
        k = min(n_neighbors, m)
        return pool_rows(
            profiles,
            unit_profiles(reference),
            support,
            floor_support(reference, _AGREEMENT_FLOOR),
            k,
            min(_CANDIDATES_PER_NEIGHBOR * k, m),
            support_agreement,
        )


def fit_heldout(
    Xk: NDArray[np.float64],
    target: NDArray,
    split: tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]],
    models: ModelFactory,
    rng: np.random.RandomState,
    *,
    n_draws: int,
    pool_profiles: str,
    log: Callable[..., Any],
    nominal: NDArray[np.bool_] | None = None,
) -> HeldOutTest:
    """Fit the held-out test: the model on its rows, loss changes and profiles of the held-out.

    The loss changes are :func:`~localselect.saliency._losschange.knockoff_loss_changes`
    with the Ledoit-Wolf covariance of every row of ``Xk``. With swapped
    profiles (``pool_profiles="swapped"``, or ``"auto"`` while ``n_modelled
    ** 2 * n_heldout`` is at most ``_SWAPPED_BUDGET``), the profiles that
    choose feature ``j``'s pools are computed with ``x_j`` replaced by a
    knockoff draw independent of those of the loss changes.

    Parameters
    ----------
    Xk : ndarray of shape (n_samples, n_modelled)
        Every training row (standardised, modelled columns): the split picks
        the model's, the profile model's and the held-out ones.
    target : ndarray of shape (n_samples,)
        Class codes, or the continuous target.
    split : tuple of ndarray of int
        Held-out, profile-model and model rows (:func:`heldout_split`).
    models : ModelFactory
        Makes, fits and reads the models (and their grid of replacement values).
    rng : RandomState
        Model seeds and knockoff draws.
    n_draws : int
        Knockoff draws per held-out row.
    pool_profiles : {"auto", "swapped", "shared"}
        Which profiles choose the pools.
    log : callable
        ``log(level, message, *args)``.
    nominal : ndarray of shape (n_modelled,) of bool or None, default=None
        For a table with nominal columns or missing values, which columns hold
        level codes: the null draws are then the conditional draws of
        :class:`~localselect.saliency._mixed.ConditionalNullSampler`, fitted on
        the model's rows, in place of Gaussian knockoffs. None: numeric,
        complete columns.

    Returns
    -------
    test : HeldOutTest
    """
    c = Xk.shape[1]
    held, profile, train = split
    m, b = held.size, profile.size
    if m < _CALIBRATED_HELDOUT:
        warnings.warn(
            f"per_row='heldout' tests each row on {m:,} held-out rows; its per-row FDR "
            f"was measured within nominal + 2 points from {_CALIBRATED_HELDOUT:,} held-out "
            "rows (10,000 rows at heldout_fraction=0.3), but at fdr 0.1 reached 9-24 % "
            "with 1,500 and 17-35 % with 600-900 on designs whose relevant features "
            "switch between regions (a row's pool of n_neighbors rows then mixes them). Read "
            "fdr as a ranking rather than an error rate here, or fit on more rows.",
            FewHeldOutRowsWarning,
            stacklevel=4,
        )
    log(1, "fitting the model on %d rows, %d held out", train.size, m)
    model = models.fit(Xk[train], target[train], rng)
    grid = models.grid(Xk[train])
    profile_model = model
    if b:
        log(1, "fitting the profile model on %d rows", b)
        profile_model = models.fit(Xk[profile], target[profile], rng)
    Xh, yh = Xk[held], target[held]
    cov = (
        shrunk_covariance(Xk)
        if nominal is None
        else ConditionalNullSampler(nominal).fit(Xk[train])
    )
    loss = row_loss(model, yh, models.regression)
    loss_change = knockoff_loss_changes(Xh, loss, cov, rng, n_draws)
    reference = fitted_saliency(profile_model, Xh, grid, regression=models.regression)
    swapped = None
    if pool_profiles == "swapped" or (pool_profiles == "auto" and c * c * m <= _SWAPPED_BUDGET):
        # Profiles that choose feature j's pools must not depend on x_j: computed with
        # x_j replaced by a knockoff draw independent of the ones in loss_change.
        log(1, "saliency profiles of the held-out rows without each of %d features", c)
        K = (
            cov.for_rows(Xh)(rng)
            if isinstance(cov, ConditionalNullSampler)
            else gaussian_knockoffs(Xh, cov, rng)
        )
        swapped = np.empty((c, m, c))
        Xr = Xh.copy()
        for j in range(c):
            Xr[:, j] = K[:, j]
            swapped[j] = fitted_saliency(profile_model, Xr, grid, regression=models.regression)
            Xr[:, j] = Xh[:, j]
    return HeldOutTest(
        model,
        profile_model,
        grid,
        loss_change,
        reference,
        swapped,
        models.regression,
        LastAnswer(),
    )
