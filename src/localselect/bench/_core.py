"""Suite registry, context, result records and the results.json / report.md writers."""

from __future__ import annotations

import hashlib
import json
import logging
import platform
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from importlib import import_module, resources
from pathlib import Path
from typing import Any

import joblib

logger = logging.getLogger(__name__)

__all__ = ["SuiteContext", "available_suites", "load_published", "register_suite", "run_suite"]

#: Suites live in modules named ``bench/suite_*.py``; they are imported lazily by
#: :func:`available_suites`, so adding a suite never edits a shared file.
SUITE_PREFIX = "suite_"

_SUITES: dict[str, Suite] = {}


@dataclass(frozen=True)
class Suite:
    name: str
    func: Callable[[SuiteContext], list[dict[str, Any]]]
    paper: str
    description: str


@dataclass
class SuiteContext:
    """What a suite gets: settings, a disk cache and a progress helper.

    Parameters
    ----------
    quick : bool
        Reduced settings (fewer repeats, smaller data) that finish in minutes.
    n_jobs : int or None
        Parallel jobs for the suite's independent cells.
    datasets : list of str or None
        Restrict to these data sets (``None``: the suite's full list).
    random_state : int
        Seed of the whole suite; cells derive their own seeds from it.
    out : Path
        Output folder; ``out / "cache"`` holds cached cells so runs resume.
    """

    quick: bool = False
    n_jobs: int | None = None
    datasets: list[str] | None = None
    random_state: int = 0
    out: Path = field(default_factory=lambda: Path("bench-results"))

    def wants(self, dataset: str) -> bool:
        """Whether ``dataset`` is selected by ``--datasets``."""
        return self.datasets is None or dataset.lower() in {d.lower() for d in self.datasets}

    def cached(self, key: dict[str, Any], compute: Callable[[], Any]) -> Any:
        """Return ``compute()``, cached on disk under ``key`` so interrupted runs resume."""
        blob = json.dumps(key, sort_keys=True, default=str).encode()
        path = self.out / "cache" / f"{hashlib.sha256(blob).hexdigest()[:24]}.joblib"
        if path.exists():
            return joblib.load(path)
        value = compute()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        joblib.dump(value, tmp)
        tmp.replace(path)
        return value

    def progress(self, items: Iterable[Any], description: str = "") -> Iterator[Any]:
        """Iterate with a progress bar on a terminal (silent otherwise)."""
        from rich.progress import track

        items = list(items)
        yield from track(items, description=description or "working", transient=True)


def register_suite(
    name: str, *, paper: str, description: str
) -> Callable[[Callable[[SuiteContext], list[dict[str, Any]]]], Callable]:
    """Register a benchmark suite under ``name`` (decorator)."""

    def decorate(func):
        _SUITES[name] = Suite(name, func, paper, description)
        return func

    return decorate


def available_suites() -> dict[str, Suite]:
    """All registered suites, by name."""
    import pkgutil

    import localselect.bench as bench

    for info in pkgutil.iter_modules(bench.__path__):
        if info.name.startswith(SUITE_PREFIX):
            import_module(f"localselect.bench.{info.name}")
    return dict(sorted(_SUITES.items()))


def load_published(name: str) -> dict[str, Any]:
    """A paper's published table, stored as ``bench/published/<name>.json``."""
    text = resources.files("localselect.bench.published").joinpath(f"{name}.json").read_text()
    return json.loads(text)


def _environment() -> dict[str, Any]:
    import numpy as np
    import scipy
    import sklearn

    import localselect

    return {
        "localselect": localselect.__version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": joblib.cpu_count(),
    }


def _report(suite: Suite, records: list[dict[str, Any]], seconds: float) -> str:
    import pandas as pd

    lines = [f"# {suite.name}", "", suite.description, "", f"Paper: {suite.paper}", ""]
    if records:
        frame = pd.DataFrame(records)
        lines.append(frame.to_markdown(index=False) if _has_tabulate() else frame.to_string())
    else:
        lines.append("No results (nothing selected or nothing available).")
    lines += ["", f"Wall time: {seconds:.1f} s."]
    return "\n".join(lines) + "\n"


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
    except ImportError:
        return False
    return True


def run_suite(name: str, ctx: SuiteContext) -> dict[str, Any]:
    """Run suite ``name`` and write ``results.json`` and ``report.md`` under ``ctx.out``.

    Parameters
    ----------
    name : str
        Registered suite name (see :func:`available_suites`).
    ctx : SuiteContext
        Settings of the run.

    Returns
    -------
    results : dict
        What ``results.json`` holds: suite, settings, environment, records, time.
    """
    suites = available_suites()
    if name not in suites:
        raise ValueError(f"Unknown benchmark suite {name!r}; choose from {sorted(suites)}.")
    suite = suites[name]
    ctx.out.mkdir(parents=True, exist_ok=True)
    logger.info("running suite %s (quick=%s)", name, ctx.quick)
    start = time.perf_counter()
    records = suite.func(ctx)
    seconds = time.perf_counter() - start
    results = {
        "suite": name,
        "paper": suite.paper,
        "settings": {
            "quick": ctx.quick,
            "n_jobs": ctx.n_jobs,
            "datasets": ctx.datasets,
            "random_state": ctx.random_state,
        },
        "environment": _environment(),
        "seconds": seconds,
        "records": records,
    }
    (ctx.out / "results.json").write_text(json.dumps(results, indent=2, default=float))
    (ctx.out / "report.md").write_text(_report(suite, records, seconds))
    return results
