"""localselect: local feature selection -- which features matter *where*.

Estimators follow the scikit-learn API. Local selectors (one feature subset
per sample) share :class:`~localselect.base.LocalSelectorMixin`.
"""

from importlib.metadata import PackageNotFoundError, version

from localselect.base import LocalSelectorMixin
from localselect.filters import MRMR, FisherScore, fisher_score
from localselect.gp import GPLocalFeatureSelection
from localselect.lfs import LocalFeatureSelection
from localselect.lift import LiftFeatureSelector
from localselect.margin import (
    IM4E,
    BoostedImmigrate,
    Immigrate,
    IRelief,
    Relief,
    ReliefF,
    Simba,
)

try:
    __version__ = version("localselect")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
    "IM4E",
    "MRMR",
    "BoostedImmigrate",
    "FisherScore",
    "GPLocalFeatureSelection",
    "IRelief",
    "Immigrate",
    "LiftFeatureSelector",
    "LocalFeatureSelection",
    "LocalSelectorMixin",
    "Relief",
    "ReliefF",
    "Simba",
    "__version__",
    "fisher_score",
]
