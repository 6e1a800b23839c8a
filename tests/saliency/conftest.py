"""Fits shared by the saliency tests."""

from __future__ import annotations

import warnings

import pytest

from localselect.datasets import make_instancewise_synthetic
from localselect.saliency import ConditionalSaliencySelection, FewHeldOutRowsWarning


@pytest.fixture(scope="session")
def syn6():
    """A default fit on 10,000 Syn6 rows, and 1,000 test rows of another seed."""
    X, y, _ = make_instancewise_synthetic(10_000, "syn6", random_state=1)
    Xt, _, Rt = make_instancewise_synthetic(1000, "syn6", random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FewHeldOutRowsWarning)  # 3,000 held out: calibrated
        return ConditionalSaliencySelection(random_state=0).fit(X, y), Xt, Rt
