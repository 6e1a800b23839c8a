"""Knockoff-screened saliency under marginal replacement: a per-row selector beyond the papers.

See :class:`ConditionalSaliencySelection` (a historical name: the saliency
replaces a feature by quantiles of its marginal, and only the global knockoff
screen has a guarantee). Built for INVASE's instance-wise benchmark, Syn1-Syn6
(``localselect bench instancewise``). :class:`LocalKnockoffFilter` gives any
local selector a per-row FDR: it fits the selector on the table augmented with
model-X knockoffs and keeps, per row, what beats its knockoff copy.
"""

from localselect.saliency._estimator import ConditionalSaliencySelection
from localselect.saliency._filter import LocalKnockoffFilter
from localselect.saliency._heldout import FewHeldOutRowsWarning

__all__ = ["ConditionalSaliencySelection", "FewHeldOutRowsWarning", "LocalKnockoffFilter"]
