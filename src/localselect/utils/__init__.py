"""Utilities: estimator discovery, the registry of fast settings, the local-selector checks."""

from localselect.utils._registry import fast_estimators, fast_params
from localselect.utils.discovery import all_estimators

__all__ = ["all_estimators", "fast_estimators", "fast_params"]
