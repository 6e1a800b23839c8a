"""localselect._fitted: a record assigned as fitted attributes, stale attributes deleted."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from localselect._fitted import FittedStateMixin


class _Fit(NamedTuple):
    weights_: np.ndarray
    n_iter_: int


class _Estimator(FittedStateMixin):
    #: A class attribute of the same name as a fitted one: never deleted.
    kind_ = "class"


def test_a_record_sets_the_attributes_its_fields_name():
    est = _Estimator()
    est._assign(_Fit(np.arange(3.0), 4))
    np.testing.assert_array_equal(est.weights_, [0.0, 1.0, 2.0])
    assert est.n_iter_ == 4


def test_discard_deletes_only_what_a_previous_fit_set_on_the_instance():
    est = _Estimator()
    est.pvalues_ = np.ones(2)
    est.kind_ = "instance"
    est._discard(("pvalues_", "qvalues_", "kind_"))  # qvalues_ was never set: no error
    assert not hasattr(est, "pvalues_") and not hasattr(est, "qvalues_")
    assert est.kind_ == "class"  # the instance's value went; the class's stays
    est._discard(("kind_",))
    assert est.kind_ == "class"
