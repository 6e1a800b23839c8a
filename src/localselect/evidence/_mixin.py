"""``n_features_to_select="auto"``: a global selector keeps the features significant at ``fdr``.

The one integration of the evidence machinery in the estimators: a global
selector that inherits :class:`EvidenceMixin` (through
:class:`~localselect.base.ScoreSelectorMixin`) and takes ``fdr`` gets, when
``n_features_to_select="auto"``, per-feature p-values from its family's null
(:attr:`EvidenceMixin._evidence_null`), Benjamini-Hochberg q-values, and the
support ``qvalues_ <= fdr``.
"""

from __future__ import annotations

import warnings
from math import ceil
from numbers import Real
from typing import Any

import numpy as np

from localselect._compat import Interval, StrOptions
from localselect._estimators import Declaration
from localselect._fitted import FittedStateMixin
from localselect.evidence._fdr import bh_qvalues
from localselect.evidence._null import (
    NullResult,
    default_rounds,
    empirical_pvalues,
    permutation_null,
    selector_scores,
    shadow_null,
)

__all__ = [
    "AUTO",
    "EVIDENCE_ATTRIBUTES",
    "FDR_CONSTRAINT",
    "NULL_SEED",
    "EvidenceMixin",
    "shadow_rounds",
]

#: The ``n_features_to_select`` value that selects at a target FDR.
AUTO = StrOptions({"auto"})
#: Parameter constraint of ``fdr``.
FDR_CONSTRAINT = [Interval(Real, 0, 1, closed="neither")]
#: The fitted attributes of ``"auto"``, which a fit with a number of features does not set.
EVIDENCE_ATTRIBUTES = ("pvalues_", "qvalues_", "null_")
#: Label permutations of the pooled null at least (its refits are full fits).
POOLED_PERMUTATIONS = 20
#: Seed of the null when ``random_state`` is None (or absent): ``"auto"`` stays reproducible.
NULL_SEED = 0


def lone_signal_draws(fdr: float) -> int:
    """Fewest pooled null draws per feature for a lone signal to reach ``q <= fdr``.

    With ``R`` shadow rounds (or ``B`` pooled permutations) over ``p``
    features, a feature beating every null draw has ``p_j = 1 / (R p + 1)``;
    alone among nulls, its q-value is ``p p_j = p / (R p + 1) < 1 / R``.
    ``R >= 1 / fdr - 1 / p`` is needed and ``R = ceil(1 / fdr)`` suffices for
    every ``p`` (10 at ``fdr = 0.1``).
    """
    return ceil(1.0 / fdr - 1e-9)


def shadow_rounds(n_features: int, fdr: float) -> int:
    """Shadow rounds of ``"auto"``: ``max(default_rounds(p), ceil(1 / fdr))``.

    The first term keeps at least 100 shadow draws for few features, the
    second lets a lone signal reach ``q <= fdr`` (:func:`lone_signal_draws`).
    Cost: that many fits on ``2 p`` columns.
    """
    return max(default_rounds(n_features), lone_signal_draws(fdr))


class EvidenceMixin(FittedStateMixin):
    """P-values, q-values and the ``"auto"`` support of a global selector.

    Class attributes a family sets (chosen by measurement, see
    ``docs/evidence.md``): ``_evidence_null`` (``"permutation"``,
    ``"pooled-permutation"`` or ``"shadow"``) and ``_evidence_draws``
    (permutations, or shadow rounds; None for the rule of the null:
    1000 permutations, :func:`shadow_rounds` rounds, or
    ``max(20, ceil(1 / fdr))`` pooled permutations). The null draws come
    from the selector's ``random_state`` when it is set, else from the fixed
    seed :data:`NULL_SEED`, so the null is reproducible; the refits inside it
    keep the selector's own ``random_state``.
    """

    #: A fitted ``"auto"`` selector holds its null (``null_``), for the model loader.
    _declaration = Declaration(holds=(NullResult,))
    _evidence_null = "shadow"
    _evidence_draws: int | None = None
    fdr: float
    get_params: Any

    def _fit_evidence(self, X, codes) -> None:
        """Set ``pvalues_``, ``qvalues_`` and ``null_`` when ``n_features_to_select="auto"``."""
        self._discard(EVIDENCE_ATTRIBUTES)
        if getattr(self, "n_features_to_select", None) != "auto":
            return
        seed = self.get_params().get("random_state")
        if seed is None:
            seed = NULL_SEED
        if self._evidence_null in ("permutation", "pooled-permutation"):
            pooled = self._evidence_null == "pooled-permutation"
            default = max(POOLED_PERMUTATIONS, lone_signal_draws(self.fdr)) if pooled else 1000
            result = permutation_null(
                self,
                X,
                codes,
                n_permutations=self._evidence_draws or default,
                random_state=seed,
                n_jobs=getattr(self, "n_jobs", None),
                scores=selector_scores(self),
                pooled=pooled,
            )
        else:
            rounds = self._evidence_draws or shadow_rounds(X.shape[1], self.fdr)
            result = shadow_null(self, X, codes, n_rounds=rounds, random_state=seed)
        self.null_ = result
        self.pvalues_ = empirical_pvalues(result)
        self.qvalues_ = bh_qvalues(self.pvalues_)
        if not (self.qvalues_ <= self.fdr).any():
            warnings.warn(
                f"{type(self).__name__}: no feature is significant at fdr={self.fdr} "
                f"(smallest q-value {self.qvalues_.min():.3g}); get_support() is empty. "
                "Raise fdr, or pass n_features_to_select as a count.",
                UserWarning,
                stacklevel=3,
            )

    def _auto_support(self) -> np.ndarray:
        return np.asarray(self.qvalues_ <= self.fdr)
