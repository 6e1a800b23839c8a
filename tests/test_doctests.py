"""Run the docstring examples of the installed package (every module that has some).

Doctests run against the installed ``localselect`` (what users get), not the
source tree, so ``pytest`` works the same after ``pip install .`` and after an
editable install.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import localselect

_FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS


def _modules_with_examples() -> list[str]:
    names = ["localselect"] + [
        info.name for info in pkgutil.walk_packages(localselect.__path__, "localselect.")
    ]
    finder = doctest.DocTestFinder()
    keep = []
    for name in names:
        module = importlib.import_module(name)
        if any(t.examples for t in finder.find(module, name)):
            keep.append(name)
    return keep


@pytest.mark.parametrize("name", _modules_with_examples())
def test_docstring_examples(name):
    module = importlib.import_module(name)
    runner = doctest.DocTestRunner(optionflags=_FLAGS)
    for test in doctest.DocTestFinder().find(module, name):
        if test.examples:
            runner.run(test, out=print)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
