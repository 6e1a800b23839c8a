"""Every registered estimator fits a frame with every column kind, answers per input column,
and ranks a numeric noise column below the numeric signal (a planted design)."""

import warnings

import numpy as np
import pandas as pd
import pytest

import localselect
from localselect._estimators import registered
from localselect.utils import fast_params

NAMES = sorted(registered())


def _planted(n=400, seed=3, missing=False):
    """``y`` from a numeric and a nominal signal; numeric and string noise beside them."""
    rng = np.random.default_rng(seed)
    colour = rng.choice(["red", "green", "blue"], n)
    signal = rng.normal(size=n)
    frame = pd.DataFrame(
        {
            "signal": signal,
            "colour": pd.Categorical(colour),
            "noise": rng.normal(size=n),
            "word": rng.choice(["x", "y", "z"], n).astype(object),
            "flag": rng.random(n) > 0.5,
        },
        index=pd.RangeIndex(1000, 1000 + n, name="row"),
    )
    y = np.where(signal + 1.5 * (colour == "red") > 0.5, "yes", "no")
    if missing:
        frame.loc[frame.index[rng.random(n) < 0.05], "noise"] = np.nan
        frame.loc[frame.index[rng.random(n) < 0.05], "word"] = None
    return frame, y


def _scores(est, frame):
    """One score per input column: weights, MRMR's rank, LLDS's best subset, else the
    mean relevance over the rows."""
    if hasattr(est, "feature_importances_"):
        return np.asarray(est.feature_importances_, dtype=float)
    if hasattr(est, "ranking_"):
        scores = np.zeros(frame.shape[1])
        scores[np.asarray(est.ranking_)] = np.arange(len(est.ranking_), 0, -1)
        return scores
    return np.asarray(est.local_relevance(frame), dtype=float).mean(axis=0)


@pytest.mark.parametrize("name", NAMES)
def test_a_mixed_frame_fits_and_answers_per_input_column(name):
    cls = getattr(localselect, name)
    est = cls(**fast_params(name, "demo"))
    takes_nan = est.__sklearn_tags__().input_tags.allow_nan
    frame, y = _planted(missing=takes_nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(frame, y)
        local = est.get_local_support(frame)
    assert list(est.feature_names_in_) == list(frame.columns)
    assert est.get_support().shape == (frame.shape[1],)
    assert set(est.get_feature_names_out()) <= set(frame.columns)
    assert isinstance(local, pd.DataFrame)
    assert list(local.columns) == list(frame.columns) and local.index.equals(frame.index)
    score = dict(zip(frame.columns, _scores(est, frame), strict=True))
    assert score["signal"] > score["noise"], score
