"""The argument tables: the method lists a help text or docs/cli.md names come from the registry,
and the help and docstrings speak to users, not of work items."""

from __future__ import annotations

import argparse
import ast
import re
from pathlib import Path

import localselect.cli
from localselect._estimators import cli_methods, collection_fit_names
from localselect.cli import build_parser
from localselect.cli._options import add_cluster_arguments, add_select_parser

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"


def _fit_on_the_workers() -> set[str]:
    """CLI names of the estimators that declare a fit on Dask collections."""
    by_class = {cls.__name__: name for name, cls in cli_methods().items()}
    return {by_class[name] for name in collection_fit_names()}


def test_the_sample_help_names_the_methods_that_fit_on_the_workers():
    select = add_select_parser(argparse.ArgumentParser().add_subparsers())
    add_cluster_arguments(select, sample=True)
    text = " ".join(select.format_help().split())
    named = text.split("(default 100000; ", 1)[1].split(" fit on the whole table", 1)[0]
    assert {n.strip() for n in named.split(",")} == _fit_on_the_workers()
    assert {"fisher", "mrmr", "relieff", "llds"} <= _fit_on_the_workers()


def test_the_cluster_row_of_the_docs_names_the_methods_that_fit_on_the_workers():
    (row,) = (line for line in DOCS.read_text().splitlines() if line.startswith("| `--cluster"))
    named = row.split("read lazily; ", 1)[1].split(" (those with a fit on Dask", 1)[0]
    assert set(re.findall(r"`([a-z_]+)`", named)) == _fit_on_the_workers()


#: A reference to the project's tracker ("issue 38", "issue #20").
WORK_ITEM = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)


def _help_texts(parser: argparse.ArgumentParser) -> list[str]:
    texts = [parser.description or ""]
    for action in parser._actions:
        texts.append(str(action.help or ""))
        for sub in getattr(action, "choices", None) or {}:
            if isinstance(action.choices, dict):
                texts += _help_texts(action.choices[sub])
    return texts


def test_no_help_or_docstring_names_a_work_item():
    found = [text for text in _help_texts(build_parser()) if WORK_ITEM.search(text)]
    folder = Path(localselect.cli.__file__).parent
    for path in [*folder.glob("*.py"), *Path(__file__).parent.glob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef)):
                doc = ast.get_docstring(node) or ""
                if WORK_ITEM.search(doc):
                    found.append(f"{path.name}: {doc.splitlines()[0]}")
    assert not found, found
