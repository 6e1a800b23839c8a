"""The method of a ``select`` run: its name resolved, its estimator built from the flags.

Shared by ``select`` and ``select --cluster``:

* :func:`methods` and :func:`resolve_method`: the CLI method names are those the
  estimators declare (:func:`localselect._estimators.cli_methods`), looked up
  when a command runs, so building the parser imports no estimator; any
  estimator is reachable as ``module:Class``;
* :func:`make_estimator`: ``--params`` (``K=V`` as Python literals or JSON;
  ``discretizer=NAME[:N_BINS]`` for LLDS), ``--n-features``,
  ``--random-state``, ``--n-jobs`` and the evidence flags set on the estimator;
* :func:`params_record`: its parameters as JSON values for ``importances.json``;
* :func:`takes_nan` and :func:`nan_methods`: which estimators take missing
  values, from the one declaration the registry reads (scikit-learn's
  ``allow_nan`` input tag, :func:`localselect._estimators.nan_names`).
"""

from __future__ import annotations

import argparse
import ast
import difflib
import json
from importlib import import_module
from typing import Any

from localselect._estimators import cli_methods, nan_names
from localselect.cli._errors import CLIError, note
from localselect.cli._evidence import evidence_params

__all__ = [
    "DISCRETIZERS",
    "jsonable",
    "make_estimator",
    "methods",
    "nan_methods",
    "params_record",
    "parse_params",
    "resolve_method",
    "takes_nan",
]


def methods() -> dict[str, type]:
    """CLI method name -> estimator class: every estimator's declared name.

    Imports the estimators (:func:`localselect._estimators.cli_methods`).
    """
    return cli_methods()


def nan_methods() -> list[str]:
    """CLI names of the methods that take missing values at their defaults, sorted.

    The estimators of :func:`localselect._estimators.nan_names` (their
    ``allow_nan`` tag), by the names ``--method`` takes.
    """
    takers = set(nan_names())
    return sorted(name for name, cls in methods().items() if cls.__name__ in takers)


def takes_nan(estimator: Any) -> bool:
    """Whether ``estimator``, as configured, takes NaN in ``X``.

    Its scikit-learn ``allow_nan`` input tag: the declaration
    :func:`localselect._estimators.nan_names` lists for the defaults, read
    here on the configured instance (a tag may follow the parameters, e.g.
    the task). An object without tags takes no NaN.
    """
    from sklearn.utils import get_tags

    try:
        return bool(get_tags(estimator).input_tags.allow_nan)
    except (AttributeError, TypeError):
        return False


def resolve_method(name: str) -> type:
    """The estimator class for a CLI method name, or ``module:Class`` for any estimator.

    Raises
    ------
    CLIError
        Unknown name, or a ``module:Class`` that cannot be imported.
    """
    if ":" not in name:
        known = methods()
        cls = known.get(name.lower())
        if cls is None:
            close = difflib.get_close_matches(name.lower(), known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise CLIError(
                f"unknown method {name!r}{hint}; choose from {', '.join(sorted(known))} "
                "or give module:Class"
            )
        return cls
    module_name, _, class_name = name.partition(":")
    try:
        return getattr(import_module(module_name), class_name)
    except (ImportError, AttributeError) as exc:
        raise CLIError(
            f"method {name!r} is not available in this version of localselect "
            f"({module_name}.{class_name} not found: {exc})"
        ) from exc


#: ``--params discretizer=NAME[:N_BINS]``: the discretizers a command line can name.
DISCRETIZERS = {
    "mahalanobis": ("localselect.lift:MahalanobisQuantileDiscretizer", {}),
    "kbins": ("sklearn.preprocessing:KBinsDiscretizer", {"encode": "ordinal"}),
}


def _discretizer(value: Any) -> Any:
    """``mahalanobis:3`` or ``{"name": "kbins", "n_bins": 5}`` -> a discretizer object."""
    if isinstance(value, dict):
        spec = dict(value)
        name = str(spec.pop("name", ""))
    elif isinstance(value, str) and value != "auto":
        name, _, bins = value.partition(":")
        spec = {}
        if bins:
            if not bins.isdigit():
                raise CLIError(f"discretizer={value!r}: the number of bins must be an integer")
            spec["n_bins"] = int(bins)
    else:
        return value
    if name.lower() not in DISCRETIZERS:
        raise CLIError(
            f"unknown discretizer {name!r}; use discretizer=auto, "
            + ", ".join(f"{n}:N_BINS" for n in DISCRETIZERS)
            + ' or JSON such as \'{"name": "mahalanobis", "n_bins": 3}\''
        )
    path, defaults = DISCRETIZERS[name.lower()]
    module_name, _, class_name = path.partition(":")
    cls = getattr(import_module(module_name), class_name)
    try:
        return cls(**{**defaults, **spec})
    except TypeError as exc:
        raise CLIError(f"discretizer={value!r}: {exc}") from exc


def parse_params(items: list[str]) -> dict[str, Any]:
    """``--params K=V ...`` as a dict: values as Python literals, else JSON, else text."""
    params: dict[str, Any] = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"--params expects key=value pairs; got {item!r}")
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            try:
                value = json.loads(text)
            except ValueError:
                value = text  # a plain string such as rounding=exact
        key = key.strip()
        params[key] = _discretizer(value) if key == "discretizer" else value
    return params


def jsonable(value: Any) -> Any:
    """Parameter values for importances.json: JSON types as they are, others as repr."""
    from localselect.cli._columns import json_value

    if value is None or isinstance(value, (bool, int, float, str)):
        return json_value(value)
    return repr(value)


def make_estimator(cls: type, args: argparse.Namespace) -> Any:
    """``cls()`` with ``--params``, ``--n-features``, ``--random-state``, ``--n-jobs`` set.

    A flag the estimator has no parameter for is noted as unused (randomness,
    parallel work) or refused (``--n-features``); unknown ``--params`` are refused.
    """
    estimator = cls()
    valid = estimator.get_params(deep=False)
    params = parse_params(args.params)
    for option, key in (
        ("n_features", "n_features_to_select"),
        ("random_state", "random_state"),
        ("n_jobs", "n_jobs"),
    ):
        value = getattr(args, option, None)
        if value is not None:
            flag = "--" + option.replace("_", "-")
            if key not in valid and option != "n_features":
                what = "randomness" if option == "random_state" else "parallel work"
                note(f"{flag} is unused: {cls.__name__} has no {what} (no {key} parameter)")
                continue
            if key not in valid:
                raise CLIError(f"{flag} does not apply: {cls.__name__} has no {key} parameter")
            params[key] = value
    params.update(evidence_params(cls, valid, args))
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise CLIError(
            f"{cls.__name__} has no parameter(s) {', '.join(unknown)}; "
            f"valid: {', '.join(sorted(valid))}"
        )
    return estimator.set_params(**params)


def params_record(estimator: Any) -> dict[str, Any]:
    """The estimator's own parameters for ``importances.json`` (:func:`jsonable` values)."""
    return {k: jsonable(v) for k, v in estimator.get_params(deep=False).items()}
