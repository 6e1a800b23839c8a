"""The ``real-tables`` suite: real mixed tables through the command line, as a user runs them.

Each table of :func:`localselect.datasets.list_real_tables` (numeric and
categorical columns, some with missing values, a continuous target; 342 to
53,940 rows; ``--quick``: the tables of at most 1,000 rows) is split 70/30
(``--random-state``, default 0). The training rows are written to a CSV file
and, for every method whose estimator takes a continuous target (or those of
``--methods``, any CLI name), the suite runs

    localselect select --method M --input train.csv --target T

at its defaults in a child process (killed after ``--timeout`` seconds,
default 300; ``--quick``: 120). It records the task the command detected (its ``task:`` line),
the exit code, the wall seconds and peak resident memory of the child, the
columns it kept for at least one row, and the R^2 on the test rows of a
gradient-boosting regressor
(:class:`~sklearn.ensemble.HistGradientBoostingRegressor`, categorical
columns native, missing values native) fitted on those columns, beside the same
model on all columns. A method that keeps no column scores the training mean's
R^2. The target: R^2 on the columns of ReliefF, MRMR and LLDS at least 0.95 of
the R^2 on all columns.

Besides ``results.json`` and ``report.md`` it writes ``real_tables.md``: one
row per table and method, the columns above.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from localselect_benchmarks._core import SuiteContext, register_suite
from localselect_benchmarks._report import format_number, markdown_table

__all__ = ["DEFAULT_TIMEOUT", "QUICK_TIMEOUT", "TARGET_METHODS", "methods", "tables"]

DEFAULT_TIMEOUT = 300.0  # seconds per method and table
QUICK_TIMEOUT = 120.0  # the same in a quick run (a smoke test: six tables x every method)
TEST_SIZE = 0.3
#: CLI names of the methods whose selection is held to 0.95 x the R^2 on all columns.
TARGET_METHODS = ("relieff", "mrmr", "llds")
ALL_COLUMNS = "all columns"
TABLE = "Through the CLI at defaults, 70/30 split"
_POLL = 0.1  # seconds between checks of a running child


def methods() -> list[str]:
    """CLI names of the methods whose estimator takes a continuous target, sorted."""
    from localselect._estimators import cli_methods
    from localselect.utils import continuous_target_estimators

    continuous = {cls for _, cls in continuous_target_estimators()}
    return sorted(name for name, cls in cli_methods().items() if cls in continuous)


def tables(quick: bool) -> list[str]:
    """The tables of the run: all of them, or (``quick``) those of at most 1,000 rows."""
    from localselect.datasets import list_real_tables

    return list_real_tables(small=quick)


def _split(name: str, seed: int) -> tuple[Any, Any, str, dict[str, Any]]:
    """The 70/30 split of table ``name``: training rows, test rows, target, provenance."""
    from sklearn.model_selection import train_test_split

    from localselect.datasets import load_real_table

    frame, target, provenance = load_real_table(name)
    train, test = train_test_split(frame, test_size=TEST_SIZE, random_state=seed)
    return train, test, target, provenance


def _r2(train: Any, test: Any, target: str, columns: list[str], seed: int) -> float:
    """Test-row R^2 of a gradient-boosting regressor on ``columns`` (none: the training mean)."""
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.metrics import r2_score

    y_train = train[target].to_numpy(dtype=np.float64)
    y_test = test[target].to_numpy(dtype=np.float64)
    if not columns:
        return float(r2_score(y_test, np.full_like(y_test, y_train.mean())))
    model = HistGradientBoostingRegressor(categorical_features="from_dtype", random_state=seed)
    model.fit(train[columns], y_train)
    return float(r2_score(y_test, model.predict(test[columns])))


def _run(command: list[str], timeout: float, log: Path) -> tuple[int | None, float, float]:
    """Run ``command`` with stdout and stderr into ``log``; (exit code or None on timeout,
    seconds, peak resident MiB of the child)."""
    start = time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen(
            command,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "COLUMNS": "1000"},  # one line per message, not wrapped at 80
        )
        try:
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                seconds = time.perf_counter() - start
                if pid == child.pid:
                    child.returncode = os.waitstatus_to_exitcode(status)
                    return child.returncode, seconds, usage.ru_maxrss / 1024.0
                if seconds > timeout:
                    break
                time.sleep(_POLL)
        except BaseException:  # Ctrl-C or a failure here: the child must not outlive the run
            os.killpg(child.pid, signal.SIGKILL)
            os.wait4(child.pid, 0)
            raise
        os.killpg(child.pid, signal.SIGKILL)  # the child's own session
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = -signal.SIGKILL
        return None, seconds, usage.ru_maxrss / 1024.0


def _answer(log: Path, out: Path) -> dict[str, Any]:
    """What the command said: its task line, its error line, the columns it kept."""
    text = log.read_text(errors="replace")
    task = re.search(r"^task: (.*)$", text, flags=re.MULTILINE)
    answer: dict[str, Any] = {"task_line": task.group(1).strip() if task else None}
    errors = [line for line in text.splitlines() if line.startswith(("localselect:", "error"))]
    if errors:
        answer["error"] = errors[-1][:300]
    found = out / "importances.json"
    if found.is_file():
        saved = json.loads(found.read_text())
        answer["task"] = saved.get("task")
        answer["fit_seconds"] = saved.get("fit_seconds")
        answer["kept"] = [f["feature"] for f in saved["features"] if f.get("selected")]
    elif task:
        answer["task"] = task.group(1).split()[0]
    return answer


def _cell(name: str, method: str, seed: int, timeout: float) -> dict[str, Any]:
    """One method on one table through ``localselect select``, and the R^2 of what it kept."""
    train, test, target, provenance = _split(name, seed)
    with tempfile.TemporaryDirectory(prefix="real-tables-") as tmp:
        folder = Path(tmp)
        train.to_csv(folder / "train.csv", index=False)
        command = [sys.executable, "-m", "localselect", "select", "--method", method]
        command += ["--input", str(folder / "train.csv"), "--target", target]
        command += ["--out", str(folder / "out")]
        code, seconds, peak = _run(command, timeout, folder / "log.txt")
        answer = _answer(folder / "log.txt", folder / "out")
    record: dict[str, Any] = {
        "exit": "timeout" if code is None else code,
        "seconds": seconds,
        "peak_mib": peak,
        "n_columns": provenance["n_features"],
        **answer,
    }
    if code == 0 and "kept" in answer:
        record["r2"] = _r2(train, test, target, answer["kept"], seed)
    return record


def _baseline(name: str, seed: int) -> dict[str, Any]:
    """The same model on all columns, and the table's facts."""
    train, test, target, provenance = _split(name, seed)
    columns = [c for c in train.columns if c != target]
    return {
        "r2": _r2(train, test, target, columns, seed),
        "n_train": len(train),
        "n_test": len(test),
        "provenance": provenance,
    }


def _records(name: str, base: dict[str, Any], cells: dict[str, dict]) -> list[dict[str, Any]]:
    """One record per (table, method, metric), the all-columns model as a method of its own."""
    records = []
    for method, cell in cells.items():
        values: dict[str, Any] = {
            "task": cell.get("task") or "-",
            "exit": cell["exit"],
            "seconds": cell["seconds"],
            "kept": len(cell["kept"]) if "kept" in cell else None,
            "r2": cell.get("r2"),
            "r2 / all columns": cell["r2"] / base["r2"] if "r2" in cell else None,
        }
        for metric, value in values.items():
            record: dict[str, Any] = {"table": TABLE, "dataset": name, "method": method}
            record["metric"] = metric
            record["value"] = value
            if metric == "kept":
                record["columns"] = cell.get("kept")
            if metric == "exit" and value != 0:
                record["error"] = cell.get("error")
            records.append(record)
    first_r2 = next((i for i, r in enumerate(records) if r["metric"] == "r2"), len(records))
    everything = {"table": TABLE, "dataset": name, "method": ALL_COLUMNS, "metric": "r2"}
    records.insert(first_r2, {**everything, "value": base["r2"]})
    return records


def _row(name: str, method: str, base: dict[str, Any], cell: dict[str, Any]) -> list[str]:
    kept = f"{len(cell['kept'])}/{cell['n_columns']}" if "kept" in cell else "-"
    ratio = cell["r2"] / base["r2"] if "r2" in cell else None
    task = str(cell.get("task_line") or cell.get("task") or "-")
    fit = cell.get("fit_seconds")
    return [
        name,
        method,
        task,
        str(cell["exit"]),
        f"{cell['seconds']:.1f}",
        "-" if fit is None else f"{fit:.1f}",
        f"{cell['peak_mib']:.0f}",
        kept,
        format_number(cell.get("r2")),
        format_number(base["r2"]),
        format_number(ratio),
        str(cell.get("error", "")).replace("|", "/")[:120],
    ]


def _table_md(plan: dict[str, dict[str, Any]], cells: dict[tuple, dict[str, Any]]) -> str:
    header = ["table", "method", "task detected", "exit", "s", "fit s", "peak MiB", "kept"]
    header += ["R^2 kept", "R^2 all", "ratio", "message"]
    rows = []
    for name, base in plan.items():
        facts = base["provenance"]
        rows += [
            _row(f"{name} ({facts['n_rows']} x {facts['n_features']})", m, base, c)
            for (table, m), c in cells.items()
            if table == name
        ]
    return markdown_table(header, rows) + "\n"


def _target_notes(ctx: SuiteContext, plan: dict, cells: dict[tuple, dict[str, Any]]) -> None:
    """Each failed run with its message; the R^2 target of ReliefF, MRMR and LLDS."""
    for (name, method), cell in cells.items():
        if cell["exit"] != 0:
            ctx.note(f"{name}, {method}: exit {cell['exit']}: {cell.get('error', 'no message')}")
    for (name, method), cell in cells.items():
        if method not in TARGET_METHODS:
            continue
        if "r2" not in cell:
            ctx.note(f"{name}, {method}: exit {cell['exit']}; the R^2 target is missed.")
            continue
        ratio = cell["r2"] / plan[name]["r2"]
        verdict = "met" if ratio >= 0.95 else "missed"
        ctx.note(f"{name}, {method}: R^2 {ratio:.3f} x all columns (target >= 0.95: {verdict}).")


def _check_choices(ctx: SuiteContext, chosen: list[str]) -> None:
    """Refuse an unknown table (``--tables``) or method (``--methods``) before any work."""
    from localselect._estimators import cli_methods

    unknown = sorted({d.lower() for d in ctx.datasets or ()} - set(tables(False)))
    if unknown:
        raise ValueError(
            f"unknown table(s) {unknown} for --tables; choose from {', '.join(tables(False))}"
        )
    names = cli_methods()
    wrong = [m for m in chosen if m not in names]
    if wrong:
        raise ValueError(
            f"unknown method(s) {wrong} for --methods; choose from {', '.join(sorted(names))}"
        )


@register_suite(
    "real-tables",
    paper="none: public tables from R and Python packages (see localselect.datasets"
    ".list_real_tables), none used by the papers but the electrical grid",
)
def real_tables(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Real mixed tables with a continuous target through `localselect select` at defaults:
    task detected, exit code, seconds, columns kept, and the test R^2 of gradient boosting
    on the kept columns beside all columns."""
    from localselect.datasets import DatasetNotFoundError

    default = QUICK_TIMEOUT if ctx.quick else DEFAULT_TIMEOUT
    timeout = default if ctx.timeout is None else float(ctx.timeout)
    chosen = methods() if ctx.methods is None else list(ctx.methods)
    seed = ctx.random_state
    _check_choices(ctx, chosen)
    plan: dict[str, dict[str, Any]] = {}
    for name in tables(ctx.quick):
        if not ctx.wants(name):
            continue
        try:
            key = {"real-tables": name, "baseline": True}
            plan[name] = ctx.cached(key, lambda n=name: _baseline(n, seed))
        except DatasetNotFoundError as error:
            ctx.note(f"{name}: not run: {error}")
    keys = [(name, m) for name in plan for m in chosen]
    args = [(name, m, seed, timeout) for name, m in keys]
    found = ctx.cached_map(
        [{"real-tables": name, "method": m, "timeout": timeout} for name, m in keys], _cell, args
    )
    cells = dict(zip(keys, found))
    records: list[dict[str, Any]] = []
    for name, base in plan.items():
        by_method = {m: cells[(name, m)] for m in chosen}
        records += _records(name, base, by_method)
        facts = base["provenance"]
        ctx.note(
            f"{name}: {facts['title']}; {facts['n_rows']} rows ({base['n_train']} train, "
            f"{base['n_test']} test), {facts['n_features']} columns, {len(facts['nominal'])} "
            f"categorical, {facts['n_missing_cells']} missing cells; target {facts['target']}; "
            f"from {facts['route']}."
        )
    _target_notes(ctx, plan, cells)
    ctx.note(f"Methods: {', '.join(chosen)}; timeout {timeout:g} s per method and table.")
    ctx.out.mkdir(parents=True, exist_ok=True)
    (ctx.out / "real_tables.md").write_text(_table_md(plan, cells))
    return records
