"""Region-wise knockoff filter around any local selector: a per-row FDR for the papers' methods.

:class:`LocalKnockoffFilter` partitions the rows into regions (learnt on one
split of the training rows, or given), fits a local selector (LFS, GP, LLDS,
the saliency selector, or a user's) inside each region on the table augmented
with model-X knockoffs (Candès, Fan, Janson and Lv 2018), ``[X, X~]``, and
keeps per row the features whose relevance beats their copy's, at the
knockoff+ threshold of the row's region: the conditional knockoffs within
regions of Gimenez and Zou (2019).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from localselect._compat import HasMethods, Interval, StrOptions
from localselect.base import Declaration, LabelledFitMixin, LocalSelectorMixin, shared_constraints
from localselect.saliency._estimator import ConditionalSaliencySelection
from localselect.saliency._knockoffs import (
    S_METHODS,
    KnockoffSampler,
    RowKeyedRandom,
    knockoff_threshold,
)
from localselect.saliency._order import canonical_order
from localselect.saliency._perrow import row_statistics
from localselect.saliency._regions import RegionMap, SwitchTree, learn_regions

__all__ = ["LocalKnockoffFilter"]


class LocalKnockoffFilter(LocalSelectorMixin, LabelledFitMixin, BaseEstimator):
    """Per-row FDR for any local selector: fit it on ``[X, X~]``, keep what beats its knockoff.

    Beyond the papers (a meta-estimator after Gimenez and Zou 2019's
    knockoffs within regions). ``fit``:

    1. **Knockoffs**: a :class:`~localselect.saliency._knockoffs.KnockoffSampler`
       (Gaussian copula of the columns, Ledoit-Wolf correlation, ``s`` by
       ``knockoffs``) draws ``X~`` for every training row.
    2. **Regions**, fixed before the rows they filter: with ``regions="auto"``
       or an int ``k``, half the training rows (split A) fit a
       :class:`ConditionalSaliencySelection`, and a regression tree on ``X``
       with ``k`` leaves is fitted to its per-row relevance profiles (unit
       length), so that it splits where the relevant features change; a
       row's region is its leaf. A callable ``regions(X)`` or an array of
       the training rows' labels is used as given (a tree on ``X`` assigns
       new rows to the given labels), and every training row is filtered.
       Regions with fewer than ``min_region_size`` filtered rows are merged.
    3. **Fit per region**: on the filtered rows (split B) of region ``r``,
       ``estimator`` is fitted on the ``2 d`` columns ``[X_r, X~_r]``, each
       pair ``(x_j, x~_j)`` in a random order (a coin per column, undone
       afterwards), so a feature relevant only in other regions is null to
       this fit.
    4. **Region-wise knockoff+**: with ``a_ij`` the region's estimator's
       ``local_relevance`` of feature ``j`` at row ``i`` and ``b_ij`` that of
       its copy, ``W_ij = max(a, b) sign(a - b)``; ``t_r`` is the knockoff+
       threshold (Barber and Candès 2015, eq. 1.9, offset 1) of all the
       ``W`` of region ``r``'s filtered rows at level ``fdr``, and row ``i``
       keeps the ``j`` with ``W_ij >= t_r > 0``.

    New rows (and the split-A rows) go to their region by the learnt
    assignment, get knockoffs drawn from a hash of each row's values and a
    seed fixed at fit (:class:`~localselect.saliency._knockoffs.RowKeyedRandom`:
    the same row gets the same answer, whatever rows come with it), their
    region's estimator's relevance, and the region's threshold.

    Parameters
    ----------
    estimator : local selector or None, default=None
        Anything with ``fit(X, y)`` and ``local_relevance(X)`` (see
        :class:`~localselect.base.LocalSelectorMixin`), for instance
        :class:`~localselect.lfs.LocalFeatureSelection` or
        :class:`~localselect.gp.GPLocalFeatureSelection`; None uses
        :class:`ConditionalSaliencySelection` at its defaults.
    fdr : float, default=0.1
        Target false discovery rate ``q`` of each region's kept (row,
        feature) pairs (see Notes). Can be changed after ``fit``
        (``set_params``): the thresholds are recomputed at query time.
    regions : "auto", int, callable or array-like of shape (n_samples,), default="auto"
        How rows are partitioned: "auto" is 2 learnt regions; an int ``k``
        learns ``k`` (1: one region, every training row filtered, the plain
        model-X knockoff filter); a callable maps an array of rows (input
        column order) to one label per row; an array gives the training
        rows' labels.
    min_region_size : int, default=100
        Fewest filtered rows in a region (smaller regions are merged); the
        learnt tree's leaves hold at least half as many learning rows.
    knockoffs : {"maxent", "equicorrelated"}, default="maxent"
        The knockoff construction's ``s`` (:func:`~localselect.saliency._knockoffs.knockoff_s`).
    copula : bool, default=True
        Draw knockoffs of the columns' normal scores and map them back through
        each column's empirical quantiles (False: plain Gaussian knockoffs of
        the standardised columns).
    random_state : int, RandomState instance or None, default=None
        Knockoff draws, the column swaps and the estimator's seed (when it
        has a ``random_state``).
    verbose : int, default=0
        1 logs the stages.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Feature names seen in ``fit`` (string column names only).
    sampler_ : KnockoffSampler
        The fitted knockoff sampler (``sampler_.no_power_``: columns whose
        knockoff nearly equals them, which the filter can hardly select).
    estimators_ : list of local selector or None
        Per region, the estimator fitted on the region's augmented rows
        (columns swapped as ``swap_`` says); None for a region with one class.
    region_map_ : RegionMap
        The assignment of rows to regions (``region_map_.assign``).
    region_features_ : ndarray of int
        Input columns the learnt tree splits on (not covered, see Notes).
    regions_ : ndarray of shape (n_samples,) of int
        Region of each training row.
    filtered_ : ndarray of shape (n_samples,) of bool
        Training rows the regions' fits and thresholds used (split B);
        the others learnt the regions.
    swap_ : ndarray of shape (n_features_in_,) of bool
        Columns whose knockoff came first in the augmented table.
    statistics_ : ndarray of shape (n_samples, n_features_in_)
        ``W`` of the training rows.
    local_relevance_ : ndarray of shape (n_samples, n_features_in_)
        ``max(W, 0)`` of the training rows, divided by the row's largest.
    local_support_ : ndarray of shape (n_samples, n_features_in_) of bool
        The per-row selection of the training rows.

    Notes
    -----
    What ``fdr`` guarantees, exactly. Call (row ``i``, feature ``j``) null
    when ``j`` is irrelevant to ``i``'s label given the other features. The
    rule is the knockoff+ threshold of Barber and Candès (2015, Thm 2)
    applied to the ``n_r d`` pooled pairs of region ``r``; that theorem
    bounds the expected share of null pairs among the kept pairs of the
    region by ``fdr`` *if the signs of the null pairs' ``W`` are independent
    fair coins*. A single fit per region flips one coin per feature, not per
    pair (swapping ``x_j`` with ``x~_j`` flips ``W_ij`` on every row of the
    region at once), so that condition holds only for selectors whose
    per-row relevance varies enough from row to row; for a selector with
    one relevance for every row of a region (GP) the rule is the plain
    knockoff filter over the region's ``d`` features (offset 0: a modified
    FDR). No finite-sample bound is claimed beyond that: the per-row FDR
    averaged over a region's rows is what ``fdr`` targets, and it is
    measured (``docs/evidence.md``, Syn4-Syn6: within nominal + 2 points for
    LFS and GP at 0.05, 0.1 and 0.2; not for the saliency selector wrapped,
    whose own per-row ``fdr`` is the one to use). An exact per-region bound
    needs knockoff+ over the region's ``d`` feature-level statistics, which
    keeps nothing unless at least ``1 / fdr`` features are relevant in the
    region.

    It assumes: (a) the regions are fixed before the filtered rows are seen
    (learnt on split A, or given); (b) flip-sign within the region: swapping
    ``x_j`` with ``x~_j`` leaves the law of the region's rows unchanged, which
    holds for model-X knockoffs when the region is decided by columns other
    than ``j``; the columns the tree splits on (``region_features_``) are
    therefore not covered; (c) the knockoffs are exact (a Gaussian copula of
    the columns); (d) a region does not mix rows with different relevant
    sets: a region that straddles a switch leaks the relevance of one side
    into the other, and the realized per-row FDR rises (learnt regions are
    only as good as the saliency selector on split A: a few thousand rows on
    Syn4-Syn6).

    Cost: one fit of ``estimator`` per region on ``2 d`` columns and about
    half the rows, one saliency fit on the other half (learnt regions), and
    one ``local_relevance`` call per region per query.

    References
    ----------
    Candès, Fan, Janson and Lv (2018), JRSS-B 80(3), 551-577.
    Barber and Candès (2015), Annals of Statistics 43(5), 2055-2085.
    Gimenez and Zou (2019), ICML, PMLR 97, 2290-2298.

    Examples
    --------
    >>> from localselect.datasets import make_instancewise_synthetic
    >>> from localselect.gp import GPLocalFeatureSelection
    >>> from localselect.saliency import LocalKnockoffFilter
    >>> X, y, relevant = make_instancewise_synthetic(300, "syn4", random_state=0)
    >>> inner = GPLocalFeatureSelection(max_iter=5, random_state=0)
    >>> switch = lambda X: X[:, 10] < 0  # Syn4's two regimes, known in advance
    >>> sel = LocalKnockoffFilter(inner, fdr=0.2, regions=switch, random_state=0).fit(X, y)
    >>> sel.get_local_support(X[:3]).shape
    (3, 11)
    """

    _declaration = Declaration(
        "knockoff_filter",
        check={
            "estimator": ConditionalSaliencySelection(
                screen=False, n_quantiles=2, n_neighbors=3, n_reference=50, n_restarts=1
            ),
            "regions": 1,
            "random_state": 0,
        },
        demo={"random_state": 0},
        # the sampler, the learnt regions, and what the default saliency selector holds
        holds=(
            KnockoffSampler,
            RegionMap,
            SwitchTree,
            "localselect.saliency._regions._Features",
            *ConditionalSaliencySelection._declaration.holds,
        ),
    )
    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "local_relevance"]), None],
        "fdr": [Interval(Real, 0, 1, closed="neither")],
        "regions": [
            StrOptions({"auto"}),
            Interval(Integral, 1, None, closed="left"),
            callable,
            "array-like",
        ],
        "min_region_size": [Interval(Integral, 1, None, closed="left")],
        "knockoffs": [StrOptions(set(S_METHODS))],
        "copula": ["boolean"],
        **shared_constraints("random_state", "verbose"),
    }

    def __init__(
        self,
        estimator=None,
        *,
        fdr=0.1,
        regions="auto",
        min_region_size=100,
        knockoffs="maxent",
        copula=True,
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.fdr = fdr
        self.regions = regions
        self.min_region_size = min_region_size
        self.knockoffs = knockoffs
        self.copula = copula
        self.random_state = random_state
        self.verbose = verbose

    def _make_estimator(self, seed: int):
        est = ConditionalSaliencySelection() if self.estimator is None else clone(self.estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=seed)
        return est

    def _make_saliency(self, seed: int):
        return ConditionalSaliencySelection(random_state=seed)

    def _augment(self, X, rng):
        """``[X, X~]`` (canonical column order) with each pair in the order ``_swap`` gives."""
        K = self.sampler_.sample(X, rng)
        first = np.where(self._swap, K, X)
        second = np.where(self._swap, X, K)
        return np.hstack([first, second])

    def _split(self, R2):
        """Relevance of the features and of their copies, the swaps undone."""
        d = R2.shape[1] // 2  # the fitted width (an encoding's, on a table with nominal columns)
        first, second = R2[:, :d], R2[:, d:]
        return np.where(self._swap, second, first), np.where(self._swap, first, second)

    def _fit(self, X, codes, log):
        rng = check_random_state(self.random_state)
        n, d = X.shape
        # Work in a column and row order fixed by the data's contents, so that permuting
        # the features or the rows permutes the answer (the draws depend on the order).
        self._order = canonical_order(X)
        Xc = X[:, self._order]
        rows = np.lexsort((codes, *Xc.T[::-1]))
        Xc, codes, Xin = Xc[rows], codes[rows], X[rows]
        regions = self.regions
        if not (isinstance(regions, (str, Integral)) or callable(regions)):
            regions = np.asarray(regions)
            if regions.shape == (n,):
                regions = regions[rows]
        self.sampler_ = KnockoffSampler(method=self.knockoffs, copula=self.copula).fit(Xc, rng)
        s = self.sampler_.s_
        log(1, "knockoff s: min %.3f, median %.3f", s.min(), np.median(s))
        self._swap = rng.random_sample(d) < 0.5
        self.swap_ = self._to_input(self._swap[None, :])[0]
        self._query_seed = rng.randint(2**31 - 1)
        self.region_map_, learn, lab = learn_regions(
            Xin, Xc, codes, regions, self.min_region_size, self._make_saliency, rng
        )
        self.region_features_ = np.sort(self._order[self.region_map_.features()])
        log(1, "%d regions, %d rows learnt them", self.region_map_.n_regions, learn.sum())
        Z = self._augment(Xc, RowKeyedRandom(Xc, self._query_seed))
        a, b = np.zeros((n, d)), np.zeros((n, d))
        self.estimators_, self._region_W = [], []
        for r in range(self.region_map_.n_regions):
            idx = ~learn & (lab == r)
            est = None
            if idx.sum() > 1 and np.unique(codes[idx]).size > 1:
                est = self._make_estimator(rng.randint(2**31 - 1))
                log(1, "region %d: %s on %d rows, %d columns", r, type(est).__name__,
                    idx.sum(), 2 * d)  # fmt: skip
                est.fit(Z[idx], codes[idx])
                a[idx], b[idx] = self._split(np.asarray(est.local_relevance(None), np.float64))
            self.estimators_.append(est)
            self._region_W.append(row_statistics(a[idx], b[idx]).ravel())
        if learn.any():  # the rows that learnt the regions are answered as new rows
            a[learn], b[learn] = self._relevance(Z[learn], lab[learn])
        W = row_statistics(a, b)
        support = (W > 0) & (self._thresholds()[lab][:, None] <= W)
        self.regions_ = np.empty(n, np.intp)
        self.regions_[rows] = lab
        self.filtered_ = np.empty(n, dtype=bool)
        self.filtered_[rows] = ~learn
        self.local_support_ = np.empty_like(support)
        self.statistics_ = np.empty_like(W)
        self.local_support_[rows] = self._to_input(support)
        self.statistics_[rows] = self._to_input(W)
        self.local_relevance_ = _relevance(self.statistics_)
        return self

    def _relevance(self, Z, lab):
        """Relevance of features and copies of augmented rows, each from its region's fit."""
        d = Z.shape[1] // 2
        a, b = np.zeros((len(Z), d)), np.zeros((len(Z), d))
        for r, est in enumerate(self.estimators_):
            idx = lab == r
            if est is not None and idx.any():
                a[idx], b[idx] = self._split(np.asarray(est.local_relevance(Z[idx]), np.float64))
        return a, b

    def _thresholds(self):
        """Each region's threshold at the current ``fdr``: the smallest statistic of its
        filtered rows that knockoff+ keeps (``inf`` when it keeps none)."""
        t = np.full(len(self._region_W), np.inf)
        for r, W in enumerate(self._region_W):
            # the smallest kept W, not eq. 1.9's t itself (an |W| of a negative statistic
            # may lie below it): a new row keeps what a filtered row with its W would keep
            keep = (W > 0) & (knockoff_threshold(W, self.fdr, offset=1) <= W)
            if keep.any():
                t[r] = W[keep].min()
        return t

    def _to_input(self, A):
        """Columns from the canonical order back to the input's."""
        out = np.empty_like(A)
        out[:, self._order] = A
        return out

    def _query(self, X):
        """Support and statistics of new rows (validated), in the input's column order."""
        Xc = X[:, self._order]
        lab = self.region_map_.assign(X, Xc)
        a, b = self._relevance(self._augment(Xc, RowKeyedRandom(Xc, self._query_seed)), lab)
        W = row_statistics(a, b)
        support = (W > 0) & (self._thresholds()[lab][:, None] <= W)
        return self._to_input(support), self._to_input(W)

    def _local_support_mask(self, X):
        check_is_fitted(self)
        return self._query(X)[0]

    def _local_relevance(self, X):
        check_is_fitted(self)
        return _relevance(self._query(X)[1])

    def _training_local_relevance(self):
        check_is_fitted(self)
        return self.local_relevance_


def _relevance(W):
    """``max(W, 0)`` over the row's largest (kept features have ``W > 0``, so a positive value)."""
    P = np.maximum(W, 0.0)
    top = P.max(axis=1, keepdims=True)
    return np.divide(P, top, out=np.zeros_like(P), where=top > 0)
