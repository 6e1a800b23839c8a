"""GPLocalFeatureSelection: Pichara and Soto's GP local feature selection classifier.

The estimator validates, assigns and answers queries; the fit's steps are
functions of the method's modules that return records: the canonical layout
(:mod:`._layout`), the eq. (3) score tables (:mod:`._labelings`), Algorithm 1
(:mod:`._algorithm1`), the inner validation (:mod:`._inner_cv`) and the query
computations (:mod:`._queries`).
"""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.gaussian_process.kernels import RBF, ConstantKernel, Product, Sum, WhiteKernel
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from localselect._compat import Interval, StrOptions
from localselect._docstrings import fill_doc
from localselect._estimators import Declaration
from localselect._runtime import Reporter
from localselect.base import (
    LabelledFitMixin,
    LocalSelectorMixin,
    per_input_column,
    shared_constraints,
)
from localselect.gp._algorithm1 import Algorithm1Fit, algorithm1, candidate_points, holdout_split
from localselect.gp._inner_cv import FoldRule, InnerValidation, validate_subspaces
from localselect.gp._labelings import n_permutations, score_tables
from localselect.gp._layout import canonical_layout, standardise, to_input_columns, to_input_layout
from localselect.gp._multigp import SharedKernelGP
from localselect.gp._queries import (
    KNNModel,
    PowerModel,
    SubspaceModel,
    discriminative_power,
    null_posterior,
    query_proba,
    query_subspaces,
)
from localselect.gp._subspace import THRESHOLD_OVER

__all__ = ["GPLocalFeatureSelection"]


@fill_doc
class GPLocalFeatureSelection(
    LabelledFitMixin, LocalSelectorMixin, ClassifierMixin, BaseEstimator
):
    """Local feature selection with Gaussian process regression (Pichara and Soto).

    For every feature, a GP regresses the feature's discriminative score
    (eq. (3)) over the input space. The discriminative power of a feature at a
    query is the KL divergence of its GP prediction from a low reference
    Gaussian; Algorithm 2 joins the most powerful, least correlated features
    into the query's subspace, and a K-NN classifier in that subspace predicts
    its class (sec. 4.4).

    Read more in the :ref:`User Guide <gp>`.

    Parameters
    ----------
    n_neighbors : int or "auto", default="auto"
        K of the K-NN classifier in each query's subspace (the paper's K = 8
        as an int; at most the number of training samples). ``"auto"``: the
        inner validation chooses K from 1, 3, 5 and 8 (``n_neighbors_``),
        for the subspaces and for the all-features safety net alike.
    threshold : float or "auto", default="auto"
        Algorithm 2's threshold (the paper's ``gamma``): a feature joins the
        subspace while its score is at least ``mean + threshold * std`` of the
        scores ``threshold_over`` names. Larger values give smaller subspaces
        (Table 5). ``"auto"`` chooses it from
        ``localselect.gp._inner_cv.GAMMA_GRID`` (``-inf``: every feature above
        the power floor, then 0.5 to 4) by the inner validation (see Notes); a
        float fixes it (any finite value; the paper sets it by hand per data
        set).
    threshold_over : {"all", "remaining"}, default="all"
        Scores whose mean and standard deviation set Algorithm 2's threshold:
        ``"all"``, every feature except the first one chosen (step B as
        printed: the features already added stay in the statistics);
        ``"remaining"``, only the features not yet added, which keeps
        accepting features while many remain. Subspaces are nested in
        ``threshold`` either way (the measurements behind the default are in
        the user guide, see Notes).
    reference_mean : float, default=0.0
        Mean ``mu*`` of the reference distribution ``y*`` (sec. 4.3).
    reference_std : float, default=0.1
        Standard deviation ``sigma*`` of ``y*``; positive.
    max_observations : int or None, default=500
        Upper bound on the observation points of the GPs, so a fit costs at
        most O(500^3) per likelihood evaluation whatever ``N``. On Waveform-40
        (3,000 training rows) the held-out MSE rule alone once kept all 2,399
        candidates (61.7 s fit, accuracy 0.802) where the cap gives 5.3 s and
        0.794; ``None`` lets the rule decide (bounded by the candidates).
    min_observations : int, default=1
        Lower bound on the observation points Algorithm 1 keeps (capped by
        the candidates and ``max_observations``); the held-out MSE rule is
        checked from this many points on. Not in the paper. ``100`` helps on
        Algorithm 3's data, where the rule alone kept 10-17 points in 2 of 10
        folds, but lets the alternation with the hyperparameters settle on a
        short length scale and all candidates as observations on
        Waveform-40 (measurements in the user guide, see Notes).
    holdout_fraction : float, default=0.2
        Fraction of the training samples held out to decide when to stop adding
        observations (sec. 4.2.1); they are never observations. ``0`` disables
        the rule (then ``max_observations`` points are taken).
    n_medoids : int, default=None
        If set, only this many k-medoids centres of the non-held-out samples are
        candidate observation points (sec. 4.5; the paper used 1000 on Isolet).
        ``None`` makes every non-held-out sample a candidate.
    max_iter : int, default=20
        Iterations of Algorithm 1 (observation selection alternating with
        hyperparameter fitting).
    tol : float, default=1e-3
        Algorithm 1 stops when no log-hyperparameter changes by more than
        ``tol`` between iterations, or when a set of observations repeats (a
        cycle; the member of the cycle with the lowest held-out MSE is kept).
    discrete_features : bool or array-like, default=False
        Categorical features, compared by the 0/1 distance of eq. (3): ``True``
        (all), ``False`` (none), a boolean mask or integer indices. They are not
        standardised.
    null_quantile : float in [0, 1] or None, default=0.99
        Power floor: beyond the first feature, a feature joins a query's
        subspace only if its power ``D_j(x)`` reaches this quantile of the
        powers that feature GPs fitted to label-permuted scores give at ``x``
        (same observations and kernel; at least 100 null values per query,
        from up to 10 permutations). ``None``: no floor (the paper).
    fallback : bool, default=True
        With ``threshold="auto"``, if K-NN on all features beats the best subspaces
        in the inner validation, queries use all features
        (``all_features_``), and a warning says so; ``False`` keeps the
        subspaces and only warns.
    score_scaling : {"unit", "minmax"}, default="unit"
        How eq. (3) is mapped to [0, 1]: ``"unit"`` divides by its largest
        possible value (one constant for all features) and clips negative
        scores to 0; ``"minmax"`` rescales each feature to [0, 1] over the
        training set (the measurement behind the default is in the user
        guide, see Notes).
    prior_mean : {"zero", "feature"}, default="zero"
        Prior mean of every feature GP: 0 (no evidence, no discriminative
        power) or the mean of the feature's training scores (global relevance,
        which then dominates far from the observations).
    init_hyperparameters : array-like of shape (3,), default=None
        Starting ``(length_scale, signal_variance, noise_variance)`` of the
        shared kernel (Algorithm 1, Table 4), on the standardised inputs. The
        starting hyperparameters of Algorithm 1 maximise the likelihood on 200
        random candidates from ``(sqrt(n_features), v / 2, v / 2)`` (``v``: the
        mean squared centred score) and, if given, from these values; the
        better likelihood wins (a length scale far below the distances between
        points has a vanishing gradient and would stay where it starts).
    callback : callable, default=None
        Called after each iteration of Algorithm 1 as
        ``callback(iteration, log_marginal_likelihood)``.
    random_state : int, RandomState instance or None, default=None
        Seeds the held-out split and the k-medoids seeding.
    n_jobs : int, default=None
        Parallel jobs over row blocks of the score computation and query
        blocks of prediction. Results do not depend on it.
    verbose : int, default=0
        1 logs stages at INFO, 2 also logs iterations at DEBUG, to the logger
        ``localselect.gp._estimator``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    scores_ : ndarray of shape (n_samples, n_features_in_)
        Discriminative scores, eq. (3), of the training samples, in [0, 1].
    observation_indices_ : ndarray of shape (n_observations,)
        Training samples used as GP observations, in the order they were chosen.
    holdout_indices_ : ndarray of shape (n_holdout,)
        Training samples held out for the stopping rule.
    holdout_mse_ : ndarray of shape (n_added + 1,)
        Held-out MSE (over all features) after 0, 1, ... greedy additions in
        the last iteration of Algorithm 1.
    kernel_ : sklearn.gaussian_process.kernels.Kernel
        The fitted shared kernel,
        ``ConstantKernel(signal_variance) * RBF(length_scale) + WhiteKernel(noise_variance)``
        (fixed hyperparameters), on the standardised inputs.
    log_marginal_likelihood_ : float
        Eq. (4) summed over the feature GPs at the fitted hyperparameters.
    local_support_ : ndarray of shape (n_samples, n_features_in_) of bool
        Algorithm 2's subspace of each training sample.
    n_iter_ : int
        Iterations of Algorithm 1.
    threshold_ : float
        The ``threshold`` queries use: the inner validation's choice with
        ``threshold="auto"``, else ``threshold`` (``set_params(threshold=...)``
        after fit acts on queries without refitting).
    validation_scores_ : dict
        The inner validation: ``"threshold"`` (the values tried), ``"subspaces"``
        (K-NN accuracy in each one's subspaces), ``"mean_size"`` (mean subspace
        size), ``"all_features"`` (K-NN accuracy on all features),
        ``"n_queries"`` and ``"n_folds"``.
    all_features_ : bool
        Whether queries use all features (``threshold="auto"``,
        ``fallback=True`` and all features won the validation).
    n_neighbors_ : int
        The K queries use with ``n_neighbors="auto"`` (the validation's
        choice; with an int, that int capped below the training size).
    X_fit_ : ndarray of shape (n_samples_fit, n_features_in_)
        Standardised training data (canonical column order), kept for the
        K-NN of prediction.
    y_fit_ : ndarray of shape (n_samples_fit,)
        Training labels as indices into ``classes_``.
    %(fitted_input_attributes)s

    See Also
    --------
    sklearn.neighbors.KNeighborsClassifier : K-NN on all features.
    sklearn.gaussian_process.GaussianProcessRegressor : One GP with a fixed kernel
        gives the same posterior as each feature GP here.

    Notes
    -----
    **Algorithm.** Continuous features are standardised (z-scores on the
    training set; a constant feature keeps scale 1). Eq. (3) gives every
    training sample a score per feature. A random ``holdout_fraction`` of the
    samples is held out; the others (or their k-medoids centres) are candidate
    observations. Algorithm 1 then alternates (a) greedy observation selection
    by largest posterior variance (eqs. (5)-(6)) until the held-out MSE has not
    improved for 20 additions, keeping the best prefix, and (b) maximisation of
    eq. (4) summed over all feature GPs (L-BFGS-B in log space, analytic
    gradient; the paper uses conjugate gradients). All feature GPs share the
    squared-exponential isotropic kernel plus noise, so one Cholesky factor
    serves them all; their prior mean is set by ``prior_mean``.
    ``D_j(x) = KL(N(mu_j(x), s(x)^2) || N(mu*, sigma*^2))``,
    with ``s(x)^2`` the predictive variance including the noise term as in
    eq. (6). Algorithm 2 builds each query's subspace; the query is classified
    by its ``n_neighbors`` nearest training samples in that subspace
    (Euclidean distance on the standardised features, uniform votes).

    **Inner validation and safety net** (not in the paper). Up to 1,000
    training samples are split in 3 stratified folds; for each fold, eq. (3),
    the feature GPs (fitted kernel, the observations outside the fold) and the
    power floor are rebuilt on the other folds, so no query's own label
    reaches its subspace, and K-NN runs among the other folds, in each
    candidate's subspaces and on all features. ``threshold="auto"`` keeps the most
    accurate candidate (ties: the larger ``threshold``). When the subspaces lose
    to all features a ``UserWarning`` says so, with both scores in
    ``validation_scores_``, and queries use all features (``fallback``).
    With ``n_neighbors="auto"`` each candidate is scored with K = 1, 3, 5 and
    8 on the same distances. The subspaces are nested in ``threshold``, so one
    path of Algorithm 2 per query serves every candidate.

    **Our choices where the paper is silent or, we believe, wrong.**
    (1) Eq. (3) sign: the paper writes ``z = -1`` for same-class pairs, which
    with a similarity kernel rewards features along which *other* classes are
    close; we use ``+1`` for same-class and ``-1`` for other-class pairs, as the
    text ("close to elements of its class and far from elements of other
    classes") requires. (2) Eq. (3) averages within the same class and within
    the other classes (instead of summing), so class sizes do not bias the
    score and a constant feature scores exactly 0; the sample itself is left
    out. (3) ``eta`` of eq. (3): see ``score_scaling``. (4) ``eta`` of
    Algorithm 2: ``|L| / max_j D_j(x)``, i.e. the penalty is the mean absolute
    (Pearson, training-set) correlation with the chosen features, in units of
    the query's largest discriminative power. (5) The starting hyperparameters
    are fitted on a random subset, not drawn at random (see
    ``init_hyperparameters``).

    **Defaults.** Where they depart from the paper's reading
    (``n_neighbors=8, threshold=1.5, null_quantile=None, fallback=False``),
    the measurements behind each default are in the :ref:`user guide
    <gp-defaults>` (docs/gp.md, "Why these defaults").

    **Complexity.** Scores: time O(min(U^2, U B P) M L C) for U distinct
    values per feature (at most N), C classes and L labelings (the real
    labels, the permutations of the floor and the validation folds'
    labelings share one kernel sum per feature): the kernel matrix up to
    2,048 values, a fast Gauss transform (B bins of width 1, P = 22 terms)
    past it; memory one block plus the L score tables. Validation: O(P' N M)
    in matrix products for the P' <= G V distinct (query, subspace size)
    pairs of G candidates and V <= 1000 queries. Observation selection:
    time O(B (B + M) N) per iteration, memory O(B N) for B observations.
    Hyperparameters: O(B^3 + B^2 M) per likelihood evaluation. Queries:
    O(n B (M + B)) for the GP predictions, O(n M^2) worst case for Algorithm
    2 and O(n N M) for the K-NN, in blocks of queries.

    **Ties.** The first greedy observation (all variances equal) is the first
    candidate in a random order drawn from ``random_state``; equal variances,
    powers and scores go to the lowest index; K-NN distance ties go to the
    lower training index; equal votes to the class that sorts first in
    ``classes_``. All computations run on a canonical layout of the training
    data (rows sorted by their sorted values, columns by their values in that
    row order), so permuting samples or features permutes the results exactly;
    "lowest index" refers to that layout.

    References
    ----------
    .. [1] K. Pichara and A. Soto, "Local feature selection using Gaussian
       process regression", Intelligent Data Analysis, 18(3), 319-336, 2014.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from localselect import GPLocalFeatureSelection
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = GPLocalFeatureSelection(random_state=0).fit(X[::2], y[::2])
    >>> round(clf.score(X[1::2], y[1::2]), 2) >= 0.9
    True
    >>> clf.get_local_support(X[1::2][:3]).shape
    (3, 30)
    """

    _declaration = Declaration(
        "gp",
        check={"n_neighbors": 3, "max_iter": 5, "random_state": 0},
        demo={"max_observations": 150},
        holds=(SharedKernelGP, ConstantKernel, Product, RBF, Sum, WhiteKernel),
    )
    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "threshold": [Interval(Real, None, None, closed="neither"), StrOptions({"auto"})],
        "threshold_over": [StrOptions(set(THRESHOLD_OVER))],
        "reference_mean": [Interval(Real, None, None, closed="neither")],
        "reference_std": [Interval(Real, 0, None, closed="neither")],
        "max_observations": [Interval(Integral, 1, None, closed="left"), None],
        "min_observations": [Interval(Integral, 1, None, closed="left")],
        "holdout_fraction": [Interval(Real, 0, 1, closed="left")],
        "n_medoids": [Interval(Integral, 1, None, closed="left"), None],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "discrete_features": ["boolean", "array-like"],
        "null_quantile": [Interval(Real, 0, 1, closed="both"), None],
        "fallback": ["boolean"],
        "score_scaling": [StrOptions({"unit", "minmax"})],
        "prior_mean": [StrOptions({"zero", "feature"})],
        "init_hyperparameters": ["array-like", None],
        "callback": [callable, None],
        **shared_constraints("random_state", "n_jobs", "verbose"),
    }

    _min_class_size = 2
    _class_size_reason = "the same-class term of eq. (3)"

    def __init__(
        self,
        n_neighbors="auto",
        *,
        threshold="auto",
        threshold_over="all",
        reference_mean=0.0,
        reference_std=0.1,
        max_observations=500,
        min_observations=1,
        holdout_fraction=0.2,
        n_medoids=None,
        max_iter=20,
        tol=1e-3,
        discrete_features=False,
        null_quantile=0.99,
        fallback=True,
        score_scaling="unit",
        prior_mean="zero",
        init_hyperparameters=None,
        callback=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
    ):
        self.n_neighbors = n_neighbors
        self.threshold = threshold
        self.threshold_over = threshold_over
        self.reference_mean = reference_mean
        self.reference_std = reference_std
        self.max_observations = max_observations
        self.min_observations = min_observations
        self.holdout_fraction = holdout_fraction
        self.n_medoids = n_medoids
        self.max_iter = max_iter
        self.tol = tol
        self.discrete_features = discrete_features
        self.null_quantile = null_quantile
        self.fallback = fallback
        self.score_scaling = score_scaling
        self.prior_mean = prior_mean
        self.init_hyperparameters = init_hyperparameters
        self.callback = callback
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    # --------------------------------------------------------- data checks
    def _discrete_mask(self, n_features: int) -> np.ndarray:
        spec = self.discrete_features
        if isinstance(spec, (bool, np.bool_)):
            return np.full(n_features, bool(spec))
        arr = np.asarray(spec)
        if arr.dtype == bool:
            if arr.shape != (n_features,):
                raise ValueError(
                    f"discrete_features as a boolean mask must have shape ({n_features},) "
                    f"(one entry per feature); got shape {arr.shape}."
                )
            return arr.copy()
        if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(
                "discrete_features must be a bool, a boolean mask or integer feature "
                f"indices; got {spec!r}."
            )
        if arr.size and (arr.min() < -n_features or arr.max() >= n_features):
            raise ValueError(
                f"discrete_features indices must lie in [0, {n_features}); got {arr.tolist()}."
            )
        mask = np.zeros(n_features, dtype=bool)
        mask[arr] = True
        return mask

    def _check_data(self, X):
        n_samples = X.shape[0]
        if self.n_neighbors != "auto" and self.n_neighbors > n_samples:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} is larger than the {n_samples} training "
                "samples; pass n_neighbors <= n_samples."
            )

    def _start_hyperparameters(self) -> np.ndarray | None:
        """``init_hyperparameters`` as 3 positive finite numbers, or None."""
        if self.init_hyperparameters is None:
            return None
        start = np.asarray(self.init_hyperparameters, dtype=np.float64)
        if start.shape != (3,) or not np.all(np.isfinite(start)) or np.any(start <= 0):
            raise ValueError(
                "init_hyperparameters must be 3 positive finite numbers (length_scale, "
                f"signal_variance, noise_variance); got {self.init_hyperparameters!r}."
            )
        return start

    # ------------------------------------------------------------------ fit
    def _fit(self, X, y_idx, log):
        # Algorithm 1 (the feature GPs), then the training subspaces
        self._check_data(X)
        encoding = getattr(self, "encoding_", None)  # a table's nominal columns: indicators
        if encoding is None:
            discrete = self._discrete_mask(X.shape[1])
        else:
            discrete = encoding.discrete(self._discrete_mask(encoding.nominal.size))
        rng = check_random_state(self.random_state)
        # Everything below runs on the canonical layout, so permuting samples or
        # features permutes the results exactly.
        layout = canonical_layout(X, y_idx, discrete)
        self._rows, self._cols = layout.rows, layout.cols
        self._center, self._scale = layout.center, layout.scale
        self.X_fit_, self.y_fit_ = layout.X, layout.y
        self._X_fit_sq = layout.X * layout.X
        self._onehot = np.eye(len(self.classes_))[self.y_fit_]
        self._abs_corr = layout.abs_corr
        self._discrete = layout.discrete
        with log.task(4, "GP local selection fit", unit="stages") as task:
            self._fit_stages(layout.X, rng, log, task)
        return self

    def _fit_stages(self, Xs, rng, log, task) -> None:
        """Scores, Algorithm 1, validation, training subspaces; one progress unit each."""
        n_samples, n_features = Xs.shape
        log(1, "scoring %d samples x %d features (eq. 3)", n_samples, n_features)
        tables = score_tables(
            Xs,
            self.y_fit_,
            self._discrete,
            rng,
            n_perm=n_permutations(self.null_quantile, n_features),
            score_scaling=self.score_scaling,
            n_jobs=self.n_jobs,
        )
        task.advance()
        self.scores_ = to_input_layout(tables.scores, self._rows, self._cols)
        scores = tables.scores
        prior_mean = np.zeros(n_features) if self.prior_mean == "zero" else scores.mean(axis=0)
        hold, candidates = self._candidates(Xs, rng, log)
        # The GP matrices are small (hundreds of rows): BLAS threads only add
        # overhead, and on a busy machine they slow the solves down severalfold.
        with threadpool_limits(limits=1, user_api="blas"):
            fit = algorithm1(
                Xs,
                scores,
                prior_mean,
                candidates,
                hold,
                rng,
                start=self._start_hyperparameters(),
                max_iter=self.max_iter,
                tol=self.tol,
                max_observations=self.max_observations,
                min_observations=self.min_observations,
                callback=self.callback,
                log=log,
            )
            self._set_algorithm1(fit, hold, log)
            self._gp_null = null_posterior(
                Xs, tables.null_scores, fit.observations, fit.hyper, self.prior_mean
            )
            task.advance()
            rule = FoldRule(
                self._discrete,
                self._abs_corr,
                self.score_scaling,
                self.prior_mean,
                self.reference_mean,
                self.reference_std,
                self.null_quantile,
                self.threshold_over,
                self.n_jobs,
            )
            cv = validate_subspaces(
                Xs,
                self.y_fit_,
                rng,
                tables,
                fit.observations,
                fit.hyper,
                rule,
                threshold=self.threshold,
                n_neighbors=self.n_neighbors,
                fallback=self.fallback,
            )
            self._set_validation(cv, log)
            task.advance()
        masks = query_subspaces(self._subspace_model(), Xs, n_jobs=self.n_jobs, log=log)
        self.local_support_ = to_input_layout(masks, self._rows, self._cols)
        task.advance()

    def _candidates(self, Xs, rng, log):
        """The held-out samples and the candidate observations of Algorithm 1."""
        hold, pool = holdout_split(Xs.shape[0], self.holdout_fraction, rng)
        if self.n_medoids is not None and self.n_medoids > pool.size:
            raise ValueError(
                f"n_medoids={self.n_medoids} exceeds the {pool.size} samples that are "
                f"not held out; pass n_medoids <= {pool.size} or a smaller "
                "holdout_fraction."
            )
        return hold, candidate_points(Xs, pool, self.n_medoids, rng, log)

    def _set_algorithm1(self, fit: Algorithm1Fit, hold: np.ndarray, log: Reporter) -> None:
        """The fitted attributes of Algorithm 1 (observations in the input's row order)."""
        self.n_iter_ = fit.n_iter
        self.observation_indices_ = self._rows[fit.observations]
        self.holdout_indices_ = np.sort(self._rows[hold])
        self.holdout_mse_ = fit.holdout_mse
        self.log_marginal_likelihood_ = fit.lml
        length_scale, signal, noise = fit.hyper
        self.kernel_ = ConstantKernel(signal, "fixed") * RBF(length_scale, "fixed") + WhiteKernel(
            noise, "fixed"
        )
        self._gp = fit.gp
        log(1, "%d observations, kernel %s", fit.observations.size, self.kernel_)

    def _set_validation(self, cv: InnerValidation, log: Reporter) -> None:
        """The fitted attributes of the inner validation; a warning when all features win."""
        self.validation_scores_ = cv.scores
        self.threshold_ = cv.threshold
        self.all_features_ = cv.all_features
        self.n_neighbors_ = cv.n_neighbors
        if cv.all_features_score > cv.subspaces_score:
            warnings.warn(self._all_features_won(cv), UserWarning, stacklevel=4)
        log(
            1,
            "validation on %d samples: subspaces %s, all features %.3f; threshold_ = %g",
            cv.scores["n_queries"],
            np.array2string(cv.scores["subspaces"], precision=3),
            cv.all_features_score,
            self.threshold_,
        )

    def _all_features_won(self, cv: InnerValidation) -> str:
        """The warning when K-NN on all features beat the subspaces in the validation."""
        if self.all_features_:
            action = "queries use all features (all_features_=True)"
        elif isinstance(self.threshold, str):
            action = "pass fallback=True to let queries use all features then"
        else:
            action = "pass threshold='auto', fallback=True to let queries use all features then"
        return (
            f"{type(self).__name__}: the local subspaces scored {cv.subspaces_score:.3f} "
            f"(threshold={cv.threshold:g}) in the model's own {cv.scores['n_folds']}-fold "
            f"validation, below K-NN on all features ({cv.all_features_score:.3f}); "
            f"{action}. Both scores are in validation_scores_."
        )

    # -------------------------------------------------------------- queries
    def _power_model(self) -> PowerModel:
        return PowerModel(
            self._gp, self._gp_null, self.reference_mean, self.reference_std, self.null_quantile
        )

    def _subspace_model(self) -> SubspaceModel:
        """Algorithm 2 at queries with the current ``threshold`` (see ``threshold_``)."""
        if isinstance(self.threshold, str):
            # The safety net acts for threshold="auto" only (set_params(threshold=2.0)
            # after fit asks for that threshold's subspaces).
            threshold = None if self.all_features_ else self.threshold_
        else:
            threshold = float(self.threshold)
        return SubspaceModel(self._power_model(), self._abs_corr, threshold, self.threshold_over)

    def _standardise(self, X) -> np.ndarray:
        """Validated queries in the canonical column order, standardised.

        Also re-checks the parameters that act on queries only (``threshold``,
        ``reference_mean``, ``reference_std``, ``n_neighbors``), which
        ``set_params`` may have changed since ``fit``.
        """
        self._validate_params()
        if self.n_neighbors != "auto" and self.n_neighbors > self.X_fit_.shape[0]:
            raise ValueError(
                f"n_neighbors={self.n_neighbors} is larger than the {self.X_fit_.shape[0]} "
                "training samples; pass n_neighbors <= n_samples."
            )
        return standardise(X, self._cols, self._center, self._scale)

    @fill_doc
    def discriminative_power(self, X):
        """KL divergence of each feature GP's prediction from the reference ``y*``.

        %(query_parameters)s

        Returns
        -------
        power : ndarray of shape (n_samples, n_features)
            ``D_j(x) = KL(N(mu_j(x), s(x)^2) || N(mu*, sigma*^2))`` (sec. 4.3);
            a nominal column of a table has the largest power of its indicators.
        """
        check_is_fitted(self)
        Xs = self._standardise(self._validate_for_local(X))
        power = to_input_columns(discriminative_power(self._power_model(), Xs), self._cols)
        return per_input_column(self, power)  # a table's nominal column: its largest indicator

    def _local_support_mask(self, X):
        Xs = self._standardise(X)
        log = Reporter.for_estimator(self)
        masks = query_subspaces(self._subspace_model(), Xs, n_jobs=self.n_jobs, log=log)
        return to_input_columns(masks, self._cols)

    @fill_doc
    def predict_proba(self, X):
        """Class frequencies among the K nearest training samples in each query's subspace.

        The fraction of the K (``n_neighbors``, or ``n_neighbors_`` with
        ``"auto"``) neighbours in each class.

        %(predict_proba_docs)s
        """
        check_is_fitted(self)
        Xs = self._standardise(self._validate_for_local(X))
        k = self.n_neighbors_ if self.n_neighbors == "auto" else self.n_neighbors
        model = KNNModel(self._subspace_model(), self.X_fit_, self._X_fit_sq, self._onehot, k)
        return query_proba(model, Xs, n_jobs=self.n_jobs, log=Reporter.for_estimator(self))

    @fill_doc
    def predict(self, X):
        """Class of each query by K-NN inside its subspace (sec. 4.4).

        The majority class of the neighbours; ties go to the class that sorts
        first in ``classes_``.

        %(predict_docs)s
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]
