"""IMMIGRATE: iterative max-min entropy margin maximisation with interaction terms."""

from __future__ import annotations

import logging
from numbers import Real

import numpy as np
from scipy.special import softmax
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
    per_input_column,
    read_rows,
    shared_constraints,
    top_k_support,
)
from localselect.margin._common import NEED_HITS, SOFTMAX_CONSTRAINTS, iterations
from localselect.margin._cost import LINEAR_INSTEAD, NEIGHBOUR_SEARCH
from localselect.margin._pairs import AllPairs, NeighbourPairs
from localselect.margin._solvers import ImmigrateFit, immigrate_fit

__all__ = ["DENSE_MAX_FEATURES", "Immigrate", "resolve_prescreen", "with_fit_result"]

logger = logging.getLogger(__name__)

#: ``prescreen="high-dim"`` applies the IM4E pre-screen past this many features
#: (the paper's UCI sets have at most 147, its gene-expression sets 2,000 and
#: more) and then models at most this many (the largest IM4E weights).
DENSE_MAX_FEATURES = 500


def resolve_prescreen(prescreen, n_features: int) -> tuple[float | str | None, int | None]:
    """``(prescreen, max_features)`` for :func:`immigrate_fit`; resolves ``"high-dim"``."""
    if prescreen == "high-dim":
        if n_features > DENSE_MAX_FEATURES:
            return "auto", DENSE_MAX_FEATURES
        return None, None
    return prescreen, None


@fill_doc
class Immigrate(LabelledFitMixin, ClassifierMixin, ScoreSelectorMixin, BaseEstimator):
    """IMMIGRATE feature and interaction weights, and its margin classifier.

    Learns a symmetric, element-wise non-negative matrix ``W`` with
    ``||W||_F = 1`` defining the quadratic-Manhattan measurement
    ``q(x, x') = |x - x'|^T W |x - x'|`` (eq. (3.3)). The diagonal weighs
    features, the off-diagonal entries weigh pairwise interactions. ``W``
    minimises cost (3.5): the expected hit distance minus the expected miss
    distance, plus ``sigma`` times (miss entropy - hit entropy), by
    alternating the softmax update (3.6) of the hit/miss probabilities and
    the closed form of Theorem 3.1 (Algorithm 2).

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    sigma : float, default=1.0
        Temperature of the hit/miss softmax and weight of the entropy terms
        (> 0). The paper tunes it by internal cross-validation over 4, 2, 1,
        0.5, 0.25.
    max_iter : int, default=10
        Maximum number of iterations of Algorithm 2 (the paper's preset 10).
    tol : float, default=1e-4
        Stop when the cost changes by at most ``tol`` relative to its previous
        value (>= 0).
    init : {"identity", "random", "im4e"}, default="identity"
        Initial ``W``: the scaled identity, a random symmetric non-negative
        matrix (drawn from ``random_state``), or the diagonal of IM4E weights
        (Sec. 3.6). All have unit Frobenius norm.
    nonnegative : bool, default=True
        Set the negative entries of each updated ``W`` to 0 and renormalise
        (the paper's constraint ``W >= 0``). False keeps the positive
        semi-definite ``W`` of Theorem 3.1.
    prune : bool, default=False
        After fitting, set entries below ``1 / A`` to 0 and renormalise (Sec.
        3.4.3), ``A`` the number of modelled features.
    prescreen : float, "auto", "high-dim" or None, default="high-dim"
        IM4E-IMMIGRATE (Sec. 3.6): fit IM4E first and model only the features
        whose IM4E weight exceeds this threshold (``"auto"``: ``2 / A``); the
        others get zero weights. ``None`` models every feature.
        ``"high-dim"``: none up to 500 features, ``"auto"`` beyond, keeping at
        most the 500 features of largest IM4E weight (so memory stays
        O(500^2) whatever ``A``).
    n_candidates : int, "auto" or None, default="auto"
        Neighbour truncation: each sample's softmax runs over its
        ``n_candidates`` nearest hits and nearest misses (Euclidean distance of
        the modelled features, found once), and prediction over the
        ``n_candidates`` nearest training samples of each class. ``None`` is the
        exact all-pairs method of the paper. ``"auto"``: exact up to 1,000
        samples while ``N^2 A^2 <= 2e9`` (every data set of the paper), else
        ``k = 1e9 / (N A^2)`` clipped to [10, 100] (see Notes).
        Data with missing values always run exact; when ``"auto"`` would
        truncate and the exact fit needs more than 2e11 multiply-adds
        (``max_iter * N^2 A^2``), ``fit`` refuses at once and says what to change.
    n_features_to_select : int, float or None, default=None
        Features kept by ``transform``: that many of the largest diagonal
        weights (an int), that fraction of the features (a float in (0, 1]),
        or (``None``) every feature with a positive score, the score of a
        feature being the total weight of its row of ``W`` (all features
        unless pruned or pre-screened). ``"auto"``: the features whose
        Benjamini-Hochberg q-value is at most ``fdr``, each feature scored by
        its share of the fitted margin (row sums of ``-W * Sigma``) against
        shadow features (sets ``pvalues_``, ``qvalues_``, ``null_``; see
        :mod:`localselect.evidence`).
    fdr : float, default=0.1
        %(fdr)s
    random_state : int, RandomState instance or None, default=None
        Seed of the random initial ``W`` (``init="random"``).
    n_jobs : int, default=None
        Threads over row blocks of the pairwise work of the exact method (and
        of the IM4E pre-screen). With neighbour truncation (``n_candidates``;
        ``"auto"`` truncates past 1,000 samples) the iterations and
        ``predict`` run in one thread and ``n_jobs`` reaches only the
        neighbour search. Results do not depend on it.
    verbose : int, default=0
        1 logs stages and the progress of fits past 2 s (INFO), 2 also the
        cost of every iteration (DEBUG), to
        ``logging.getLogger("localselect.margin")``.
    callback : callable, default=None
        Called as ``callback(iteration, cost)`` after each iteration.

    Attributes
    ----------
    weights_ : ndarray of shape (n_features_in_, n_features_in_)
        The learned ``W``; rows and columns of pre-screened features are 0.
    feature_importances_ : ndarray of shape (n_features_in_,)
        Diagonal of ``W``: the main-effect weight of each feature.
    interaction_importances_ : ndarray of shape (n_features_in_, n_features_in_)
        ``W`` with its diagonal set to 0 (symmetric): interaction weights.
    cost_ : ndarray of shape (n_iter_,)
        Cost (3.5) after each iteration.
    n_iter_ : int
        Iterations of Algorithm 2 run.
    classes_ : ndarray of shape (n_classes,)
        Class labels seen in ``fit``.
    prescreen_support_ : ndarray of shape (n_features_in_,), dtype=bool
        Features modelled (all True without ``prescreen``).
    im4e_weights_ : ndarray of shape (n_features_in_,) or None
        IM4E weights when ``prescreen`` or ``init="im4e"`` used them, else None.
    n_candidates_ : int or None
        Hits and misses kept per sample; None for the exact method.
    features_ : ndarray of shape (n_features_modelled,)
        Indices of the modelled features (all unless pre-screened).
    X_fit_ : ndarray of shape (n_samples_fit, n_features_modelled)
        Training data of the modelled features, kept for prediction.
    y_fit_ : ndarray of shape (n_samples_fit,)
        Training labels as indices into ``classes_``.
    dropped_weight_bound_ : float
        Mean over the training samples of the bound on the exact softmax
        weight the truncation dropped (the larger of hits and misses, at the
        final ``W``; see Notes); 0 for the exact method.
    %(fitted_input_attributes)s

    See Also
    --------
    BoostedImmigrate : IMMIGRATE as the weak learner of AdaBoost (Algorithm 3).
    IM4E : Feature weights without interactions; IMMIGRATE's pre-screen.

    Notes
    -----
    %(missing_values_notes)s

    **Algorithm.** Hits are the other samples of a sample's class, misses
    the samples of all other classes (one-vs-rest, so multiclass data need no
    special case). Each iteration computes ``q`` for all pairs, the softmax
    (3.6) by log-sum-exp (so small ``sigma`` does not underflow to NaN), the
    matrix ``Sigma`` of Theorem 3.1 and the new ``W`` from the eigenvectors
    of ``Sigma`` with negative eigenvalues, ``eta = (-mu)^+ / ||(-mu)^+||``
    (eq. (3.17)). The recorded cost is (3.5) at the new ``W`` and the current
    probabilities, ``tr(W Sigma) + sigma sum_n (E_miss - E_hit)``.

    **Degenerate case.** If ``Sigma`` has no negative eigenvalue no ``W``
    lowers the cost; the previous ``W`` is kept, iteration stops and a
    :class:`~localselect.margin.DegenerateMarginWarning` is raised. Reaching
    ``max_iter`` raises a ``ConvergenceWarning``.

    **Prediction** (eq. (3.18)). For a query ``x`` and class ``c``, the
    expected distance ``s_c(x) = sum_{y_n = c} alpha_n^c(x) q(x, x_n)`` with
    ``alpha^c`` the softmax of ``-q(x, .) / sigma`` over class ``c``;
    ``predict`` returns ``argmin_c s_c`` (ties to the first class in
    ``classes_``). ``predict_proba`` is not in the paper: it is the softmax of
    ``-s_c(x) / sigma`` over classes, a monotone map of the expected distances
    (the same argmax as ``predict``), not a calibrated probability.

    **Complexity** (exact method). Per iteration O(N^2 A^2) time (two matrix products per
    block of pairs). Memory: one ``N x N`` float64 matrix (the pair distances,
    overwritten in place by the softmax coefficients; 0.8 GB at N = 10,000),
    blocks of pair differences bounded by scikit-learn's ``working_memory``
    (all ``N (N - 1) / 2 x A`` differences are kept across iterations only when
    they fit it), never ``N x N x A`` at once, plus O(A^2). Measured: N = 10,000,
    A = 50 peaks at 1.35 GiB resident. ``predict`` costs O(N_query N A^2) and
    keeps the training data of the modelled features.

    **Neighbour truncation** (``n_candidates``, ours). Far pairs carry little
    softmax weight, so with ``k = n_candidates`` each sample keeps its ``k``
    nearest hits and ``k`` nearest misses (Euclidean, in the modelled
    features, found once by :class:`~sklearn.neighbors.NearestNeighbors`)
    and Algorithm 2 runs over them: O(N k A^2) per iteration, memory
    O(N C k) for C classes plus blocks of ``k A`` differences per row.
    Prediction uses the ``k`` nearest training samples of each class:
    O(N_query C k A^2). For each sample the exact weight on the dropped hits
    is at most ``F / (F + S)``, ``F = n_dropped exp(-m r^2 / sigma)``, with
    ``r`` the distance to the farthest kept hit, ``m`` the smallest diagonal
    entry of ``W`` (0 if ``W`` has a negative entry) and ``S`` the kept
    hits' sum of ``exp(-q / sigma)`` (likewise for misses; it is also the
    total variation distance between the truncated and exact softmax);
    ``dropped_weight_bound_`` reports its mean. The bound is loose (``m`` is
    often 0); the true dropped weight, measured on benchmark tables, is in
    the user guide: where it is large, truncation is a local variant of the
    method rather than an approximation of it. With
    ``k`` at least the class sizes nothing is dropped and results equal the
    exact method's. ``"auto"`` keeps every data set of the paper's Tables
    2 and 3 (at most 768 samples) exact.

    **Deviations and choices.** The paper starts from a random ``W``; we
    default to the identity (as the R package does) because the paper reports
    that the start does not matter and a fixed start needs no seed. The R
    package tracks ``tr(Sigma)`` as its stopping proxy and stops on an
    absolute change of 0.01; we use the relative change of cost (3.5).
    ``prescreen`` always keeps at least the feature with the largest IM4E
    weight; its IM4E uses the same ``sigma``, ``max_iter`` and ``tol``.

    **Oscillation.** The alternation can enter a 2-cycle of the cost, so a
    small ``tol`` is never met and ``max_iter`` ends the fit with a
    ``ConvergenceWarning``; a measured case is in the :ref:`user guide
    <margin-oscillation>` (docs/margin.md).

    **Ties** in ``n_features_to_select`` go to the lower feature index.

    References
    ----------
    .. [1] R. Zhao, P. Hong and J. S. Liu, "IMMIGRATE: A margin-based feature
       selection method with interaction terms", Entropy 22(3), 291, 2020.

    Examples
    --------
    >>> from localselect import Immigrate
    >>> from localselect.datasets import make_immigrate_synthetic
    >>> X, y, _ = make_immigrate_synthetic(50, noise_level=0.1, n_noise_features=2,
    ...                                    random_state=0)
    >>> model = Immigrate(sigma=1.0, tol=1e-2).fit(X, y)
    >>> model.weights_.shape
    (4, 4)
    >>> bool(model.interaction_importances_[0, 1] > model.interaction_importances_[2, 3])
    True
    >>> model.score(X, y) > 0.8
    True
    """

    _declaration = Declaration(
        "immigrate",
        check={"max_iter": 3},
        demo={"n_features_to_select": 5},
        holds=(AllPairs, NeighbourPairs),
        size=MeasuredCost(160.0, 60_000, 2.0, NEIGHBOUR_SEARCH, instead=LINEAR_INSTEAD),
    )
    _parameter_constraints = {
        **ScoreSelectorMixin._parameter_constraints,
        **SOFTMAX_CONSTRAINTS,
        "init": [StrOptions({"identity", "random", "im4e"})],
        "nonnegative": ["boolean"],
        "prune": ["boolean"],
        "prescreen": [
            Interval(Real, 0, None, closed="left"),
            StrOptions({"auto", "high-dim"}),
            None,
        ],
        **shared_constraints("random_state", "verbose"),
    }

    _min_class_size = 2
    _class_size_reason = NEED_HITS

    def __init__(
        self,
        sigma=1.0,
        *,
        max_iter=10,
        tol=1e-4,
        init="identity",
        nonnegative=True,
        prune=False,
        prescreen="high-dim",
        n_candidates="auto",
        n_features_to_select=None,
        fdr=0.1,
        random_state=None,
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.sigma = sigma
        self.max_iter = max_iter
        self.tol = tol
        self.init = init
        self.nonnegative = nonnegative
        self.prune = prune
        self.prescreen = prescreen
        self.n_candidates = n_candidates
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback

    def _fit(self, X, codes, log):
        # Algorithm 2 on the (pre-screened) features
        prescreen, max_features = resolve_prescreen(self.prescreen, X.shape[1])
        if prescreen is not None or self.init == "im4e":
            log(1, "IMMIGRATE: IM4E weights for %d features", X.shape[1])
        with iterations(self, "IMMIGRATE", log) as callback:
            result = immigrate_fit(
                X,
                codes,
                self.sigma,
                rng=check_random_state(self.random_state),
                init=self.init,
                prescreen=prescreen,
                max_features=max_features,
                n_candidates=self.n_candidates,
                nonnegative=self.nonnegative,
                prune=self.prune,
                max_iter=self.max_iter,
                tol=self.tol,
                n_jobs=self.n_jobs,
                callback=callback,
            )
        log(1, "IMMIGRATE: modelled %d of %d features", len(result.features), X.shape[1])
        return with_fit_result(self, result, codes, self.classes_)

    def _evidence_scores(self):
        """Each feature's share of the fitted margin: the statistic of ``"auto"``'s null.

        IMMIGRATE maximises the margin ``-tr(W Sigma)`` (expected miss minus
        expected hit distance in the learned measurement, Sigma of Theorem 3.1
        at the final ``W`` and its hit/miss probabilities); row ``j`` of
        ``-W * Sigma`` is feature ``j``'s share of it, main effect and
        interactions. Unlike the diagonal of ``W`` (unit Frobenius norm, so
        a fit concentrates it on a few columns) it keeps every feature's own
        margin, and its shadow null has power (docs/evidence.md). Pre-screened
        features score 0.
        """
        f = self.features_
        W = self.weights_[np.ix_(f, f)]
        scatter, _ = self._pairs.immigrate_pass(self.sigma, np.ones(len(self.y_fit_)))(W)
        scores = np.zeros(self.n_features_in_)
        scores[f] = -(W * scatter).sum(axis=1)
        return scores

    @property
    def interaction_importances_(self):
        """Off-diagonal part of ``weights_`` (symmetric, zero diagonal).

        Computed when read, so a high-dimensional fit (A x A with A in the
        thousands) keeps one dense A x A array, not two.
        """
        W = self.weights_.copy()
        np.fill_diagonal(W, 0.0)
        return W

    def _expected_distances(self, X):
        # The pair source of the fit: every training sample, or each class's nearest.
        f = self.features_
        query = self._pairs.query(X[:, f])
        return self._pairs.expected_distances(
            query, self.weights_[np.ix_(f, f)], self.sigma, n_jobs=self.n_jobs
        )

    @fill_doc
    def expected_distances(self, X):
        """Expected distance of each sample to each class, eq. (3.18).

        %(query_parameters)s

        Returns
        -------
        s : ndarray of shape (n_samples, n_classes)
            ``s[i, c] = sum_{y_n = c} alpha_n^c(x_i) q(x_i, x_n)``.
        """
        check_is_fitted(self)
        X = read_rows(self, X, allow_nan=True)
        check_magnitudes(self, X, spread=False)
        return self._expected_distances(X)

    @fill_doc
    def predict(self, X):
        """Class with the smallest expected distance, eq. (3.18).

        %(predict_docs)s
        """
        s = self.expected_distances(X)
        return self.classes_[np.argmin(s, axis=1)]

    @fill_doc
    def predict_proba(self, X):
        """Softmax of ``-s_c(x) / sigma`` over classes (see Notes; not calibrated).

        %(predict_proba_docs)s
        """
        return softmax(-self.expected_distances(X) / self.sigma, axis=1)

    def _get_support_mask(self):
        check_is_fitted(self)
        if self.n_features_to_select is None:
            # Rows, not the diagonal: pruning can zero a main effect and keep interactions.
            return top_k_support(per_input_column(self, np.abs(self.weights_).sum(axis=1)), None)
        return super()._get_support_mask()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags


def with_fit_result(estimator: Immigrate, result: ImmigrateFit, codes, classes) -> Immigrate:
    """Give ``estimator`` the fitted attributes of a kernel result, and return it.

    The one place an :class:`Immigrate` receives its fitted state: its own
    ``fit`` and every round of :class:`~localselect.margin.BoostedImmigrate`
    (which fits with sample weights) go through it. ``codes`` (class codes
    into ``classes``) are the training labels; ``result.pairs`` holds the
    training data of the modelled features, which predictions keep.
    """
    estimator.n_features_in_ = result.weights.shape[0]
    estimator.classes_ = classes
    estimator.weights_ = result.weights
    estimator.feature_importances_ = result.weights.diagonal().copy()
    estimator.cost_ = result.cost
    estimator.n_iter_ = result.n_iter
    estimator.prescreen_support_ = result.prescreen_support
    estimator.im4e_weights_ = result.im4e_weights
    estimator.features_ = result.features
    estimator.X_fit_ = result.pairs.X
    estimator.y_fit_ = codes
    estimator.n_candidates_ = result.pairs.n_candidates
    estimator.dropped_weight_bound_ = result.dropped_weight_bound
    estimator._pairs = result.pairs
    return estimator
