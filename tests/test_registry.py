"""The one registry: each estimator declares its CLI name, fast parameters, the types its
fitted state holds, its size model and its fit on Dask collections; the exports, the CLI,
the test parameters, the model loader, the size check and the collection fit derive from
it (shown on a test-only toy estimator that declares itself and nothing else)."""

from __future__ import annotations

import argparse
import ast
import importlib
import inspect
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.preprocessing import KBinsDiscretizer

import localselect
from localselect._estimators import (
    EXPORTS,
    cli_methods,
    collection_fit_names,
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
    """A helper object the toy keeps in its fitted state (like LLDS's ``TertileBins``)."""

    def __init__(self, edges):
        self.edges = edges


class _ToyCost:
    """The toy's size model: a fit on more than :attr:`max_cells` cells would not finish."""

    max_cells = 10_000

    def refusal(self, estimator, n_samples, n_features, declared_by):
        if n_samples * n_features <= self.max_cells:
            return None
        return (
            f"{declared_by} on {n_samples} x {n_features} would not finish; fit on a sample "
            f"of at most {self.max_cells // n_features} rows."
        )


class ToyFit(NamedTuple):
    """What the toy's fit on a Dask collection fits (fields named after the attributes)."""

    edges_: _Edges
    feature_importances_: np.ndarray


def _abs_sums(x, y, offset):
    return np.abs(x).sum(axis=0)


def _add(a, b):
    return a + b


def fit_toy_collection(estimator, blocks, summary, counts, log):
    """The toy's fit on a Dask collection: its statistics summed on the workers."""
    from localselect._runtime._collections import reduce_blocks

    sums = reduce_blocks(blocks, _abs_sums, _add, name="toy", log=log)
    return ToyFit(_Edges(np.vstack([summary.lo, summary.hi])), sums / summary.n)


class ToySelector(LabelledFitMixin, ScoreSelectorMixin, BaseEstimator):
    """Test-only global selector: features by mean absolute value."""

    _declaration = Declaration(
        "toy",
        check={"n_features_to_select": 1, "discretizer": KBinsDiscretizer(n_bins=2)},
        demo={"n_features_to_select": 2},
        holds=(_Edges,),
        size=_ToyCost(),
        collection_fit=f"{__name__}:fit_toy_collection",
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
        self.edges_ = _Edges(np.vstack([X.min(axis=0), X.max(axis=0)]))
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


def test_the_toy_fits_a_dask_collection_and_is_size_checked_from_its_declaration():
    dask = pytest.importorskip("dask")
    import dask.array as da

    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 4)) * [1.0, 3.0, 0.5, 2.0]
    y = np.repeat([0, 1], 60)
    expected = ToySelector(n_features_to_select=2).fit(X, y)
    with dask.config.set(scheduler="synchronous"):
        fitted = ToySelector(n_features_to_select=2).fit(
            da.from_array(X, chunks=(25, 4)), da.from_array(y, chunks=25)
        )
    np.testing.assert_allclose(
        fitted.feature_importances_, expected.feature_importances_, rtol=1e-12
    )
    np.testing.assert_array_equal(fitted.edges_.edges, expected.edges_.edges)
    np.testing.assert_array_equal(fitted.get_support(), expected.get_support())
    assert fitted.classes_.tolist() == [0, 1] and fitted.n_features_in_ == 4
    with pytest.MonkeyPatch.context() as mp:
        _register(mp)
        assert "ToySelector" in collection_fit_names()
    assert "ToySelector" not in collection_fit_names()
    too_large = np.zeros((5_001, 2))
    message = "ToySelector on 5001 x 2 would not finish; fit on a sample of at most 5000 rows."
    with pytest.raises(ValueError, match=message):
        ToySelector().fit(too_large, np.arange(5_001) % 2)


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
            held = getattr(importlib.import_module(module), attr)
            # a fitted model may hold a function too (a preprocessor's callable)
            assert inspect.isclass(held) or inspect.isfunction(held), name


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
