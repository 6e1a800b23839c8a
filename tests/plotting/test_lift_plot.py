"""plot_lift_table renders without a display and shows the table's lifts and counts."""

from __future__ import annotations

import io

import matplotlib
import numpy as np
import pandas as pd
import pytest

from localselect.lift import lift_table
from localselect.plotting import plot_lift_table

matplotlib.use("Agg")


def _table():
    x = ["Q1", "Q1", "Q1", "Q2", "Q2", "Q3"]
    y = [1, 1, 2, 2, 2, 1]
    return lift_table(x, y)


def test_cells_hold_lift_and_count():
    table = _table()
    fig = plot_lift_table(table)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert len(texts) == 3 * 2
    # Q1 / class 1: lift (2/3) / (1/2) = 1.33 from 2 rows.
    assert "1.33\n(2)" in texts
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2"]
    assert ax.get_yticklabels()[0].get_text().startswith("Q1")
    image = ax.images[0].get_array()
    np.testing.assert_allclose(image, table["lift"].to_numpy())
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    assert buf.getvalue().startswith(b"\x89PNG")


def test_draws_into_given_axes_and_multiindex_rows():
    from matplotlib.figure import Figure

    fig = Figure()
    ax = fig.add_subplot()
    X = pd.DataFrame({"a": ["y", "n", "y", "n"], "b": ["n", "n", "y", "y"]})
    out = plot_lift_table(lift_table(X, [0, 1, 0, 0]), ax=ax, title="t")
    assert out is fig and ax.get_title() == "t"
    assert ax.get_yticklabels()[0].get_text().startswith("(n, n)")


def test_rejects_other_frames():
    with pytest.raises(ValueError, match="lift_table"):
        plot_lift_table(pd.DataFrame({"x": [1]}))
