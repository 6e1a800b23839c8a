"""Knockoff-screened conditional saliency: a per-row selector beyond the four papers.

See :class:`ConditionalSaliencySelection`. Built for the instance-wise
benchmark of L2X and INVASE (``localselect bench instancewise``).
"""

from localselect.saliency._estimator import ConditionalSaliencySelection

__all__ = ["ConditionalSaliencySelection"]
