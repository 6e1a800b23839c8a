"""Fast constructor arguments of every estimator, from the estimators' declarations.

Two profiles: ``"check"`` (the smallest settings, for the scikit-learn and
local-selector checks of the test suite) and ``"demo"`` (a few seconds per
method on a few hundred samples: ``localselect demo`` and the scaling
benchmark). Each estimator declares its own on its class (``_declaration``, a
:class:`localselect._estimators.Declaration`); one without runs with its
defaults.
"""

from __future__ import annotations

from typing import Any

from sklearn.base import BaseEstimator, clone

from localselect._estimators import PROFILES, continuous_target_names, profile_params, registered
from localselect.utils.discovery import all_estimators

__all__ = ["continuous_target_estimators", "fast_estimators", "fast_params"]


def continuous_target_estimators() -> list[tuple[str, type]]:
    """The estimators whose ``fit`` takes a continuous target (a regression ``y``).

    Read from the estimators' declarations (``targets=("classes",
    "continuous")``); every other estimator refuses a continuous ``y`` with a
    message naming these.

    Returns
    -------
    estimators : list of (str, type)
        ``(name, class)`` pairs sorted by name.

    Examples
    --------
    >>> from localselect.utils import continuous_target_estimators
    >>> "MRMR" in dict(continuous_target_estimators())
    True
    """
    classes = registered()
    return [(name, classes[name]) for name in continuous_target_names()]


def _fresh(cls: type, profile: str) -> dict[str, Any]:
    """The declared arguments of ``cls`` under ``profile``, estimator values cloned."""
    params = profile_params(cls, profile)
    return {k: clone(v) if isinstance(v, BaseEstimator) else v for k, v in params.items()}


def fast_params(name: str, profile: str = "demo") -> dict[str, Any]:
    """Constructor arguments of estimator ``name`` under ``profile`` (fresh copies).

    Parameters
    ----------
    name : str
        Class name of a registered estimator (one exported by ``localselect``).
    profile : {"check", "demo"}, default="demo"
        ``"check"``: the smallest settings; ``"demo"``: seconds per fit on a
        few hundred samples.

    Returns
    -------
    params : dict
        The estimator's declared arguments; empty for a name without a
        declaration. Estimator-valued arguments are unfitted clones.

    Examples
    --------
    >>> from localselect.utils import fast_params
    >>> fast_params("Immigrate", "check")
    {'max_iter': 3}
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be 'check' or 'demo'; got {profile!r}.")
    cls = registered().get(name)
    return {} if cls is None else _fresh(cls, profile)


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
    if profile not in PROFILES:
        raise ValueError(f"profile must be 'check' or 'demo'; got {profile!r}.")
    return [(name, cls(**_fresh(cls, profile))) for name, cls in all_estimators(type_filter)]
