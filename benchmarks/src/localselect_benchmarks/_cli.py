"""``localselect bench``: the command this distribution adds to the ``localselect`` CLI.

The ``localselect`` command finds it through the entry point ``bench`` of the group
``localselect.commands`` (see ``benchmarks/pyproject.toml``) and calls
:func:`add_arguments` on its ``bench`` sub-parser, then :func:`run` with the parsed
arguments. A :class:`localselect.cli.CLIError` prints as one line and exits with 2.
"""

from __future__ import annotations

import argparse
import sys

from rich.console import Console

from localselect.cli import CLIError

__all__ = ["DESCRIPTION", "HELP", "add_arguments", "build_parser", "run"]

#: One line for ``localselect --help``.
HELP = "run a benchmark suite (paper reproductions, scaling)"

#: The text of ``localselect bench --help``.
DESCRIPTION = (
    "Run a benchmark suite and write results.json and report.md. SUITE is a suite "
    "name, `list` (show them), `all` (every suite, each into OUT/NAME) or "
    "`readme-table` (regenerate the table of reproduced against published numbers "
    "from the results.json files under --results). Interrupted runs resume from "
    "OUT/cache when the same command is run again."
)


def add_arguments(bench: argparse.ArgumentParser) -> None:
    """Add the options of ``localselect bench`` to its sub-parser.

    Parameters
    ----------
    bench : argparse.ArgumentParser
        The ``bench`` sub-parser of ``localselect`` (or a parser of its own, see
        :func:`build_parser`).
    """
    bench.description = DESCRIPTION
    bench.add_argument("suite", help="suite name, `list`, `all` or `readme-table`")
    bench.add_argument("--quick", action="store_true", help="reduced settings, minutes not hours")
    bench.add_argument(
        "--out",
        default=None,
        help="output folder (default: bench-results/SUITE, or bench-results)",
    )
    bench.add_argument("--n-jobs", type=int, default=None, help="parallel jobs for the suite")
    bench.add_argument(
        "--datasets",
        "--tables",
        dest="datasets",
        nargs="+",
        default=None,
        help="restrict to these data sets (real-tables: these tables)",
    )
    bench.add_argument(
        "--methods",
        nargs="+",
        default=None,
        help="real-tables: these CLI methods (default: every method that takes a "
        "continuous target)",
    )
    bench.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="real-tables: seconds per method and table before it is stopped and "
        "recorded as a timeout (default 300; with --quick 120)",
    )
    bench.add_argument("--random-state", type=int, default=0, help="seed of the whole suite")
    bench.add_argument(
        "--repeats",
        type=int,
        default=None,
        help="repeats of a repeated cross-validation protocol (default: the paper's, "
        "e.g. 10 for 10 x 10-fold CV); fewer repeats, fewer trials for the t-test",
    )
    bench.add_argument(
        "--results",
        default="docs/results",
        help="readme-table: folder searched for results.json files (default: docs/results)",
    )
    bench.add_argument(
        "--into",
        default=None,
        help="readme-table: markdown file whose generated-table block is replaced "
        "(default: print the table)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The options of ``localselect bench`` as a parser of their own (for the docs).

    Returns
    -------
    parser : argparse.ArgumentParser
        A parser with ``prog="localselect bench"`` and the options of :func:`add_arguments`.
    """
    parser = argparse.ArgumentParser(prog="localselect bench")
    add_arguments(parser)
    return parser


def run(args: argparse.Namespace, console: Console) -> int:
    """Run ``localselect bench`` with the parsed ``args``; returns the exit code.

    Parameters
    ----------
    args : argparse.Namespace
        What the ``bench`` sub-parser parsed.
    console : rich.console.Console
        Where the reports and summaries are printed.

    Returns
    -------
    code : int
        0 on success.

    Raises
    ------
    localselect.cli.CLIError
        For an unknown suite, a failed suite of ``all`` or a missing ``--into`` file.
    KeyboardInterrupt
        After printing how to resume, when the run is interrupted.
    """
    from pathlib import Path

    from localselect_benchmarks import SuiteContext, available_suites, run_all, run_suite

    if args.suite == "readme-table":
        return _readme_table(args, console)
    suites = available_suites()
    if args.suite == "list":
        for name, suite in suites.items():
            console.print(
                f"[bold]{name}[/bold]  {suite.description} ({suite.paper})", soft_wrap=True
            )
        return 0
    if args.suite != "all" and args.suite not in suites:
        raise CLIError(
            f"unknown suite {args.suite!r}; choose from {', '.join(suites) or 'none'}, "
            "or `all`, `list`, `readme-table`"
        )
    default = Path("bench-results") if args.suite == "all" else Path("bench-results") / args.suite
    out = Path(args.out) if args.out else default
    ctx = SuiteContext(
        quick=args.quick,
        n_jobs=args.n_jobs,
        datasets=args.datasets,
        random_state=args.random_state,
        out=out,
        repeats=args.repeats,
        methods=args.methods,
        timeout=args.timeout,
    )
    try:
        if args.suite == "all":
            failed = []
            for name, results in run_all(ctx).items():
                if "error" in results:
                    failed.append(name)
                    console.print(f"{name}: [red]failed[/red]: {results['error']}", soft_wrap=True)
                    continue
                console.print(
                    f"{name}: {len(results['records'])} records, {results['seconds']:.1f} s "
                    f"-> {out / name / 'report.md'}",
                    soft_wrap=True,
                )
            if failed:
                raise CLIError(f"{len(failed)} suite(s) failed: {', '.join(failed)}")
            return 0
        results = run_suite(args.suite, ctx)
    except KeyboardInterrupt:
        print(
            f"localselect: interrupted; run the same command again to resume "
            f"(finished cells are cached in {out}/.../cache)",
            file=sys.stderr,
        )
        raise
    console.print((out / "report.md").read_text(), markup=False)
    console.print(f"{len(results['records'])} records written to {out / 'results.json'}")
    return 0


def _readme_table(args: argparse.Namespace, console: Console) -> int:
    from pathlib import Path

    from localselect_benchmarks import collect_results, readme_table, replace_marked_block

    table = readme_table(collect_results(args.results))
    if args.into is None:
        console.print(table, markup=False, highlight=False, soft_wrap=True)
        return 0
    target = Path(args.into)
    if not target.is_file():
        raise CLIError(f"--into file {str(target)!r} does not exist")
    target.write_text(replace_marked_block(target.read_text(), table))
    console.print(f"table of {args.results} written into {target}")
    return 0
