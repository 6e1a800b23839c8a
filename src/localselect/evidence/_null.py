"""Null distributions of feature scores: label permutations and shadow features.

Three nulls, all built from the selector itself (no model of the data):

* **Label permutations** (``"permutation"``): the selector is refitted on
  ``(X, pi(y))`` for ``B`` random permutations ``pi``. For a score that
  depends on one feature and the labels only (a filter such as the Fisher
  score), the permuted scores of a feature independent of ``y`` have exactly
  the distribution of its observed score, so the per-feature p-value
  ``(1 + #{b: T_j^b >= T_j}) / (B + 1)`` is exact (Phipson and Smyth 2010).
  For a multivariate score it is exact under the global null only. Cost:
  ``B`` fits, or one vectorised pass when the selector offers
  ``_permuted_scores`` (the filters).
* **Pooled label permutations** (``"pooled-permutation"``): the same ``B``
  refits, but every feature's score is compared with all ``B p`` permuted
  scores, ``(1 + #{(b, k): T_k^b >= T_j}) / (B p + 1)``. Like the shadow
  null it assumes a null feature's score is exchangeable with the other
  features' scores under permuted labels (columns alike: standardised data),
  and its resolution ``1 / (B p + 1)`` needs only ``B >= 1 / fdr`` refits
  for a lone signal to reach ``q <= fdr``. Under the alternative the real
  features share a fit with the signal, so a learner whose weights sum to
  one gives them less than the permuted fits do: conservative there.
* **Shadow features** (``"shadow"``, Boruta's device; Kursa and Rudnicki
  2010): ``p`` extra columns, each a row-permuted copy of a real column,
  are appended and the selector is fitted on ``[X, S_r]``, for ``R`` rounds
  of fresh shadows. A shadow column has its source's marginal distribution and no
  relation to ``y`` or to the other columns, so its score is a draw of what
  the selector gives a noise feature *in the same fit*. The pooled p-value
  ``(1 + #{s: T_s >= T_j}) / (N + 1)`` assumes a null feature's score is
  exchangeable with a shadow's: true when the null features are independent
  of everything else and the score treats columns alike (standardised data);
  otherwise approximate. Cost: ``R`` fits on ``2p`` columns.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.utils import check_random_state

from localselect._docstrings import fill_doc
from localselect._runtime import map_tasks
from localselect._targets import detect_task

__all__ = [
    "NullResult",
    "empirical_pvalues",
    "feature_pvalues",
    "permutation_null",
    "selector_scores",
    "shadow_null",
    "target_task",
]


class NullResult(NamedTuple):
    """Observed scores and the null draws they are compared with.

    Parameters
    ----------
    scores : ndarray of shape (n_features,)
        Observed score per feature (for shadows: the mean over rounds).
    null : ndarray of shape (B, n_features) or (R, n_features)
        Scores under permuted labels (``B`` permutations), or the shadow
        features' scores (``R`` rounds).
    method : str
        ``"permutation"``, ``"pooled-permutation"`` or ``"shadow"``.
    round_scores : ndarray of shape (R, n_features) or None, default=None
        Shadows: the real features' scores in each round (required:
        :func:`empirical_pvalues` raises without them); None otherwise.
    """

    scores: NDArray[np.float64]
    null: NDArray[np.float64]
    method: str
    round_scores: NDArray[np.float64] | None = None


def target_task(estimator, y) -> str:
    """``"classification"`` or ``"regression"``: what ``y`` is for ``estimator``.

    The fitted ``task_`` when there is one, else :func:`~localselect._targets.detect_task`
    with the estimator's ``task`` parameter (``"auto"`` without one). The nulls
    permute a continuous target's values and the subsamples of
    :class:`~localselect.evidence.StabilitySelection` are stratified by class
    only for class labels.

    Parameters
    ----------
    estimator : estimator instance
        Fitted or not.
    y : array-like of shape (n_samples,)
        The target.

    Returns
    -------
    task : str
    """
    fitted = getattr(estimator, "task_", None)
    if fitted in ("classification", "regression"):
        return str(fitted)
    params = estimator.get_params(deep=False) if hasattr(estimator, "get_params") else {}
    return detect_task(y, params.get("task", "auto"))


def selector_scores(estimator) -> NDArray[np.float64]:
    """Return the score a fitted selector ranks features by (higher is better).

    Parameters
    ----------
    estimator : fitted selector
        Has ``_evidence_scores()`` (a selector whose support is not the top
        of ``feature_importances_``) or ``feature_importances_``.

    Returns
    -------
    scores : ndarray of shape (n_features,)
        The scores as float64.
    """
    own = getattr(estimator, "_evidence_scores", None)
    scores = own() if own is not None else estimator.feature_importances_
    return np.asarray(scores, dtype=np.float64).ravel()


def _plain(estimator):
    """An unfitted copy that does not run a null of its own while fitting."""
    est = clone(estimator)
    if est.get_params().get("n_features_to_select") == "auto":
        est.set_params(n_features_to_select=None)
    return est


def _fit_scores(estimator, X, y) -> NDArray[np.float64]:
    return selector_scores(_plain(estimator).fit(X, y))


@fill_doc
def permutation_null(
    estimator,
    X,
    y,
    *,
    n_permutations=1000,
    random_state=None,
    n_jobs=None,
    scores=None,
    pooled=False,
) -> NullResult:
    """Refit ``estimator`` on permuted labels and collect its scores.

    Parameters
    ----------
    %(null_data)s
    n_permutations : int, default=1000
        Number of label permutations ``B``.
    random_state : int, RandomState instance or None, default=None
        Draws the permutations (all drawn up front, so the result does not
        depend on ``n_jobs``).
    n_jobs : int or None, default=None
        Refits run in parallel (one task per block of permutations).
    scores : ndarray of shape (n_features,) or None, default=None
        The observed scores, if already fitted; else fitted here.
    pooled : bool, default=False
        Mark the result ``"pooled-permutation"``: :func:`empirical_pvalues`
        then compares each score with the permuted scores of every feature.

    Returns
    -------
    result : NullResult
        ``null`` has shape ``(n_permutations, n_features)``.
    """
    rng = check_random_state(random_state)
    y = np.asarray(y)
    _, codes = np.unique(y, return_inverse=True)
    perms = np.stack([rng.permutation(y.shape[0]) for _ in range(n_permutations)])
    if scores is None:
        scores = _fit_scores(estimator, X, y)
    fast = getattr(estimator, "_permuted_scores", None)
    if fast is not None:
        # class codes, or a continuous target's values: each row one permuted target
        regression = target_task(estimator, y) == "regression"
        labels = np.asarray(y, dtype=np.float64) if regression else codes
        null = fast(np.asarray(X, dtype=np.float64), labels[perms])
    else:
        blocks = np.array_split(perms, max(1, min(n_permutations, 4 * (n_jobs or 1))))
        parts = map_tasks(
            _refit_block, [(estimator, X, y, block) for block in blocks if len(block)], n_jobs
        )
        null = np.concatenate(parts, axis=0)
    method = "pooled-permutation" if pooled else "permutation"
    return NullResult(np.asarray(scores, dtype=np.float64), null, method)


def _refit_block(estimator, X, y, block):
    return np.stack([_fit_scores(estimator, X, y[perm]) for perm in block])


def shadow_columns(X, n_shadows: int, rng) -> NDArray[np.float64]:
    """``n_shadows`` columns, the ``s``-th a row permutation of column ``s mod p``."""
    X = np.asarray(X, dtype=np.float64)
    n, p = X.shape
    source = np.arange(n_shadows) % p
    rows = np.argsort(rng.random_sample((n, n_shadows)), axis=0)
    return X[rows, source[None, :]]


def default_rounds(n_features: int) -> int:
    """Default shadow rounds: 5, more for few features (>= 100 shadow draws), at most 50."""
    return int(min(50, max(5, -(-100 // max(1, n_features)))))


@fill_doc
def shadow_null(estimator, X, y, *, n_rounds=None, random_state=None) -> NullResult:
    """Score the real features beside as many shadow features, over ``n_rounds`` fits.

    Parameters
    ----------
    %(null_data)s
    n_rounds : int or None, default=None
        Number of fits ``R``, each on ``[X, S_r]`` with ``n_features`` fresh
        shadow columns (Boruta's design: the data's dimension only doubles);
        None gives :func:`default_rounds`.
    random_state : int, RandomState instance or None, default=None
        Draws the row permutations.

    Returns
    -------
    result : NullResult
        ``round_scores`` (shape ``(R, n_features)``) are the real features'
        scores in each augmented fit, ``null`` (same shape) the shadows', and
        ``scores`` the mean of ``round_scores``.
    """
    rng = check_random_state(random_state)
    X = np.asarray(X, dtype=np.float64)
    p = X.shape[1]
    n_rounds = default_rounds(p) if n_rounds is None else int(n_rounds)
    real, null = [], []
    for _ in range(n_rounds):
        all_scores = _fit_scores(estimator, np.hstack([X, shadow_columns(X, p, rng)]), y)
        real.append(all_scores[:p])
        null.append(all_scores[p:])
    round_scores = np.stack(real)
    return NullResult(round_scores.mean(axis=0), np.stack(null), "shadow", round_scores)


def empirical_pvalues(result: NullResult) -> NDArray[np.float64]:
    """Compute the p-values of the observed scores against their null draws.

    Permutations: per feature ``(1 + #{b: T_j^b >= T_j}) / (B + 1)``; pooled
    permutations: ``(1 + #{(b, k): T_k^b >= T_j}) / (B p + 1)``.
    Shadows: ``(1 + sum_r #{s: T_{s,r} >= T_{j,r}}) / (R p + 1)``, each round's
    real score against that round's shadows (a null feature's score is
    exchangeable with its round's shadow scores, so each round's rank is
    uniform; summing over rounds keeps ``P(p <= u) <= u`` up to the ranks'
    dependence). Never 0 (Phipson and Smyth 2010).

    Parameters
    ----------
    result : NullResult
        From :func:`permutation_null` or :func:`shadow_null`.

    Returns
    -------
    pvalues : ndarray of shape (n_features,)
        One p-value per feature, in ``(0, 1]``.

    Raises
    ------
    ValueError
        For a ``"shadow"`` result without ``round_scores`` (the pooled formula
        needs each round's real scores; the permutation formula would compare
        the mean score with single-round draws), or an unknown ``method``.
    """
    if result.method == "shadow":
        if result.round_scores is None:
            raise ValueError(
                "A 'shadow' NullResult needs round_scores (the real features' score in each "
                "round, shape (R, n_features)); shadow_null returns them."
            )
        real, null = result.round_scores, result.null
        exceed = np.zeros(real.shape[1])
        for r in range(null.shape[0]):
            exceed += null.shape[1] - np.searchsorted(np.sort(null[r]), real[r], side="left")
        return (1.0 + exceed) / (null.size + 1.0)
    scores, null = result.scores, result.null
    if result.method == "pooled-permutation":
        pooled = np.sort(null.ravel())
        beaten = pooled.size - np.searchsorted(pooled, scores, side="left")
        return np.asarray((1.0 + beaten) / (pooled.size + 1.0), dtype=np.float64)
    if result.method != "permutation":
        raise ValueError(
            "NullResult.method must be 'permutation', 'pooled-permutation' or 'shadow'; "
            f"got {result.method!r}."
        )
    exceed = (null >= scores[None, :]).sum(axis=0)
    return (1.0 + exceed) / (null.shape[0] + 1.0)


def feature_pvalues(
    estimator, X, y, *, null="permutation", n_draws=None, random_state=None, n_jobs=None
) -> tuple[NDArray[np.float64], NullResult]:
    """Per-feature p-values of any selector's scores against a null.

    Parameters
    ----------
    estimator : selector
        Unfitted scikit-learn-style selector with ``feature_importances_`` (or
        ``_evidence_scores``); cloned, never modified.
    X : array-like of shape (n_samples, n_features)
        Training data.
    y : array-like of shape (n_samples,)
        Class labels, or a continuous target for an estimator that takes one
        (its values are permuted).
    null : {"permutation", "pooled-permutation", "shadow"}, default="permutation"
        The null (see :mod:`localselect.evidence._null`).
    n_draws : int or None, default=None
        Permutations ``B`` (default 1000) or shadow rounds ``R`` (default
        :func:`default_rounds`).
    random_state : int, RandomState instance or None, default=None
        Draws the null.
    n_jobs : int or None, default=None
        Parallel refits of the permutation null.

    Returns
    -------
    pvalues : ndarray of shape (n_features,)
        One p-value per feature.
    result : NullResult
        The scores and null draws behind them.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.evidence import feature_pvalues
    >>> from localselect.filters import FisherScore
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 50)
    >>> X = np.c_[y + rng.normal(size=100), rng.normal(size=(100, 3))]
    >>> p, _ = feature_pvalues(FisherScore(), X, y, n_draws=199, random_state=0)
    >>> p[0], bool(p[1:].min() > 0.01)
    (np.float64(0.005), True)
    """
    X = np.asarray(X, dtype=np.float64)
    if null in ("permutation", "pooled-permutation"):
        result = permutation_null(
            estimator,
            X,
            y,
            n_permutations=1000 if n_draws is None else int(n_draws),
            random_state=random_state,
            n_jobs=n_jobs,
            pooled=null == "pooled-permutation",
        )
    elif null == "shadow":
        result = shadow_null(estimator, X, y, n_rounds=n_draws, random_state=random_state)
    else:
        raise ValueError(
            f"null must be 'permutation', 'pooled-permutation' or 'shadow'; got {null!r}."
        )
    return empirical_pvalues(result), result
