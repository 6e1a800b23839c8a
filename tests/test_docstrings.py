"""Every public estimator documents each constructor parameter and fitted attribute."""

from __future__ import annotations

import inspect
import re

import pytest

from localselect.utils import all_estimators


def _documented(doc: str, section: str) -> set[str]:
    match = re.search(rf"{section}\n-+\n(.*?)(\n\s*\n[A-Z][A-Za-z ]+\n-+\n|\Z)", doc, re.S)
    if not match:
        return set()
    return set(re.findall(r"^\s{0,8}(\w+) :", match.group(1), re.M))


@pytest.mark.parametrize(("name", "cls"), all_estimators())
def test_parameters_are_documented(name, cls):
    doc = inspect.getdoc(cls) or ""
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    missing = params - _documented(doc, "Parameters")
    assert not missing, f"{name} does not document parameters {sorted(missing)}"
    assert "n_features_in_" in _documented(doc, "Attributes"), f"{name}: no n_features_in_"


@pytest.mark.parametrize(("name", "cls"), all_estimators())
def test_constraints_cover_every_parameter(name, cls):
    params = set(inspect.signature(cls.__init__).parameters) - {"self"}
    constrained = set(getattr(cls, "_parameter_constraints", {}))
    assert params == constrained, f"{name}: constraints differ by {sorted(params ^ constrained)}"
