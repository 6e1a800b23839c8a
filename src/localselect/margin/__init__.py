"""Margin-based feature weighting: Relief family, IM4E, IMMIGRATE and its boosted form.

The vectorised kernels are one module per family: nearest hit/miss methods in
:mod:`localselect.margin._nn_kernels`, softmax-margin weight vectors (IM4E,
I-RELIEF) in :mod:`localselect.margin._vector_kernels`, the IMMIGRATE matrix in
:mod:`localselect.margin._matrix_kernels`; the last two share the hit/miss
softmax of :mod:`localselect.margin._kernels` and the chunked ``|x_i - x_j|``
work of :mod:`localselect._pairwise`.

:func:`relieff` is public as a numeric building block (the ReliefF weights of
validated float64 data and integer class codes, with a choice of the numpy or
the compiled engine), for speed comparisons such as ``localselect bench
margin-perf``.
"""

from localselect.margin._boosted import BoostedImmigrate
from localselect.margin._im4e import IM4E
from localselect.margin._immigrate import Immigrate
from localselect.margin._irelief import IRelief
from localselect.margin._kernels import DegenerateMarginWarning
from localselect.margin._nn_kernels import relieff
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
    "relieff",
]
