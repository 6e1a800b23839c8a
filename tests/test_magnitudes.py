"""Values at the ends of float64's range: a clear ValueError or finite results, never NaN/inf."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from localselect._magnitudes import LARGEST_MAGNITUDE, SMALLEST_SPREAD, check_magnitudes
from localselect.base import LocalSelectorMixin
from localselect.utils import fast_estimators


def _data(seed=0, n=40):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, "yes", "no")
    return X, y


def _outputs(est, X):
    """Every number a fitted estimator gives: importances, scores, probabilities."""
    out = []
    for name in ("feature_importances_", "scores_", "weights_", "relevance_"):
        value = getattr(est, name, None)
        if isinstance(value, np.ndarray) and value.dtype.kind == "f":
            out.append((name, value))
    if hasattr(est, "predict_proba"):
        out.append(("predict_proba", est.predict_proba(X)))
    if hasattr(est, "predict"):
        est.predict(X)
    if isinstance(est, LocalSelectorMixin):
        out.append(("local_relevance", est.local_relevance(X)))
    return out


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def _cases():
    X, _ = _data()
    huge_cell = X.copy()
    huge_cell[3, 2] = 1e300
    tiny_column = X.copy()
    tiny_column[:, 1] *= 1e-300
    near_max = X.copy()
    near_max[:, 3] *= 1e100 / np.abs(near_max[:, 3]).max() / 2  # largest accepted order
    near_min = X.copy()
    near_min[:, 0] *= 1e-100 / np.ptp(near_min[:, 0]) * 2  # smallest accepted spread
    tiny_cell = X.copy()
    tiny_cell[5, 0] = 1e-300  # a tiny value in an ordinary column is fine
    return {
        "huge_cell": (huge_cell, "column 2", "1e+300"),
        "tiny_column": (tiny_column, "column 1", "varies only by"),
        "near_max": (near_max, None, None),
        "near_min": (near_min, None, None),
        "tiny_cell": (tiny_cell, None, None),
    }


CASES = _cases()


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize(
    "est", [est for _, est in fast_estimators("check")], ids=lambda est: type(est).__name__
)
def test_every_estimator_refuses_at_once_or_gives_finite_results(est, case):
    X, column, scale = CASES[case]
    _, y = _data()
    if column is not None:
        with pytest.raises(ValueError, match="Rescale the column") as info:
            _fit(est, X, y)
        assert column in str(info.value) and scale in str(info.value)
        return
    _fit(est, X, y)
    for name, value in _outputs(est, X):
        assert np.all(np.isfinite(value)), f"{type(est).__name__}.{name} is not finite"


def _predictors():
    return [
        est
        for _, est in fast_estimators("check")
        if hasattr(est, "predict") or isinstance(est, LocalSelectorMixin)
    ]


@pytest.mark.parametrize("est", _predictors(), ids=lambda est: type(est).__name__)
def test_new_rows_out_of_range_are_refused_naming_the_column(est):
    X, y = _data()
    _fit(est, X, y)
    Q = X[:5].copy()
    Q[2, 3] = -1e200
    methods = [m for m in ("predict_proba", "predict") if hasattr(est, m)]
    if isinstance(est, LocalSelectorMixin):
        methods.append("local_relevance")
    for method in methods:
        with pytest.raises(ValueError, match="column 3"):
            getattr(est, method)(Q)


def test_the_check_names_pandas_columns_and_ignores_nan():
    import pandas as pd
    from sklearn.feature_selection import VarianceThreshold

    frame = pd.DataFrame({"income": [1.0, np.nan, 2e150], "age": [30.0, 40.0, np.nan]})
    est = VarianceThreshold().fit(frame.fillna(0))
    with pytest.raises(ValueError, match=r"column 0 \('income'\) holds values up to 2e\+150"):
        check_magnitudes(est, frame.to_numpy())
    ok = np.array([[1.0, np.nan], [2.0, 3.0], [np.nan, 0.0]])
    assert check_magnitudes(est, ok) is ok
    constant = np.full((3, 2), 1e-300)  # a constant column varies by 0: allowed
    assert check_magnitudes(est, constant) is constant
    assert LARGEST_MAGNITUDE * SMALLEST_SPREAD == 1.0


def test_a_raw_table_is_checked_on_its_numeric_cells():
    import pandas as pd

    from localselect.lift import LiftFeatureSelector

    X, y = _data()
    frame = pd.DataFrame(X, columns=["a", "b", "c", "d"]).astype(object)
    frame["site"] = np.where(X[:, 1] > 0, "north", "south")
    frame.loc[4, "c"] = 1e300
    with pytest.raises(ValueError, match=r"column 2 \('c'\) holds values up to 1e\+300"):
        LiftFeatureSelector().fit(frame, y)
