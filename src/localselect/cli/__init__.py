"""Command-line interface: ``localselect ...`` and ``python -m localselect``.

Other distributions add commands through the entry-point group
``localselect.commands`` (``localselect bench`` comes with the benchmarks); they
raise :class:`CLIError` for an error the user can fix.
"""

from localselect.cli._errors import CLIError
from localselect.cli._main import build_parser, main

__all__ = ["CLIError", "build_parser", "main"]
