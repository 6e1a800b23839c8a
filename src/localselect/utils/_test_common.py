"""Fast constructor arguments for the test suites (one registry for all tests).

Each estimator that needs non-default arguments to run quickly in the common
checks gets one entry here; :func:`make_instances` builds the instances the
common tests run on. Add your estimator when it lands.
"""

from __future__ import annotations

from sklearn.base import BaseEstimator

from localselect.lift import MahalanobisQuantileDiscretizer
from localselect.utils.discovery import all_estimators

INIT_PARAMS: dict[str, dict] = {
    "BoostedImmigrate": {"n_estimators": 3, "max_iter": 2},
    "FisherScore": {"n_features_to_select": 2},
    "GPLocalFeatureSelection": {"n_neighbors": 3, "max_iter": 5, "random_state": 0},
    "IM4E": {"max_iter": 3},
    "IRelief": {"max_iter": 3},
    "Immigrate": {"max_iter": 3},
    "LiftFeatureSelector": {"max_features": 2, "discretizer": MahalanobisQuantileDiscretizer()},
    "LocalFeatureSelection": {"alpha": 3, "n_beta": 4, "tau": 1},
    "Relief": {"n_features_to_select": 2},
    "ReliefF": {"n_neighbors": 3, "n_features_to_select": 2},
    "Simba": {"max_iter": 3},
}


def make_instances() -> list[BaseEstimator]:
    """One fast instance of every estimator localselect provides."""
    return [cls(**INIT_PARAMS.get(name, {})) for name, cls in all_estimators()]
