"""Utilities: estimator discovery, the declared fast settings, the local-selector checks."""

from localselect.utils._registry import (
    continuous_target_estimators,
    fast_estimators,
    fast_params,
)
from localselect.utils.discovery import all_estimators

__all__ = ["all_estimators", "continuous_target_estimators", "fast_estimators", "fast_params"]
