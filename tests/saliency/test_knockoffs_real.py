"""Real-column designs (make_real_column_design) and the knockoff sampler on them."""

from __future__ import annotations

import numpy as np
import pytest

from localselect.datasets import make_real_column_design
from localselect.saliency._knockoffs import KnockoffSampler, NoKnockoffPowerWarning

pytestmark = pytest.mark.data


@pytest.mark.parametrize("name", ["wdbc", "electrical_grid", "adult", "waveform"])
def test_design_truth(name, data_home):
    X, y, R = make_real_column_design(name, n_samples=2000, data_home=data_home, random_state=0)
    assert X.shape == R.shape and X.shape[0] == min(2000, X.shape[0])
    assert np.all(R.sum(axis=1) == 3) and 0.3 < y.mean() < 0.7
    assert R.all(axis=0).sum() == 1  # the switch column is relevant everywhere


def test_exact_dependence_of_the_grid_is_reported(data_home):
    X, _, _ = make_real_column_design("electrical_grid", n_samples=3000, data_home=data_home)
    with pytest.warns(NoKnockoffPowerWarning):
        sampler = KnockoffSampler().fit(X, np.random.RandomState(0))
    assert set(sampler.no_power_.tolist()) <= {4, 5, 6, 7}  # p1..p4
