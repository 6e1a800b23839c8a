"""Simba: iterative search margin based feature weights (Gilad-Bachrach et al. 2004)."""

from __future__ import annotations

from localselect._docstrings import fill_doc
from localselect.base import Declaration
from localselect.margin import _nn_kernels
from localselect.margin._common import (
    ITERATION_CONSTRAINTS,
    _FeatureWeightSelector,
    iterations,
)
from localselect.margin._cost import SimbaCost

__all__ = ["Simba"]


@fill_doc
class Simba(_FeatureWeightSelector):
    """Simba feature weights: gradient ascent on the hypothesis margin.

    The margin of sample ``x`` is ``(||x - NM(x)||_w - ||x - NH(x)||_w) / 2``
    with ``||z||_w = sqrt(sum_i w_i^2 z_i^2)``; the nearest hit and miss are
    recomputed under the current weights at every iteration.

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=10
        %(n_features_to_select)s
    fdr : float, default=0.1
        %(fdr)s
    max_iter : int, default=20
        Maximum number of passes (gradient steps over all samples).
    tol : float, default=1e-3
        Stop when no weight changes by ``tol`` or more (max-norm).
    verbose : int, default=0
        1 logs stages (INFO) to ``logging.getLogger("localselect.margin")``.
    callback : callable, default=None
        Called as ``callback(iteration, change_of_w)`` after each pass.

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features_in_,)
        ``w^2 / max(w^2)``, in [0, 1].
    cost_ : ndarray of shape (n_iter_,)
        Max-norm change of ``w`` after each pass.
    n_iter_ : int
        Passes run.
    %(fitted_classes_attributes)s

    See Also
    --------
    Relief : Fixed Euclidean neighbours, one pass.

    Notes
    -----
    %(missing_values_notes)s

    Deviation from the paper: the original Simba takes one stochastic step per
    randomly drawn sample. We take full-batch steps (the mean gradient over all
    samples, then ``w`` rescaled to unit max-norm), which needs no per-sample
    Python loop and makes the result deterministic (no ``random_state``).
    The margin is not smooth (neighbours switch as ``w`` changes), so the
    batch iteration often cycles with changes of ``w`` above ``tol`` while the
    ranking of the weights is stable; ``max_iter`` then ends it with a
    ``ConvergenceWarning``. Misses pool all other classes; ties between
    equally near neighbours go to
    the lower sample index; a zero distance contributes no gradient. Time
    O(N^2 A) per pass, memory bounded by row blocks.

    References
    ----------
    .. [1] R. Gilad-Bachrach, A. Navot and N. Tishby, "Margin based feature
       selection -- theory and algorithms", ICML 2004.

    Examples
    --------
    >>> from localselect import Simba
    >>> from localselect.datasets import make_lfs_synthetic
    >>> X, y, relevant = make_lfs_synthetic(100, 3, random_state=0)  # features 0 and 1
    >>> Simba(n_features_to_select=None).fit(X, y).feature_importances_.round(2)
    array([0.77, 1.  , 0.  , 0.  , 0.  ])
    """

    _weights_norm = "max"
    _nominal_power = 2
    _declaration = Declaration(
        "simba",
        columns="native",
        check={"max_iter": 3},
        demo={"n_features_to_select": 5},
        size=SimbaCost(),
    )
    _parameter_constraints = {
        **_FeatureWeightSelector._parameter_constraints,
        **ITERATION_CONSTRAINTS,
    }

    def __init__(
        self, n_features_to_select=10, *, fdr=0.1, max_iter=20, tol=1e-3, verbose=0, callback=None
    ):
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.callback = callback

    def _fit_weights(self, X, codes, log):
        log(1, "Simba: %d samples, %d features", *X.shape)
        with iterations(self, "Simba", log) as callback:
            return _nn_kernels.simba(
                X, codes, max_iter=self.max_iter, tol=self.tol, callback=callback
            )
