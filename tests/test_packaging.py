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
