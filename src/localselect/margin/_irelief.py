"""I-RELIEF: iterative Relief with probabilistic neighbours (Sun 2007)."""

from __future__ import annotations

from localselect._docstrings import fill_doc
from localselect._runtime import MeasuredCost
from localselect.base import Declaration
from localselect.margin import _solvers
from localselect.margin._common import _SoftmaxMarginSelector
from localselect.margin._cost import LINEAR_INSTEAD, NEIGHBOUR_SEARCH

__all__ = ["IRelief"]


@fill_doc
class IRelief(_SoftmaxMarginSelector):
    """I-RELIEF feature weights (iterative Relief).

    Each sample's nearest hit and miss are replaced by probabilities from the
    kernel ``f = exp(-w^T |x_n - x_j| / sigma)`` over its hits and over its
    misses, each sample is down-weighted by its probability of being an outlier,
    and ``w = nu^+ / ||nu^+||_2`` with
    ``nu = (1/N) sum_n gamma_n (sum_M beta |x_n - x_m| - sum_H alpha |x_n - x_h|)``,
    repeated until ``w`` settles.

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    sigma : float, default=1.0
        Kernel width (> 0).
    max_iter : int, default=20
        Maximum number of iterations.
    tol : float, default=1e-3
        Stop when ``||w_new - w||_2 < tol`` (Sun's theta).
    n_features_to_select : int, float or None, default=10
        %(n_features_to_select)s
    fdr : float, default=0.1
        %(fdr)s
    %(n_candidates_vector)s
    n_jobs : int, default=None
        Threads over row blocks of the exact method; with neighbour truncation
        (``n_candidates``) only the neighbour search uses them. Results do not
        depend on it.
    verbose : int, default=0
        1 logs stages (INFO), 2 also iterations (DEBUG), to
        ``logging.getLogger("localselect.margin")``.
    callback : callable, default=None
        Called as ``callback(iteration, change_of_w)`` after each iteration.

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features_in_,)
        The weight vector ``w`` (non-negative, unit 2-norm).
    cost_ : ndarray of shape (n_iter_,)
        ``||w_new - w||_2`` after each iteration.
    n_iter_ : int
        Iterations run.
    n_candidates_ : int or None
        Hits and misses kept per sample; None for the exact method.
    %(fitted_classes_attributes)s

    See Also
    --------
    IM4E : The same margin with entropy terms instead of outlier weights.
    ReliefF : Deterministic k nearest neighbours.

    Notes
    -----
    %(missing_values_notes)s

    ``gamma_n = 1 - sum_M f / sum_{j != n} f`` (Sun 2007). Misses pool all
    other classes (one-vs-rest). Probabilities are computed by log-sum-exp, so
    small ``sigma`` does not underflow. Starts from uniform weights; a margin
    vector without a positive entry keeps the previous weights and warns.
    Time O(N^2 A) per iteration for the exact method (O(N k A)
    with ``n_candidates=k`` after one neighbour search), memory bounded by row blocks.

    References
    ----------
    .. [1] Y. Sun, "Iterative RELIEF for feature weighting: algorithms,
       theories, and applications", IEEE TPAMI 29(6), 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect import IRelief
    >>> from localselect.datasets import make_lfs_synthetic
    >>> X, y, relevant = make_lfs_synthetic(100, 3, random_state=0)  # features 0 and 1
    >>> model = IRelief(n_features_to_select=2).fit(X, y)
    >>> norm = np.linalg.norm(model.feature_importances_)
    >>> model.get_support(indices=True), round(float(norm), 9)
    (array([0, 1]), 1.0)
    """

    _weights_norm = "l2"
    _nominal_power = 1
    _declaration = Declaration(
        "irelief",
        columns="native",
        check={"max_iter": 3},
        demo={"n_features_to_select": 5},
        size=MeasuredCost(46.8, 60_000, 1.6, NEIGHBOUR_SEARCH, instead=LINEAR_INSTEAD),
    )
    _method = "I-RELIEF"
    _kernel = staticmethod(_solvers.irelief)

    def __init__(
        self,
        sigma=1.0,
        *,
        max_iter=20,
        tol=1e-3,
        n_features_to_select=10,
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
