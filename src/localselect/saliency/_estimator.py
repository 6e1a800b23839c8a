"""Per-row subsets at a target per-row FDR: saliency neighbourhoods and held-out loss tests.

Not a method of the LFS, IMMIGRATE, GP or LLDS papers. It answers INVASE's
instance-wise benchmark (Syn1-Syn6) without a deep-learning framework: a
predictive model fitted on part of the rows, a saliency profile per row, and
for each row a test of each feature on the held-out rows nearest in profile
space (the held-out loss change when the feature is replaced by a model-X
knockoff draw, Candès et al. 2018), with Benjamini-Hochberg within the row.
An optional knockoff+ screen (Barber and Candès 2015) keeps features with
signal anywhere at a bounded FDR.

What it is not. The name ``ConditionalSaliencySelection`` is historical
(renaming it is an API decision left for later); it is not Gimenez and Zou's
(2019, ICML) conditionally salient features: the saliency replaces ``x_j`` by
quantiles of its **marginal** distribution (on correlated columns it asks the
model about rows off the data; on Syn1-Syn6 the columns are independent), and
the neighbourhoods are found in profile space, not a fixed partition of the
input space; the per-row bound holds where a row's neighbours share its
relevant features.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.preprocessing import StandardScaler
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from localselect._compat import HasMethods, Interval, StrOptions
from localselect.base import (
    Declaration,
    LabelledFitMixin,
    LocalSelectorMixin,
    shared_constraints,
)
from localselect.saliency._cost import FIT_COST
from localselect.saliency._heldout import HeldOutTest, LastAnswer, fit_heldout, heldout_split
from localselect.saliency._knockoffs import gaussian_knockoffs, shrunk_covariance
from localselect.saliency._models import ModelFactory, on_n_jobs_threads
from localselect.saliency._modelscreen import MODEL_SCREEN_LEVEL, model_screen, model_screen_runs
from localselect.saliency._order import canonical_order
from localselect.saliency._perrow import bh_rows
from localselect.saliency._relative import RelativeRule, fit_relative
from localselect.saliency._screen import knockoff_screen

__all__ = ["ConditionalSaliencySelection"]

#: Most levels scikit-learn's gradient boosting takes in a categorical column (its max_bins).
_MAX_CATEGORIES = 255


#: The fitted attributes that hold each per-row rule's record, field by field (the record
#: is not pickled: it is rebuilt from them, with an empty answer cache).
_RULE_ATTRIBUTES = {
    "heldout": (
        "estimator_",
        "profile_estimator_",
        "grid_",
        "loss_change_",
        "reference_saliency_",
        "swapped_saliency_",
    ),
    "relative": ("estimator_", "grid_", "reference_saliency_", "_nn"),
}


class ConditionalSaliencySelection(LocalSelectorMixin, LabelledFitMixin, BaseEstimator):
    """Per-row subsets at a target per-row FDR, from held-out loss changes and saliency.

    Beyond the papers. The name is historical: the saliency is marginal (a
    feature is replaced by quantiles of its own training distribution, whatever
    the other features are); see the module docstring for how this differs
    from Gimenez and Zou's conditionally salient features. ``fit``:

    1. **Screen** (``screen=True``, off by default): model-X knockoffs of the
       standardised features (Ledoit-Wolf covariance, equicorrelated
       construction) and the union of two knockoff+ filters at ``fdr / 2``
       each (:func:`~localselect.saliency._screen.knockoff_screen`: FDR of the
       screen at most ``fdr``). ``screened_`` is what it keeps, possibly
       nothing (knockoff+ needs ``2 / fdr`` discoveries); the model then uses
       every column.
    2. **Model screen** (``model_screen="auto"``: with ``per_row="heldout"`` on
       more than 20 columns): on the model's rows only, a first model of the
       same kind and each column's knockoff-swap loss change on a quarter of
       them, Benjamini-Hochberg at 0.1, united with the columns whose
       second-order knockoff statistic passes the knockoff threshold
       (:func:`~localselect.saliency._modelscreen.model_screen`). Boosted
       trees on 100 columns miss a pure product such as Syn4's ``x1 x2``;
       on the screened columns they find it. The held-out rows are never
       read, so the per-row p-values stay valid whatever it keeps.
    3. **Model**: ``estimator`` on the kept columns: by default histogram
       gradient boosting (classifier or regressor after ``task_``) with
       ``per_row="heldout"``, a two-layer MLP with ``per_row="relative"``.
    4. **Saliency** of feature ``j`` at row ``x``: the mean change of the
       prediction (total variation of the class probabilities, half the
       absolute change of a regression) when ``x_j`` is replaced by each of
       ``n_quantiles`` quantiles of its training marginal.
    5. **Per-row rule** (``per_row``): see the parameter.

    What ``fdr`` means with ``per_row="heldout"``: the expected fraction of a
    row's kept features that are irrelevant to it, bounded by Benjamini-Hochberg
    within the row when its p-values are valid. A p-value is valid when the
    feature is independent of the target given the other features among the
    row's pooled held-out rows, and the pool is chosen without looking at the
    feature (then replacing it by a knockoff draw leaves the held-out loss
    unchanged on average, however the model was fitted; ``pool_profiles``); it
    assumes Gaussian knockoffs fit the columns and that the pooled rows share
    the row's relevant features. Where they mix regimes the realized FDR can
    exceed ``fdr``. Measured on Syn1-Syn6 at 10,000 rows (d = 11 and, with
    the model screen, d = 100), every design stays within nominal + 2 points
    at fdr 0.05, 0.1 and 0.2; with fewer rows the pools cannot keep to a
    regime, and a fit with fewer than 3,000 held-out rows raises
    :class:`~localselect.saliency.FewHeldOutRowsWarning`. The figures are in
    the :ref:`user guide <saliency-defaults-fdr>` (docs/saliency_defaults.md).

    Parameters
    ----------
    estimator : classifier with predict_proba, regressor, or None, default=None
        The model whose saliency and loss are read; None uses
        ``HistGradientBoostingClassifier`` / ``Regressor`` (learning rate 0.05,
        up to 500 iterations with early stopping from 1,000 rows, 15 leaves of
        at least 50 rows) with ``per_row="heldout"``, and ``MLPClassifier``
        / ``MLPRegressor`` ``((100, 100), alpha=0.001)`` with ``"relative"``.
    task : {"auto", "classification", "regression"}, default="auto"
        What ``y`` is (:func:`~localselect._targets.detect_task`); a given
        ``estimator`` must match it.
    screen : bool, default=False
        Run the knockoff screen of step 1.
    model_screen : "auto" or bool, default="auto"
        ``per_row="heldout"``: run the model screen of step 2 (``"auto"``: on
        more than 20 columns, after the knockoff screen). It only chooses the
        columns the model is fitted on; a column it drops is never kept for
        any row. At d = 100 it restores the power the model alone loses on
        Syn4; at d = 11 it gains about a point of TPR and raises Syn4's FDR,
        hence ``"auto"`` (measured in the :ref:`user guide
        <saliency-defaults-model-screen>`).
    fdr : float, default=0.1
        Per-row false discovery rate of ``per_row="heldout"``, and the level of
        the screen.
    n_quantiles : int, default=8
        Replacement values per feature in the saliency.
    n_neighbors : int, default=300
        Rows pooled with a row: held-out rows for ``"heldout"`` (at least 2),
        reference profiles for ``"relative"`` (0 uses the row's alone).
    per_row : {"heldout", "relative"}, default="heldout"
        The per-row rule. ``"heldout"``
        (:func:`~localselect.saliency._heldout.fit_heldout`): the model is
        fitted on ``1 - heldout_fraction`` of the rows; for each held-out row
        and feature, the
        loss change (log-loss, or squared error) when the feature is replaced
        by a knockoff draw, averaged over ``n_draws`` draws; a row's p-values
        are one-sided z-tests of the mean change over ``n_neighbors``
        held-out rows near it in saliency-profile space (cosine), those that
        share its support first (``support_agreement``;
        :func:`~localselect.saliency._perrow.loss_change_pvalues`), and
        Benjamini-Hochberg at ``fdr`` within the row keeps its features
        (:func:`~localselect.saliency._perrow.bh_rows`) among those whose
        saliency at the row is at least ``min_saliency`` of its largest.
        ``"relative"`` (:func:`~localselect.saliency._relative.fit_relative`):
        a row's saliency pooled with its ``n_neighbors`` nearest reference
        profiles, features at least ``relative_threshold`` of the row's largest
        (no error guarantee; the rule that preceded ``"heldout"``).
    heldout_fraction : float, default=0.3
        Rows held out of the model's fit for ``per_row="heldout"``.
    min_saliency : float, default=0.05
        ``per_row="heldout"``: a row keeps a feature only when the model's own
        saliency of it at the row is at least this fraction of the row's
        largest (and positive), besides passing the pooled test. The pooled
        test asks whether a feature matters around the row; this asks whether
        it matters at the row, which removes what leaks from neighbours across
        a switch. It can only remove features from a row: a feature whose
        effect is flat at the row (``x^2`` near 0) is dropped there. ``0``
        keeps what the test keeps. Chosen by measurement (:ref:`user guide
        <saliency-defaults-min-saliency>`).
    profile_fraction : float, default=0.0
        ``per_row="heldout"``: rows that fit a second model, of the same kind,
        whose saliency profiles choose each row's neighbours; the loss model
        gets the remaining ``1 - heldout_fraction - profile_fraction``. ``0``
        reads the profiles from the loss model itself. It was built against a
        bias that ``pool_profiles`` now removes at its source (neighbours
        chosen where the loss model is sensitive to a null feature); on a
        switch a profile model fitted on few rows blurs it, and its
        neighbourhoods mix the regimes (measured in the :ref:`user guide
        <saliency-defaults-profile-fraction>`).
    support_agreement : float, default=0.8
        ``per_row="heldout"``: among a row's ``4 * n_neighbors`` nearest
        held-out profiles, those whose own support (features with saliency at
        least 5 % of their largest) has a Jaccard index of at
        least this with the row's are pooled first, nearest first; the rest
        fill the pool up to ``n_neighbors``
        (:func:`~localselect.saliency._perrow.pool_rows`). Near a
        switch a row's nearest profiles straddle the two regimes, and the
        pooled test then finds the other regime's features around the row.
        ``0`` pools the nearest ``n_neighbors``. Chosen by measurement
        (:ref:`user guide <saliency-defaults-support-agreement>`).
    pool_profiles : {"auto", "swapped", "shared"}, default="auto"
        ``per_row="heldout"``: the held-out profiles that choose feature
        ``j``'s pools. ``"swapped"``: profiles computed with ``x_j`` replaced
        by a knockoff draw (one per feature, stored in
        ``swapped_saliency_``), so that the pools of feature ``j`` depend on
        the held-out rows' other features only, and ``x_j`` and its knockoff
        draws in ``loss_change_`` stay exchangeable within a pool when ``x_j``
        is null there. ``"shared"``: one profile per held-out row for every
        feature (``reference_saliency_``); a row's neighbours are then chosen
        where the model is sensitive to ``x_j``, which is where its loss
        changes for a null ``x_j`` lean positive. ``"auto"``: ``"swapped"``
        while ``n_modelled ** 2 * n_heldout`` is at most 2 ** 24 (128 MiB
        stored), ``"shared"`` beyond. Swapped profiles lower the realized FDR
        at the same TPR (measured in the :ref:`user guide
        <saliency-defaults-pool-profiles>`).
    n_draws : int, default=4
        Knockoff draws per held-out row for ``per_row="heldout"``.
    relative_threshold : float, default=0.25
        ``per_row="relative"``: a row keeps the features with pooled saliency at
        least this fraction of its largest.
    n_reference : int, default=2000
        ``per_row="relative"``: training rows (a random subset) that serve as
        the pooling reference.
    n_restarts : int, default=3
        Fits of the default MLP from different initialisations; the one with
        the best early-stopping validation score is kept (a fit that misses
        an interaction, such as the switch on ``x11`` of Syn4, leaks its
        saliency to features of the other regime). Ignored when
        ``estimator`` is given or with ``per_row="heldout"``.
    n_jobs : int or None, default=None
        Threads of the model's compiled code (OpenMP and BLAS) in ``fit`` and
        in the per-row answers; ``None`` means 1 unless inside
        ``joblib.parallel_config``, ``-1`` all cores. The answer does not depend
        on it. One thread by default because the boosted model's OpenMP
        threads collapse on a busy machine (:ref:`user guide
        <saliency-defaults-n-jobs>`).
    random_state : int, RandomState instance or None, default=None
        Knockoff draws, the reference subset, and the seed of the models.
    verbose : int, default=0
        1 logs the stages.

    Attributes
    ----------
    task_ : {"classification", "regression"}
        The task fitted.
    classes_ : ndarray of shape (n_classes,)
        Class labels (classification only).
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names seen in ``fit`` (string column names only).
    screened_ : ndarray of int
        Columns kept by the knockoff screen (possibly none: the model then
        uses every column), then by the model screen; all columns when
        neither runs.
    model_screen_pvalues_ : ndarray of shape (n_features_in_,)
        The model screen's p-value of each column (NaN for columns the
        knockoff screen dropped); absent when the model screen did not run.
    screen_statistics_ : dict
        ``{"second_order": W, "model": W}``: the knockoff statistics of the
        screen (length ``n_features_in_``), absent when ``screen=False``.
    estimator_ : estimator
        The model fitted on the kept columns (standardised).
    profile_estimator_ : estimator
        ``per_row="heldout"``: the model whose saliency profiles choose the
        neighbours (``estimator_`` itself when ``profile_fraction=0``).
    loss_change_ : ndarray of shape (n_heldout, n_modelled)
        ``per_row="heldout"``: loss changes of the held-out rows.
    scaler_ : StandardScaler
        Standardisation of the training columns.
    grid_ : ndarray of shape (n_quantiles, n_screened)
        Replacement values (standardised scale) of the kept columns.
    swapped_saliency_ : ndarray of shape (n_modelled, n_heldout, n_modelled)
        ``per_row="heldout"`` with swapped profiles (``pool_profiles``): the
        held-out rows' saliency profiles with feature ``j`` replaced by a
        knockoff draw, for each ``j``.
    reference_saliency_ : ndarray of shape (n_ref, n_screened)
        Saliency profiles of the reference rows (the held-out rows with
        ``per_row="heldout"``, from ``profile_estimator_``).
    local_relevance_ : ndarray of shape (n_samples, n_features_in_)
        ``local_relevance`` of the training rows.
    local_support_ : ndarray of shape (n_samples, n_features_in_) of bool
        The rule applied to the training rows.

    Notes
    -----
    **Tables.** A frame's nominal columns (category, string, boolean) reach
    the selector as level codes and stay codes (not standardised): the
    default boosted model takes them as categories (``categorical_features``;
    at most 255 levels a column), the saliency replaces such a column by
    levels (its ``inverted_cdf`` quantiles, each level in proportion to its
    frequency), and relevance is one per input column. Missing values (NaN)
    are taken as the model takes them. The Gaussian knockoffs of the
    loss-change test mean nothing for a level code and take no NaN: on a
    table with nominal columns or missing values the null draw of each column
    comes from its law given the others
    (:class:`~localselect.saliency._mixed.ConditionalNullSampler`, fitted on
    the model's rows: a nominal column takes the level of one of the row's 20
    nearest rows in the other columns, a numeric column its linear-Gaussian
    conditional; a missing cell stays missing), so the p-values are valid
    where those conditionals fit. ``per_row="relative"`` (a network on
    numbers) and ``screen=True`` (Gaussian knockoffs of every column) refuse
    such tables. Plain numeric arrays without NaN take the Gaussian path as
    before.

    ``local_relevance`` is ``1 - p`` with ``per_row="heldout"``, the pooled
    saliency divided by the row's largest with ``"relative"`` (in [0, 1]; 0
    for screened-out columns). Per-row knockoff statistics (a feature's
    saliency against its knockoff copy's, from a model fitted on ``[X, X~]``)
    were measured and rejected: a model that blurs a switch leaks saliency to
    the other regime's features, and the copies cannot see it (:ref:`user
    guide <saliency-defaults-rejected>`). Cost: one model fit,
    ``n_draws * n_heldout * d`` loss evaluations, and
    ``n_quantiles * n_screened`` predictions per row. With the default
    MLP on 32 or more kept columns, each of those predictions moves the first
    layer by a rank-one update instead of re-multiplying the row
    (``mlp_saliency`` in ``localselect.saliency._saliency``; equal to rounding).

    References
    ----------
    Candès, Fan, Janson and Lv (2018), JRSS-B 80(3), 551-577.
    Barber and Candès (2015), Annals of Statistics 43(5), 2055-2085.
    Gimenez and Zou (2019), ICML, PMLR 97, 2290-2298 (the per-region knockoffs
    this method does not implement; see the module docstring).
    Benjamini and Hochberg (1995), JRSS-B 57(1), 289-300.

    Examples
    --------
    >>> from localselect.datasets import make_instancewise_synthetic
    >>> from localselect.saliency import ConditionalSaliencySelection
    >>> X, y, relevant = make_instancewise_synthetic(600, "syn1", random_state=0)
    >>> sel = ConditionalSaliencySelection(random_state=0).fit(X, y)
    >>> sel.get_local_support(X[:3]).shape
    (3, 11)
    """

    _declaration = Declaration(
        "saliency",
        check={"n_quantiles": 2, "n_neighbors": 3, "n_reference": 50, "random_state": 0},
        demo={"random_state": 0},
        targets=("classes", "continuous"),
        columns="native",
        # the default model's trees, a network's optimiser state and the neighbour index
        # (scikit-learn's own types)
        holds=(
            "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
            "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
            # its categorical preprocessor on a table with nominal columns (a
            # FunctionTransformer of a partial of check_array)
            "functools.partial",
            "sklearn.utils.validation.check_array",
            # older scikit-learn keeps the loss and its link on the fitted model
            "sklearn._loss.link.Interval",
            "sklearn._loss.link.IdentityLink",
            "sklearn._loss.link.LogitLink",
            "sklearn._loss.link.MultinomialLogit",
            "sklearn._loss.loss.HalfBinomialLoss",
            "sklearn._loss.loss.HalfMultinomialLoss",
            "sklearn._loss.loss.HalfSquaredError",
            "sklearn.neural_network._stochastic_optimizers.AdamOptimizer",
            "sklearn.neural_network._stochastic_optimizers.SGDOptimizer",
            "sklearn.neighbors._kd_tree.KDTree",
            "sklearn.neighbors._ball_tree.BallTree",
            "sklearn.metrics._dist_metrics.EuclideanDistance64",
        ),
        size=FIT_COST,
    )
    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "predict"]), None],
        "screen": ["boolean"],
        "model_screen": [StrOptions({"auto"}), "boolean"],
        "fdr": [Interval(Real, 0, 1, closed="neither")],
        "n_quantiles": [Interval(Integral, 1, None, closed="left")],
        "n_neighbors": [Interval(Integral, 0, None, closed="left")],
        "per_row": [StrOptions({"relative", "heldout"})],
        "heldout_fraction": [Interval(Real, 0, 1, closed="neither")],
        "min_saliency": [Interval(Real, 0, 1, closed="both")],
        "profile_fraction": [Interval(Real, 0, 1, closed="left")],
        "support_agreement": [Interval(Real, 0, 1, closed="both")],
        "pool_profiles": [StrOptions({"auto", "swapped", "shared"})],
        "n_draws": [Interval(Integral, 1, None, closed="left")],
        "relative_threshold": [Interval(Real, 0, 1, closed="right")],
        "n_reference": [Interval(Integral, 1, None, closed="left")],
        "n_restarts": [Interval(Integral, 1, None, closed="left")],
        **shared_constraints("task", "n_jobs", "random_state", "verbose"),
    }

    def __init__(
        self,
        estimator=None,
        *,
        task="auto",
        screen=False,
        model_screen="auto",
        fdr=0.1,
        n_quantiles=8,
        n_neighbors=300,
        per_row="heldout",
        heldout_fraction=0.3,
        min_saliency=0.05,
        profile_fraction=0.0,
        support_agreement=0.8,
        pool_profiles="auto",
        n_draws=4,
        relative_threshold=0.25,
        n_reference=2000,
        n_restarts=3,
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.task = task
        self.screen = screen
        self.model_screen = model_screen
        self.fdr = fdr
        self.n_quantiles = n_quantiles
        self.n_neighbors = n_neighbors
        self.per_row = per_row
        self.heldout_fraction = heldout_fraction
        self.min_saliency = min_saliency
        self.profile_fraction = profile_fraction
        self.support_agreement = support_agreement
        self.pool_profiles = pool_profiles
        self.n_draws = n_draws
        self.relative_threshold = relative_threshold
        self.n_reference = n_reference
        self.n_restarts = n_restarts
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _mixed_columns(self, X):
        """For a table with nominal columns or missing values, which columns are nominal
        (refusing what the mixed path does not take); None for numeric, complete ``X``."""
        columns = getattr(self, "input_columns_", None)
        nominal = (
            np.zeros(X.shape[1], dtype=bool)
            if columns is None
            else np.asarray(columns.nominal, dtype=bool)
        )
        if not (nominal.any() or np.isnan(X).any()):
            return None
        what = "nominal columns" if nominal.any() else "missing values (NaN)"
        if self.per_row != "heldout":
            raise ValueError(
                f"ConditionalSaliencySelection(per_row={self.per_row!r}) reads every column "
                f"as a number through a neural network, which takes no {what}; use "
                "per_row='heldout' (the default), whose gradient-boosting model takes "
                "categories and missing values."
            )
        if self.screen:
            raise ValueError(
                f"screen=True draws Gaussian knockoffs of every column, which {what} have "
                "none of; leave screen=False (the per-row test draws its nulls from each "
                "column's law given the others)."
            )
        if self.estimator is None and nominal.any():
            n_levels = np.nanmax(np.where(nominal, X, 0.0), axis=0, initial=0.0) + 1
            wide = np.flatnonzero(nominal & (n_levels > _MAX_CATEGORIES))
            if wide.size:
                names = np.asarray(columns.names)[wide]
                raise ValueError(
                    f"The nominal columns {', '.join(map(str, names[:5]))} have more than "
                    f"{_MAX_CATEGORIES} levels, more than scikit-learn's gradient boosting "
                    "takes as categories; merge rare levels, or pass such a column as numbers."
                )
        return nominal

    @on_n_jobs_threads
    def _fit(self, X, codes, log):
        rng = check_random_state(self.random_state)
        n, d = X.shape
        nominal = self._mixed_columns(X)
        self.scaler_ = StandardScaler().fit(X)
        if nominal is not None and nominal.any():  # level codes stay codes
            self.scaler_.mean_[nominal] = 0.0
            self.scaler_.var_[nominal] = 1.0
            self.scaler_.scale_[nominal] = 1.0
        # Work in a column and row order fixed by the data's contents, so that permuting
        # the features or the rows permutes the answer (the model's initialisation and
        # batches, the knockoff draws and the reference rows depend on the order).
        self._order = canonical_order(X)
        Xs = self.scaler_.transform(X)[:, self._order]
        rows = np.lexsort((codes, *Xs.T[::-1]))
        Xs, codes = Xs[rows], codes[rows]
        cols = self._screen(Xs, codes, rng, log) if self.screen else np.arange(d)
        self.screened_ = np.sort(self._order[cols])
        cols = cols if cols.size else np.arange(d)  # nothing kept: model every column
        self._cols = cols
        if hasattr(self, "model_screen_pvalues_"):
            del self.model_screen_pvalues_
        heldout = self.per_row == "heldout"
        ordered = None if nominal is None else nominal[self._order]
        models = ModelFactory(
            self.estimator,
            self.task_,
            heldout,
            self.n_restarts,
            self.n_quantiles,
            None if ordered is None else ordered[cols],
        )
        if heldout:
            split = heldout_split(
                n, self.heldout_fraction, self.profile_fraction, self.n_neighbors, rng
            )
            if model_screen_runs(self.model_screen, cols.size):
                keep = self._model_screen(Xs[:, cols][split[2]], codes[split[2]], models, rng, log)
                cols = cols[keep] if keep.size else cols
                self._cols = cols
                self.screened_ = np.sort(self._order[cols])
                if ordered is not None:
                    models = models._replace(categorical=ordered[cols])
            Xk = Xs[:, cols]
            test = fit_heldout(
                Xk,
                codes,
                split,
                models,
                rng,
                n_draws=self.n_draws,
                pool_profiles=self.pool_profiles,
                log=log,
                nominal=models.categorical,
            )
            self._assign(test)
        else:
            Xk = Xs[:, cols]
            log(1, "fitting the model on %d columns", Xk.shape[1])
            rule = fit_relative(
                Xk, codes, models, rng, n_reference=self.n_reference, n_neighbors=self.n_neighbors
            )
            self._assign(rule)
        R, M = np.empty((n, d)), np.empty((n, d), dtype=bool)
        R[rows], M[rows] = self._answer(Xk)
        self.local_relevance_, self.local_support_ = R, M
        return self

    def _assign(self, rule):
        """Keep the fitted per-row rule, and write the fitted attributes it holds."""
        self._rule = rule
        for name, value in zip(_RULE_ATTRIBUTES[self.per_row], rule):
            setattr(self, name, value)
        if getattr(self, "swapped_saliency_", ()) is None:  # shared profiles: no such attribute
            del self.swapped_saliency_

    def _fitted_rule(self):
        """The fitted per-row rule (rebuilt from the fitted attributes after unpickling)."""
        if "_rule" not in vars(self):
            values = [getattr(self, name, None) for name in _RULE_ATTRIBUTES[self.per_row]]
            regression = self.task_ == "regression"
            self._rule = (
                HeldOutTest(*values, regression, LastAnswer())
                if self.per_row == "heldout"
                else RelativeRule(*values, regression)
            )
        return self._rule

    def __getstate__(self):
        state = dict(super().__getstate__())
        state.pop("_rule", None)  # the fitted attributes hold it; its cache is not fitted state
        return state

    def __setstate__(self, state):
        super().__setstate__(state)
        if "estimator_" in state:  # answering leaves the attributes the same objects
            self._fitted_rule()

    def _screen(self, Xs, target, rng, log):
        """Columns the knockoff screen keeps (``screen_statistics_`` in the input's order)."""
        K = gaussian_knockoffs(Xs, shrunk_covariance(Xs), rng)
        res = knockoff_screen(Xs, K, target, self.fdr, rng, regression=self.task_ == "regression")
        inverse = np.argsort(self._order)
        self.screen_statistics_ = {
            "second_order": res.second_order[inverse],
            "model": res.model[inverse],
        }
        log(1, "screen kept %d of %d features", res.kept.size, Xs.shape[1])
        return res.kept

    def _model_screen(self, Xk, codes, models, rng, log):
        """Columns of ``Xk`` (the model's rows only) that the per-row model gets."""
        res = model_screen(
            Xk,
            codes,
            lambda rows: models.make(rows, rng.randint(2**31 - 1)),
            rng,
            level=MODEL_SCREEN_LEVEL,
            regression=models.regression,
            n_draws=self.n_draws,
            nominal=models.categorical,
        )
        p = np.full(self.n_features_in_, np.nan)
        p[self._order[self._cols]] = res.pvalues
        self.model_screen_pvalues_ = p
        log(1, "model screen kept %d of %d columns", res.kept.size, Xk.shape[1])
        return res.kept

    def _answer(self, Xk):
        """Relevance and mask of rows in the modelled columns, in every column (0 and False
        elsewhere). Held-out rule: ``1 - p``, and Benjamini-Hochberg within the row among
        the features whose saliency at the row is at least ``min_saliency`` of its largest;
        relative rule: the pooled relevance, and ``relative_threshold`` of the largest."""
        cols = self._order[self._cols]
        R = np.zeros((Xk.shape[0], self.n_features_in_))
        if self.per_row != "heldout":
            R[:, cols] = self._fitted_rule().relevance(Xk)
            return R, (self.relative_threshold <= R) & (R > 0)
        p, floor = self._fitted_rule().answer(
            Xk,
            n_neighbors=self.n_neighbors,
            support_agreement=self.support_agreement,
            min_saliency=self.min_saliency,
        )
        M = np.zeros(R.shape, dtype=bool)
        R[:, cols] = 1.0 - p
        M[:, cols] = bh_rows(p, self.fdr) & floor
        return R, M

    def model_input(self, X):
        """The columns, in the order and scale, that ``estimator_`` was fitted on.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features_in_)
            Rows.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_screened)
            Standardised kept columns (``estimator_.predict(Z)`` gives class codes).
        """
        check_is_fitted(self)
        return self._model_rows(self._validate_for_local(X))

    def _model_rows(self, X):
        """Validated rows, standardised, in the modelled columns."""
        return self.scaler_.transform(X)[:, self._order][:, self._cols]

    def _training_local_relevance(self):
        check_is_fitted(self)
        return self.local_relevance_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        # the held-out rule's default model takes missing values (and so do its null draws)
        tags.input_tags.allow_nan = self.per_row == "heldout"
        return tags

    @on_n_jobs_threads
    def _local_relevance(self, X):
        check_is_fitted(self)
        return self._answer(self._model_rows(X))[0]

    @on_n_jobs_threads
    def _local_support_mask(self, X):
        check_is_fitted(self)
        return self._answer(self._model_rows(X))[1]
