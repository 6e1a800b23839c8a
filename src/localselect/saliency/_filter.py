"""Per-row knockoff filter around any local selector: a per-row FDR for the papers' methods.

:class:`LocalKnockoffFilter` fits a local selector (LFS, GP, LLDS, the
saliency selector, or a user's) on the table augmented with model-X knockoffs
(Candès, Fan, Janson and Lv 2018), ``[X, X~]``, reads each row's relevance of
every feature and of its knockoff copy, and keeps per row the features whose
relevance beats their copy's at the target FDR, with the per-row knockoff+
rule of :func:`localselect.saliency._perrow.select_rows` (each row pooled
with the rows of similar relevance profile, in the spirit of Gimenez and Zou
2019's knockoffs within regions).
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.neighbors import NearestNeighbors
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from localselect._compat import HasMethods, Interval, StrOptions
from localselect.base import Declaration, LabelledFitMixin, LocalSelectorMixin, shared_constraints
from localselect.saliency._estimator import ConditionalSaliencySelection, _canonical_order
from localselect.saliency._knockoffs import S_METHODS, KnockoffSampler, RowKeyedRandom
from localselect.saliency._perrow import select_rows

__all__ = ["LocalKnockoffFilter"]

#: Pooled statistics of new rows handled at once (rows x pool size x features).
_BLOCK = 2_000_000


class LocalKnockoffFilter(LocalSelectorMixin, LabelledFitMixin, BaseEstimator):
    """Per-row FDR for any local selector: fit it on ``[X, X~]``, keep what beats its knockoff.

    Beyond the papers (a meta-estimator in the spirit of Gimenez and Zou
    2019). ``fit``:

    1. **Knockoffs**: a :class:`~localselect.saliency._knockoffs.KnockoffSampler`
       (Gaussian copula of the columns, Ledoit-Wolf correlation, ``s`` by
       ``knockoffs``) draws ``X~`` for the training rows.
    2. **Augmented fit**: ``estimator`` is fitted on the ``2 d`` columns
       ``[X, X~]``, each pair ``(x_j, x~_j)`` in a random order (a coin per
       column, undone afterwards), so that an estimator that breaks ties by
       column position cannot favour the originals.
    3. **Per-row rule**: with ``a_ij`` the estimator's ``local_relevance`` of
       feature ``j`` at row ``i`` and ``b_ij`` that of its copy, the statistic
       is ``W_ij = max(a, b) sign(a - b)``; row ``i`` is pooled with the
       ``n_neighbors - 1`` training rows nearest in the swap-invariant profile
       ``a + b`` (cosine) and keeps the ``j`` with ``W_ij`` at least the
       pool's knockoff+ threshold at level ``fdr``
       (:func:`~localselect.saliency._perrow.select_rows`).

    New rows get knockoffs from the fitted sampler, drawn from a hash of each
    row's values and a seed fixed at fit (:class:`~localselect.saliency._knockoffs.RowKeyedRandom`:
    the same row gets the same answer, whatever rows come with it), and are
    pooled with training rows.

    Parameters
    ----------
    estimator : local selector or None, default=None
        Anything with ``fit(X, y)`` and ``local_relevance(X)`` (see
        :class:`~localselect.base.LocalSelectorMixin`), for instance
        :class:`~localselect.lfs.LocalFeatureSelection` or
        :class:`~localselect.gp.GPLocalFeatureSelection`; None uses
        :class:`ConditionalSaliencySelection` at its defaults.
    fdr : float, default=0.1
        Target per-row false discovery rate ``q``: the expected fraction of
        a row's kept features that are irrelevant to it, averaged over the
        rows of a pool (see Notes).
    n_neighbors : int, default=50
        Rows in each pool (the row itself included). 1 thresholds each row
        on its own ``d`` statistics (then nothing is kept unless ``1 / fdr``
        features pass).
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
    estimator_ : local selector
        The estimator fitted on the augmented table (columns swapped as
        ``swap_`` says).
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
    What ``fdr`` covers: under the knockoff flip-sign property, the kept
    (row, feature) pairs of a pool have an expected false discovery
    proportion at most ``fdr``; exact for features null on every row, only
    approximate for a feature relevant elsewhere (an estimator that blurs a
    switch leaks relevance across it). The knockoffs are exact when the
    columns follow a Gaussian copula. Cost: one fit of ``estimator`` on
    ``2 d`` columns and one ``local_relevance`` call per query.

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
    >>> X, y, relevant = make_instancewise_synthetic(300, "syn1", random_state=0)
    >>> inner = GPLocalFeatureSelection(max_iter=5, random_state=0)
    >>> sel = LocalKnockoffFilter(inner, fdr=0.2, random_state=0).fit(X, y)
    >>> sel.get_local_support(X[:3]).shape
    (3, 11)
    """

    _declaration = Declaration(
        "knockoff_filter",
        check={
            "estimator": ConditionalSaliencySelection(
                screen=False, n_quantiles=2, n_neighbors=3, n_reference=50, n_restarts=1
            ),
            "n_neighbors": 5,
            "random_state": 0,
        },
        demo={"random_state": 0},
        # the sampler, the pools' neighbour index, and what the default saliency selector holds
        holds=(KnockoffSampler, *ConditionalSaliencySelection._declaration.holds),
    )
    _parameter_constraints: dict = {
        "estimator": [HasMethods(["fit", "local_relevance"]), None],
        "fdr": [Interval(Real, 0, 1, closed="neither")],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "knockoffs": [StrOptions(set(S_METHODS))],
        "copula": ["boolean"],
        **shared_constraints("random_state", "verbose"),
    }

    def __init__(
        self,
        estimator=None,
        *,
        fdr=0.1,
        n_neighbors=50,
        knockoffs="maxent",
        copula=True,
        random_state=None,
        verbose=0,
    ):
        self.estimator = estimator
        self.fdr = fdr
        self.n_neighbors = n_neighbors
        self.knockoffs = knockoffs
        self.copula = copula
        self.random_state = random_state
        self.verbose = verbose

    def _make_estimator(self, seed: int):
        est = ConditionalSaliencySelection() if self.estimator is None else clone(self.estimator)
        if "random_state" in est.get_params():
            est.set_params(random_state=seed)
        return est

    def _augment(self, X, rng):
        """``[X, X~]`` (canonical column order) with each pair in the order ``_swap`` gives."""
        K = self.sampler_.sample(X, rng)
        first = np.where(self._swap, K, X)
        second = np.where(self._swap, X, K)
        return np.hstack([first, second])

    def _split(self, R2):
        """Relevance of the features and of their copies, the swaps undone."""
        d = self.n_features_in_
        first, second = R2[:, :d], R2[:, d:]
        return np.where(self._swap, second, first), np.where(self._swap, first, second)

    def _fit(self, X, codes, log):
        rng = check_random_state(self.random_state)
        n, d = X.shape
        # Work in a column and row order fixed by the data's contents, so that permuting
        # the features or the rows permutes the answer (the draws depend on the order).
        self._order = _canonical_order(X)
        Xc = X[:, self._order]
        rows = np.lexsort((codes, *Xc.T[::-1]))
        Xc, codes = Xc[rows], codes[rows]
        self.sampler_ = KnockoffSampler(method=self.knockoffs, copula=self.copula).fit(Xc, rng)
        s = self.sampler_.s_
        log(1, "knockoff s: min %.3f, median %.3f", s.min(), np.median(s))
        self._swap = rng.random_sample(d) < 0.5
        self.swap_ = self._to_input(self._swap[None, :])[0]
        self._query_seed = rng.randint(2**31 - 1)
        Z = self._augment(Xc, RowKeyedRandom(Xc, self._query_seed))
        self.estimator_ = self._make_estimator(rng.randint(2**31 - 1))
        log(1, "fitting %s on %d columns", type(self.estimator_).__name__, 2 * d)
        self.estimator_.fit(Z, codes)
        a, b = self._split(np.asarray(self.estimator_.local_relevance(None), dtype=np.float64))
        self._train_a, self._train_b = a, b
        k = min(self.n_neighbors, n)
        self._nn = NearestNeighbors(n_neighbors=k).fit(_profiles(a + b)) if k > 1 else None
        pools = None
        if self._nn is not None:  # the row, then its k - 1 nearest (itself among them)
            near = self._nn.kneighbors(_profiles(a + b), k - 1, return_distance=False)
            pools = np.hstack([np.arange(n)[:, None], near])
        support = select_rows(a, b, self.fdr, neighbors=pools)
        W = np.maximum(a, b) * np.sign(a - b)
        self.local_support_ = np.empty_like(support)
        self.statistics_ = np.empty_like(W)
        self.local_support_[rows] = self._to_input(support)
        self.statistics_[rows] = self._to_input(W)
        self.local_relevance_ = _relevance(self.statistics_)
        return self

    def _to_input(self, A):
        """Columns from the canonical order back to the input's."""
        out = np.empty_like(A)
        out[:, self._order] = A
        return out

    def _query(self, X):
        """Support and statistics of new rows (validated), in the input's column order."""
        Xc = X[:, self._order]
        rng = RowKeyedRandom(Xc, self._query_seed)
        a_new, b_new = self._split(
            np.asarray(self.estimator_.local_relevance(self._augment(Xc, rng)), dtype=np.float64)
        )
        if self._nn is None:
            support = select_rows(a_new, b_new, self.fdr)
        else:
            support = self._pooled_select(a_new, b_new)
        W = np.maximum(a_new, b_new) * np.sign(a_new - b_new)
        return self._to_input(support), self._to_input(W)

    def _pooled_select(self, a_new, b_new):
        """:func:`select_rows` of new rows, each pooled with its nearest training rows.

        Each new row becomes one row of its pool's statistics (its own first),
        so the threshold of that wide row is the pool's and its first ``d``
        columns are the row's selection; blocks of rows bound the memory.
        """
        m, d = a_new.shape
        k = self._nn.n_neighbors
        near = self._nn.kneighbors(_profiles(a_new + b_new), k - 1, return_distance=False)
        support = np.empty((m, d), dtype=bool)
        step = max(1, _BLOCK // (k * d))
        for lo in range(0, m, step):
            hi = min(m, lo + step)
            idx = near[lo:hi]
            wide_a = np.hstack([a_new[lo:hi], self._train_a[idx].reshape(hi - lo, -1)])
            wide_b = np.hstack([b_new[lo:hi], self._train_b[idx].reshape(hi - lo, -1)])
            support[lo:hi] = select_rows(wide_a, wide_b, self.fdr)[:, :d]
        return support

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


def _profiles(S):
    """Rows scaled to unit length (cosine neighbours); all-zero rows stay zero."""
    norm = np.linalg.norm(S, axis=1, keepdims=True)
    return np.divide(S, norm, out=np.zeros_like(S), where=norm > 0)
