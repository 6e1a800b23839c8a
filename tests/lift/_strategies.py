"""Hypothesis strategies for small discrete tables with missing values."""

from __future__ import annotations

from hypothesis import strategies as st


@st.composite
def discrete_tables(draw, max_rows=24, max_features=4, missing=True, max_levels=3):
    """(X as list of row tuples with None for missing, y as list of labels), >= 2 classes."""
    n = draw(st.integers(4, max_rows))
    m = draw(st.integers(1, max_features))
    levels = draw(st.integers(2, max_levels))
    value = st.integers(0, levels - 1)
    cell = st.one_of(st.none(), value) if missing else value
    X = [tuple(draw(cell) for _ in range(m)) for _ in range(n)]
    y = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    if len(set(y)) < 2:
        y[0], y[-1] = 0, 1
    return X, y


def to_array(X):
    """Rows with None -> float array with NaN."""
    import numpy as np

    return np.array([[np.nan if v is None else float(v) for v in row] for row in X])
