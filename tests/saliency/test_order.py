"""The canonical column order (localselect.saliency._order)."""

from __future__ import annotations

import numpy as np

from localselect.saliency._order import canonical_order


def test_the_order_follows_the_columns_not_the_rows_or_their_positions():
    X = np.random.default_rng(0).standard_normal((50, 6))
    order = canonical_order(X)
    assert sorted(order) == list(range(6))
    np.testing.assert_array_equal(canonical_order(X[::-1]), order)  # rows permuted
    perm = np.array([3, 0, 5, 1, 4, 2])
    np.testing.assert_array_equal(perm[canonical_order(X[:, perm])], order)  # columns permuted
