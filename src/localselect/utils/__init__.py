"""Utilities: estimator discovery and the public local-selector checks."""

from localselect.utils.discovery import all_estimators

__all__ = ["all_estimators"]
