"""LLDS with its defaults on a user's table: ``max_features="auto"`` against the time limit."""

from __future__ import annotations

import os
import time
from typing import Any

from localselect import LiftFeatureSelector
from localselect.datasets import list_datasets, load_dataset
from localselect_benchmarks._core import SuiteContext, register_suite
from localselect_benchmarks.llds.suite_llds import PAPER

#: Folders of the data manifest that hold UCI tables (``sklearn_*`` ship UCI data too).
UCI_FOLDERS = ("uci/", "mlbench/", "pmlb/")
#: Largest table (columns) LLDS's defaults are to serve in a minute (the target).
MAX_COLUMNS = 40
#: Seconds a default fit may take (``max_seconds``); a refusal must come within 2 s.
TARGET_SECONDS = 60.0


def uci_tables(max_columns: int = MAX_COLUMNS) -> list[str]:
    """Names of the manifest's UCI tables with at most ``max_columns`` features, here."""
    table = list_datasets()
    uci = table["path"].fillna("").str.startswith(UCI_FOLDERS) | table["name"].str.startswith(
        "sklearn_"
    )
    keep = uci & (table["n_features"] <= max_columns) & table["available"]
    return list(table.loc[keep, "name"])


@register_suite("llds-auto", paper=PAPER)
def llds_auto(ctx: SuiteContext) -> list[dict[str, Any]]:
    """LLDS with defaults (max_features="auto", max_seconds=60) on every UCI table with at
    most 40 columns: the subset size chosen and the fit time (target < 60 s, or a refusal
    within 2 s); quick: tables of at most 10 columns."""
    records: list[dict[str, Any]] = []
    names = [n for n in uci_tables(10 if ctx.quick else MAX_COLUMNS) if ctx.wants(n)]
    for name in ctx.progress(names, "LLDS defaults"):
        X, y = load_dataset(name, as_frame=True)
        start = time.perf_counter()
        try:
            sel = LiftFeatureSelector().fit(X, y)
            status, size = "ok", sel.max_features_
        except ValueError as exc:
            status, size = f"refused: {exc}", None
        seconds = time.perf_counter() - start
        target = TARGET_SECONDS if status == "ok" else 2.0
        records.append(
            {
                "table": name,
                "n_rows": X.shape[0],
                "n_features": X.shape[1],
                "max_features_": size,
                "fit seconds": round(seconds, 2),
                "target seconds": target,
                "met": seconds < target,
                "load average": round(os.getloadavg()[0], 2),
                "status": status,
            }
        )
    return records
