"""LocalFeatureSelection: the LFS classifier of Armanfard, Reilly and Komeili (2016)."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from localselect._compat import Interval, StrOptions
from localselect._docstrings import fill_doc
from localselect._magnitudes import check_magnitudes
from localselect._runtime import ensure_compiled
from localselect.base import (
    Declaration,
    LabelledFitMixin,
    LocalSelectorMixin,
    read_rows,
    shared_constraints,
)
from localselect.lfs._cost import LFSCost
from localselect.lfs._decide import prediction_regions, query_subsets, similarities
from localselect.lfs._fit import FIT_KERNEL, fit_iteration
from localselect.lfs._select import nearest_candidates

__all__ = ["LocalFeatureSelection"]

#: ``n_candidates="auto"``: the exact method up to this many training samples ...
AUTO_EXACT_MAX_SAMPLES = 1000
#: ... and past it the nearest-candidate method with this many candidates per class.
AUTO_N_CANDIDATES = 50


def _resolve_candidates(n_candidates, n_samples):
    """``n_candidates_``: None (exact method) or the number of candidates per class."""
    if isinstance(n_candidates, str):  # "auto"
        return None if n_samples <= AUTO_EXACT_MAX_SAMPLES else AUTO_N_CANDIDATES
    return None if n_candidates is None else int(n_candidates)


@fill_doc
class LocalFeatureSelection(LabelledFitMixin, LocalSelectorMixin, ClassifierMixin, BaseEstimator):
    """Localized feature selection (LFS) and its region-voting classifier.

    Every training sample is the representative of a region with its own
    feature subset, chosen by a linear program that pulls same-class
    neighbours close and pushes other-class neighbours away in that subspace;
    a query is classified by the regions whose spheres hold it.

    Read more in the :ref:`User Guide <lfs>` (``docs/lfs.md``).

    Parameters
    ----------
    max_features : int, default=19
        Maximum number of features per region (the paper's ``alpha``:
        ``1^T f <= alpha`` in eq. (9)).
        Values above ``n_features`` act as ``n_features``.
    impurity : float, default=0.2
        Impurity level in [0, 1] that sets each region's radius (the paper's
        ``gamma``, sec. 3.2).
    max_iter : int, default=2
        Number of iterations of Algorithm 1 (the paper's ``tau``; weights
        re-estimated from the previous subsets, eq. (10)); fewer when the
        subsets stop changing.
    sigma : float, default=1.0
        Width of the neighbour weights ``exp(-(d - d_min)^2 / sigma)`` of
        eq. (10) (the authors' code; the paper has ``sigma = 1``).
    n_beta : int, default=20
        Number of points ``beta = 1/n_beta, 2/n_beta, ..., 1`` on the Pareto
        front, ``epsilon = beta * eps_max`` in eq. (9).
    rounding : {"exact", "random"}, default="exact"
        How an LP vertex becomes a 0/1 subset. ``"exact"`` enumerates every
        rounding outcome of positive probability (at most four, since a vertex
        has at most two fractional entries) and keeps the best feasible one:
        the limit of infinitely many draws. ``"random"`` draws ``n_rounding``
        Bernoulli vectors as the paper does.
    n_rounding : int, default=2000
        Number of Bernoulli draws per LP when ``rounding="random"``.
    n_candidates : "auto", int or None, default="auto"
        ``None`` runs the exact method: every training point enters each
        representative's weights (eq. (10)), distances ``a``, ``b`` (eq. (5)),
        radius and leave-one-out score. An integer restricts all of these to
        the representative's candidates: its ``n_candidates`` nearest training
        points of every class (full-space Euclidean distance, found once); the
        neighbour rule of eq. (11) at prediction then searches the query's
        ``n_candidates * n_classes`` nearest training points of any class
        (which keeps the classes' local proportions). With ``n_candidates`` at
        least the largest class size the result equals the exact method's (up
        to rounding). ``"auto"`` is the exact method up to
        1,000 training samples (every data set of the paper, so their results
        are the exact method's) and ``n_candidates=50`` beyond, where the
        exact method's O(N^2) work per iteration no longer fits a default
        fit; see Notes and docs/lfs.md for the cost and measured accuracy.
    random_state : int, RandomState instance or None, default=None
        Seeds the random rounding (one seed per representative and iteration,
        drawn up front, so results do not depend on ``n_jobs``). Unused with
        ``rounding="exact"``, which is deterministic.
    n_jobs : int or None, default=None
        Threads over blocks of representatives (the compiled core releases the
        GIL; results are identical for any number), and jobs of the neighbour
        search. ``None`` means 1 unless in a joblib context, -1 all cores.
    verbose : int, default=0
        Logging to ``logging.getLogger("localselect.lfs._estimator")``: 1 logs
        iterations and the progress of fits past 2 s (representatives done,
        elapsed, remaining) at INFO, 2 adds per-iteration statistics at DEBUG.
        The command line shows the same progress as a bar.

    Attributes
    ----------
    local_support_ : ndarray of shape (n_samples_fit, n_features_in_), dtype=bool
        Feature subset of each training sample's region (``f^{*(i)}``).
    radii_ : ndarray of shape (n_samples_fit,)
        Radius of each region in its subspace (0 for an empty subset).
    betas_ : ndarray of shape (n_samples_fit,)
        Chosen ``beta`` of each region (NaN when no beta was feasible).
    local_scores_ : ndarray of shape (n_samples_fit,)
        Leave-one-out score ``DR / N_same - FAR / N_other`` of each chosen
        subset (``-inf`` for an empty subset).
    feature_importances_ : ndarray of shape (n_features_in_,)
        Fraction of regions that select each feature (the histograms of the
        paper's Fig. 5 and 9).
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_iter_ : int
        Iterations of Algorithm 1 run: ``max_iter``, or fewer when the subsets
        stopped changing (with exact rounding the next iteration would repeat).
    X_fit_ : ndarray of shape (n_samples_fit, n_features_in_)
        Training data, kept for prediction.
    y_fit_ : ndarray of shape (n_samples_fit,)
        Training labels as indices into ``classes_``.
    n_candidates_ : int or None
        Candidates per class used by the fit (``n_candidates`` resolved; None
        for the exact method).
    candidates_ : ndarray of shape (n_samples_fit, n_universe) or None
        With ``n_candidates``: row ``i`` holds ``i`` and its candidate
        points (training indices, increasing, padded with -1). None for the
        exact method.
    %(fitted_input_attributes)s

    See Also
    --------
    localselect.lfs.solve_lfs_lp : The exact solver of LP (9).
    localselect.FisherScore : A global filter, the FDA baseline of Table 1.

    Notes
    -----
    **Algorithm** (Algorithm 1). For ``max_iter`` iterations and each representative
    ``x_i``: weights from the previous subsets (eq. (10)), the weighted
    within- and between-class squared distances ``a``, ``b`` (eq. (5)),
    ``eps_max`` from LP (8), and for each beta LP (9), rounding, and a
    leave-one-out score inside the region's sphere; the best beta wins (ties
    to the smallest). Several classes: "same class versus the rest" per
    representative. Prediction (eq. (11)): region ``i`` votes for its class
    when the query lies in its sphere and the query's nearest training points
    in subspace ``f_i`` are mostly of class ``y_i``; ``S_c`` is the number of
    votes over the number of class-``c`` regions with a non-empty subset.
    When no region votes (the query lies in no sphere, or no sphere's
    neighbours agree, as in the authors' code) the spheres are ignored and
    every region votes by nearest neighbours alone. ``predict_proba`` returns
    ``S_c`` normalised to sum 1 (uniform when every ``S_c`` is 0); ``predict``
    takes the largest ``S_c``, ties to the first class in ``classes_`` (the
    authors' code predicts class 0).

    **Local support: which features matter for a query** (one rule for
    training rows and new rows, :mod:`localselect.lfs._decide`). The
    *deciding regions* of a query are those whose votes make up the predicted
    class's ``S_c`` in eq. (11). ``get_local_support(X)`` gives each query the
    subset of its deciding region nearest relative to its radius (smallest
    ``d_i(x) / r_i``, ties to the lower training index);
    ``local_relevance(X)`` gives the fraction of its deciding regions that
    use each feature. A query no region votes for gets the subset of the
    region relatively nearest to it. ``get_local_support()`` applies the same
    rule to the training rows (a training row usually decides by its own
    region, so it mostly equals ``local_support_``); ``get_support()`` is the
    union of those rows. The rule was chosen over "the relatively nearest
    region" because it gives higher per-query precision and recall on
    :func:`~localselect.datasets.make_lfs_synthetic` (docs/index.md).

    **Exactness and deviations.** LP (9) is solved exactly
    (:func:`~localselect.lfs.solve_lfs_lp`, an optimal vertex) instead of by a
    generic solver, whose interior-point answers may be non-vertex points of
    an optimal face with many fractional entries; with ``rounding="exact"``
    the rounding is the limit of infinitely many draws. Ties in LP (9) go to
    the lower feature index; nearest-neighbour ties count every tied point.
    Inputs are used as given: the paper z-scores them first (use a
    ``StandardScaler``), and ``sigma`` is scale dependent.

    **Computation.** Everything per representative (weights, ``a`` and
    ``b``, the LP sweep, rounding, radii and leave-one-out scores) runs in one
    compiled call per block of representatives (numba,
    :mod:`localselect.lfs._regions`), on ``n_jobs`` threads; each representative
    owns its outputs, so results do not depend on the thread count. The first
    fit after installation compiles the core (about a minute, cached on disk).

    **Complexity.** Exact method, per iteration and representative: eq. (10)
    weights O(U N k) for U distinct previous subsets of at most ``k = max_features``
    features (U <= N), O(N M) for ``a`` and ``b``, O(M log M) to drop the
    features no LP solution can use, O(M') per LP search step on the M' that
    remain, and per distinct candidate subset O(N log N) for the radius plus
    O(n_in N' k) for the leave-one-out score (N' the points that the triangle
    inequality cannot rule out as nearest neighbours). Memory O(N M) (no
    N x N array). Prediction O(U n_query N k).

    With ``n_candidates = c`` and K = 1 + c n_classes candidates per
    representative: a neighbour search, then per iteration and representative
    O(K^2 k) for the weights, O(K M) for ``a``, ``b``, and O(n_beta K^2 k)
    for the scores: O(N K (M + n_beta K k)) in all, linear in N. Memory
    O(N (K + M)). Prediction O(n_query N k) for the spheres plus O(K k) per
    query and region that holds it (per query and region when no region
    holds it).

    References
    ----------
    .. [1] N. Armanfard, J. P. Reilly and M. Komeili, "Local feature selection
       for data classification", IEEE Trans. Pattern Analysis and Machine
       Intelligence, 38(6), 1217-1227, 2016.

    Examples
    --------
    >>> from localselect.datasets import make_lfs_synthetic
    >>> from localselect.lfs import LocalFeatureSelection
    >>> X, y, relevant = make_lfs_synthetic(60, n_irrelevant=10, random_state=0)
    >>> lfs = LocalFeatureSelection(max_features=2).fit(X[:40], y[:40])
    >>> lfs.local_support_.shape
    (40, 12)
    >>> bool(lfs.feature_importances_[:2].min() > lfs.feature_importances_[2:].max())
    True
    >>> float(lfs.score(X[40:], y[40:])) > 0.8
    True
    """

    _declaration = Declaration(
        "lfs",
        check={"max_features": 3, "n_beta": 4, "max_iter": 1},
        demo={"max_features": 5, "n_beta": 10},
        size=LFSCost(),
    )
    _parameter_constraints = {
        "max_features": [Interval(Integral, 1, None, closed="left")],
        "impurity": [Interval(Real, 0, 1, closed="both")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "n_beta": [Interval(Integral, 1, None, closed="left")],
        "rounding": [StrOptions({"exact", "random"})],
        "n_rounding": [Interval(Integral, 1, None, closed="left")],
        "n_candidates": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        **shared_constraints("random_state", "n_jobs", "verbose"),
    }

    _min_class_size = 2
    _class_size_reason = "a representative's leave-one-out needs a same-class neighbour"

    def __init__(
        self,
        max_features=19,
        *,
        impurity=0.2,
        max_iter=2,
        sigma=1.0,
        n_beta=20,
        rounding="exact",
        n_rounding=2000,
        n_candidates="auto",
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.max_features = max_features
        self.impurity = impurity
        self.max_iter = max_iter
        self.sigma = sigma
        self.n_beta = n_beta
        self.rounding = rounding
        self.n_rounding = n_rounding
        self.n_candidates = n_candidates
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _fit(self, X, y_enc, log):
        # Algorithm 1: a feature subset for every training sample
        n, m = X.shape
        max_features, impurity, max_iter = self.max_features, self.impurity, self.max_iter
        rng = check_random_state(self.random_state)
        seeds = rng.randint(0, 2**31 - 1, size=(max_iter, n)).astype(np.int64)
        self.n_candidates_ = _resolve_candidates(self.n_candidates, n)
        if self.n_candidates_ is None:
            universe = None
        else:
            universe = nearest_candidates(X, y_enc, self.n_candidates_, self.n_jobs)
        log(
            1,
            "LFS: %d representatives, %d features, %s",
            n,
            m,
            "exact method"
            if universe is None
            else f"nearest-candidate method (n_candidates={self.n_candidates_})",
        )
        support = np.zeros((n, m), dtype=bool)
        ensure_compiled(FIT_KERNEL, log)
        self.n_iter_ = 0
        with log.task(max_iter * n, "LFS representatives", unit="representatives") as task:
            for it in range(max_iter):
                res = fit_iteration(
                    X,
                    y_enc,
                    support,
                    universe,
                    seeds[it],
                    alpha=int(max_features),
                    gamma=float(impurity),
                    sigma=float(self.sigma),
                    n_beta=int(self.n_beta),
                    rounding=self.rounding,
                    n_rounding=int(self.n_rounding),
                    n_jobs=self.n_jobs,
                    advance=task.advance,
                )
                self.n_iter_ = it + 1
                changed = not np.array_equal(res.support, support)
                support = res.support
                log(
                    1,
                    "LFS iteration %d/%d: mean subset size %.2f, %d empty subsets",
                    it + 1,
                    max_iter,
                    support.sum(axis=1).mean(),
                    int((~support.any(axis=1)).sum()),
                )
                log(2, "LFS iteration %d: %d LP search steps", it + 1, res.n_lp_iter)
                if not changed and self.rounding == "exact":
                    break
        self.local_support_ = support
        self.radii_ = res.radii
        self.betas_ = res.betas
        self.local_scores_ = res.scores
        self.feature_importances_ = support.mean(axis=0)
        self.candidates_ = universe
        # Writable: the compiled prediction kernels would compile again for read-only.
        self.X_fit_ = X if X.flags.writeable else X.copy()
        self.y_fit_ = y_enc
        return self

    # ------------------------------------------------------------------ #
    # Prediction
    # ------------------------------------------------------------------ #

    def _similarities(self, X):
        """``S_c`` of eq. (11) for validated ``X``: :func:`.lfs._decide.similarities`."""
        return similarities(prediction_regions(self), X)

    @fill_doc
    def predict_proba(self, X):
        """Class similarities ``S_c`` of eq. (11), normalised to sum 1.

        ``S_c / sum_c S_c``; uniform when every ``S_c`` is 0.

        %(predict_proba_docs)s
        """
        check_is_fitted(self)
        X = read_rows(self, X, allow_nan=False)
        check_magnitudes(self, X, spread=False)
        S = self._similarities(X)
        total = S.sum(axis=1, keepdims=True)
        uniform = np.full_like(S, 1.0 / S.shape[1])
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, S / total, uniform)

    @fill_doc
    def predict(self, X):
        """Class of largest similarity ``S_c`` (ties to the first in ``classes_``).

        %(predict_docs)s
        """
        check_is_fitted(self)
        X = read_rows(self, X, allow_nan=False)
        check_magnitudes(self, X, spread=False)
        return self.classes_[np.argmax(self._similarities(X), axis=1)]

    def _query_subsets(self, X):
        check_is_fitted(self)
        return query_subsets(self, X)

    def _training_query_subsets(self):
        check_is_fitted(self)
        cached = self.__dict__.get("_training_subsets")
        if cached is None or cached[0] is not self.local_support_:
            cached = (self.local_support_, self._query_subsets(self.X_fit_))
            self.__dict__["_training_subsets"] = cached
        return cached[1]

    def _local_support_mask(self, X):
        return self._query_subsets(X).support

    def _local_relevance(self, X):
        return self._query_subsets(X).relevance

    def _training_local_support(self):
        return self._training_query_subsets().support

    def _training_local_relevance(self):
        return self._training_query_subsets().relevance
