"""The gallery (examples/) has an example for every estimator.

The examples themselves run when the documentation is built (sphinx-gallery,
``.ci/run``); this only checks, without running them, that each public
estimator appears in one and that each script has the title sphinx-gallery
needs.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from localselect.utils import all_estimators

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.rglob("plot_*.py"))


def _names_used(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)} | {
        node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
    }


@pytest.mark.parametrize(("name", "cls"), all_estimators())
def test_every_estimator_has_an_example(name, cls):
    users = [path.name for path in SCRIPTS if name in _names_used(path)]
    assert users, f"no example in examples/ uses {name}: add examples/<method>/plot_*.py"


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_example_has_a_title(path):
    doc = ast.get_docstring(ast.parse(path.read_text()))
    assert doc, f"{path} needs a module docstring (sphinx-gallery's title and text)"
    title, underline = doc.splitlines()[:2]
    assert set(underline) == {"="} and len(underline) >= len(title), f"{path}: title underline"


def test_every_folder_has_a_readme():
    for folder in [EXAMPLES, *(p for p in EXAMPLES.iterdir() if p.is_dir())]:
        if folder.name.startswith(("_", ".")):
            continue
        assert (folder / "README.txt").exists(), f"{folder} needs a README.txt"
