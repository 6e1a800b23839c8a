"""IM4E: max-min entropy margin feature weights (Bei and Hong 2015)."""

from __future__ import annotations

from localselect._docstrings import fill_doc
from localselect._runtime import MeasuredCost
from localselect.base import Declaration
from localselect.margin import _solvers
from localselect.margin._common import _SoftmaxMarginSelector
from localselect.margin._cost import LINEAR_INSTEAD, NEIGHBOUR_SEARCH

__all__ = ["IM4E"]


@fill_doc
class IM4E(_SoftmaxMarginSelector):
    """IM4E feature weights: a large and stable hypothesis margin.

    Bei and Hong's IM4E, as used by Zhao, Hong and Liu (Sec. 3.6) to initialise
    and pre-screen IMMIGRATE on high-dimensional data: the distance is the
    weighted Manhattan distance ``w^T |x_n - x_j|``, hits and misses get
    softmax probabilities ``alpha, beta`` of ``-w^T |x_n - x_j| / sigma``, and
    with them fixed ``w = z^+ / sum(z^+)`` where
    ``z = sum_n (sum_M beta |x_n - x_m| - sum_H alpha |x_n - x_h|)``.

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    sigma : float, default=1.0
        Softmax temperature of the hit/miss probabilities (> 0); the weight of
        the entropy terms in the cost.
    max_iter : int, default=10
        Maximum number of alternations.
    tol : float, default=1e-4
        Stop when the cost changes by at most ``tol`` relative to its previous
        value.
    n_features_to_select : int, float or None, default=None
        %(n_features_to_select)s
    fdr : float, default=0.1
        %(fdr)s
    %(n_candidates_vector)s
    n_jobs : int, default=None
        Threads over row blocks of the pairwise work of the exact method; with
        neighbour truncation (``n_candidates``) only the neighbour search uses
        them. Results do not depend on it.
    verbose : int, default=0
        1 logs stages (INFO), 2 also iterations (DEBUG), to
        ``logging.getLogger("localselect.margin")``.
    callback : callable, default=None
        Called as ``callback(iteration, cost)`` after each iteration.

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features_in_,)
        The weight vector ``w`` (non-negative, sums to 1).
    cost_ : ndarray of shape (n_iter_,)
        Cost after each iteration: ``-w^T z + sigma * sum_n (E_miss - E_hit)``.
    n_iter_ : int
        Iterations run.
    n_candidates_ : int or None
        Hits and misses kept per sample; None for the exact method.
    %(fitted_classes_attributes)s

    See Also
    --------
    Immigrate : Adds pairwise interaction weights; IM4E pre-screens for it.
    IRelief : The same margin with outlier weights and no entropy term.

    Notes
    -----
    %(missing_values_notes)s

    We fix the paper's ``lambda = 1`` (Zhao et al., Sec. 4.2). Misses pool all
    other classes. Starts from uniform weights ``1/A``. The weights are
    normalised to sum 1, as in the authors' R package (``v / sum(v)``): the
    distance ``w^T |x - x'|`` is then a weighted mean whatever ``A``, so one
    ``sigma`` suits any dimension, and IMMIGRATE's pre-screen threshold
    ``2/A`` reads "twice the uniform weight". (The R package's ``IM4E()``
    also ignores its ``sig`` argument and always uses 1; we honour ``sigma``.)
    If ``z`` has no positive entry
    (no weighting enlarges the margin) the previous weights are kept and a
    :class:`~localselect.margin.DegenerateMarginWarning` is raised; at
    ``max_iter`` a ``ConvergenceWarning``. A constant feature has ``|d| = 0``
    everywhere and gets weight 0. Time O(N^2 A) per iteration for the exact method (O(N k A)
    with ``n_candidates=k`` after one neighbour search), memory bounded
    by row blocks of the ``N x N x A`` differences.

    References
    ----------
    .. [1] Y. Bei and P. Hong, "Maximizing margin quality and quantity",
       MLSP 2015.
    .. [2] R. Zhao, P. Hong and J. S. Liu, "IMMIGRATE: A margin-based feature
       selection method with interaction terms", Entropy 22(3), 2020.

    Examples
    --------
    >>> from localselect import IM4E
    >>> from localselect.datasets import make_lfs_synthetic
    >>> X, y, relevant = make_lfs_synthetic(100, 3, random_state=0)  # features 0 and 1
    >>> weights = IM4E().fit(X, y).feature_importances_
    >>> weights.round(2), float(weights.sum())
    (array([0.49, 0.51, 0.  , 0.  , 0.  ]), 1.0)
    """

    _declaration = Declaration(
        "im4e",
        check={"max_iter": 3},
        demo={"n_features_to_select": 5},
        size=MeasuredCost(83.1, 60_000, 1.9, NEIGHBOUR_SEARCH, instead=LINEAR_INSTEAD),
    )
    _method = "IM4E"
    _column_distance = "manhattan"  # w^T |x - x'|: the scale of encoded nominal columns
    _kernel = staticmethod(_solvers.im4e)

    def __init__(
        self,
        sigma=1.0,
        *,
        max_iter=10,
        tol=1e-4,
        n_features_to_select=None,
        fdr=0.1,
        n_candidates="auto",
        n_jobs=None,
        verbose=0,
        callback=None,
    ):
        self.sigma = sigma
        self.max_iter = max_iter
        self.tol = tol
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.n_candidates = n_candidates
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.callback = callback
