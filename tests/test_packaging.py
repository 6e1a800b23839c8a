"""Release metadata: one version, extras that mean what they say, minimums CI really tests."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.version import Version

import localselect

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def _floors(requirements: list[str]) -> dict[str, str]:
    """``name -> minimum`` of the ``name>=x`` requirements (self-references skipped)."""
    floors = {}
    for req in requirements:
        match = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9][^,;\s]*)", req)
        if match and match.group(1) != "localselect":
            floors[match.group(1).lower()] = match.group(2)
    return floors


def test_version_comes_from_the_installed_metadata_only():
    assert localselect.__version__ == version("localselect")
    out = subprocess.run(
        [sys.executable, "-m", "localselect", "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip() == f"localselect {localselect.__version__}"
    citation = (ROOT / "CITATION.cff").read_text()
    assert re.search(r"^version: (\S+)$", citation, re.M).group(1) == PROJECT["version"]


def test_all_is_the_user_extras_and_dev_the_developer_tools():
    extras = PROJECT["optional-dependencies"]
    assert extras["all"] == ["localselect[plot,dask,parquet,excel]"]
    assert extras["parquet"] == ["pyarrow>=16"]  # Parquet input, as `select --help` advertises
    user = " ".join(
        extras["all"] + extras["plot"] + extras["dask"] + extras["parquet"] + extras["excel"]
    )
    for tool in ("pytest", "ruff", "mypy", "hypothesis", "skrebate", "numpydoc"):
        assert tool not in user
    assert "localselect[all]" in extras["test"]
    assert extras["dev"][0] == "localselect[test,lint,docs]"


def test_ci_pins_every_minimum_of_the_core_user_and_test_requirements():
    extras = PROJECT["optional-dependencies"]
    wanted = _floors(
        PROJECT["dependencies"]
        + extras["plot"]
        + extras["dask"]
        + extras["parquet"]
        + extras["excel"]
        + extras["test"]
    )
    pins = dict(
        line.split("==")
        for line in (ROOT / ".ci" / "constraints-min.txt").read_text().splitlines()
        if line and not line.startswith("#")
    )
    pinned = {name.lower(): Version(v) for name, v in pins.items()}
    assert pinned == {name: Version(v) for name, v in wanted.items()}


def test_the_wheel_holds_the_library_and_not_its_benchmarks():
    # The benchmarks are a distribution of their own beside the library (benchmarks/),
    # reached as `localselect bench` through an entry point; nothing of them in the wheel.
    from importlib.metadata import distribution

    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert not any("bench" in pattern for pattern in package_data["package-data"]["localselect"])
    assert "bench" not in PROJECT["optional-dependencies"]
    assert not (Path(localselect.__file__).parent / "bench").exists()
    shipped = [str(f) for f in distribution("localselect").files or ()]
    assert not [f for f in shipped if f.startswith(("localselect/bench", "localselect_bench"))]
    bench = tomllib.loads((ROOT / "benchmarks" / "pyproject.toml").read_text())["project"]
    assert bench["name"] == "localselect-benchmarks"
    assert any(req.startswith("localselect>=") for req in bench["dependencies"])
    assert bench["entry-points"]["localselect.commands"] == {
        "bench": "localselect_benchmarks._cli"
    }


def test_the_oldest_versions_stage_runs_a_listed_selection_that_is_not_empty():
    # .ci/wheel-min runs the tests named in .ci/minversions.txt at the oldest versions: each
    # entry must name an existing file or folder holding at least one test that is not slow
    # (or be a Markdown file of doctests), so the stage cannot quietly test nothing.
    import ast

    listing = ROOT / ".ci" / "minversions.txt"
    entries = [
        line.split("#")[0].strip()
        for line in listing.read_text().splitlines()
        if line.split("#")[0].strip()
    ]
    assert "minversions.txt" in (ROOT / ".ci" / "wheel-min").read_text()
    assert len(entries) >= 10, entries
    assert "tests/test_common.py" in entries and "tests/test_packaging.py" in entries

    def runs_a_test(path: Path) -> bool:
        if path.suffix == ".md":
            return ">>> " in path.read_text()
        files = [path] if path.is_file() else sorted(path.rglob("test_*.py"))
        for file in files:
            tree = ast.parse(file.read_text())
            if any(
                isinstance(node, ast.Assign)
                and any(getattr(t, "id", None) == "pytestmark" for t in node.targets)
                and any(m in ast.unparse(node.value) for m in ("slow", "CLUSTER_MARKS"))
                for node in tree.body
            ):
                continue  # a module marked slow as a whole
            for node in tree.body:
                if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                    marks = [ast.unparse(d) for d in node.decorator_list]
                    if not any(m.endswith("mark.slow") for m in marks):
                        return True
        return False

    missing = [e for e in entries if not (ROOT / e).exists()]
    assert not missing, f".ci/minversions.txt names paths that do not exist: {missing}"
    empty = [e for e in entries if not runs_a_test(ROOT / e)]
    assert not empty, f".ci/minversions.txt names paths without a test that is not slow: {empty}"
