"""The only module that imports private scikit-learn API.

Everything scikit-learn does not export publicly but that our estimators rely on
(parameter validation and the ``fit`` context) is imported here once, so a
scikit-learn upgrade that moves one of these names breaks in a single place.
"""

from sklearn.base import _fit_context as fit_context
from sklearn.utils._param_validation import (
    HasMethods,
    Interval,
    RealNotInt,
    StrOptions,
    validate_params,
)
from sklearn.utils.validation import _check_feature_names_in as check_feature_names_in

__all__ = [
    "HasMethods",
    "Interval",
    "RealNotInt",
    "StrOptions",
    "check_feature_names_in",
    "fit_context",
    "validate_params",
]
