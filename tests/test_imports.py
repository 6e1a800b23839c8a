"""The import graph of localselect is one-way: cli -> utils -> methods -> base/_pairwise/_compat.

Read from the source with ``ast`` (every import, lazy ones inside functions
too), so a new upward or private import fails here rather than in a review.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections import defaultdict
from pathlib import Path

import pytest

import localselect
from localselect._estimators import EXPORTS

ROOT = Path(localselect.__file__).parent

#: The method folders: every unit the registry exports from (layer 2 unless listed in
#: LAYERS), so a new method's folder needs no entry here.
METHOD_UNITS = {module.split(".")[1] for module in EXPORTS.values()}

#: Layer of each top-level unit; an import may only go to a lower layer (or stay
#: inside its own unit). ``localselect`` is the package ``__init__`` (re-exports).
LAYERS = {
    **dict.fromkeys(METHOD_UNITS, 2),
    "_compat": 0,
    "_estimators": 0,
    "_pairwise": 0,
    "_typing": 0,
    "_docstrings": 0,
    "_magnitudes": 0,
    "_portable": 0,
    "_runtime": 0,
    # how a fit writes its fitted state (records, stale attributes): evidence and base use it
    "_fitted": 0,
    # a table read into codes and column kinds; the encoding of nominal columns on it
    "_tables": 0,
    "_encoding": 0.1,
    # what y is (class labels or continuous): reads the registry's declarations
    "_targets": 0.25,
    # p-values, FDR and stability: above the shared infrastructure, below base (whose
    # ScoreSelectorMixin gets n_features_to_select="auto" from evidence.EvidenceMixin)
    "evidence": 0.5,
    # fits and per-row answers on Dask collections: base's mixins build on it
    "_blockwise": 0.75,
    "base": 1,
    # groups of rows that use the same features: reads base's answers; plotting draws them
    "regimes": 1.5,
    "datasets": 2,
    "plotting": 2,
    "localselect": 3,
    "utils": 4,
    "cli": 6,
    "__main__": 7,
}

#: Shared private infrastructure any layer above may use.
SHARED_PRIVATE = {
    "_compat",
    "_estimators",
    "_docstrings",
    "_magnitudes",
    "_pairwise",
    "_portable",
    "_runtime",
    "_tables",
    "_targets",
    "_typing",
}


def _unit(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "localselect"


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_edges() -> dict[str, set[str]]:
    """Module -> the localselect modules it imports (the longest existing prefix)."""
    modules = _modules()
    edges: dict[str, set[str]] = defaultdict(set)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                # `from pkg import submodule` imports the submodule, not the package
                subs = [f"{source}.{a.name}" for a in node.names]
                targets = [t for t in subs if t in modules] or [source]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                while parts and ".".join(parts) not in modules:
                    parts.pop()
                if parts and ".".join(parts) != name:
                    edges[name].add(".".join(parts))
    return edges


def unit_graph() -> dict[str, set[str]]:
    """Edges between top-level units (packages and top-level modules)."""
    graph: dict[str, set[str]] = defaultdict(set)
    for source, targets in import_edges().items():
        for target in targets:
            if _unit(source) != _unit(target):
                graph[_unit(source)].add(_unit(target))
    return graph


def test_the_benchmarks_are_not_in_the_library():
    # They are a distribution of their own beside it (benchmarks/ at the repository root),
    # reached as `localselect bench` through an entry point: no module names them.
    assert not (ROOT / "bench").exists()
    named = sorted(
        str(path.relative_to(ROOT))
        for path in ROOT.rglob("*.py")
        if "localselect.bench" in path.read_text(encoding="utf-8")
        or "localselect_benchmarks" in path.read_text(encoding="utf-8")
    )
    assert not named, f"library modules naming the benchmarks package: {named}"


def test_every_unit_has_a_layer():
    assert {_unit(m) for m in _modules()} <= set(LAYERS)


def test_imports_only_go_down():
    upward = [
        f"{source} -> {target}"
        for source, targets in unit_graph().items()
        for target in targets
        if LAYERS[target] >= LAYERS[source]
    ]
    assert not upward, f"imports that do not go down a layer: {upward}"


def test_no_import_cycle_between_modules():
    edges = import_edges()
    # package __init__ files re-export their submodules; an edge into one is not a cycle
    graph = {
        m: {t for t in ts if not (t.startswith(m + ".") or m.startswith(t + "."))}
        for m, ts in edges.items()
    }
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt] if nxt in path else [node, nxt]
            if nxt not in state and (cycle := visit(nxt, [*path, nxt])):
                return cycle
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start, [start])):
            pytest.fail(f"import cycle: {' -> '.join(cycle)}")


@pytest.mark.parametrize("unit", ["cli", "utils"])
def test_front_ends_use_only_public_api(unit):
    private = sorted(
        f"{source} -> {target}"
        for source, targets in import_edges().items()
        if _unit(source) == unit
        for target in targets
        if _unit(target) not in (unit, *SHARED_PRIVATE)
        and any(part.startswith("_") for part in target.split(".")[1:])
    )
    assert not private, f"{unit} imports private modules of other packages: {private}"


#: Units whose modules the size checks leave out: the benchmark harness (moving
#: out of the package).
SIZE_EXEMPT = {"bench"}

#: Most executable lines in a module of src/ (STYLE.md: one concern a module;
#: blank lines, comments and docstrings do not count).
MAX_EXECUTABLE_LINES = 450

#: Most lines in a function or method, its docstring left out (nested
#: functions count within their parent).
MAX_FUNCTION_LINES = 80


def _sized_modules() -> dict[str, Path]:
    return {
        str(path.relative_to(ROOT)): path
        for path in sorted(ROOT.rglob("*.py"))
        if path.relative_to(ROOT).parts[0] not in SIZE_EXEMPT
    }


def _docstring_lines(tree: ast.Module) -> set[int]:
    """Lines of the module's, classes' and functions' docstrings."""
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (
                body
                and isinstance(body[0], ast.Expr)
                and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)
            ):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


def executable_lines(source: str) -> int:
    """Lines holding code: not blank, not only a comment, not part of a docstring."""
    skip = {
        tokenize.COMMENT,
        tokenize.NL,
        tokenize.NEWLINE,
        tokenize.INDENT,
        tokenize.DEDENT,
        tokenize.ENDMARKER,
    }
    code: set[int] = set()
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            code.update(range(tok.start[0], tok.end[0] + 1))
    return len(code - _docstring_lines(ast.parse(source)))


def function_lengths(source: str) -> dict[str, int]:
    """``qualified name -> lines`` of every function, from ``def`` to its end, docstring out."""
    tree = ast.parse(source)
    docs = _docstring_lines(tree)
    lengths = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = prefix
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}."
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                span = set(range(child.lineno, child.end_lineno + 1))
                lengths[name[:-1]] = len(span - docs)
            visit(child, name)

    visit(tree, "")
    return lengths


def test_size_measures_leave_prose_out():
    source = (
        '"""Module docstring\n\nover lines."""\n'
        "\n"
        "# a comment\n"
        "def f(x):\n"
        '    """Docstring."""\n'
        "    # why\n"
        "    y = (x +\n"
        "         1)\n"
        "\n"
        "    return y\n"
    )
    assert executable_lines(source) == 4  # def, the two lines of y, return
    assert function_lengths(source) == {"f": 6}  # def to return, docstring out


def test_no_module_is_over_the_executable_line_limit():
    sizes = {
        name: executable_lines(path.read_text(encoding="utf-8"))
        for name, path in _sized_modules().items()
    }
    long = {name: n for name, n in sizes.items() if n > MAX_EXECUTABLE_LINES}
    assert not long, (
        f"modules over {MAX_EXECUTABLE_LINES} executable lines (split them by concern): {long}"
    )


def test_the_size_rules_cover_the_command_line():
    # The command line has no exemption: its modules are held to both limits.
    assert "cli" not in SIZE_EXEMPT
    sized = {Path(name).parts[0] for name in _sized_modules()}
    assert "cli" in sized
    assert executable_lines((ROOT / "cli" / "_select.py").read_text(encoding="utf-8")) > 0


def test_no_function_is_over_the_length_limit():
    long = {
        f"{name}::{func}": n
        for name, path in _sized_modules().items()
        for func, n in function_lengths(path.read_text(encoding="utf-8")).items()
        if n > MAX_FUNCTION_LINES
    }
    assert not long, (
        f"functions over {MAX_FUNCTION_LINES} lines, docstring aside (split them into "
        f"named steps): {long}"
    )


def command_modules() -> set[str]:
    """The cli modules that run a command: those ``cli._main``'s ``_cmd_*`` functions import."""
    tree = ast.parse((ROOT / "cli" / "_main.py").read_text(encoding="utf-8"))
    return {
        node.module
        for func in tree.body
        if isinstance(func, ast.FunctionDef) and func.name.startswith("_cmd_")
        for node in ast.walk(func)
        if isinstance(node, ast.ImportFrom) and node.module
    }


def test_no_command_module_imports_another():
    # pip's cli/ layout: commands side by side, sharing steps and option tables
    # (req_command.py, cmdoptions.py); none reaches another, even through a shared module.
    commands = command_modules()
    assert {
        "localselect.cli._select",
        "localselect.cli._predict",
        "localselect.cli._select_cluster",
        "localselect.cli._predict_cluster",
    } <= commands
    edges = import_edges()

    def reached(module: str) -> set[str]:
        seen: set[str] = set()
        todo = [module]
        while todo:
            for target in edges.get(todo.pop(), ()):
                if target.startswith("localselect.cli.") and target not in seen:
                    seen.add(target)
                    todo.append(target)
        return seen

    crossing = sorted(
        f"{command} -> {other}"
        for command in commands
        for other in reached(command) & commands
        if other != command
    )
    assert not crossing, f"command modules importing another command module: {crossing}"
