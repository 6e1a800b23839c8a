"""localselect: local feature selection -- which features matter *where*.

Estimators follow the scikit-learn API. Local selectors (one feature subset
per sample) share :class:`~localselect.base.LocalSelectorMixin`.

The estimators are imported on first use (PEP 562), so ``import localselect``
and ``localselect --help`` stay fast; ``from localselect import ReliefF``
works as usual.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from localselect.saliency import ConditionalSaliencySelection

try:
    __version__ = version("localselect")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

#: Public name -> module that defines it (imported when the name is first read).
_LAZY = {
    "LocalSelectorMixin": "localselect.base",
    "FisherScore": "localselect.filters",
    "MRMR": "localselect.filters",
    "fisher_score": "localselect.filters",
    "GPLocalFeatureSelection": "localselect.gp",
    "LocalFeatureSelection": "localselect.lfs",
    "LiftFeatureSelector": "localselect.lift",
    "ConditionalSaliencySelection": "localselect.saliency",
    "IM4E": "localselect.margin",
    "BoostedImmigrate": "localselect.margin",
    "Immigrate": "localselect.margin",
    "IRelief": "localselect.margin",
    "Relief": "localselect.margin",
    "ReliefF": "localselect.margin",
    "Simba": "localselect.margin",
}

__all__ = [
    "IM4E",
    "MRMR",
    "BoostedImmigrate",
    "ConditionalSaliencySelection",
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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'localselect' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
