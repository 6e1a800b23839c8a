"""Argument parsing, logging set-up and error reporting for ``localselect``.

The CLI holds no algorithm logic: each sub-command calls the public API.
Errors print one line (``localselect: error: ...``) and exit non-zero; the
traceback appears only with ``-v``.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import warnings
from collections.abc import Sequence

from rich.console import Console

import localselect
from localselect.cli._errors import CLIError, set_verbose, show_warning

__all__ = ["build_parser", "main"]


def _add_verbose(parser: argparse.ArgumentParser, *, top: bool = False) -> None:
    # Sub-commands accept -v too; SUPPRESS keeps them from resetting a top-level -v.
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0 if top else argparse.SUPPRESS,
        help="more output: -v logs stages and shows tracebacks, -vv logs iterations",
    )


def build_parser() -> argparse.ArgumentParser:
    """Build the ``localselect`` argument parser (public so the docs can render it).

    Returns
    -------
    parser : argparse.ArgumentParser
        The parser with every subcommand; ``main`` runs what it parses.
    """
    parser = argparse.ArgumentParser(
        prog="localselect",
        description="Local feature selection: which features matter where in the sample space.",
    )
    parser.add_argument(
        "--version", action="version", version=f"localselect {localselect.__version__}"
    )
    _add_verbose(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    ds = sub.add_parser("datasets", help="list or describe the benchmark data sets")
    _add_verbose(ds)
    ds_sub = ds.add_subparsers(dest="datasets_command", metavar="ACTION")
    ds_list = ds_sub.add_parser("list", help="every data set, its shape and whether it is here")
    ds_list.add_argument(
        "--data-home", default=None, help="data directory (default: LOCALSELECT_DATA)"
    )
    _add_verbose(ds_list)
    ds_show = ds_sub.add_parser("show", help="describe one data set (loads it when available)")
    ds_show.add_argument("name", help="data set name, see `localselect datasets list`")
    ds_show.add_argument(
        "--data-home", default=None, help="data directory (default: LOCALSELECT_DATA)"
    )
    _add_verbose(ds_show)

    demo = sub.add_parser("demo", help="run every estimator on embedded data and compare them")
    demo.add_argument("--random-state", type=int, default=0, help="seed for splits and methods")
    demo.add_argument("--quick", action="store_true", help="smaller data, for a fast look")
    demo.add_argument(
        "--report", default=None, metavar="DIR", help="write report.html and results.csv here"
    )
    _add_verbose(demo)
    bench = sub.add_parser(
        "bench",
        help="run a benchmark suite (paper reproductions, scaling)",
        description=(
            "Run a benchmark suite and write results.json and report.md. SUITE is a suite "
            "name, `list` (show them), `all` (every suite, each into OUT/NAME) or "
            "`readme-table` (regenerate the table of reproduced against published numbers "
            "from the results.json files under --results). Interrupted runs resume from "
            "OUT/cache when the same command is run again."
        ),
    )
    bench.add_argument("suite", help="suite name, `list`, `all` or `readme-table`")
    bench.add_argument("--quick", action="store_true", help="reduced settings, minutes not hours")
    bench.add_argument(
        "--out",
        default=None,
        help="output folder (default: bench-results/SUITE, or bench-results)",
    )
    bench.add_argument("--n-jobs", type=int, default=None, help="parallel jobs for the suite")
    bench.add_argument("--datasets", nargs="+", default=None, help="restrict to these data sets")
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
    _add_verbose(bench)

    from localselect.cli._predict import add_predict_parser
    from localselect.cli._select import add_select_parser

    add_verbose_to = [add_select_parser(sub), add_predict_parser(sub)]
    for sub_parser in add_verbose_to:
        _add_verbose(sub_parser)
    return parser


def _configure_logging(verbose: int) -> None:
    level = logging.WARNING if verbose <= 0 else logging.INFO if verbose == 1 else logging.DEBUG
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("localselect").setLevel(level)


def _cmd_datasets(args: argparse.Namespace, console: Console) -> int:
    from localselect.cli._datasets import show_dataset, show_dataset_list

    if args.datasets_command == "list":
        return show_dataset_list(console, data_home=args.data_home)
    if args.datasets_command == "show":
        return show_dataset(console, args.name, data_home=args.data_home)
    raise CLIError(
        "choose an action: `localselect datasets list` or `localselect datasets show NAME`"
    )


def _cmd_select(args: argparse.Namespace, console: Console) -> int:
    from localselect.cli._select import run_select

    return run_select(args, console)


def _cmd_predict(args: argparse.Namespace, console: Console) -> int:
    from localselect.cli._predict import run_predict

    return run_predict(args, console)


def _cmd_demo(args: argparse.Namespace, console: Console) -> int:
    from localselect.cli._demo import run_demo

    return run_demo(console, random_state=args.random_state, quick=args.quick, report=args.report)


def _cmd_bench(args: argparse.Namespace, console: Console) -> int:
    from pathlib import Path

    from localselect.bench import SuiteContext, available_suites, run_all, run_suite

    if args.suite == "readme-table":
        return _cmd_readme_table(args, console)
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
        _exit_now_if_compiling(130)
        return 130
    console.print((out / "report.md").read_text(), markup=False)
    console.print(f"{len(results['records'])} records written to {out / 'results.json'}")
    return 0


def _cmd_readme_table(args: argparse.Namespace, console: Console) -> int:
    from pathlib import Path

    from localselect.bench import collect_results, readme_table, replace_marked_block

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


def _exit_now_if_compiling(code: int) -> None:
    """After a Ctrl-C: leave at once (``os._exit``) while numba compiles the LFS core.

    The compiler cannot be stopped, and an interpreter that finalises under it
    may crash (see :func:`localselect._runtime.compiling`).
    """
    runtime = sys.modules.get("localselect._runtime")
    if runtime is not None and runtime.compiling():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code.

    Parameters
    ----------
    argv : sequence of str, default=None
        Arguments without the program name; ``None`` reads ``sys.argv``.

    Returns
    -------
    code : int
        0 on success, 1 on an error, 2 on a usage error.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    verbose = getattr(args, "verbose", 0) or 0
    _configure_logging(verbose)
    console = Console()
    if args.command is None:
        parser.print_help()
        return 0
    handlers = {
        "datasets": _cmd_datasets,
        "demo": _cmd_demo,
        "bench": _cmd_bench,
        "select": _cmd_select,
        "predict": _cmd_predict,
    }
    from localselect.cli._progress import progress_bars

    set_verbose(verbose)
    shown = warnings.showwarning
    warnings.showwarning = show_warning
    try:
        with progress_bars():
            return handlers[args.command](args, console)
    except KeyboardInterrupt:
        print("localselect: interrupted", file=sys.stderr)
        _exit_now_if_compiling(130)
        return 130
    except Exception as exc:
        if verbose:
            raise
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"localselect: error: {message} (run with -v for details)", file=sys.stderr)
        return 2 if isinstance(exc, CLIError) else 1
    finally:
        warnings.showwarning = shown
