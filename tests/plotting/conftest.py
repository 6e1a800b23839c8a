"""The figure tests: matplotlib imported once, before any test turns warnings into errors.

Its first import warns on some supported versions (3.9's pyparsing packrat call, a
DeprecationWarning the project's filters ignore); a test that checks a figure draws
without warnings must not be the one that happens to import it first.
"""

import pytest

pytest.importorskip("matplotlib")

import matplotlib.figure  # noqa: F401
