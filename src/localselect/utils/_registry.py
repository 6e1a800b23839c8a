"""One registry of short-running constructor arguments for every estimator.

Two profiles: ``"check"`` (the smallest settings, for the scikit-learn and
local-selector checks of the test suite) and ``"demo"`` (a few seconds per
method on a few hundred samples: ``localselect demo`` and the scaling
benchmark). An estimator without an entry runs with its defaults. Add yours
when it lands.
"""

from __future__ import annotations

from typing import Any

from sklearn.base import BaseEstimator, clone
from sklearn.preprocessing import KBinsDiscretizer

from localselect.lift import MahalanobisQuantileDiscretizer
from localselect.utils.discovery import all_estimators

__all__ = ["FAST_PARAMS", "fast_estimators", "fast_params"]

#: Estimator name -> profile -> constructor arguments.
FAST_PARAMS: dict[str, dict[str, dict[str, Any]]] = {
    "BoostedImmigrate": {
        "check": {"n_estimators": 3, "max_iter": 2},
        "demo": {"n_estimators": 5},
    },
    "FisherScore": {"check": {"n_features_to_select": 2}, "demo": {"n_features_to_select": 5}},
    "GPLocalFeatureSelection": {
        "check": {"n_neighbors": 3, "max_iter": 5, "random_state": 0},
        "demo": {"max_observations": 150},
    },
    "IM4E": {"check": {"max_iter": 3}, "demo": {"n_features_to_select": 5}},
    "IRelief": {"check": {"max_iter": 3}, "demo": {"n_features_to_select": 5}},
    "Immigrate": {"check": {"max_iter": 3}, "demo": {"n_features_to_select": 5}},
    "LiftFeatureSelector": {
        "check": {"max_features": 2, "discretizer": MahalanobisQuantileDiscretizer()},
        "demo": {
            "max_features": 2,
            "discretizer": KBinsDiscretizer(n_bins=3, encode="ordinal", strategy="uniform"),
        },
    },
    "LocalFeatureSelection": {
        "check": {"max_features": 3, "n_beta": 4, "max_iter": 1},
        "demo": {"max_features": 5, "n_beta": 10},
    },
    "Relief": {"check": {"n_features_to_select": 2}, "demo": {"n_features_to_select": 5}},
    "ReliefF": {
        "check": {"n_neighbors": 3, "n_features_to_select": 2},
        "demo": {"n_features_to_select": 5},
    },
    "Simba": {"check": {"max_iter": 3}, "demo": {"n_features_to_select": 5}},
}


def fast_params(name: str, profile: str = "demo") -> dict[str, Any]:
    """Constructor arguments of estimator ``name`` under ``profile`` (fresh copies).

    Parameters
    ----------
    name : str
        Class name, as :func:`~localselect.utils.all_estimators` lists it.
    profile : {"check", "demo"}, default="demo"
        ``"check"``: the smallest settings; ``"demo"``: seconds per fit on a
        few hundred samples.

    Returns
    -------
    params : dict
        Empty for an estimator without an entry; estimator-valued arguments
        are unfitted clones.

    Examples
    --------
    >>> from localselect.utils import fast_params
    >>> fast_params("Immigrate", "check")
    {'max_iter': 3}
    """
    if profile not in ("check", "demo"):
        raise ValueError(f"profile must be 'check' or 'demo'; got {profile!r}.")
    params = FAST_PARAMS.get(name, {}).get(profile, {})
    return {k: clone(v) if isinstance(v, BaseEstimator) else v for k, v in params.items()}


def fast_estimators(
    profile: str = "demo", type_filter: str | list[str] | None = None
) -> list[tuple[str, BaseEstimator]]:
    """One instance of every estimator :func:`all_estimators` finds, with :func:`fast_params`.

    Parameters
    ----------
    profile : {"check", "demo"}, default="demo"
        See :func:`fast_params`.
    type_filter : str or list of str, default=None
        As in :func:`~localselect.utils.all_estimators`.

    Returns
    -------
    estimators : list of (str, estimator)
        ``(name, instance)`` pairs sorted by name.
    """
    found = all_estimators(type_filter)
    return [(name, cls(**fast_params(name, profile))) for name, cls in found]
