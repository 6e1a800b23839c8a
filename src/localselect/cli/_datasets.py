"""``localselect datasets list|show``: tables of the benchmark data."""

from __future__ import annotations

import numpy as np
import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from localselect.cli._terminal import print_table
from localselect.datasets import list_datasets, load_dataset


def show_dataset_list(console: Console, *, data_home: str | None = None) -> int:
    """Print every known data set with its shape, classes, papers and availability."""
    table_df = list_datasets(data_home=data_home)
    headers = ["name", "samples", "features", "classes", "here", "papers"]
    rows = [
        [
            escape(str(row.name)),
            str(row.n_samples),
            str(row.n_features),
            str(row.n_classes),
            "[green]yes[/green]" if row.available else "[red]no[/red]",
            escape(str(row.papers)),
        ]
        for row in table_df.itertuples(index=False)
    ]
    print_table(
        console,
        "localselect data sets",
        headers,
        rows,
        shrink=["papers"],
        right=["samples", "features", "classes"],
        note="(papers cut to the terminal width; `localselect datasets show NAME` lists them)",
    )
    n_here = int(table_df["available"].sum())
    console.print(f"{n_here} of {len(table_df)} available here.")
    return 0


def show_dataset(console: Console, name: str, *, data_home: str | None = None) -> int:
    """Describe one data set; load it to report class counts and missing values."""
    table_df = list_datasets(data_home=data_home)
    X, y = load_dataset(name, data_home=data_home, as_frame=True)  # raises with close matches
    key = name.lower()
    row = table_df[table_df["name"].str.lower() == key].iloc[0]
    info = Table(title=f"data set {row['name']}", show_header=False)
    info.add_column("field")
    info.add_column("value")
    for field in row.index:
        info.add_row(str(field), str(row[field]))
    n_missing = int(pd.isna(X).to_numpy().sum())
    n_categorical = int(sum(isinstance(t, pd.CategoricalDtype) for t in X.dtypes))
    info.add_row("loaded shape", f"{X.shape[0]} x {X.shape[1]}")
    info.add_row("missing cells", str(n_missing))
    info.add_row("categorical columns", str(n_categorical))
    counts = pd.Series(np.asarray(y)).value_counts(sort=False)
    info.add_row("class counts", ", ".join(f"{k}: {v}" for k, v in counts.items()))
    console.print(info)
    return 0
