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
from localselect.evidence._fdr import bh_qvalues
from localselect.evidence._null import (
    NullResult,
    default_rounds,
    empirical_pvalues,
    permutation_null,
    selector_scores,
    shadow_null,
)

__all__ = ["AUTO", "FDR_CONSTRAINT", "EvidenceMixin"]

#: The ``n_features_to_select`` value that selects at a target FDR.
AUTO = StrOptions({"auto"})
#: Parameter constraint of ``fdr``.
FDR_CONSTRAINT = [Interval(Real, 0, 1, closed="neither")]
#: Seed of the null for a selector without ``random_state`` (it stays deterministic).
NULL_SEED = 0


class EvidenceMixin:
    """P-values, q-values and the ``"auto"`` support of a global selector.

    Class attributes a family sets (chosen by measurement, see
    ``docs/evidence.md``): ``_evidence_null`` (``"permutation"`` or
    ``"shadow"``) and ``_evidence_draws`` (permutations, or shadow rounds;
    None for the null's default). The null draws come from the selector's
    ``random_state`` if it has one, else from a fixed seed.
    """

    #: A fitted ``"auto"`` selector holds its null (``null_``), for the model loader.
    _declaration = Declaration(holds=(NullResult,))
    _evidence_null = "shadow"
    _evidence_draws: int | None = None
    fdr: float
    get_params: Any

    def _fit_evidence(self, X, codes) -> None:
        """Set ``pvalues_``, ``qvalues_`` and ``null_`` when ``n_features_to_select="auto"``."""
        for name in ("pvalues_", "qvalues_", "null_"):
            self.__dict__.pop(name, None)
        if getattr(self, "n_features_to_select", None) != "auto":
            return
        seed = self.get_params().get("random_state", NULL_SEED)
        if self._evidence_null == "permutation":
            result = permutation_null(
                self,
                X,
                codes,
                n_permutations=self._evidence_draws or 1000,
                random_state=seed,
                n_jobs=getattr(self, "n_jobs", None),
                scores=selector_scores(self),
            )
        else:
            # at least 1 / (2 fdr) rounds: BH can then reject two features that beat every shadow
            rounds = self._evidence_draws or max(default_rounds(X.shape[1]), ceil(0.5 / self.fdr))
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
