"""Margin-based feature weighting: Relief family, IM4E, IMMIGRATE and its boosted form.

Layout, one module per concern:

* :mod:`localselect.margin._nn_kernels` (and the compiled
  :mod:`~localselect.margin._relieff_numba`): nearest hit/miss methods
  (Relief, ReliefF, Simba);
* :mod:`localselect.margin._kernels`: what the softmax-margin kernels share
  (the hit/miss softmax over all pairs, the quadratic form, the alternation);
* :mod:`localselect.margin._vector_kernels` and
  :mod:`localselect.margin._matrix_kernels`: one pass of IM4E / I-RELIEF and of
  IMMIGRATE, each in its exact form beside its neighbour-truncated twin;
* :mod:`localselect.margin._neighbours`: the neighbour search of truncation;
* :mod:`localselect.margin._pairs`: the one pair source (every pair, or the
  kept neighbours) the solvers call, and the one resolver of ``n_candidates``;
* :mod:`localselect.margin._solvers`: I-RELIEF, IM4E, Algorithm 2 and the
  fit of one IMMIGRATE model over a pair source;
* :mod:`localselect.margin._missing`: expected differences for missing values;
* one module per estimator.

:func:`relieff` is public as a numeric building block (the ReliefF weights of
validated float64 data and integer class codes, with a choice of the numpy or
the compiled engine), for speed comparisons such as ``localselect bench
margin-perf``. :func:`relieff_weights_dask` computes ReliefF weights of sampled
reference rows on a Dask collection, on the workers (the DiReliefF design).
"""

from localselect.margin._boosted import BoostedImmigrate
from localselect.margin._im4e import IM4E
from localselect.margin._immigrate import Immigrate
from localselect.margin._irelief import IRelief
from localselect.margin._kernels import DegenerateMarginWarning
from localselect.margin._nn_kernels import relieff
from localselect.margin._relief import Relief, ReliefF
from localselect.margin._relieff_collections import relieff_weights_dask
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
    "relieff_weights_dask",
]
