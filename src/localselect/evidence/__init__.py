"""Evidence for a selection: p-values against a null, FDR control, stability.

* :func:`feature_pvalues` -- per-feature p-values of any selector's scores
  against label permutations or shadow features (:mod:`._null`);
* :func:`bh_qvalues` / :func:`bh_select` -- Benjamini-Hochberg (:mod:`._fdr`);
* :class:`StabilitySelection` -- selection probabilities over subsamples, for
  global and local selectors, with the Meinshausen-Buhlmann bound and the
  stability indices of :mod:`._indices`.

Every global selector accepts ``n_features_to_select="auto"`` (keep the
features whose q-value is at most ``fdr``), through :class:`EvidenceMixin`.
"""

from localselect.evidence._fdr import bh_qvalues, bh_select
from localselect.evidence._indices import (
    kuncheva_index,
    meinshausen_buhlmann_bound,
    nogueira_stability,
)
from localselect.evidence._mixin import EvidenceMixin
from localselect.evidence._null import (
    NullResult,
    empirical_pvalues,
    feature_pvalues,
    permutation_null,
    selector_scores,
    shadow_null,
)
from localselect.evidence._stability import StabilitySelection

__all__ = [
    "EvidenceMixin",
    "NullResult",
    "StabilitySelection",
    "bh_qvalues",
    "bh_select",
    "empirical_pvalues",
    "feature_pvalues",
    "kuncheva_index",
    "meinshausen_buhlmann_bound",
    "nogueira_stability",
    "permutation_null",
    "selector_scores",
    "shadow_null",
]
