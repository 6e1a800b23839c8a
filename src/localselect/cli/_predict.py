"""``localselect predict``: a model saved by ``localselect select`` applied to new rows.

The rows are read and prepared as ``select`` prepared its table (the fitted
preparation is part of the saved model); the output has one row per input row
with the prediction (classifiers; a number where the model predicts a
continuous target), the class probabilities (classifiers) and the row's
selected columns (local selectors), as :mod:`localselect.cli._select` defines
them. Before it writes, ``predict`` says what it did to the rows
(:mod:`localselect.cli._new_rows`): the categories never seen in training,
named and treated as missing, and the rows with missing values, imputed by
the model or kept for a method that takes them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from localselect.cli._model_io import load_bundle
from localselect.cli._steps import model_rows, predict_rows, read_input

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["run_predict"]


def run_predict(args: argparse.Namespace, console: Console) -> int:
    """Apply a saved model to new rows; write predictions and per-sample selected features.

    The steps: :func:`~localselect.cli._model_io.load_bundle`, then
    :func:`~localselect.cli._steps.read_input`,
    :func:`~localselect.cli._steps.model_rows` and
    :func:`~localselect.cli._steps.predict_rows` (shared with the other
    commands), then the output written.
    """
    bundle = load_bundle(Path(args.model))
    X = model_rows(read_input(args.input, args.na_values), bundle)
    out = predict_rows(bundle, X, per_level=args.per_level)
    if args.out:
        out.to_csv(args.out)
        console.print(f"wrote {len(out)} rows to {args.out}", highlight=False)
    else:
        console.print(out.to_csv(), end="", markup=False, highlight=False, soft_wrap=True)
    return 0
