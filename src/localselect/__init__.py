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

from localselect._estimators import EXPORTS

# For type checkers, the same names as EXPORTS (tests/test_registry.py checks they agree).
if TYPE_CHECKING:
    from localselect.base import LocalSelectorMixin as LocalSelectorMixin
    from localselect.filters import MRMR as MRMR
    from localselect.filters import FisherScore as FisherScore
    from localselect.filters import fisher_score as fisher_score
    from localselect.gp import GPLocalFeatureSelection as GPLocalFeatureSelection
    from localselect.lfs import LocalFeatureSelection as LocalFeatureSelection
    from localselect.lift import LiftFeatureSelector as LiftFeatureSelector
    from localselect.margin import IM4E as IM4E
    from localselect.margin import BoostedImmigrate as BoostedImmigrate
    from localselect.margin import Immigrate as Immigrate
    from localselect.margin import IRelief as IRelief
    from localselect.margin import Relief as Relief
    from localselect.margin import ReliefF as ReliefF
    from localselect.margin import Simba as Simba
    from localselect.saliency import (
        ConditionalSaliencySelection as ConditionalSaliencySelection,
    )
    from localselect.saliency import LocalKnockoffFilter as LocalKnockoffFilter

try:
    __version__ = version("localselect")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

#: Public name -> module that defines it (imported when the name is first read): the
#: registry's list (:mod:`localselect._estimators`).
_LAZY = EXPORTS

__all__ = sorted([*EXPORTS, "__version__"])


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'localselect' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
