"""Paired t-test win/tie/loss (IMMIGRATE paper, Sec. 4.2) and mean/std aggregation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.special import betainc

from localselect_benchmarks._stats import aggregate_trials, paired_wtl, wtl_counts


def reference_wtl(a, b, alpha=0.05, higher_is_better=True):
    """Slow, obviously correct version: the t statistic and Student-t tails by hand."""
    d = [(x - y) if higher_is_better else (y - x) for x, y in zip(a, b)]
    n = len(d)
    mean = sum(d) / n
    var = sum((v - mean) ** 2 for v in d) / (n - 1)
    if var == 0.0:
        return "tie" if mean == 0 else ("win" if mean > 0 else "loss")
    t = mean / math.sqrt(var / n)
    df = n - 1
    p_two = betainc(df / 2, 0.5, df / (df + t * t))  # P(|T| >= |t|)
    if p_two >= alpha:
        return "tie"
    p_greater = p_two / 2 if t > 0 else 1 - p_two / 2  # P(T >= t)
    return "win" if p_greater < alpha else "loss"


trials = arrays(
    np.float64,
    st.integers(2, 30),
    elements=st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 2)),
)


@given(trials, st.floats(-0.2, 0.2), st.integers(0, 2**16))
def test_wtl_matches_the_reference(a, shift, seed):
    noise = np.random.default_rng(seed).normal(0, 0.05, size=a.size)
    b = a + shift + noise
    for higher in (True, False):
        got = paired_wtl(a, b, higher_is_better=higher)
        assert got.outcome == reference_wtl(a, b, higher_is_better=higher)
        assert got.n_trials == a.size


@given(trials, st.integers(0, 2**16))
def test_swapping_the_methods_swaps_win_and_loss(a, seed):
    b = a + np.random.default_rng(seed).normal(0.02, 0.05, size=a.size)
    forward = paired_wtl(a, b).outcome
    backward = paired_wtl(b, a).outcome
    assert {"win": "loss", "loss": "win", "tie": "tie"}[forward] == backward
    assert paired_wtl(a, b, higher_is_better=False).outcome == backward


def test_clear_cases_and_the_paper_threshold():
    rng = np.random.default_rng(0)
    base = rng.uniform(0.7, 0.9, size=100)
    # 100 trials (10 x 10-fold), a consistent 2-point gain: a win for A.
    assert paired_wtl(base + 0.02 + rng.normal(0, 0.01, 100), base).outcome == "win"
    assert paired_wtl(base, base + 0.02 + rng.normal(0, 0.01, 100)).outcome == "loss"
    # Differences of +-0.01 that cancel exactly: p = 1, a tie.
    wiggle = np.tile([0.01, -0.01], 50)
    result = paired_wtl(base + wiggle, base)
    assert result.outcome == "tie" and result.p_two_sided == pytest.approx(1.0)
    # Error rates: lower is better, so the same numbers flip.
    assert paired_wtl(base - 0.05, base, higher_is_better=False).outcome == "win"


def test_alpha_decides_between_tie_and_win():
    a = np.array([0.80, 0.82, 0.79, 0.85, 0.81, 0.83])
    b = np.array([0.79, 0.80, 0.80, 0.82, 0.80, 0.80])
    p = paired_wtl(a, b).p_two_sided
    assert 0.01 < p < 0.1  # chosen so the two levels below disagree
    assert paired_wtl(a, b, alpha=p * 1.01).outcome == "win"
    assert paired_wtl(a, b, alpha=p * 0.99).outcome == "tie"


def test_zero_variance_differences():
    a = np.array([0.9, 0.8, 0.7])
    assert paired_wtl(a, a).outcome == "tie"
    assert paired_wtl(a + 0.1, a).outcome == "win"
    assert paired_wtl(a - 0.1, a).outcome == "loss"


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ([0.1, 0.2], [0.1], "same number"),
        ([0.1], [0.2], "at least 2"),
        ([0.1, np.nan], [0.2, 0.3], "NaN"),
    ],
)
def test_bad_trials_raise(a, b, match):
    with pytest.raises(ValueError, match=match):
        paired_wtl(a, b)


def test_wtl_counts():
    assert wtl_counts(["win", "tie", "win", "loss"]) == (2, 1, 1)
    with pytest.raises(ValueError, match="Unknown outcome"):
        wtl_counts(["draw"])


def test_aggregate_trials_records():
    rng = np.random.default_rng(1)
    ours = 0.9 + rng.normal(0, 0.01, 20)
    trials = {"IGT": ours, "1-NN": ours - 0.1, "DT": ours + rng.normal(0, 0.01, 20)}
    records = aggregate_trials(
        trials, reference="IGT", table="Table 2", dataset="SMR", metric="accuracy"
    )
    by_method = {r["method"]: r for r in records}
    assert by_method["IGT"]["value"] == pytest.approx(ours.mean())
    assert by_method["IGT"]["std"] == pytest.approx(ours.std(ddof=1))
    assert "wtl" not in by_method["IGT"]
    assert by_method["1-NN"]["wtl"] == "win" and by_method["1-NN"]["wtl_reference"] == "IGT"
    assert all(r["table"] == "Table 2" and r["n_trials"] == 20 for r in records)
    with pytest.raises(ValueError, match="Reference method"):
        aggregate_trials(trials, reference="BIM")
