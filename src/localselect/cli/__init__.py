"""Command-line interface: ``localselect ...`` and ``python -m localselect``."""

from localselect.cli._main import build_parser, main

__all__ = ["build_parser", "main"]
