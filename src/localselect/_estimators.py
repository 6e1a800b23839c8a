"""The one registry of localselect's estimators, which the front ends derive from.

A public estimator declares itself on its class, with a :class:`Declaration`
in the class attribute ``_declaration``::

    class ReliefF(...):
        _declaration = Declaration(
            "relieff",
            check={"n_neighbors": 3, "n_features_to_select": 2},
            demo={"n_features_to_select": 5},
        )

and :data:`EXPORTS` names the module that exports it. From the two come:

* ``localselect``'s lazy exports and ``__all__`` (:data:`EXPORTS`);
* the command line's ``--method`` names (:func:`cli_methods`);
* the fast constructor arguments of the tests and the demo
  (:func:`localselect.utils.fast_params`, :func:`localselect.utils.fast_estimators`);
* the types ``localselect predict`` loads from a model file (:func:`held_types`);
* the size check of a fit (``size``: :func:`localselect._runtime.check_scale`);
* the fit on a Dask collection (``collection_fit``: :func:`collection_fit`);
* how the command line hands it a table (``raw_input``: :func:`raw_input_methods`);
* the lists the documentation shows (:func:`n_jobs_names`, :func:`nan_names`,
  :func:`collection_fit_names`), which read the estimators' own parameters and
  scikit-learn tags rather than a second declaration.

A mixin may declare only ``holds`` (the types every estimator built on it may
hold, e.g. the evidence mixin's null distribution); the name and the
parameters are those of the class's own declaration, never inherited.

This module imports nothing heavy: ``import localselect`` reads
:data:`EXPORTS`; only :func:`registered` imports the estimators.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = [
    "EXPORTS",
    "PROFILES",
    "Declaration",
    "cli_methods",
    "collection_fit",
    "collection_fit_names",
    "continuous_target_names",
    "declared",
    "held_types",
    "n_jobs_names",
    "nan_names",
    "raw_input_methods",
    "registered",
]

#: Public name of ``localselect`` -> the module that exports it (imported when the name
#: is first read). The classes among them that carry a ``_declaration`` are the registry.
EXPORTS: dict[str, str] = {
    "LocalSelectorMixin": "localselect.base",
    "FisherScore": "localselect.filters",
    "MRMR": "localselect.filters",
    "fisher_score": "localselect.filters",
    "GPLocalFeatureSelection": "localselect.gp",
    "LocalFeatureSelection": "localselect.lfs",
    "LiftFeatureSelector": "localselect.lift",
    "ConditionalSaliencySelection": "localselect.saliency",
    "LocalKnockoffFilter": "localselect.saliency",
    "IM4E": "localselect.margin",
    "BoostedImmigrate": "localselect.margin",
    "Immigrate": "localselect.margin",
    "IRelief": "localselect.margin",
    "Relief": "localselect.margin",
    "ReliefF": "localselect.margin",
    "Simba": "localselect.margin",
}

#: The profiles of fast constructor arguments: ``"check"`` (the smallest settings, for
#: the scikit-learn and local-selector checks) and ``"demo"`` (seconds per fit on a few
#: hundred samples: ``localselect demo`` and the scaling benchmark).
PROFILES = ("check", "demo")

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class Declaration(NamedTuple):
    """What an estimator tells the front ends about itself (its ``_declaration``).

    Parameters
    ----------
    name : str, default=""
        Its name on the command line (``localselect select --method NAME``),
        lower case; empty for a mixin, which declares only ``holds``.
    check : mapping, default={}
        Constructor arguments of the ``"check"`` profile. Estimator values are
        templates: :func:`localselect.utils.fast_params` hands out clones.
    demo : mapping, default={}
        Constructor arguments of the ``"demo"`` profile (likewise).
    holds : tuple of type or str, default=()
        Types (or their ``"module.Class"`` names) besides the estimator itself
        that its fitted state may hold: a model file holding them is loaded.
    targets : tuple of {"classes", "continuous"}, default=("classes",)
        The targets ``fit`` takes: class labels, and a continuous ``y`` for
        the estimators that define a regression variant (they take a ``task``
        parameter; see :func:`localselect.base.check_target`).
    size : cost model or None, default=None
        How long a fit takes at its settings, for the size check that refuses
        at once a fit that would not finish (an object with a method
        ``refusal(estimator, n_samples, n_features, declared_by)`` returning
        the message or None; the models are in :mod:`localselect._runtime`,
        e.g. :class:`~localselect._runtime.MeasuredCost`). None: the
        estimator scales at its defaults and is never refused.
    collection_fit : str, default=""
        ``"module:function"`` of its fit on a Dask collection (statistics
        reduced on the workers; see :func:`collection_fit`); empty when it has
        none.
    raw_input : bool, default=False
        The command line hands it the table as it is (discrete values of any
        type, missing values kept), not encoded, imputed and scaled.
    columns : {"encoded", "native"}, default="encoded"
        How ``fit`` hands it a table with nominal columns (category, string,
        object, boolean; :func:`localselect._tables.read_columns`).
        ``"native"``: the coded matrix (a nominal column as its level codes)
        with ``input_columns_.nominal`` marking those columns; the estimator
        treats them itself. ``"encoded"``: each nominal column becomes scaled
        indicator columns and numeric columns are scaled to unit range
        (:mod:`localselect._encoding`), so a differing level weighs in the
        method's distance as a numeric column one range apart; the mixins of
        :mod:`localselect.base` map the answers back to one per input column.
        A table without nominal columns reaches either kind unchanged.
    """

    name: str = ""
    check: Mapping[str, Any] = _EMPTY
    demo: Mapping[str, Any] = _EMPTY
    holds: tuple[type | str, ...] = ()
    targets: tuple[str, ...] = ("classes",)
    size: Any = None
    collection_fit: str = ""
    raw_input: bool = False
    columns: str = "encoded"


#: The declaration of a class that declares nothing (every field at its default).
_NONE = Declaration()


def declaration(cls: type) -> Declaration | None:
    """The class's own declaration (not a base class's), or None."""
    found = vars(cls).get("_declaration")
    return found if isinstance(found, Declaration) and found.name else None


def declared(cls: type) -> Declaration | None:
    """The declaration that governs ``cls``: its own, or that of its nearest declared base.

    A user's subclass of an estimator (which declares nothing itself) keeps the
    size model and the collection fit of the estimator it derives from.
    """
    for klass in cls.__mro__:
        found = declaration(klass)
        if found is not None:
            return found
    return None


def collection_fit(estimator_class: type) -> Any:
    """The fit of ``estimator_class`` on a Dask collection (its ``collection_fit``), or None.

    Parameters
    ----------
    estimator_class : type
        An estimator class; a subclass has the fit of its nearest declared base.

    Returns
    -------
    fit : callable or None
        The function named by ``"module:function"`` (imported here), or None
        when the estimator has no fit on Dask collections.
    """
    found = declared(estimator_class)
    if found is None or not found.collection_fit:
        return None
    module, _, function = found.collection_fit.partition(":")
    return getattr(import_module(module), function)


def collection_fit_names() -> list[str]:
    """Public names of the registered estimators whose ``fit`` takes a Dask collection.

    Returns
    -------
    names : list of str
        Sorted names, e.g. ``["FisherScore", "MRMR"]``.
    """
    return sorted(
        name for name, cls in registered().items() if (declaration(cls) or _NONE).collection_fit
    )


def raw_input_methods() -> frozenset[str]:
    """Command-line names of the estimators that take the table as it is (``raw_input``)."""
    return frozenset(
        name for name, cls in cli_methods().items() if (declaration(cls) or _NONE).raw_input
    )


def n_jobs_names() -> list[str]:
    """Public names of the registered estimators that take ``n_jobs`` (their parameters)."""
    return sorted(name for name, cls in registered().items() if "n_jobs" in cls().get_params())


def nan_names() -> list[str]:
    """Public names of the registered estimators that take NaN in ``X`` at their defaults.

    Read from scikit-learn's ``allow_nan`` input tag of a default instance.
    """
    return sorted(
        name for name, cls in registered().items() if cls().__sklearn_tags__().input_tags.allow_nan
    )


def profile_params(cls: type, profile: str) -> Mapping[str, Any]:
    """The declared arguments of ``cls`` under ``profile`` (templates, not copies)."""
    if profile not in PROFILES:
        raise ValueError(f"profile must be 'check' or 'demo'; got {profile!r}.")
    found = declaration(cls)
    return _EMPTY if found is None else getattr(found, profile)


def registered() -> dict[str, type]:
    """Public name -> class of every estimator in :data:`EXPORTS` that declares itself.

    Imports the modules of :data:`EXPORTS` (the only function here that does).
    """
    found = {}
    for name, module in EXPORTS.items():
        value = getattr(import_module(module), name)
        if isinstance(value, type) and declaration(value) is not None:
            found[name] = value
    return found


def cli_methods() -> dict[str, type]:
    """Command-line method name -> estimator class, from the declarations."""
    methods: dict[str, type] = {}
    for cls in registered().values():
        found = declaration(cls)
        name = found.name if found is not None else ""
        if name in methods:
            raise RuntimeError(
                f"{cls.__name__} and {methods[name].__name__} both declare the CLI name {name!r}"
            )
        methods[name] = cls
    return methods


def continuous_target_names() -> list[str]:
    """Public names of the estimators whose declaration takes a continuous target."""
    return sorted(
        name
        for name, cls in registered().items()
        if "continuous" in (declaration(cls) or Declaration()).targets
    )


def _type_name(kind: type | str) -> str:
    return kind if isinstance(kind, str) else f"{kind.__module__}.{kind.__qualname__}"


def held_types(cls: type) -> frozenset[str]:
    """``module.Class`` of ``cls`` and of every type its fitted state may hold.

    The ``holds`` of the declarations of ``cls`` and of its bases (mixins).
    """
    names = {_type_name(cls)}
    for klass in cls.__mro__:
        found = vars(klass).get("_declaration")
        if isinstance(found, Declaration):
            names.update(_type_name(kind) for kind in found.holds)
    return frozenset(names)
