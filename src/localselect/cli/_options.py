"""The argument tables of ``select`` and ``predict`` (and their ``--cluster`` forms).

Building a parser imports no estimator, numpy or pandas (``localselect --help``
stays fast): the lists a help text names (the method names, the methods that
fit on the workers) are read from the registry only when the help is shown.
"""

from __future__ import annotations

import argparse
from typing import Any

from localselect.cli._evidence import add_evidence_arguments, n_features_arg
from localselect.cli._task import add_task_argument

__all__ = [
    "DEFAULT_SAMPLE",
    "add_cluster_arguments",
    "add_predict_parser",
    "add_reading_arguments",
    "add_select_parser",
    "collection_fit_methods",
]

#: Rows of the in-memory sample for estimators without a fit on Dask collections.
DEFAULT_SAMPLE = 100_000

_PER_LEVEL_HELP = (
    "also give the detail per encoded feature (one-hot level of a categorical column); "
    "by default every output names the input's columns"
)


class _MethodNames:
    """The method names for ``--method``'s help, listed when the help is shown."""

    def __str__(self) -> str:
        from localselect.cli._methods import methods

        return ", ".join(sorted(methods()))


def collection_fit_methods() -> list[str]:
    """CLI names of the methods that fit on the workers, sorted.

    The estimators of :func:`localselect._estimators.collection_fit_names`
    (which imports them), by the names ``--method`` takes.
    """
    from localselect._estimators import cli_methods, collection_fit_names

    fit_on_workers = set(collection_fit_names())
    return sorted(name for name, cls in cli_methods().items() if cls.__name__ in fit_on_workers)


class _CollectionFitMethods:
    """The methods that fit on the workers, for ``--sample``'s help, listed when it is shown."""

    def __str__(self) -> str:
        return ", ".join(collection_fit_methods())


def add_select_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``select`` sub-command to ``sub`` (the sub-parsers of ``localselect``)."""
    p = sub.add_parser(
        "select",
        help="fit a method on a CSV or Parquet file and write selected features and a report",
        description=(
            "Fit a feature selection method on a table and write per-sample selected "
            "features, global importances, the fitted model and (--report) an HTML page. "
            "Numeric columns are z-scored, text and category columns one-hot encoded; "
            "missing values are kept for the methods that take them and otherwise "
            "handled as --missing says (LLDS takes the table as it is). Input: CSV, TSV "
            "or text, compressed or not (.gz, .bz2, .zip, .xz, .zst), or Parquet."
        ),
    )
    method = p.add_argument(
        "--method",
        required=True,
        help="one of %(names)s, or module:Class for any estimator",
    )
    method.names = _MethodNames()  # %(names)s: the declared names, listed when shown
    p.add_argument(
        "--input",
        required=True,
        help="CSV/TSV/TXT file, compressed or not (.csv.gz, .bz2, .zip, .xz, .zst), or Parquet; "
        "with --cluster also a folder or glob of Parquet or CSV files (read on the cluster)",
    )
    p.add_argument(
        "--target", required=True, help="name of the target column (class labels or a number)"
    )
    add_task_argument(p)
    _add_estimator_arguments(p)
    p.add_argument(
        "--missing",
        choices=["auto", "keep", "impute", "drop", "error"],
        default="auto",
        help=(
            "rows with missing feature values: keep them (methods that take NaN: bim, im4e, "
            "immigrate, irelief, mrmr, relief, relieff, saliency, simba; llds takes the table "
            "as it is), "
            "impute (SimpleImputer inside the saved model, so predict imputes too), drop "
            "(reports the classes that lose rows; refused if a class would keep fewer than 2 "
            "rows) or error. auto (default): keep when the method declares it takes NaN, "
            "else impute; no row is dropped"
        ),
    )
    p.add_argument("--out", default="localselect-output", help="output folder")
    p.add_argument("--report", action="store_true", help="also write report.html with figures")
    p.add_argument("--drop", nargs="+", default=[], metavar="COLUMN", help="columns to ignore")
    p.add_argument(
        "--categorical",
        nargs="+",
        default=[],
        metavar="COLUMN",
        help="numeric-coded columns to treat as categorical",
    )
    p.add_argument("--no-scale", action="store_true", help="do not z-score numeric columns")
    add_reading_arguments(p)
    return p


def _add_estimator_arguments(p: argparse.ArgumentParser) -> None:
    """``--params``, ``--n-features``, the evidence flags, ``--random-state``, ``--n-jobs``."""
    p.add_argument(
        "--params",
        nargs="+",
        default=[],
        metavar="K=V",
        help="estimator parameters, e.g. max_features=10 sigma=0.5 (values parsed as Python "
        "literals or JSON); discretizer=mahalanobis:3, kbins:5 or auto for LLDS",
    )
    p.add_argument(
        "--n-features",
        type=n_features_arg,
        default=None,
        help="sets n_features_to_select: a count, or auto (the features significant at --fdr)",
    )
    add_evidence_arguments(p)
    p.add_argument(
        "--random-state",
        type=int,
        default=None,
        help="sets random_state (a method without randomness notes that it is unused)",
    )
    p.add_argument(
        "--n-jobs",
        type=int,
        default=None,
        help="sets n_jobs (a method without parallel work notes that it is unused)",
    )


def add_reading_arguments(p: argparse.ArgumentParser) -> None:
    """``--na-values`` and ``--per-level``: how ``select`` and ``predict`` read a table alike."""
    p.add_argument(
        "--na-values", nargs="+", default=[], metavar="TEXT", help="extra strings meaning missing"
    )
    p.add_argument("--per-level", action="store_true", help=_PER_LEVEL_HELP)


def add_predict_parser(sub: Any) -> argparse.ArgumentParser:
    """Add the ``predict`` sub-command to ``sub``."""
    p = sub.add_parser(
        "predict",
        help="apply a model saved by `localselect select` to new data",
        description=(
            "Predict labels (classifiers) and per-sample selected features (local "
            "selectors) for new rows, prepared as in `select`: one answer per input row "
            "(missing values imputed by the model or kept for a method that takes them, an "
            "unseen category named and treated as missing, said before the output). "
            "model.skops files load only "
            "localselect's estimators and the scikit-learn/numpy types they hold; a pickle "
            "or joblib file, which can run any code, is refused."
        ),
    )
    p.add_argument("--model", required=True, help="model.skops written by `localselect select`")
    p.add_argument(
        "--input",
        required=True,
        help="CSV or Parquet file with the same columns (with --cluster also a folder or glob)",
    )
    p.add_argument(
        "--out",
        default=None,
        help="output CSV (default: print to the terminal); with --cluster a folder of Parquet "
        "partitions",
    )
    add_reading_arguments(p)
    return p


def add_cluster_arguments(p: argparse.ArgumentParser, *, sample: bool) -> None:
    """``--cluster`` (and for ``select``, ``--sample``)."""
    p.add_argument(
        "--cluster",
        default=None,
        metavar="ADDRESS",
        help="run on a Dask cluster: tcp://host:8786 (a running scheduler) or local:N (a "
        "LocalCluster of N worker processes); --input may then be a folder or glob of "
        "Parquet or CSV files, read lazily, and the per-row outputs are Parquet partitions",
    )
    if sample:
        action: Any = p.add_argument(
            "--sample",
            type=int,
            default=DEFAULT_SAMPLE,
            metavar="N",
            help="with --cluster: rows to fit a method without a Dask fit on, in memory "
            "(default %(default)s; %(fitters)s fit on the whole table on the workers)",
        )
        action.fitters = _CollectionFitMethods()  # %(fitters)s: from the registry, when shown
