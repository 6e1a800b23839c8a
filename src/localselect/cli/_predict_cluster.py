"""``predict --cluster``: a saved model applied to a table that lives on a Dask cluster.

The rows are read on the cluster (:mod:`localselect.cli._cluster_io`); rows
with a missing value in the model's columns are left out. Each partition is
answered as ``predict`` answers its rows
(:func:`localselect.cli._steps.predict_rows`) and written to ``--out`` as
Parquet partitions, one per input partition, indexed by the row number in the
input.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from localselect.cli._cluster_io import clear_output, connect, read_lazy
from localselect.cli._errors import CLIError
from localselect.cli._model_io import load_bundle
from localselect.cli._steps import predict_rows

if TYPE_CHECKING:
    import pandas as pd
    from rich.console import Console

__all__ = ["run_predict_cluster"]


def _predict_block(part: pd.DataFrame, bundle: dict[str, Any], per_level: bool) -> Any:
    return predict_rows(bundle, part, per_level=per_level)


def run_predict_cluster(args: argparse.Namespace, console: Console) -> int:
    """``predict --cluster``: the saved model applied per partition, written as Parquet."""
    from localselect.cli._progress import status
    from localselect.cli._table import check_columns

    if not args.out:
        raise CLIError("predict --cluster writes Parquet partitions: give --out FOLDER")
    bundle = load_bundle(Path(args.model))
    with connect(args.cluster), status(console, f"predicting {args.input} on the cluster ..."):
        frame = read_lazy(args.input, args.na_values)
        check_columns(frame._meta, bundle["columns"], "feature")
        X = frame[bundle["columns"]].dropna()
        sample = X.head(8, npartitions=-1)
        if len(sample) == 0:
            raise CLIError("every row has a missing value; impute them first")
        meta = _predict_block(sample, bundle, args.per_level).iloc[:0]
        rows = X.map_partitions(_predict_block, bundle, args.per_level, meta=meta)
        folder = Path(args.out)
        clear_output(folder)
        rows.to_parquet(folder, write_index=True)
    console.print(f"wrote the per-row predictions to {folder} (Parquet partitions)")
    return 0
