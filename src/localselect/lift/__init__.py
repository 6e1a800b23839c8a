"""LLDS: the Local Lift Dependence Scale and multi-resolution feature selection.

Marcondes, Simonis and Barrera's lift function, window coefficient eta(W) and
normalised mutual information (:mod:`~localselect.lift._measures`), the
lattice searches of their Algorithms 1-3 (:mod:`~localselect.lift._search`),
the estimator :class:`LiftFeatureSelector` and the joint
:class:`MahalanobisQuantileDiscretizer`. A fit on a Dask collection counts
the contingency tables on the workers (:mod:`localselect.lift._collections`).
"""

from localselect.lift._discretize import MahalanobisQuantileDiscretizer
from localselect.lift._measures import dependence, lift_table, mutual_information
from localselect.lift._selector import LiftFeatureSelector

__all__ = [
    "LiftFeatureSelector",
    "MahalanobisQuantileDiscretizer",
    "dependence",
    "lift_table",
    "mutual_information",
]
