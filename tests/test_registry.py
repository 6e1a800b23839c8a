"""The one registry (issue 40): each estimator declares its CLI name, fast parameters and
the types its fitted state holds; the exports, the CLI, the test parameters and the model
loader derive from it."""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.preprocessing import KBinsDiscretizer

import localselect
from localselect._estimators import (
    EXPORTS,
    cli_methods,
    continuous_target_names,
    held_types,
    n_jobs_names,
    nan_names,
    raw_input_methods,
    registered,
)
from localselect.base import (
    SHARED_CONSTRAINTS,
    Declaration,
    LabelledFitMixin,
    LocalSelectorMixin,
    ScoreSelectorMixin,
    shared_constraints,
)
from localselect.cli import _methods, _options
from localselect.cli._model_io import load_model, save_model, trusted_types
from localselect.utils import all_estimators, fast_params


class _Edges:
    """A helper object the toy keeps in its fitted state (like LLDS's ``_TertileBins``)."""

    def __init__(self, edges):
        self.edges = edges


class ToySelector(LabelledFitMixin, ScoreSelectorMixin, BaseEstimator):
    """Test-only global selector: features by mean absolute value."""

    _declaration = Declaration(
        "toy",
        check={"n_features_to_select": 1, "discretizer": KBinsDiscretizer(n_bins=2)},
        demo={"n_features_to_select": 2},
        holds=(_Edges,),
    )
    _parameter_constraints = {
        **ScoreSelectorMixin._parameter_constraints,
        "discretizer": [None, BaseEstimator],
        **shared_constraints("random_state"),
    }

    def __init__(self, n_features_to_select=1, *, fdr=0.1, discretizer=None, random_state=None):
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.discretizer = discretizer
        self.random_state = random_state

    def _fit(self, X, codes, log):
        self.edges_ = _Edges(np.quantile(X, [0.25, 0.75], axis=0))
        self.feature_importances_ = np.abs(X).mean(axis=0)
        return self


def _register(mp: pytest.MonkeyPatch) -> None:
    """Register the toy: its one line in the registry's exports."""
    mp.setitem(EXPORTS, "ToySelector", __name__)


def test_a_registered_toy_reaches_the_cli_the_test_parameters_and_the_loader(tmp_path):
    own_type = f"{__name__}.ToySelector"
    with pytest.MonkeyPatch.context() as mp:
        _register(mp)
        # the CLI's method list, its lookup and its help
        assert _methods.methods()["toy"] is ToySelector
        assert _methods.resolve_method("Toy") is ToySelector
        assert "toy" in str(_options._MethodNames()).split(", ")
        # the test parameters: fresh clones of estimator values, never the template
        check = fast_params("ToySelector", "check")
        template = ToySelector._declaration.check["discretizer"]
        assert check["n_features_to_select"] == 1
        assert check["discretizer"] is not template
        assert check["discretizer"].get_params() == template.get_params()
        assert fast_params("ToySelector", "check")["discretizer"] is not check["discretizer"]
        assert fast_params("ToySelector", "demo") == {"n_features_to_select": 2}
        # the model loader: the toy, what it declares it holds, what its mixins hold
        trusted = trusted_types()
        assert {own_type, f"{__name__}._Edges", "localselect.evidence._null.NullResult"} <= (
            trusted
        )
        rng = np.random.default_rng(0)
        X = rng.normal(size=(30, 3))
        est = ToySelector(**check).fit(X, np.repeat([0, 1], 15))
        path = tmp_path / "model.skops"
        save_model({"estimator": est}, path)
        loaded = load_model(path)["estimator"]
        np.testing.assert_array_equal(loaded.edges_.edges, est.edges_.edges)
    # unregistered: gone from every front end, and the loader refuses its file again
    assert "toy" not in _methods.methods()
    assert fast_params("ToySelector", "check") == {}
    assert own_type not in trusted_types()
    with pytest.raises(Exception, match="untrusted type"):
        load_model(path)


def test_two_estimators_cannot_share_a_cli_name(monkeypatch):
    class ReliefF(ToySelector):  # the clash is the point
        _declaration = Declaration("relieff")

    monkeypatch.setattr(importlib.import_module(__name__), "Clash", ReliefF, raising=False)
    monkeypatch.setitem(EXPORTS, "Clash", __name__)
    with pytest.raises(RuntimeError, match="both declare the CLI name 'relieff'"):
        cli_methods()


def test_registry_and_discovery_agree():
    found = dict(all_estimators())
    declared = registered()
    assert set(declared) <= set(found)
    selectors = {name for name, _ in all_estimators("selector")}
    assert selectors <= set(declared), "every public selector declares itself"
    for name, cls in declared.items():
        assert found[name] is cls
        decl = vars(cls)["_declaration"]
        assert decl.name == decl.name.lower() and decl.name.isidentifier(), name
        for profile in ("check", "demo"):
            assert set(getattr(decl, profile)) <= set(cls().get_params()), (name, profile)


def test_declared_type_names_exist():
    for cls in registered().values():
        for name in held_types(cls):
            module, _, attr = name.rpartition(".")
            assert inspect.isclass(getattr(importlib.import_module(module), attr)), name


def test_package_exports_follow_the_registry():
    assert localselect.__all__ == sorted([*EXPORTS, "__version__"])
    tree = ast.parse(Path(localselect.__file__).read_text())
    blocks = [node for node in tree.body if isinstance(node, ast.If)]
    checked = next(node for node in blocks if ast.unparse(node.test) == "TYPE_CHECKING")
    typed = {alias.asname or alias.name for node in checked.body for alias in node.names}
    assert typed == set(EXPORTS), "the TYPE_CHECKING imports name the same as EXPORTS"
    for name, module in EXPORTS.items():
        assert getattr(localselect, name) is getattr(importlib.import_module(module), name)


def test_shared_constraints_and_the_target_tag_come_from_base():
    for name, cls in registered().items():
        params = cls().get_params()
        for key, constraint in SHARED_CONSTRAINTS.items():
            if key in params:
                assert cls._parameter_constraints[key] == constraint, (name, key)
        assert cls().__sklearn_tags__().target_tags.required, name


def test_abstract_hooks_are_enforced():
    class NoMask(LocalSelectorMixin, BaseEstimator):
        pass

    class NoFit(LabelledFitMixin, BaseEstimator):
        pass

    for cls, hook in ((NoMask, "_local_support_mask"), (NoFit, "_fit")):
        with pytest.raises(TypeError, match=hook):
            cls()


ROOT = Path(__file__).resolve().parents[1]


def _ticked(text: str) -> set[str]:
    """The names in backticks (or ``{class}`~localselect.Name``` roles) of ``text``."""
    import re

    return {m.rsplit(".", 1)[-1] for m in re.findall(r"`~?(?:localselect\.)?(\w+)`", text)}


def test_the_readme_lists_follow_the_registry():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    n_jobs = readme.split("take `n_jobs` (all but", 1)[1].split(")", 1)[0]
    assert _ticked(n_jobs) == set(registered()) - set(n_jobs_names())
    continuous = readme.split("continuous targets for", 1)[1].split("docs/regression.md", 1)[0]
    assert _ticked(continuous) == set(continuous_target_names())


def test_the_regression_guide_tables_the_declared_continuous_estimators():
    guide = (ROOT / "docs" / "regression.md").read_text(encoding="utf-8")
    table = guide.split("| estimator | on a continuous `y` |", 1)[1].split("\n\n", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| {class}")]
    assert set().union(*map(_ticked, rows)) == set(continuous_target_names())


def test_the_missing_help_names_the_methods_that_take_nan():
    select = _options.add_select_parser(argparse.ArgumentParser().add_subparsers())
    (missing,) = (a for a in select._actions if "--missing" in a.option_strings)
    named = missing.help.split("methods that take NaN:", 1)[1].split(";", 1)[0]
    by_class = {cls.__name__: name for name, cls in cli_methods().items()}
    takes_nan = {by_class[name] for name in nan_names()} - raw_input_methods()
    assert {n.strip() for n in named.split(",")} == takes_nan
    assert all(f"{name} takes the table as it is" in missing.help for name in raw_input_methods())
