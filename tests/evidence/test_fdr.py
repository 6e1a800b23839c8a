"""Benjamini-Hochberg q-values and selection against the step-up procedure written out."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from localselect.evidence import bh_qvalues, bh_select


def slow_bh_reject(p, alpha):
    """BH step-up: reject the k smallest, k the largest i with p_(i) <= i alpha / m."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    k = 0
    for rank, i in enumerate(order, start=1):
        if p[i] <= rank * alpha / m:
            k = rank
    reject = [False] * m
    for i in order[:k]:
        reject[i] = True
    return reject


def slow_qvalues(p):
    """q_i = min over j with p_j >= p_i (sorted at or after i) of m p_j / rank_j, capped at 1."""
    m = len(p)
    order = sorted(range(m), key=lambda i: (p[i], i))
    q = [0.0] * m
    for pos, i in enumerate(order):
        q[i] = min(1.0, min(m * p[j] / (r + 1) for r, j in enumerate(order) if r >= pos))
    return q


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=40),
    st.floats(0.001, 0.999),
)
def test_bh_matches_step_up(p, alpha):
    q = bh_qvalues(p)
    np.testing.assert_allclose(q, slow_qvalues(p), rtol=1e-12, atol=0)
    # away from the boundary p_(k) == k alpha / m, where rounding decides either way
    m = len(p)
    assume(all(abs(pi * m / k - alpha) > 1e-9 for pi in p for k in range(1, m + 1)))
    assert bh_select(p, alpha).tolist() == slow_bh_reject(p, alpha)


def test_bh_ties_and_grid_values():
    # p-values on the permutation grid tie often; tied p-values get one q-value
    p = np.array([1, 1, 2, 5, 5, 50, 1000]) / 1001
    q = bh_qvalues(p)
    assert q[0] == q[1] and q[3] == q[4]
    np.testing.assert_allclose(q, slow_qvalues(p.tolist()), rtol=1e-12)
    assert bh_select(p, 0.05).tolist() == slow_bh_reject(p.tolist(), 0.05)


def test_bh_rejects_bad_input():
    with pytest.raises(ValueError, match=r"p-values in \[0, 1\]"):
        bh_qvalues([0.1, np.nan])
    with pytest.raises(ValueError, match="fdr must be in"):
        bh_select([0.1], 1.5)
    assert bh_qvalues([]).shape == (0,)
