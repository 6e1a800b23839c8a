"""LiftFeatureSelector: multi-resolution feature selection with the Local Lift Dependence Scale."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.feature_selection import SelectorMixin
from sklearn.preprocessing import KBinsDiscretizer
from sklearn.utils.validation import check_is_fitted

from localselect._compat import HasMethods, Interval, StrOptions
from localselect._docstrings import fill_doc
from localselect._magnitudes import check_magnitudes
from localselect._portable import PortableStateMixin
from localselect.base import (
    Declaration,
    LabelledFitMixin,
    LocalSelectorMixin,
    read_rows,
    shared_constraints,
)
from localselect.lift._coding import FeatureCodes, JointCodes, decode_ranking, plain
from localselect.lift._column_bins import (
    DiscretizedColumns,
    TertileBins,
    numeric_column,
)
from localselect.lift._discretize import MahalanobisQuantileDiscretizer, quantile_bins
from localselect.lift._driver import auto_size, search_lattice
from localselect.lift._measures import contingency, encode_discrete, fitted_lift_table
from localselect.lift._search import SearchTooLong, subsets_total

__all__ = ["LiftFeatureSelector"]


@fill_doc
class LiftFeatureSelector(
    LabelledFitMixin, LocalSelectorMixin, SelectorMixin, PortableStateMixin, BaseEstimator
):
    """Select features, windows or profiles by the Local Lift Dependence Scale.

    Marcondes, Simonis and Barrera's multi-resolution feature selection on
    discrete data, at one of three resolutions:

    * ``"features"`` (Algorithm 1): feature subsets A ranked by the global
      coefficient eta(X_A) = I(X_A; Y) / H(Y) (eq. (2), (4));
    * ``"windows"`` (Algorithm 2): pairs (A, W) of a subset and a window W (a
      set of profiles of X_A) ranked by eta(W) (eq. (3), (5));
    * ``"profiles"`` (Algorithm 3): pairs (A, x) of a subset and one profile
      ranked by the lift L(x, y) = P(y | x) / P(y) of ``target_class``
      (eq. (6)).

    The ranking is in ``results_``; as a scikit-learn selector it keeps the
    features of the best result (a global selection, usable in pipelines:
    ``get_support`` and ``transform``). Per row, :meth:`get_local_support`
    gives the features of the ranked profiles or windows the row matches
    (``"profiles"``, ``"windows"``; ``relevance_scope == "local"``) or the
    best subset for every row (``"features"``, ``"global"``), and
    :meth:`local_relevance` the fraction of the matched results using each
    feature.

    Read more in the :ref:`User Guide <lift>`.

    Parameters
    ----------
    resolution : {"features", "windows", "profiles"}, default="features"
        What is ranked: feature subsets (Algorithm 1), windows (Algorithm 2)
        or profiles (Algorithm 3).
    max_features : int, "auto" or None, default="auto"
        Largest subset (profile length) searched. ``"auto"``: the largest
        size whose search fits ``max_seconds`` (three quarters of what is
        left of it after discretizing and the pilot) and at most 2,000,000
        subsets, chosen on a timed pilot (see Notes; the size is in
        ``max_features_``); a fit refuses only when single features do not
        fit. ``None`` allows all
        features. An explicit size (or ``None``) whose search does not fit
        is refused. Capped at the number of features.
    min_support : float, default=0.0
        Smallest relative frequency, among the rows complete on the subset, of
        a profile (``"profiles"``) or a window (``"windows"``); the paper uses
        0.15 on the Congressional Voting data against overfitting. The whole
        range scored by ``"features"`` has support 1, so it always qualifies.
    target_class : label, default=None
        The class y whose lift is maximised (``"profiles"``) or reported in
        the ``lift`` column (``"windows"``). ``None``: every class (the
        ``"profiles"`` ranking then keeps ``top_k`` profiles per class). For
        a continuous target, a bin index ``0 .. n_bins - 1`` (``target_bins -
        1`` is where ``y`` is highest; ``target_edges_`` gives the ranges).
    top_k : int, default=10
        Results kept in ``results_`` (per target class for ``"profiles"``).
    discretizer : "auto", transformer or None, default="auto"
        Applied to continuous ``X`` first. A transformer returning one column
        per feature (for example ``KBinsDiscretizer(encode="ordinal")``) is
        fitted once; one returning a single column (a joint discretizer such as
        :class:`MahalanobisQuantileDiscretizer`) is refitted on every feature
        subset, as in the paper, and profiles are then its joint bins.
        ``"auto"``: discrete columns (integers, strings, categories) are kept
        and every numeric column with a non-integer value is cut at its sample
        tertiles (3 bins, NaN stays missing), so any numeric table can be
        scored; in a table with text or category columns too, its numeric
        columns are cut the same way and the others kept as their values.
        ``None``: ``X`` must already be discrete (NaN missing).
    max_seconds : float or None, default=60.0
        Refuse, before searching, an exhaustive subset search (``"features"``,
        ``"windows"``, ``"profiles"`` with a joint discretizer) whose estimated
        time exceeds this many seconds; the error names the parameters that
        shorten it. The estimate times a few subsets of each size (at most
        about half a second) and extrapolates to all of them (see Notes).
        ``None`` never refuses.
    target_bins : int, default=3
        A continuous target (``task_ == "regression"``) is cut at its sample
        quantiles into this many bins (tertiles by default, as
        ``discretizer="auto"`` cuts the features), which then play the part
        of the classes (:func:`~localselect.lift._discretize.quantile_bins`;
        ties in ``y`` may merge bins). Our extension: the paper defines the
        lift for a discrete ``Y``. Unused for class labels.
    task : {"auto", "classification", "regression"}, default="auto"
        What ``y`` is: ``"auto"`` reads it (floats that are not all integers
        are a continuous target); ``"regression"`` for an integer target
        that is a quantity, ``"classification"`` for float class labels.
    n_jobs : int, default=None
        Parallel jobs over blocks of feature subsets (one block per first
        feature for the profile lattice); results do not depend on it.
    verbose : int, default=0
        Log the search stages (1) to ``logging.getLogger(__name__)``, and the
        progress of searches that run past 2 s.

    Attributes
    ----------
    results_ : DataFrame
        The ranking, best first, with columns ``features`` (tuple of column
        names), ``profile`` (tuple of values, one per feature; ``"profiles"``),
        ``window`` (tuple of profiles; ``"windows"``), ``score`` (eta, or the
        lift for ``"profiles"``), ``lift`` (of the result's region for
        ``target_class``, else the largest over classes; 1 for a whole range),
        ``support`` (relative frequency among the complete cases),
        ``n_complete`` (rows complete on the subset) and ``target_class``.
    best_features_ : ndarray of int
        Column indices of the best result's features.
    max_features_ : int
        The largest subset size searched: ``max_features`` capped at the
        number of features, or the size ``"auto"`` chose.
    regions_ : list of tuple
        One ``(feature indices, profiles)`` pair per row of ``results_``
        with a lift above 1 (all rows for ``"features"``): the profiles
        (one for ``"profiles"``, the window's for ``"windows"``; ``None``
        for ``"features"``) a row must match, as discrete values, to belong
        to that result's region.
    discretizer_ : transformer, dict or None
        The fitted ``discretizer``: one transformer for a per-column
        discretizer, a dict from feature-index tuple to the transformer
        fitted on those columns for a joint one (kept for the subsets of
        ``results_``), the training tertile edges for ``"auto"`` on
        continuous columns, ``None`` without a discretizer.
    best_lift_counts_ : ndarray of shape (n_profiles, n_classes)
        Counts of the training rows (complete on ``best_features_``) of each
        observed profile of the best result's features and each class (bin
        of a continuous ``y``): the lift table that
        :func:`~localselect.plotting.plot_lift_table` draws for the fitted
        estimator. Not set by a fit on a Dask collection.
    best_lift_profiles_ : list of tuple
        The profiles of the rows of ``best_lift_counts_``, as discrete values
        (one per feature; one joint bin for a joint discretizer).
    local_support_ : ndarray of shape (n_samples, n_features_in_), dtype=bool
        :meth:`get_local_support` of the training rows.
    local_relevance_ : ndarray of shape (n_samples, n_features_in_)
        :meth:`local_relevance` of the training rows.
    classes_ : ndarray of shape (n_classes,)
        Class labels seen in ``fit`` (not set for a continuous target).
    target_edges_ : ndarray of shape (n_bins, 2)
        Only for a continuous target: the ``(low, high]`` range of ``y`` of
        each quantile bin; the bins are the labels ``0 .. n_bins - 1`` of
        ``target_class`` and of the ``target_class`` column of ``results_``.
    task_ : {"classification", "regression"}
        The task of the fit.
    categories_ : list of ndarray
        Observed values of each feature (after the discretizer), in code order.
    n_visited_ : int
        Lattice nodes reached: subsets (``"features"``), windows scored
        (``"windows"``) or profiles that survived the match-count bound
        (``"profiles"``).
    n_counted_ : int
        Profiles, windows or subsets whose counts were computed.
    n_passed_ : int
        Of those, how many met ``min_support``.
    %(fitted_input_attributes)s

    See Also
    --------
    MahalanobisQuantileDiscretizer : The paper's joint discretisation.
    lift_table : The lift function of a feature set with its counts.
    dependence : The coefficient eta of a whole range or a window.

    Notes
    -----
    **Missing values**: every feature subset counts only the rows complete on
    it (the paper's Table 5), so P(y) in the lift is also taken among those
    rows. **Search**: ``"features"`` and ``"windows"`` enumerate every subset
    of at most ``max_features`` features (exact within that bound; refused
    beyond 2,000,000 subsets). Windows are enumerated exhaustively when a
    subset has at most 16 profiles; with more, only nested windows of the
    profiles of largest own eta are scored, which still finds the best window
    without a support bound (eta(W) is a ratio of sums, never above its best
    term) but is a heuristic under ``min_support > 0``. ``"profiles"`` on
    per-feature codes is an exact pruned search: the match count of a profile
    is anti-monotone, so a profile is dropped once its count is below
    ``min_support`` times the number of rows complete on every feature, and
    the exact support is checked on what is kept (frequent-itemset mining with
    prefix joins). With a joint discretizer nothing can be pruned (bins are
    re-cut per subset). Counting is vectorised (bincount of mixed-radix profile
    codes; packed bit sets and popcounts for the lattice). Time per subset
    ``O(n_samples * |A|)``; the profile search costs O(n_samples / 8) per
    candidate profile.
    **Time guard**: the number of subsets is known before the search (a
    sum of binomial coefficients), and their cost grows with the rows, the
    subset size and the number of observed profiles, which depend on the
    discretizer. So ``fit`` times a batch of subsets of each size drawn with a
    fixed seed (a pilot of at most about 0.5 s), extrapolates to every subset
    (divided by ``n_jobs``) and refuses with a ``ValueError`` past
    ``max_seconds``, naming ``max_features``, ``min_support`` and the
    discretizer. The estimate depends on the machine's speed and load, so a
    search near the limit may be refused on one run and accepted on another;
    it never changes a result. The pruned ``"profiles"`` search on
    per-feature codes is sized by a bound instead: a subset's complete rows
    fall into disjoint profiles, so at most ``n_samples / (min_support *
    n_complete)`` of them qualify per subset; the bound times a per-candidate
    cost measured on a 2-core machine is compared with ``max_seconds``
    (``min_support=0`` on many features is refused at once).
    ``max_features="auto"`` uses the same budget: the pilot times subsets of
    each size up to the largest whose count is at most 2,000,000, the
    estimate of every size is extrapolated as above, and the largest size
    estimated within three quarters of what is left of ``max_seconds`` (the
    estimate varies with the load, and the largest size that passes lands
    next to the limit) is searched, without a second pilot. The pruned
    profile search takes the largest size whose bound fits. The chosen size depends on the
    machine's speed and load (a result of a given size never does): pass
    an integer ``max_features`` for a size that does not vary.
    **Ties** are broken by larger support, then fewer features, then the
    lexicographic order of column indices and value codes.
    **Deviations**: the paper gives no search bounds; ``max_features``, the
    window limit and the lattice size limit are ours. A class with a single
    sample is accepted (the lift is defined for it). A continuous target cut
    into ``target_bins`` quantile bins is ours (the paper's ``Y`` is discrete).

    %(references_llds)s

    Examples
    --------
    >>> import pandas as pd
    >>> from localselect import LiftFeatureSelector
    >>> X = pd.DataFrame({"a": list("xxyyxxyy"), "b": list("uvuvuvuv"), "c": list("ppqqpqpq")})
    >>> y = [0, 0, 1, 1, 0, 0, 1, 1]
    >>> sel = LiftFeatureSelector(max_features=2).fit(X, y)
    >>> best = sel.results_.iloc[0]
    >>> best["features"], float(best["score"])
    (('a',), 1.0)
    >>> sel.get_feature_names_out().tolist()
    ['a']
    >>> prof = LiftFeatureSelector("profiles", target_class=1, min_support=0.25).fit(X, y)
    >>> best = prof.results_.iloc[0]
    >>> best["features"], best["profile"], float(best["lift"])
    (('a',), ('y',), 2.0)
    """

    _declaration = Declaration(
        "llds",
        check={"max_features": 2, "discretizer": MahalanobisQuantileDiscretizer()},
        demo={
            "max_features": 2,
            "discretizer": KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform"),
        },
        holds=(
            MahalanobisQuantileDiscretizer,
            "localselect.lift._column_bins.TertileBins",
            "localselect.lift._column_bins.DiscretizedColumns",
        ),
        targets=("classes", "continuous"),
        collection_fit="localselect.lift._collections:fit_llds_collection",
        raw_input=True,
        columns="native",
    )
    _parameter_constraints = {
        "resolution": [StrOptions({"features", "windows", "profiles"})],
        "max_features": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "min_support": [Interval(Real, 0, 1, closed="both")],
        "target_class": "no_validation",
        "top_k": [Interval(Integral, 1, None, closed="left")],
        "discretizer": [HasMethods(["fit_transform"]), StrOptions({"auto"}), None],
        "max_seconds": [Interval(Real, 0, None, closed="neither"), None],
        "target_bins": [Interval(Integral, 2, None, closed="left")],
        **shared_constraints("task", "n_jobs", "verbose"),
    }

    def __init__(
        self,
        resolution="features",
        *,
        max_features="auto",
        min_support=0.0,
        target_class=None,
        top_k=10,
        discretizer="auto",
        max_seconds=60.0,
        target_bins=3,
        task="auto",
        n_jobs=None,
        verbose=0,
    ):
        self.resolution = resolution
        self.max_features = max_features
        self.min_support = min_support
        self.target_class = target_class
        self.top_k = top_k
        self.discretizer = discretizer
        self.max_seconds = max_seconds
        self.target_bins = target_bins
        self.task = task
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _as_float(self, X):
        try:
            return np.asarray(X, dtype=np.float64)
        except ValueError as exc:
            raise ValueError(
                "The discretizer needs numeric X, but X holds non-numeric values "
                f"({exc}). Encode text columns as numbers, or pass discrete data with "
                "discretizer=None."
            ) from exc

    def _coding(self, X):
        """Per-feature codes of ``X``, or a joint discretizer refitted per subset."""
        if self.discretizer is None or isinstance(self.discretizer, str):
            columns = getattr(self, "input_columns_", None)
            nominal = (
                np.zeros(X.shape[1], dtype=bool)
                if columns is None
                else np.asarray(columns.nominal, dtype=bool)
            )
            if not nominal.any() and (X.dtype != object or _all_numeric(X)):
                return self._numeric_codes(self._as_float(X))
            return self._mixed_codes(X, nominal)
        columns = getattr(self, "input_columns_", None)
        if (columns is not None and np.any(columns.nominal)) or (
            X.dtype == object and not _all_numeric(X)
        ):
            return self._mixed_discretized(X, columns)
        Xf = self._as_float(X)
        fitted = clone(self.discretizer)
        first = fitted.fit_transform(Xf)
        first = np.asarray(first.toarray() if hasattr(first, "toarray") else first, float)
        if first.ndim == 2 and first.shape[1] == Xf.shape[1]:
            return FeatureCodes(encode_discrete(first), fitted)
        if first.ndim == 2 and first.shape[1] == 1:
            return JointCodes(Xf, self.discretizer)
        raise ValueError(
            f"The discretizer returned {np.shape(first)} for X of shape {Xf.shape}; it must "
            "return one column per feature or a single joint column."
        )

    def _mixed_discretized(self, X, columns):
        """Codes of a table with nominal columns under a given per-feature discretizer: the
        discretizer cuts the numeric columns, the nominal ones keep their levels."""
        nominal = (
            np.zeros(X.shape[1], dtype=bool)
            if columns is None
            else np.asarray(columns.nominal, dtype=bool)
        )
        numeric = [
            j for j in range(X.shape[1]) if not nominal[j] and numeric_column(X[:, j]) is not None
        ]
        if not numeric:
            return FeatureCodes(encode_discrete(X))
        bins = DiscretizedColumns(self.discretizer, numeric).fit(X)
        return FeatureCodes(encode_discrete(bins.transform(X)), bins)

    def _mixed_codes(self, X, nominal):
        """Codes of a table with nominal or text columns: its numeric columns as
        :meth:`_numeric_codes` treats numbers (a column with a non-integer value cut at its
        tertiles with ``discretizer="auto"``, refused with ``None``), its nominal columns
        (``nominal``, whatever their labels) and text columns as their values."""
        numeric = [
            j for j in range(X.shape[1]) if not nominal[j] and numeric_column(X[:, j]) is not None
        ]
        if numeric:
            Xf = np.column_stack([numeric_column(X[:, j]) for j in numeric])
            # the refusals (infinity, continuous values with discretizer=None) of numbers
            sub = self._numeric_codes(Xf)
            if sub.fitted is not None:
                bins = TertileBins([numeric[j] for j in sub.fitted.columns]).fit(X)
                return FeatureCodes(encode_discrete(bins.transform(X)), bins)
        return FeatureCodes(encode_discrete(X))

    def _labelled(self, X):
        """``X`` with the level codes of a table's nominal columns replaced by their labels.

        The fit codes a table's category, string and boolean columns as level codes
        (``input_columns_``); the lift reads a nominal column as its values, so
        profiles, ``results_`` and ``regions_`` name the levels themselves. Raw
        values (an object array) and numeric data are returned as they are.
        """
        columns = getattr(self, "input_columns_", None)
        if columns is None or X.dtype == object or not np.any(columns.nominal):
            return X
        out = np.asarray(X).astype(object)
        for j in np.flatnonzero(columns.nominal):
            codes = np.asarray(X[:, j], dtype=np.float64)
            present = ~np.isnan(codes)
            labels = np.asarray(columns.levels[j], dtype=object)
            col = np.full(codes.shape[0], np.nan, dtype=object)
            col[present] = labels[codes[present].astype(np.intp)]
            out[:, j] = col
        return out

    def _numeric_codes(self, Xf):
        """Codes of numbers that are discrete, or cut at tertiles with ``discretizer="auto"``."""
        if np.isinf(Xf).any():
            raise ValueError(
                "X contains infinity; discrete data must hold finite values "
                "(NaN marks a missing value)."
            )
        bad = np.flatnonzero(np.any(~np.isnan(Xf) & (Xf != np.round(Xf)), axis=0)).tolist()
        if bad and self.discretizer == "auto":
            bins = TertileBins(bad).fit(Xf)
            return FeatureCodes(encode_discrete(bins.transform(Xf)), bins)
        if bad:
            raise ValueError(
                f"X has continuous (non-integer) values in columns {bad[:10]}; the "
                "lift dependence scale needs discrete features. Pass a discretizer: "
                "discretizer='auto' (sample tertiles per feature), "
                "MahalanobisQuantileDiscretizer(n_bins=3) (joint quantile bins, as "
                "in the paper; on the command line --params "
                "discretizer=mahalanobis:3) or KBinsDiscretizer(encode='ordinal')."
            )
        return FeatureCodes(encode_discrete(Xf))

    def _labels(self) -> np.ndarray:
        """The classes, or for a continuous target the bin indices ``0 .. n_bins - 1``."""
        if self.task_ == "regression":
            return np.arange(len(self.target_edges_))
        return self.classes_

    def _targets(self) -> list[int]:
        """Class codes whose lift is ranked: ``target_class``, or every class."""
        return ranked_targets(self._labels(), self.target_class, self.task_)

    def _fit(self, X, codes, log):
        # X is validated by LabelledFitMixin.fit as given (dtype=None: strings,
        # categories and NaN stay; see the tags).
        start = time.perf_counter()
        X = self._labelled(X)
        self._discard(("target_edges_",))
        if self.task_ == "regression":
            codes, self.target_edges_ = quantile_bins(codes, self.target_bins)
        y_codes = codes.astype(np.int64)
        n_classes = len(self._labels())
        targets = self._targets()
        n_features = X.shape[1]
        auto = isinstance(self.max_features, str)
        max_size = (
            n_features if self.max_features is None or auto else min(self.max_features, n_features)
        )
        names = (
            [str(n) for n in self.feature_names_in_]
            if hasattr(self, "feature_names_in_")
            else [f"x{j}" for j in range(n_features)]
        )
        if self.resolution in ("features", "windows") and not auto:
            # The subset count is known from the shape: refuse before discretizing.
            subsets_total(n_features, max_size)
        coding = self._coding(X)
        self.discretizer_ = coding.fitted
        self.categories_ = coding.categories
        max_seconds = self.max_seconds
        if auto:
            max_size = self._auto_size(coding, y_codes, n_classes, targets, X.shape, start, log)
            max_seconds = None  # the chosen size fits the budget: no second pilot
        self.max_features_ = int(max_size)
        log(
            1,
            "LLDS %s search: %d samples, %d features, subsets up to %d, min_support=%s",
            self.resolution,
            X.shape[0],
            n_features,
            max_size,
            self.min_support,
        )
        try:
            search = search_lattice(
                self.resolution,
                coding,
                y_codes,
                n_classes,
                n_features,
                max_size=max_size,
                top_k=self.top_k,
                min_support=self.min_support,
                targets=targets,
                n_jobs=self.n_jobs,
                max_seconds=max_seconds,
                log=log,
            )
        except SearchTooLong as exc:
            raise ValueError(self._too_long_message(exc, X.shape, max_size)) from None
        self._set_ranking(search, coding, names, log)
        self._set_best_lift(coding, y_codes, n_classes)
        self.local_support_, self.local_relevance_ = self._matched_support(X)
        return self

    def _set_best_lift(self, coding, y_codes, n_classes):
        """The counts of the best result's profiles against the classes (or bins of ``y``)
        on the training rows: what :func:`~localselect.plotting.plot_lift_table` draws."""
        subset = tuple(int(j) for j in self.best_features_)
        codes, _ = coding.columns(subset)
        table = contingency(codes, y_codes, n_classes)
        self.best_lift_counts_ = table.counts.astype(np.int64)
        self.best_lift_profiles_ = [
            tuple(plain(v) for v in coding.decode(subset, tuple(row)))
            for row in table.profiles.tolist()
        ]

    def _set_ranking(self, search, coding, names, log):
        """The fitted ranking of a search (refused when nothing reached ``min_support``)."""
        self.n_counted_ = search.n_counted
        self.n_visited_ = search.n_visited
        self.n_passed_ = search.n_passed
        log(
            1,
            "visited %d, counted %d, %d passed min_support",
            self.n_visited_,
            self.n_counted_,
            self.n_passed_,
        )
        if not search.records:
            raise ValueError(
                f"No {self.resolution[:-1]} reaches min_support={self.min_support} (searched "
                f"{self.n_counted_} candidates); lower min_support or allow more features."
            )
        ranking = decode_ranking(search.records, coding, names, self._labels())
        self.results_ = ranking.results
        self.best_features_ = ranking.best_features
        self.regions_ = ranking.regions
        if isinstance(self.discretizer_, dict):
            keep = {subset for subset, _ in self.regions_}
            self.discretizer_ = {k: v for k, v in self.discretizer_.items() if k in keep}

    def _set_collection_fit(self, fit, log):
        """The record of :func:`~localselect.lift._collections.fit_llds_collection`.

        A fit on a collection keeps no training rows' answers and takes class
        labels only: ``local_support_``, ``local_relevance_`` and
        ``target_edges_`` of an earlier fit are deleted.
        """
        self._discard(
            (
                "local_support_",
                "local_relevance_",
                "target_edges_",
                "best_lift_counts_",
                "best_lift_profiles_",
            )
        )
        self.discretizer_ = fit.coding.fitted
        self.categories_ = fit.coding.categories
        self.max_features_ = fit.max_features
        self._set_ranking(fit.search, fit.coding, fit.names, log)

    def _auto_size(self, coding, y_codes, n_classes, targets, shape, start, log):
        """``max_features="auto"``: the largest subset size whose search fits ``max_seconds``.

        See :mod:`localselect.lift._budget`; refuses when single features do not fit.
        """
        left = (
            None if self.max_seconds is None else self.max_seconds - (time.perf_counter() - start)
        )
        size, estimate = auto_size(
            self.resolution,
            coding,
            y_codes,
            n_classes,
            shape[1],
            min_support=self.min_support,
            top_k=self.top_k,
            targets=targets,
            n_jobs=self.n_jobs,
            budget=left,
        )
        if size == 0:
            raise ValueError(
                f"LiftFeatureSelector: max_features='auto' finds no subset size whose "
                f"{self.resolution!r} search fits max_seconds={self.max_seconds}: the "
                f"{shape[1]:,} single features alone ({shape[0]:,} rows) are estimated at "
                f"{estimate:,.1f} s. Raise max_seconds (None: no limit), raise min_support "
                f"(now {self.min_support:g}) or use a discretizer with fewer bins."
            )
        message = "max_features='auto': subsets of up to %d features (estimated %.1f s)"
        log(1, message, size, estimate)
        return size

    def _too_long_message(self, exc, shape, max_size):
        """The refusal of a search estimated past ``max_seconds``: what to change."""
        discretizer = "None" if self.discretizer is None else repr(self.discretizer)
        return (
            f"LiftFeatureSelector: the exhaustive {self.resolution!r} search over "
            f"{exc.n_subsets:,} feature subsets (up to max_features={max_size} of "
            f"{shape[1]} features, {shape[0]:,} rows) is estimated at {exc.estimate:,.0f} s, "
            f"past max_seconds={self.max_seconds:g}. Set max_features to a smaller subset "
            f"size (the count grows as C({shape[1]}, max_features)); raise min_support "
            f"(now {self.min_support:g}; fewer windows and profiles qualify); or use a "
            f"discretizer with fewer bins (now discretizer={discretizer}; fewer profiles "
            "per subset). Pass max_seconds=None to run it anyway."
        )

    @property
    def relevance_scope(self):
        """``"global"`` for ``resolution="features"`` (one subset for all), else ``"local"``."""
        return "global" if self.resolution == "features" else "local"

    def _row_values(self, X, subset):
        """Discrete values of the rows of ``X`` on ``subset``, comparable with ``regions_``."""
        cols = list(subset)
        if self.discretizer_ is None:
            vals = np.asarray(X, dtype=object)[:, cols]
        elif isinstance(self.discretizer_, (TertileBins, DiscretizedColumns)):
            vals = np.asarray(self.discretizer_.transform(X))[:, cols].astype(object)
        elif isinstance(self.discretizer_, dict):
            if subset not in self.discretizer_:
                return None
            vals = np.asarray(self.discretizer_[subset].transform(self._as_float(X)[:, cols]))
            vals = vals.astype(object)
        else:
            binned = self.discretizer_.transform(self._as_float(X))
            binned = binned.toarray() if hasattr(binned, "toarray") else binned
            vals = np.asarray(binned, dtype=float)[:, cols].astype(object)
        return np.vectorize(plain, otypes=[object])(vals) if vals.size else vals

    def _matched_support(self, X):
        """Union mask and fraction-of-matches relevance of the ranked regions each row matches."""
        X = self._labelled(X)
        n, m = X.shape[0], self.n_features_in_
        counts = np.zeros((n, m))
        n_matched = np.zeros(n)
        if self.resolution == "features":
            mask = np.tile(self._get_support_mask(), (n, 1))
            return mask, mask.astype(np.float64)
        cache = {}
        for subset, allowed in self.regions_:
            if subset not in cache:
                cache[subset] = self._row_values(X, subset)
            vals = cache[subset]
            hit = np.zeros(n, dtype=bool)
            for profile in allowed:
                hit |= np.all(vals == np.array(profile, dtype=object)[None, :], axis=1)
            counts[np.ix_(hit, list(subset))] += 1.0
            n_matched += hit
        with np.errstate(invalid="ignore", divide="ignore"):
            rel = np.where(n_matched[:, None] > 0, counts / n_matched[:, None], 0.0)
        return rel > 0, rel

    # The per-row API is LocalSelectorMixin's, on rows read with the fit's columns
    # (a nominal column as its level codes, read back as labels; NaN allowed).
    def _validate_for_local(self, X):
        return check_magnitudes(self, read_rows(self, X, allow_nan=True), spread=False)

    def _local_support_mask(self, X):
        return self._matched_support(X)[0]

    def _local_relevance(self, X):
        return self._matched_support(X)[1]

    def _training_local_relevance(self):
        check_is_fitted(self)
        return self.local_relevance_

    # The global answer is the search's best subset (``best_features_``), not the
    # union of the rows' subsets: ``get_support`` and ``transform`` are SelectorMixin's.
    get_support = SelectorMixin.get_support
    transform = SelectorMixin.transform
    get_feature_names_out = SelectorMixin.get_feature_names_out

    def best_lift_table(self):
        """The lift table of the best result on the training rows.

        :func:`~localselect.plotting.plot_lift_table` draws it.

        Returns
        -------
        table : DataFrame
            Counts and lift of each profile of ``best_features_`` per class (or
            target bin), as :func:`localselect.lift.lift_table` gives them.
        """
        return fitted_lift_table(self)

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.best_features_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        return tags


def ranked_targets(labels, target_class, task: str) -> list[int]:
    """Codes of the classes (or bins of y) whose lift is ranked: ``target_class``, or all.

    Parameters
    ----------
    labels : ndarray
        The classes, or for a continuous target the bin indices.
    target_class : object or None
        The estimator's ``target_class``.
    task : {"classification", "regression"}
        The fit's task, for the message.

    Returns
    -------
    targets : list of int
        Indices into ``labels``.
    """
    if target_class is None:
        return list(range(len(labels)))
    hits = np.flatnonzero(labels == target_class)
    if len(hits) == 0:
        what = "class of y; the classes" if task == "classification" else "bin of y; the bins"
        raise ValueError(f"target_class={target_class!r} is not a {what} are {labels.tolist()}.")
    return [int(hits[0])]


#: What ``pandas.api.types.infer_dtype`` calls a column of numbers (missing values skipped).
def _all_numeric(X) -> bool:
    try:
        np.asarray(X, dtype=np.float64)
    except ValueError:
        return False
    return True
