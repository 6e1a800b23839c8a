"""Names renamed before the first release (docs/glossary.md) are gone, not aliased.

The new names are the only names: an old parameter name is an unexpected
keyword (and an invalid ``set_params`` key), and the old fitted attribute names
do not exist after ``fit``.
"""

from __future__ import annotations

import inspect

import pytest
from sklearn.base import clone

from localselect import (
    IM4E,
    BoostedImmigrate,
    GPLocalFeatureSelection,
    Immigrate,
    IRelief,
    LocalFeatureSelection,
)
from localselect.utils import all_estimators, fast_params
from localselect.utils.estimator_checks import make_check_data

X, Y = make_check_data(n_samples=40, n_features=5)

#: (estimator, old parameter name, the name that replaced it, a valid value)
OLD_PARAMETERS = [
    (IRelief, "n_neighbors", "n_candidates", 5),
    (IM4E, "n_neighbors", "n_candidates", 5),
    (Immigrate, "n_neighbors", "n_candidates", 5),
    (BoostedImmigrate, "n_neighbors", "n_candidates", 5),
    (LocalFeatureSelection, "alpha", "max_features", 2),
    (LocalFeatureSelection, "gamma", "impurity", 0.3),
    (LocalFeatureSelection, "tau", "max_iter", 1),
    (GPLocalFeatureSelection, "gamma", "threshold", 1.5),
]
IDS = [f"{p[0].__name__}-{p[1]}" for p in OLD_PARAMETERS]


@pytest.mark.parametrize(("cls", "old", "new", "value"), OLD_PARAMETERS, ids=IDS)
def test_an_old_parameter_name_is_an_unexpected_keyword(cls, old, new, value):
    cls(**{new: value})  # the new name takes the same value
    with pytest.raises(TypeError, match=rf"unexpected keyword argument '{old}'"):
        cls(**{old: value})
    with pytest.raises(ValueError, match=rf"Invalid parameter '{old}'"):
        cls().set_params(**{old: value})
    assert old not in cls().get_params()
    assert old not in cls._parameter_constraints


def test_no_signature_has_a_deprecated_sentinel():
    for name, cls in all_estimators():
        for param in inspect.signature(cls.__init__).parameters.values():
            assert param.default != "deprecated", f"{name}({param.name}=...)"


#: (estimator, old fitted attribute name, the name that replaced it)
OLD_ATTRIBUTES = [
    (IRelief(max_iter=3, n_candidates=5), "n_neighbors_", "n_candidates_"),
    (IM4E(max_iter=3, n_candidates=5), "n_neighbors_", "n_candidates_"),
    (Immigrate(max_iter=3, n_candidates=5), "n_neighbors_", "n_candidates_"),
    (
        BoostedImmigrate(n_estimators=2, max_iter=2, n_candidates=5),
        "n_neighbors_",
        "n_candidates_",
    ),
    (
        GPLocalFeatureSelection(**fast_params("GPLocalFeatureSelection", "check")),
        "gamma_",
        "threshold_",
    ),
]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore:GPLocalFeatureSelection. the local subspaces scored")
@pytest.mark.parametrize(
    ("est", "old", "new"),
    OLD_ATTRIBUTES,
    ids=[f"{type(a[0]).__name__}-{a[1]}" for a in OLD_ATTRIBUTES],
)
def test_an_old_fitted_attribute_name_does_not_exist(est, old, new):
    fitted = clone(est).fit(X, Y)
    assert hasattr(fitted, new)
    assert not hasattr(fitted, old)
    assert not hasattr(type(fitted), old)  # no alias property either
