"""Margin-based feature weighting: Relief family, IM4E, IMMIGRATE and its boosted form.

All estimators share the vectorised kernels of :mod:`localselect.margin._kernels`
(hit/miss softmax and chunked ``|x_i - x_j|`` work from :mod:`localselect._pairwise`).
"""

from localselect.margin._boosted import BoostedImmigrate
from localselect.margin._im4e import IM4E
from localselect.margin._immigrate import Immigrate
from localselect.margin._irelief import IRelief
from localselect.margin._kernels import DegenerateMarginWarning
from localselect.margin._relief import Relief, ReliefF
from localselect.margin._simba import Simba

__all__ = [
    "IM4E",
    "BoostedImmigrate",
    "DegenerateMarginWarning",
    "IRelief",
    "Immigrate",
    "Relief",
    "ReliefF",
    "Simba",
]
