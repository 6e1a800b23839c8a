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
from typing import Any

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
    return _build_parser()[0]


def _build_parser() -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The parser of :func:`build_parser` and its sub-commands (to extend ``bench``)."""
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
        help="run a benchmark suite (paper reproductions, scaling; pip install ./benchmarks)",
        description=(
            "Run a benchmark suite. The command comes with the benchmarks, a distribution "
            "of their own beside the library: pip install ./benchmarks from a checkout."
        ),
    )
    _add_verbose(bench)

    from localselect.cli._options import (
        add_cluster_arguments,
        add_predict_parser,
        add_select_parser,
    )

    select, predict = add_select_parser(sub), add_predict_parser(sub)
    add_cluster_arguments(select, sample=True)
    add_cluster_arguments(predict, sample=False)
    for sub_parser in (select, predict):
        _add_verbose(sub_parser)
    return parser, sub


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
    if args.cluster:
        from localselect.cli._select_cluster import run_select_cluster

        return run_select_cluster(args, console)
    from localselect.cli._select import run_select

    return run_select(args, console)


def _cmd_predict(args: argparse.Namespace, console: Console) -> int:
    if args.cluster:
        from localselect.cli._predict_cluster import run_predict_cluster

        return run_predict_cluster(args, console)
    from localselect.cli._predict import run_predict

    return run_predict(args, console)


def _cmd_demo(args: argparse.Namespace, console: Console) -> int:
    from localselect.cli._demo import run_demo

    return run_demo(console, random_state=args.random_state, quick=args.quick, report=args.report)


#: Entry-point group of the commands other distributions add (``localselect bench``
#: comes with ``localselect-benchmarks``). The entry point names a module or object
#: with ``add_arguments(parser)`` and ``run(args, console) -> int``; it is looked up
#: only when its command runs, so ``localselect --help`` stays fast.
COMMANDS_GROUP = "localselect.commands"

#: What to install for each command of :data:`COMMANDS_GROUP`.
_INSTALL = {
    "bench": "the benchmarks, a distribution of their own: "
    "pip install ./benchmarks (from a checkout of localselect)"
}


def _load_command(name: str) -> Any:
    """The entry point ``name`` of :data:`COMMANDS_GROUP`, loaded, or ``None``."""
    from importlib.metadata import entry_points

    for entry in entry_points(group=COMMANDS_GROUP, name=name):
        return entry.load()
    return None


def _command_name(argv: Sequence[str]) -> str | None:
    """The sub-command of ``argv``: its first word that is not an option."""
    return next((word for word in argv if not word.startswith("-")), None)


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
    parser, commands = _build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    plugin = None
    name = _command_name(argv)
    if name in _INSTALL:
        plugin = _load_command(name)
        if plugin is None:
            print(
                f"localselect: error: `localselect {name}` needs {_INSTALL[name]}", file=sys.stderr
            )
            return 2
        plugin.add_arguments(commands.choices[name])
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
        "select": _cmd_select,
        "predict": _cmd_predict,
    }
    if plugin is not None:
        handlers[args.command] = plugin.run
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
