"""The benchmarks use the library's public API (and its runtime), and the library never them."""

from __future__ import annotations

import ast
from pathlib import Path

import localselect_benchmarks

ROOT = Path(localselect_benchmarks.__file__).parent

#: The private modules of the library the harness may use: how work runs
#: (``map_tasks``, so suite cells run like the estimators' units, on Dask too), and the
#: registry's CLI names (``cli_methods``: real-tables runs ``localselect select --method``
#: under the names a user types; the public API gives the classes only).
ALLOWED_PRIVATE = {"localselect._runtime", "localselect._estimators"}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return found


def test_the_harness_uses_only_public_library_modules():
    private = sorted(
        f"{path.relative_to(ROOT)}: {name}"
        for path in ROOT.rglob("*.py")
        for name in _imports(path)
        if name.split(".")[0] == "localselect"
        and any(part.startswith("_") for part in name.split(".")[1:])
        and not any(name.startswith(ok) for ok in ALLOWED_PRIVATE)
    )
    assert not private, f"private library imports in the benchmarks: {private}"


def test_every_suite_module_sits_in_a_paper_or_the_compare_folder():
    from localselect_benchmarks._core import FOLDERS

    suites = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("suite_*.py"))
    assert suites and all(s.split("/")[0] in FOLDERS and s.count("/") == 1 for s in suites)
    assert not list(ROOT.glob("published"))  # each table sits in its paper's folder
    for folder in FOLDERS:
        assert (ROOT / folder / "__init__.py").is_file()
