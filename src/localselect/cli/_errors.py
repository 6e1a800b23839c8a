"""User-facing errors and warning lines of the CLI.

A :class:`CLIError` prints as one line (``localselect: error: ...``) and exits
with code 2; :func:`warn` prints one ``warning:`` line on stderr, so stdout
may carry CSV.
"""

from __future__ import annotations

from rich.console import Console

__all__ = ["CLIError", "warn"]


class CLIError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def warn(line: str) -> None:
    """One warning line on stderr (stdout may carry CSV)."""
    Console(stderr=True).print(
        f"[yellow]warning:[/yellow] {line}", highlight=False, soft_wrap=True
    )
