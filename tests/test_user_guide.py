"""The user guide's quick start runs as written: its Python examples and its commands.

``docs/user_guide.md`` holds ``>>>`` examples (run here with :mod:`doctest`, in
one namespace, in a temporary folder) and a ``bash`` block of ``localselect``
commands (run here with ``python -m localselect`` on the files the examples
wrote). A change of behaviour that the guide describes fails this test.
"""

from __future__ import annotations

import doctest
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "user_guide.md"


def _commands(text: str) -> list[list[str]]:
    """The ``localselect`` lines of the guide's ``bash`` blocks, as argument lists."""
    lines, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = line.strip() == "```bash"
            continue
        if inside and line.startswith("localselect "):
            lines.append(shlex.split(line)[1:])
    return lines


@pytest.fixture(scope="module")
def examples(tmp_path_factory):
    """Run the guide's examples in a fresh folder: ``(folder, doctest results)``."""
    pytest.importorskip("pandas")
    folder = tmp_path_factory.mktemp("user_guide")
    text = GUIDE.read_text(encoding="utf-8")
    test = doctest.DocTestParser().get_doctest(text, {}, "user_guide", str(GUIDE), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS)
    here = os.getcwd()
    os.chdir(folder)
    try:
        runner.run(test, out=print)
    finally:
        os.chdir(here)
    return folder, len(test.examples), runner.summarize(verbose=False)


def test_the_quick_start_examples_run(examples):
    folder, n_examples, result = examples
    assert n_examples >= 20
    assert result.failed == 0, f"{result.failed} example(s) of docs/user_guide.md failed"
    assert (folder / "table.csv").exists() and (folder / "new.csv").exists()


def test_the_quick_start_commands_run(examples):
    import pandas as pd

    folder, _, _ = examples
    commands = _commands(GUIDE.read_text(encoding="utf-8"))
    assert [c[:3] for c in commands] == [
        ["select", "--method", "relieff"],
        ["select", "--method", "lfs"],
        ["predict", "--model", "lfs-run/model.skops"],
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    for args in commands:
        done = subprocess.run(
            [sys.executable, "-m", "localselect", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=folder,
            timeout=600,
        )
        assert done.returncode == 0, (args, done.stderr[-2000:])
    kept = pd.read_csv(folder / "relieff-run" / "selected_features.csv")
    assert set(kept["selected"].iloc[0].split(";")) == {"age", "plan", "visits"}
    predictions = pd.read_csv(folder / "predictions.csv")
    assert len(predictions) == len(pd.read_csv(folder / "new.csv"))


def _names_after(text: str, start: str, end: str) -> set[str]:
    import re

    part = text.split(start, 1)[1].split(end, 1)[0]
    return set(re.findall(r"`(\w+)`", part)) - {"category", "object", "diff", "L", "s"}


def test_the_column_kinds_follow_the_declarations():
    """The two groups of the guide are the registry's ``columns`` declarations."""
    from localselect._estimators import declaration, registered

    text = GUIDE.read_text(encoding="utf-8")
    native = _names_after(text, "**the column as it is**:", "receive a nominal")
    encoded = _names_after(text, "**an encoding**:", "work on numbers")
    declared = {name: declaration(cls).columns for name, cls in registered().items()}
    assert native == {name for name, kind in declared.items() if kind == "native"}
    assert encoded == {name for name, kind in declared.items() if kind == "encoded"}
