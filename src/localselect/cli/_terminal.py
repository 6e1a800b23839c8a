"""Tables that fit the terminal: never a wrapped row.

A table is printed as it is when it fits ``console.width`` (a terminal's
width; ``COLUMNS`` or 80 when piped). Otherwise its long text columns are
cut with ``...`` (down to :data:`MIN_WIDTH` characters each), and when even
that does not fit, every row is printed as a block of ``column: value``
lines, each cut to the width. The full values are in the files the command
writes; ``note`` says which. Piped output is plain ASCII (ASCII box, ``...``),
so a line's length in bytes is its width.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

__all__ = ["MIN_WIDTH", "cut", "print_table"]

#: Narrowest a truncated column gets before the table is stacked instead.
MIN_WIDTH = 10


def _table(
    console: Console,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: set[str],
    limits: dict[str, int],
) -> Table:
    style = box.HEAVY_HEAD if console.is_terminal else box.ASCII2
    table = Table(title=title, box=style, show_edge=False, pad_edge=False)
    for header in headers:
        table.add_column(header, justify="right" if header in right else "left", no_wrap=True)
    for row in rows:
        table.add_row(
            *(
                cut(cell, limits[h]) if h in limits else Text.from_markup(cell)
                for h, cell in zip(headers, row)
            )
        )
    return table


def _width(console: Console, table: Table) -> int:
    """Width the table takes when nothing limits it."""
    options = console.options.update(max_width=10**6)
    return Measurement.get(console, options, table).maximum


def print_table(
    console: Console,
    title: str,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    *,
    shrink: Sequence[str] = (),
    right: Sequence[str] = (),
    key: int = 1,
    note: str | None = None,
) -> str:
    """Print ``rows`` under ``headers`` within ``console.width``; return the layout used.

    Parameters
    ----------
    console : rich.console.Console
    title : str
    headers : sequence of str
    rows : sequence of sequence of str
        Cell texts (rich markup allowed).
    shrink : sequence of str
        Columns that may be cut (long free text), the first listed first, each
        down to ``MIN_WIDTH`` or its header.
    right : sequence of str
        Right-aligned columns (numbers).
    key : int, default=1
        Leading columns that head each block in the stacked layout.
    note : str, default=None
        Printed after a truncated or stacked table (where the full values are).

    Returns
    -------
    layout : {"table", "truncated", "stacked"}
    """
    width = console.width
    right_set = set(right)
    table = _table(console, title, headers, rows, right_set, {})
    full = _width(console, table)
    if full <= width:
        console.print(table)
        return "table"
    natural = {
        h: max([len(h)] + [Text.from_markup(r[i]).cell_len for r in rows])
        for i, h in enumerate(headers)
    }
    limits = {h: natural[h] for h in shrink}
    floor = {h: max(MIN_WIDTH, len(h)) for h in shrink}  # headers are never cut
    excess = full - width
    for h in shrink:  # the first listed column gives up its width first
        cut_by = min(excess, limits[h] - floor[h])
        if cut_by > 0:
            limits[h] -= cut_by
            excess -= cut_by
    if excess <= 0:
        table = _table(console, title, headers, rows, right_set, limits)
        if _width(console, table) <= width:
            console.print(table)
            if note:
                console.print(cut(note, width))
            return "truncated"
    console.print(cut(f"[bold]{title}[/bold]", width))
    for row in rows:
        console.print(cut("  ".join(f"[bold]{c}[/bold]" for c in row[:key]), width))
        label = max(len(h) for h in headers[key:]) if len(headers) > key else 0
        for header, cell in zip(headers[key:], row[key:]):
            console.print(cut(f"  {header.ljust(label)}  {cell}", width))
    if note:
        console.print(cut(note, width))
    return "stacked"


def cut(markup: str, width: int) -> Text:
    """One line of at most ``width`` cells, ending in ``...`` when cut."""
    text = Text.from_markup(markup)
    text.no_wrap = True
    if text.cell_len > width:
        text.truncate(max(width - 3, 0))
        text.append("..."[: width - text.cell_len])
    return text
