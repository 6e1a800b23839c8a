"""User-facing errors and warning lines of the CLI.

A :class:`CLIError` prints as one line (``localselect: error: ...``) and exits
with code 2; :func:`warn` prints one ``warning:`` line on stderr, so stdout
may carry CSV. Python warnings raised while a command runs (scikit-learn's
``ConvergenceWarning`` ...) go through :func:`show_warning`: one line cut to
the terminal width, with the category; ``-v`` prints the full text and where
it was raised.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

__all__ = ["CLIError", "note", "set_verbose", "show_warning", "warn"]

_VERBOSE = [0]
#: The warning texts shown by the running command: each is shown once, although
#: a step that records warnings (``warnings.catch_warnings``) resets Python's own
#: once-per-location memory.
_SHOWN: set[str] = set()


class CLIError(Exception):
    """A user-facing error: printed as one line, exit code 2.

    Raised by the commands (and by the commands other distributions add, such
    as ``localselect bench``) for an error the user can fix; ``main`` prints
    ``localselect: error: MESSAGE`` without a traceback unless ``-v`` is given.
    """


def set_verbose(level: int) -> None:
    """The ``-v`` count of the running command (full warning texts when >= 1)."""
    _VERBOSE[0] = level
    _SHOWN.clear()


def warn(line: str, *, cut_to_width: bool = False) -> None:
    """One warning line on stderr (stdout may carry CSV).

    Whitespace runs (newlines included) become single spaces. With
    ``cut_to_width`` and without ``-v`` the line is cut to the terminal width.
    """
    from localselect.cli._terminal import cut

    console = Console(stderr=True)
    markup = f"[yellow]warning:[/yellow] {escape(' '.join(str(line).split()))}"
    if cut_to_width and not _VERBOSE[0]:
        console.print(cut(markup, console.width), highlight=False)
    else:
        console.print(markup, highlight=False, soft_wrap=True)


def note(line: str) -> None:
    """One ``note:`` line on stderr: information, nothing went wrong."""
    Console(stderr=True).print(
        f"[cyan]note:[/cyan] {escape(' '.join(str(line).split()))}",
        highlight=False,
        soft_wrap=True,
    )


def show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: Any = None,
    line: str | None = None,
) -> None:
    """Replacement for :func:`warnings.showwarning`: one ``warning:`` line, once per text."""
    text = f"{category.__name__}: {message}"
    if text in _SHOWN:
        return
    _SHOWN.add(text)
    if _VERBOSE[0]:
        text += f" ({filename}:{lineno})"
    warn(text, cut_to_width=True)
