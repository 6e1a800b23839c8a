"""LFS: localized feature selection (Armanfard, Reilly and Komeili, 2016).

:class:`LocalFeatureSelection` selects a feature subset for the region around
every training sample and classifies by region votes; :func:`solve_lfs_lp`
is its exact solver of the linear program (9); :func:`query_subsets` gives
the deciding regions of new rows and their subsets (the per-row rule of
:mod:`localselect.base`).
"""

from localselect.lfs._decide import QuerySubsets, query_subsets
from localselect.lfs._estimator import LocalFeatureSelection
from localselect.lfs._lp import LPSolution, solve_lfs_lp

__all__ = [
    "LPSolution",
    "LocalFeatureSelection",
    "QuerySubsets",
    "query_subsets",
    "solve_lfs_lp",
]
