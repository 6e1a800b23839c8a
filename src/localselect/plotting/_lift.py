"""An LLDS lift table as an annotated heat map (the paper's Tables 1-3 and 7 as a picture)."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect._docstrings import fill_doc
from localselect.plotting._axes import new_axes

__all__ = ["plot_lift_table"]


def _row_label(value: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(str(v) for v in value) + ")"
    return str(value)


@fill_doc
def plot_lift_table(table, ax=None, *, title: str | None = None, cmap: str = "RdBu_r"):
    """Heat map of a lift table: rows are profiles, columns classes, counts in the cells.

    Colours are centred on a lift of 1 (independence): red cells are profiles
    that lift the class, blue ones inhibit it. Each cell reads
    ``lift`` over ``(count)``; row labels carry the profile's relative frequency.

    Parameters
    ----------
    table : DataFrame or LiftFeatureSelector
        A table from :func:`localselect.lift.lift_table` (column groups
        ``"lift"`` and ``"count"``), or a fitted
        :class:`~localselect.lift.LiftFeatureSelector`: the lift table of its
        best result's features on its training rows (``best_lift_counts_``;
        the columns are the quantile bins of a continuous ``y``).
    ax : matplotlib Axes, default=None
        Axes to draw into; a new display-free figure otherwise.
    title : str, default=None
        Axes title; default names the features of the table's index.
    cmap : str, default="RdBu_r"
        A diverging matplotlib colour map.

    %(plot_returns)s

    Examples
    --------
    >>> from localselect.lift import lift_table
    >>> from localselect.plotting import plot_lift_table
    >>> fig = plot_lift_table(lift_table(["a", "a", "b", "b"], [0, 0, 0, 1]))
    >>> [t.get_text() for t in fig.axes[0].get_xticklabels()]
    ['0', '1']
    """
    from matplotlib.colors import TwoSlopeNorm

    if hasattr(table, "get_params") and hasattr(table, "fit"):  # an estimator
        if not hasattr(table, "best_lift_table"):
            raise ValueError(
                "plot_lift_table draws the lift table of a LiftFeatureSelector (or a table "
                f"from localselect.lift.lift_table); got {type(table).__name__}."
            )
        table = table.best_lift_table()
    if not hasattr(table, "columns") or "lift" not in table.columns.get_level_values(0):
        raise ValueError(
            "plot_lift_table needs a table from localselect.lift.lift_table "
            "(with 'lift' and 'count' column groups) or a fitted LiftFeatureSelector; "
            f"got {type(table).__name__}."
        )
    lift = table["lift"].to_numpy(dtype=float)
    counts = table["count"].to_numpy()
    classes = [str(c) for c in table["lift"].columns]
    frequency = table[("frequency", "")].to_numpy(dtype=float) if "frequency" in table else None
    rows = [_row_label(v) for v in table.index]
    if frequency is not None:
        rows = [f"{r}  [{f:.2f}]" for r, f in zip(rows, frequency)]
    n_rows, n_cols = lift.shape
    fig, ax = new_axes(
        ax, figsize=(min(14.0, 2.5 + 1.1 * n_cols), min(14.0, 1.5 + 0.45 * max(n_rows, 1)))
    )
    top = max(float(np.nanmax(lift)) if lift.size else 1.0, 1.0 + 1e-6)
    norm = TwoSlopeNorm(vmin=0.0, vcenter=1.0, vmax=top)
    image = ax.imshow(lift, cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    fig.colorbar(image, ax=ax, label="lift P(y | x) / P(y)")
    ax.set_xticks(np.arange(n_cols), classes)
    ax.set_yticks(np.arange(n_rows), rows)
    ax.set_xlabel("class")
    names = [n for n in table.index.names if n is not None]
    ax.set_ylabel("profile of (" + ", ".join(map(str, names)) + ")  [frequency]")
    if n_rows * n_cols <= 400:
        for (i, j), value in np.ndenumerate(lift):
            strong = abs(norm(value) - 0.5) > 0.3
            ax.text(
                j,
                i,
                f"{value:.3g}\n({int(counts[i, j]):,})",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if strong else "black",
            )
    ax.set_title(title or "Lift function")
    return fig
