"""Fast constructor arguments for the test suites (one registry for all tests).

Each estimator that needs non-default arguments to run quickly in the common
checks gets one entry here; :func:`make_instances` builds the instances the
common tests run on. Add your estimator when it lands.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator

from localselect.utils.discovery import all_estimators

INIT_PARAMS: dict[str, dict] = {
    "FisherScore": {"n_features_to_select": 2},
}


def make_instances() -> list[BaseEstimator]:
    """One fast instance of every estimator localselect provides."""
    return [cls(**INIT_PARAMS.get(name, {})) for name, cls in all_estimators()]
