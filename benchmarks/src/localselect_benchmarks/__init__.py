"""Benchmark harness behind ``localselect bench``: paper protocols, published tables, reports.

The distribution ``localselect-benchmarks`` lives beside the library (``benchmarks/``
in a checkout, ``pip install ./benchmarks``) and is not part of the ``localselect``
wheel. The core (this package's private modules) runs and reports suites; each
paper has a folder with its suites and published tables (``lfs/``, ``margin/``,
``gp/``, ``llds/``), and ``compare/`` holds the suites across methods.

A *suite* is a function registered with :func:`register_suite`; it receives a
:class:`SuiteContext` (quick mode, ``n_jobs``, data-set filter, output folder,
a disk cache and a progress helper) and returns a list of result records
(plain dicts, one per measured number). :func:`run_suite` runs one suite and
writes ``results.json`` and ``report.md`` with our numbers beside the
published ones. The papers' tables are data in ``<folder>/published/*.json``
(see :func:`load_published`).
"""

from localselect_benchmarks._core import (
    SuiteContext,
    available_suites,
    collect_results,
    load_published,
    register_suite,
    run_all,
    run_suite,
)
from localselect_benchmarks._report import readme_table, replace_marked_block
from localselect_benchmarks._stats import aggregate_trials, paired_wtl

__all__ = [
    "SuiteContext",
    "aggregate_trials",
    "available_suites",
    "collect_results",
    "load_published",
    "paired_wtl",
    "readme_table",
    "register_suite",
    "replace_marked_block",
    "run_all",
    "run_suite",
]
