"""scikit-learn's estimator checks and our local-selector checks on every estimator."""

from __future__ import annotations

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from localselect.base import LocalSelectorMixin
from localselect.utils import fast_estimators
from localselect.utils.estimator_checks import local_selector_checks

#: Checks an estimator is known to fail, with the reason (sklearn's expected_failed_checks).
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {}


def _expected_failed_checks(estimator) -> dict[str, str]:
    return EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {})


def _instances():
    return [est for _, est in fast_estimators("check")]


@parametrize_with_checks(_instances(), expected_failed_checks=_expected_failed_checks)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _local_cases():
    for est in _instances():
        if isinstance(est, LocalSelectorMixin):
            for check in local_selector_checks(est):
                yield pytest.param(est, check, id=f"{type(est).__name__}-{check.__name__}")


@pytest.mark.parametrize(("estimator", "check"), list(_local_cases()))
def test_local_selector_contract(estimator, check):
    check(type(estimator).__name__, estimator)
