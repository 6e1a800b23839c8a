"""Boosted IMMIGRATE (BIM, Algorithm 3) and its IM4E-pre-screened form (B4G)."""

from __future__ import annotations

import logging
import warnings
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from localselect._compat import Interval, StrOptions
from localselect._docstrings import fill_doc
from localselect._magnitudes import check_magnitudes
from localselect._runtime import MeasuredCost
from localselect.base import (
    Declaration,
    LabelledFitMixin,
    ScoreSelectorMixin,
    read_rows,
    shared_constraints,
)
from localselect.margin._common import CANDIDATES_CONSTRAINT, NEED_HITS
from localselect.margin._cost import LINEAR_INSTEAD
from localselect.margin._immigrate import Immigrate, resolve_prescreen, with_fit_result
from localselect.margin._pairs import AllPairs, NeighbourPairs, resolve_pairs
from localselect.margin._solvers import im4e, immigrate_fit, prescreen_mask

__all__ = ["BoostedImmigrate"]

logger = logging.getLogger(__name__)


class _Setup(NamedTuple):
    """What every round shares: the resolved pre-screen, IM4E weights, ``n_candidates``."""

    prescreen: float | str | None
    max_features: int | None
    im4e_weights: np.ndarray | None
    n_candidates: int | str | None


class _Rounds(NamedTuple):
    """The kept rounds of boosting: learners, votes, weighted errors and sigmas."""

    estimators: list
    votes: list
    errors: list
    sigmas: list

    def add(self, learner, vote: float, error: float, sigma: float) -> None:
        self.estimators.append(learner)
        self.votes.append(vote)
        self.errors.append(error)
        self.sigmas.append(sigma)


@fill_doc
class BoostedImmigrate(LabelledFitMixin, ClassifierMixin, ScoreSelectorMixin, BaseEstimator):
    """Boosted IMMIGRATE (BIM): AdaBoost with IMMIGRATE as the weak learner.

    Algorithm 3 of Zhao, Hong and Liu: round ``t`` fits IMMIGRATE on the
    sample-weighted cost (3.19) with ``sigma_t``, which falls geometrically
    from ``sigma_max`` to ``sigma_min``; the weighted training error
    ``eps_t`` sets the vote ``alpha_t`` and the reweighting of the samples.
    With ``prescreen="auto"`` every weak learner is IM4E-IMMIGRATE: the
    paper's boosted IM4E-IMMIGRATE (B4G) for high-dimensional data.

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    n_estimators : int, default=100
        Number of boosting rounds ``T`` (the paper's 100).
    sigma_max : float, default=4.0
        ``sigma`` of the first round.
    sigma_min : float, default=0.2
        ``sigma`` approached in the last round: each round multiplies sigma by
        ``(sigma_min / sigma_max) ** (1 / T)``.
    max_iter : int, default=5
        Iterations of each weak IMMIGRATE (the paper limits them; no
        convergence warning is raised for the weak learners).
    init : {"identity", "random", "im4e"}, default="identity"
        Initial ``W`` of every weak learner (see :class:`Immigrate`).
    prescreen : float, "auto", "high-dim" or None, default="high-dim"
        IM4E pre-screen of the features (see :class:`Immigrate`); computed
        once, before boosting.
    n_candidates : int, "auto" or None, default="auto"
        Neighbour truncation of every weak learner (see :class:`Immigrate`).
        The neighbours are found once and shared by all rounds. ``"auto"``:
        exact up to 1,000 samples while ``N^2 A^2 <= 4e7``, else
        ``k = 2e7 / (N A^2)`` clipped to [10, 100] (a fiftieth of
        :class:`Immigrate`'s budget, since a fit runs up to ``n_estimators``
        rounds). The paper's exact method is ``n_candidates=None`` (the
        reproduction suites use it). Data with missing values run exact; when
        ``"auto"`` would truncate and the exact fit needs more than 2e11
        multiply-adds (``n_estimators * max_iter * N^2 A^2``), ``fit`` refuses
        at once and says what to change.
    n_features_to_select : int, float or None, default=None
        Features kept by ``transform``: that many of the largest entries of
        ``feature_importances_`` (an int), that fraction of the features (a
        float in (0, 1]), or (``None``) every feature with a positive one.
    fdr : float, default=0.1
        %(fdr)s
    random_state : int, RandomState instance or None, default=None
        Seeds the random initial matrices (``init="random"``); one seed per
        round is drawn up front.
    n_jobs : int, default=None
        Threads over row blocks of the exact method's pairwise work inside
        each round (rounds are sequential) and of the IM4E pre-screen. With
        neighbour truncation (``n_candidates``) the rounds and ``predict``
        run in one thread and ``n_jobs`` reaches only the neighbour search.
        Results do not depend on it.
    verbose : int, default=0
        1 logs each round and the progress of fits past 2 s (INFO) to
        ``logging.getLogger("localselect.margin")``.

    Attributes
    ----------
    estimators_ : list of Immigrate
        The kept weak learners.
    estimator_weights_ : ndarray of shape (n_estimators_kept,)
        Vote ``alpha_t`` of each kept learner.
    estimator_errors_ : ndarray of shape (n_estimators_kept,)
        Weighted training error ``eps_t`` of each kept learner.
    sigmas_ : ndarray of shape (n_estimators_kept,)
        ``sigma_t`` of each kept learner.
    n_iter_ : ndarray of shape (n_estimators_kept,)
        IMMIGRATE iterations run by each kept learner.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Vote-weighted mean of the learners' diagonal weights (what
        ``get_support`` and ``transform`` select on).
    n_candidates_ : int or None
        Hits and misses kept per sample; None for the exact method.
    %(fitted_classes_attributes)s

    See Also
    --------
    Immigrate : The weak learner.

    Notes
    -----
    %(missing_values_notes)s

    Round ``t``: fit with weights ``D_t`` (eq. (3.19)); ``eps_t`` is the
    ``D_t``-weighted error of the learner on the training samples, each
    predicted *without itself* (leave-one-out in eq. (3.18); with itself at
    distance 0 every sample would lean to its own class). For ``K`` classes
    (SAMME) ``alpha_t = (log((1 - eps_t) / eps_t) + log(K - 1)) / 2`` and
    ``D_{t+1} = D_t exp(alpha_t [y != h_t(x)])``, normalised; for two classes
    this is exactly Algorithm 3. A round with ``eps_t >= 1 - 1/K`` (1/2 for
    two classes) is discarded and boosting stops, as SAMME and
    scikit-learn's AdaBoost do (the paper discards it and goes on with a
    smaller sigma; ours stops, so a weak learner no better than chance does
    not cost the remaining rounds). Prediction: ``argmax_c sum_t alpha_t
    [h_t(x) = c]``, ties to the first class; ``predict_proba`` is the
    normalised vote.

    Deviations: Algorithm 3 also discards a round with ``eps_t = 0``; we keep
    such a perfect learner and stop boosting (as scikit-learn's AdaBoost
    does), since discarding it leaves the weights unchanged. If the first round is
    discarded, it is kept alone with vote 1 and a warning is raised.
    The R package boosts differently (sigma rising from 0.02, 3 rounds); we
    follow the paper. With ``prescreen``, IM4E runs once on the unweighted
    data with ``sigma = 1`` (the paper does not say which sigma).

    Time: ``n_estimators`` times IMMIGRATE's O(max_iter N^2 A^2) plus one
    leave-one-out prediction O(N^2 A^2) per round; with neighbour truncation
    O(max_iter N k A^2 + N C k A^2) per round after one neighbour search
    shared by all rounds.

    As a selector, ``get_support`` and ``transform`` use the vote-weighted
    mean of the rounds' diagonal weights (``feature_importances_``), not the
    union of the features any round used.

    References
    ----------
    .. [1] R. Zhao, P. Hong and J. S. Liu, "IMMIGRATE: A margin-based feature
       selection method with interaction terms", Entropy 22(3), 291, 2020.
    .. [2] J. Zhu, H. Zou, S. Rosset and T. Hastie, "Multi-class AdaBoost",
       Statistics and its Interface 2, 2009.

    Examples
    --------
    >>> from localselect import BoostedImmigrate
    >>> from localselect.datasets import make_immigrate_synthetic
    >>> X, y, _ = make_immigrate_synthetic(40, noise_level=0.1, random_state=0)
    >>> model = BoostedImmigrate(n_estimators=10, random_state=0).fit(X, y)
    >>> len(model.estimators_) <= 10, model.score(X, y) > 0.8
    (True, True)
    """

    _declaration = Declaration(
        "bim",
        check={"n_estimators": 3, "max_iter": 2},
        demo={"n_estimators": 5},
        holds=(Immigrate, AllPairs, NeighbourPairs),
        size=MeasuredCost(
            77.6,
            20_000,
            1.7,
            "fits n_estimators weak IMMIGRATE models, each searching neighbours among all "
            "{n} rows (about N^{p:.1f} measured)",
            fix="n_estimators lower (time is proportional to it)",
            per=("n_estimators", 100),
            instead=LINEAR_INSTEAD,
        ),
    )
    _parameter_constraints = {
        **ScoreSelectorMixin._parameter_constraints,
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "sigma_max": [Interval(Real, 0, None, closed="neither")],
        "sigma_min": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "init": [StrOptions({"identity", "random", "im4e"})],
        "prescreen": [
            Interval(Real, 0, None, closed="left"),
            StrOptions({"auto", "high-dim"}),
            None,
        ],
        "n_candidates": CANDIDATES_CONSTRAINT,
        **shared_constraints("random_state", "n_jobs", "verbose"),
    }

    _min_class_size = 2
    _class_size_reason = NEED_HITS

    def __init__(
        self,
        n_estimators=100,
        *,
        sigma_max=4.0,
        sigma_min=0.2,
        max_iter=5,
        init="identity",
        prescreen="high-dim",
        n_candidates="auto",
        n_features_to_select=None,
        fdr=0.1,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_estimators = n_estimators
        self.sigma_max = sigma_max
        self.sigma_min = sigma_min
        self.max_iter = max_iter
        self.init = init
        self.prescreen = prescreen
        self.n_candidates = n_candidates
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _fit(self, X, codes, log):
        # Algorithm 3
        if self.sigma_min > self.sigma_max:
            raise ValueError(
                f"sigma_min={self.sigma_min} exceeds sigma_max={self.sigma_max}; "
                "sigma falls from sigma_max to sigma_min, so pass sigma_min <= sigma_max."
            )
        rng = check_random_state(self.random_state)
        seeds = rng.randint(np.iinfo(np.int32).max, size=self.n_estimators)
        prescreen, max_features = resolve_prescreen(self.prescreen, X.shape[1])
        im4e_weights = None
        if prescreen is not None or self.init == "im4e":
            im4e_weights = im4e(AllPairs(X, codes, n_jobs=self.n_jobs), 1.0, warn=False).weights
        setup = _Setup(prescreen, max_features, im4e_weights, self.n_candidates)
        pairs = self._shared_pairs(X, codes, setup)
        self.n_candidates_ = pairs.n_candidates
        rounds = self._boost(X, codes, pairs, seeds, setup, log)
        self.estimators_ = rounds.estimators
        self._pairs = pairs
        self.estimator_weights_ = np.asarray(rounds.votes)
        self.estimator_errors_ = np.asarray(rounds.errors)
        self.sigmas_ = np.asarray(rounds.sigmas)
        self.n_iter_ = np.array([est.n_iter_ for est in rounds.estimators])
        importances = np.array([est.feature_importances_ for est in rounds.estimators])
        self.feature_importances_ = self.estimator_weights_ @ importances / np.sum(rounds.votes)
        return self

    def _shared_pairs(self, X, codes, setup):
        """The pair source of every round: the modelled features and their neighbours."""
        keep = np.ones(X.shape[1], dtype=bool)
        if setup.prescreen is not None:
            keep = prescreen_mask(
                setup.im4e_weights, setup.prescreen, max_features=setup.max_features
            )
        return resolve_pairs(
            X[:, keep],
            codes,
            setup.n_candidates,
            method="BoostedImmigrate",
            budget=2e7,
            power=2,
            passes=self.n_estimators * self.max_iter,
            n_jobs=self.n_jobs,
        )

    def _learner(self, X, codes, sigma, seed, D, pairs, setup):
        """One round: IMMIGRATE on the sample weights ``D``, as a fitted :class:`Immigrate`."""
        result = immigrate_fit(
            X,
            codes,
            sigma,
            rng=check_random_state(seed),
            init=self.init,
            prescreen=setup.prescreen,
            max_features=setup.max_features,
            max_iter=self.max_iter,
            sample_weight=D,
            im4e_weights=setup.im4e_weights,
            n_jobs=self.n_jobs,
            warn=False,
            pairs=pairs,
        )
        learner = Immigrate(
            sigma,
            max_iter=self.max_iter,
            init=self.init,
            prescreen=self.prescreen,
            n_candidates=setup.n_candidates,
            n_jobs=self.n_jobs,
            random_state=int(seed),  # the round's seed, an int (safe to save)
        )
        with_fit_result(learner, result, codes, self.classes_)
        return learner, result

    def _boost(self, X, codes, pairs, seeds, setup, log) -> _Rounds:
        """The boosting rounds (SAMME weights; sigma falls geometrically)."""
        n, k = X.shape[0], len(self.classes_)
        loo_query = pairs.query(pairs.X, leave_one_out=True)
        factor = (self.sigma_min / self.sigma_max) ** (1.0 / self.n_estimators)
        D = np.full(n, 1.0 / n)
        sigma = self.sigma_max
        rounds = _Rounds([], [], [], [])
        first = None
        with log.task(self.n_estimators, "BIM rounds", unit="rounds") as task:
            for t in range(self.n_estimators):
                learner, result = self._learner(X, codes, sigma, seeds[t], D, pairs, setup)
                task.advance()
                if first is None:
                    first = learner
                loo = pairs.expected_distances(
                    loo_query, result.modelled_weights, sigma, n_jobs=self.n_jobs
                )
                wrong = np.argmin(loo, axis=1) != codes
                eps = float(D @ wrong)
                log(1, "BIM round %d: sigma=%.4g, error=%.4f", t + 1, sigma, eps)
                sigma_t = sigma
                sigma *= factor
                if eps >= 1.0 - 1.0 / k:
                    log(1, "BIM: error at least 1 - 1/%d, boosting stops (SAMME)", k)
                    break
                if eps <= 0.0:
                    rounds.add(learner, 1.0, 0.0, sigma_t)
                    break
                alpha = 0.5 * (np.log((1.0 - eps) / eps) + np.log(k - 1.0))
                rounds.add(learner, alpha, eps, sigma_t)
                D = D * np.exp(alpha * wrong)
                D /= D.sum()
        if not rounds.estimators:
            warnings.warn(
                "BoostedImmigrate: the first round had a weighted error of at least "
                f"1 - 1/{k}; keeping it alone.",
                UserWarning,
                stacklevel=3,
            )
            return _Rounds([first], [1.0], [np.nan], [self.sigma_max])
        return rounds

    def _votes(self, X):
        check_is_fitted(self)
        X = read_rows(self, X, allow_nan=True)
        check_magnitudes(self, X, spread=False)
        votes = np.zeros((X.shape[0], len(self.classes_)))
        rows = np.arange(X.shape[0])
        # Every learner models the same features over the same pair source, so
        # one neighbour query serves them all.
        f = self.estimators_[0].features_
        query = self._pairs.query(X[:, f])
        for est, alpha in zip(self.estimators_, self.estimator_weights_):
            s = self._pairs.expected_distances(
                query, est.weights_[np.ix_(f, f)], est.sigma, n_jobs=self.n_jobs
            )
            votes[rows, np.argmin(s, axis=1)] += alpha
        return votes

    @fill_doc
    def predict(self, X):
        """Weighted vote of the learners.

        %(predict_docs)s
        """
        check_is_fitted(self)
        return self.classes_[np.argmax(self._votes(X), axis=1)]

    @fill_doc
    def predict_proba(self, X):
        """Normalised weighted votes: each class's share of the total vote.

        %(predict_proba_docs)s
        """
        check_is_fitted(self)
        votes = self._votes(X)
        return votes / votes.sum(axis=1, keepdims=True)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags
