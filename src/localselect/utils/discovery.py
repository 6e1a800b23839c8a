"""Find the estimators localselect provides (like ``sklearn.utils.all_estimators``)."""

from __future__ import annotations

import inspect
import pkgutil
from importlib import import_module
from operator import itemgetter

from sklearn.base import BaseEstimator, ClassifierMixin, TransformerMixin
from sklearn.feature_selection import SelectorMixin

from localselect.base import LocalSelectorMixin

__all__ = ["all_estimators"]

_TYPE_FILTERS = {
    "classifier": ClassifierMixin,
    "selector": (SelectorMixin, LocalSelectorMixin),
    "local_selector": LocalSelectorMixin,
    "global_selector": SelectorMixin,
    "transformer": TransformerMixin,
}

# localselect.evidence: StabilitySelection is a meta-estimator over any selector (it needs
# an estimator argument); tests/evidence runs the scikit-learn checks on it.
_SKIP_MODULES = (
    "localselect.cli",
    "localselect.plotting",
    "localselect.evidence",
)


def all_estimators(type_filter: str | list[str] | None = None) -> list[tuple[str, type]]:
    """List the public estimator classes of localselect.

    Parameters
    ----------
    type_filter : str or list of str, default=None
        Keep only estimators of these kinds: ``"classifier"``, ``"selector"``,
        ``"local_selector"``, ``"global_selector"``, ``"transformer"``, or a
        list of them. ``None`` keeps all.

    Returns
    -------
    estimators : list of (str, type)
        ``(name, class)`` pairs sorted by name.

    Examples
    --------
    >>> from localselect.utils import all_estimators
    >>> dict(all_estimators("global_selector"))["FisherScore"].__name__
    'FisherScore'
    """
    import localselect

    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(localselect.__path__, prefix="localselect."):
        parts = info.name.split(".")
        if any(p.startswith("_") for p in parts[1:-1]) or info.name.startswith(_SKIP_MODULES):
            continue
        if "tests" in parts:
            continue
        module = import_module(info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(cls, BaseEstimator)
                and cls.__module__.startswith("localselect.")
                and not name.startswith("_")
                and not inspect.isabstract(cls)
            ):
                found[name] = cls
    items = sorted(found.items(), key=itemgetter(0))
    if type_filter is None:
        return items
    filters = [type_filter] if isinstance(type_filter, str) else list(type_filter)
    unknown = [f for f in filters if f not in _TYPE_FILTERS]
    if unknown:
        raise ValueError(f"Unknown type_filter {unknown}; choose from {sorted(_TYPE_FILTERS)}.")
    bases = tuple(
        b
        for f in filters
        for b in (_TYPE_FILTERS[f] if isinstance(_TYPE_FILTERS[f], tuple) else (_TYPE_FILTERS[f],))
    )
    return [(n, c) for n, c in items if issubclass(c, bases)]
