"""Knockoff-screened saliency under marginal replacement: a per-row selector beyond the papers.

See :class:`ConditionalSaliencySelection` (a historical name: the saliency
replaces a feature by quantiles of its marginal, and only the global knockoff
screen has a guarantee). Built for INVASE's instance-wise benchmark, Syn1-Syn6
(``localselect bench instancewise``).
"""

from localselect.saliency._estimator import ConditionalSaliencySelection

__all__ = ["ConditionalSaliencySelection"]
