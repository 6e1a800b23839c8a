"""numpydoc validation of every public name, and the estimator docstring contract.

The public API is what the documentation site renders: every name in the
``__all__`` of ``localselect`` and of its public modules, and the public
methods and properties those classes define. Each docstring passes numpydoc's
validator (``numpydoc.validate``) except for the codes in ``IGNORED`` (for the
whole API, with the reason) and ``EXCEPTIONS`` (per object, with the reason).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpydoc.validate as numpydoc_validate
import pytest

import localselect
from localselect.utils import all_estimators

# Codes not enforced anywhere (see numpydoc.validate.ERROR_MSGS).
IGNORED = {
    # A See Also section is written where a related name helps the reader
    # (every estimator has one), not on every function and method.
    "SA01",
    # An extended summary is not required of a method whose one-line summary
    # says it all (``fit``, ``predict``); classes and modules have one.
    "ES01",
    # Examples are required of estimators (test_estimators_have_examples);
    # methods and helpers show their use in the class's example or the gallery.
    "EX01",
    # Single return values are named (``self : object``, ``fig : Figure``), the
    # scikit-learn convention; RT02 wants the bare type.
    "RT02",
}

# Per-object exceptions: {import path: {code: reason}}. Keep this short.
EXCEPTIONS: dict[str, dict[str, str]] = {
    # NamedTuples returned by the library, never built by users: their fields
    # are documented under Attributes, not as constructor parameters.
    "localselect.lfs.LPSolution": {"PR01": "result record of solve_lfs_lp"},
    "localselect.lfs.QuerySubsets": {"PR01": "result record of query_subsets"},
}


def _public_modules() -> list[str]:
    names = []
    for info in pkgutil.walk_packages(localselect.__path__, "localselect."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        if hasattr(importlib.import_module(info.name), "__all__"):
            names.append(info.name)
    return [*names, "localselect"]


def public_api() -> list[str]:
    """Import paths of the public objects, each once (first exporting module wins)."""
    seen: set[int] = set()
    paths = []
    for modname in _public_modules():
        module = importlib.import_module(modname)
        for name in module.__all__:
            obj = getattr(module, name)
            # constants (a constraints list, a version string) have no docstring of their own
            if name.startswith("_") or not callable(obj) or id(obj) in seen:
                continue
            seen.add(id(obj))
            paths.append(f"{modname}.{name}")
            if inspect.isclass(obj):
                for attr, value in vars(obj).items():
                    if not attr.startswith("_") and (
                        inspect.isfunction(value) or isinstance(value, property | classmethod)
                    ):
                        paths.append(f"{modname}.{name}.{attr}")
    return paths


PUBLIC_API = public_api()


def test_public_api_is_found():
    # every estimator and the CLI's entry points are in the list the site renders
    names = {path.rsplit(".", 1)[-1] for path in PUBLIC_API}
    assert {name for name, _ in all_estimators()} <= names
    assert {"build_parser", "main", "LocalSelectorMixin"} <= names


@pytest.mark.parametrize("path", PUBLIC_API)
def test_numpydoc_validation(path):
    result = numpydoc_validate.validate(path)
    allowed = IGNORED | set(EXCEPTIONS.get(path, {}))
    errors = [f"{code}: {message}" for code, message in result["errors"] if code not in allowed]
    assert not errors, f"{path}:\n" + "\n".join(errors)


def test_exceptions_are_still_needed():
    for path, codes in EXCEPTIONS.items():
        assert path in PUBLIC_API, f"{path} is no longer public: drop its exception"
        found = {code for code, _ in numpydoc_validate.validate(path)["errors"]}
        assert set(codes) <= found, f"{path} passes {sorted(set(codes) - found)}: drop them"


@pytest.mark.parametrize(("name", "cls"), all_estimators())
def test_estimators_have_examples(name, cls):
    doc = numpydoc_validate.Validator(numpydoc_validate.get_doc_object(cls))
    assert doc.examples, f"{name} has no Examples section"
    attributes = {param.name for param in doc.doc["Attributes"]}
    assert "n_features_in_" in attributes, f"{name} does not document n_features_in_"


@pytest.mark.parametrize(("name", "cls"), all_estimators())
def test_constraints_cover_every_parameter(name, cls):
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    constrained = set(getattr(cls, "_parameter_constraints", {}))
    assert params == constrained, f"{name}: constraints differ by {sorted(params ^ constrained)}"
