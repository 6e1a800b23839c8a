"""Renamed parameters and attributes (docs/glossary.md): old names warn and still work."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone

from localselect import (
    IM4E,
    BoostedImmigrate,
    Immigrate,
    IRelief,
    LocalFeatureSelection,
)
from localselect.utils.estimator_checks import make_check_data

X, Y = make_check_data(n_samples=40, n_features=5)


def _fitted_arrays(est):
    return {k: v for k, v in vars(est).items() if k.endswith("_") and isinstance(v, np.ndarray)}


def _same_fit(old, new):
    a, b = _fitted_arrays(old), _fitted_arrays(new)
    assert a.keys() == b.keys() and a
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


#: (estimator, old parameter, new parameter, value, other constructor arguments)
PARAMETERS = [
    (IRelief, "n_neighbors", "n_candidates", 5, {"max_iter": 3}),
    (IM4E, "n_neighbors", "n_candidates", 5, {"max_iter": 3}),
    (Immigrate, "n_neighbors", "n_candidates", 5, {"max_iter": 3}),
    (BoostedImmigrate, "n_neighbors", "n_candidates", 5, {"n_estimators": 2, "max_iter": 2}),
    (LocalFeatureSelection, "alpha", "max_features", 2, {"n_beta": 4, "max_iter": 1}),
    (LocalFeatureSelection, "gamma", "impurity", 0.3, {"max_features": 2, "n_beta": 4}),
    (LocalFeatureSelection, "tau", "max_iter", 1, {"max_features": 2, "n_beta": 4}),
]


@pytest.mark.parametrize(
    ("cls", "old", "new", "value", "kw"),
    PARAMETERS,
    ids=[f"{p[0].__name__}-{p[1]}" for p in PARAMETERS],
)
def test_old_parameter_name_warns_and_fits_as_the_new_one(cls, old, new, value, kw):
    with pytest.warns(
        FutureWarning, match=rf"{cls.__name__}: parameter '{old}' was renamed to '{new}'"
    ):
        old_fit = cls(**kw, **{old: value}).fit(X, Y)
    new_fit = cls(**kw, **{new: value}).fit(X, Y)
    _same_fit(old_fit, new_fit)
    # The old name is a real parameter until it is removed: clone keeps it.
    assert clone(cls(**{old: value})).get_params()[old] == value


@pytest.mark.parametrize(
    ("cls", "old", "new", "value", "kw"),
    PARAMETERS,
    ids=[f"{p[0].__name__}-{p[1]}" for p in PARAMETERS],
)
def test_old_and_new_name_together_are_refused(cls, old, new, value, kw):
    other = {int: 3, float: 0.7}[type(value)]
    est = cls(**{**kw, new: other, old: value})
    with pytest.raises(ValueError, match=rf"got both {old}=.* and {new}=.*pass {new} only"):
        est.fit(X, Y)


ATTRIBUTES = [
    (IRelief(max_iter=3, n_candidates=5), "n_neighbors_", "n_candidates_"),
    (IM4E(max_iter=3, n_candidates=5), "n_neighbors_", "n_candidates_"),
    (Immigrate(max_iter=3, n_candidates=5), "n_neighbors_", "n_candidates_"),
    (
        BoostedImmigrate(n_estimators=2, max_iter=2, n_candidates=5),
        "n_neighbors_",
        "n_candidates_",
    ),
]


@pytest.mark.parametrize(
    ("est", "old", "new"), ATTRIBUTES, ids=[f"{type(a[0]).__name__}-{a[1]}" for a in ATTRIBUTES]
)
def test_old_attribute_name_warns_and_reads_the_new_one(est, old, new):
    assert not hasattr(clone(est), old)  # unfitted: neither name exists
    fitted = clone(est).fit(X, Y)
    with pytest.warns(FutureWarning, match=rf"attribute '{old}' was renamed to '{new}'"):
        value = getattr(fitted, old)
    assert value == getattr(fitted, new)
