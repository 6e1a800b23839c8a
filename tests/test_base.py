"""LocalSelectorMixin: the per-sample selector API, exercised through a tiny selector."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.utils.validation import validate_data

from localselect.base import LocalSelectorMixin
from localselect.utils.estimator_checks import check_local_selector, make_check_data


class _FarFromCentreSelector(LocalSelectorMixin, BaseEstimator):
    """Test double: a sample uses the features where it lies beyond 1 std of the mean."""

    def __init__(self, threshold=1.0):
        self.threshold = threshold

    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        self.scale_ = X.std(axis=0)
        self.local_support_ = self._local_support_mask(X)
        return self

    def _local_support_mask(self, X):
        return np.abs(X - self.mean_) > self.threshold * self.scale_


class _BrokenUnionSelector(_FarFromCentreSelector):
    def fit(self, X, y=None):
        super().fit(X, y)
        self.local_support_ = self.local_support_.copy()
        self.local_support_[:, 0] = False
        return self

    def get_support(self, indices=False):
        mask = np.ones(self.n_features_in_, dtype=bool)
        return np.flatnonzero(mask) if indices else mask


def test_mixin_passes_public_checks():
    check_local_selector(_FarFromCentreSelector())


def test_public_checks_catch_a_broken_union():
    with pytest.raises(AssertionError, match="union"):
        check_local_selector(_BrokenUnionSelector())


def test_transform_zeroes_and_keeps_width_in_pipeline():
    X, y = make_check_data()
    pipe = make_pipeline(_FarFromCentreSelector(), KNeighborsClassifier(3)).fit(X, y)
    sel = pipe[0]
    Xt = sel.transform(X)
    mask = sel.get_local_support(X)
    assert Xt.shape == X.shape
    np.testing.assert_array_equal(Xt[~mask], 0.0)
    np.testing.assert_array_equal(Xt[mask], X[mask])
    # the classifier after the selector saw the zeroed matrix, not X
    assert pipe.score(X, y) == KNeighborsClassifier(3).fit(Xt, y).score(Xt, y)


def test_get_local_support_defaults_to_training_masks():
    X, y = make_check_data()
    sel = _FarFromCentreSelector().fit(X, y)
    np.testing.assert_array_equal(sel.get_local_support(), sel.local_support_)
    assert sel.get_support().dtype == bool


def test_feature_names_round_trip_with_pandas():
    X, y = make_check_data()
    frame = pd.DataFrame(X, columns=[f"gene_{j}" for j in range(X.shape[1])])
    sel = _FarFromCentreSelector().fit(frame, y)
    assert list(sel.get_feature_names_out()) == list(frame.columns)
    with pytest.raises(ValueError, match="features"), pytest.warns(UserWarning, match="names"):
        sel.get_local_support(X[:, :3])


def test_nan_in_new_data_is_rejected_clearly():
    X, y = make_check_data()
    sel = _FarFromCentreSelector().fit(X, y)
    bad = X[:3].copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sel.get_local_support(bad)
