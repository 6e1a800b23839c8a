"""Suite registry, context, result records and the results.json / report.md writers."""

from __future__ import annotations

import hashlib
import json
import logging
import platform
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import import_module, resources
from pathlib import Path
from typing import Any

import joblib

from localselect_benchmarks._measure import load_average

logger = logging.getLogger(__name__)

__all__ = [
    "SuiteContext",
    "available_suites",
    "collect_results",
    "load_published",
    "register_suite",
    "run_all",
    "run_suite",
]

#: Suites live in modules named ``suite_*.py`` in the paper folders (``lfs/``,
#: ``margin/``, ``gp/``, ``llds/``) and the cross-method folder ``compare/``; they are
#: imported lazily by :func:`available_suites`, so adding a suite never edits a shared file.
SUITE_PREFIX = "suite_"

#: The folders holding suites, each with its papers' tables in ``published/*.json``.
FOLDERS = ("lfs", "margin", "gp", "llds", "compare")

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
    notes : list of str
        Lines for the report's "Notes" section (see :meth:`note`).
    repeats : int or None
        Repeats of a suite's repeated cross-validation (``None``: the paper's
        protocol, or the quick one). Suites without repeated CV ignore it.
    methods : list of str or None
        Restrict to these methods (``None``: the suite's own list). Suites that
        do not choose among methods ignore it.
    timeout : float or None
        Seconds after which one method's run is stopped and recorded as a
        timeout (``None``: the suite's default). Suites without one ignore it.
    """

    quick: bool = False
    n_jobs: int | None = None
    datasets: list[str] | None = None
    random_state: int = 0
    out: Path = field(default_factory=lambda: Path("bench-results"))
    notes: list[str] = field(default_factory=list)
    repeats: int | None = None
    methods: list[str] | None = None
    timeout: float | None = None

    def note(self, text: str) -> None:
        """Add a line to the report's "Notes" section (a baseline not run and why, a summary).

        Parameters
        ----------
        text : str
            The line; a line already noted is not repeated.
        """
        if text not in self.notes:
            self.notes.append(text)

    def seeds(self, n: int) -> list[int]:
        """``n`` independent seeds derived from ``random_state``, drawn up front.

        Give one to each unit of work (split, repeat, method) before any
        parallel dispatch, so results do not depend on ``n_jobs``.

        Parameters
        ----------
        n : int
            How many seeds.

        Returns
        -------
        seeds : list of int
            Seeds in ``[0, 2**31 - 1)``, the same for the same ``random_state``.
        """
        import numpy as np

        rng = np.random.default_rng(self.random_state)
        return [int(s) for s in rng.integers(0, 2**31 - 1, size=n)]

    def wants(self, dataset: str) -> bool:
        """Tell whether ``dataset`` is selected by ``--datasets``.

        Parameters
        ----------
        dataset : str
            A data set name (compared case-insensitively).

        Returns
        -------
        bool
            True when no ``--datasets`` restriction is set or ``dataset`` is in it.
        """
        return self.datasets is None or dataset.lower() in {d.lower() for d in self.datasets}

    def cached(self, key: dict[str, Any], compute: Callable[..., Any]) -> Any:
        """Return ``compute()``, cached on disk under ``key`` so interrupted runs resume.

        The key is combined with ``quick`` and ``random_state``, so a quick run
        never reuses the cells of a full run. Delete ``out / "cache"`` to start over.

        Parameters
        ----------
        key : dict
            JSON-serialisable description of the cell (data set, method, split...).
        compute : callable
            Called without arguments when the cell is not cached.

        Returns
        -------
        value : object
            What ``compute()`` returned, now or in an earlier run.
        """
        path = self._cache_path(key)
        if path.exists():
            return joblib.load(path)
        value = compute()
        self._store(path, value)
        return value

    def cached_map(
        self, keys: Sequence[dict[str, Any]], func: Callable[..., Any], args: Sequence[tuple]
    ) -> list[Any]:
        """``[func(*a) for a in args]``, each cached under its key like :meth:`cached`.

        The missing cells run in parallel processes (``n_jobs``) and are stored as
        they finish, so an interrupted run keeps every finished cell.

        Parameters
        ----------
        keys : sequence of dict
            One cache key per cell, as in :meth:`cached`.
        func : callable
            The cell's computation, picklable (it runs in worker processes).
        args : sequence of tuple
            The arguments of each cell, aligned with ``keys``.

        Returns
        -------
        values : list
            One result per cell, in the order of ``keys``.
        """
        from localselect._runtime import map_tasks

        paths = [self._cache_path(key) for key in keys]
        missing = [i for i, path in enumerate(paths) if not path.exists()]
        results = map_tasks(func, (args[i] for i in missing), self.n_jobs, generator=True)
        for i, value in zip(missing, results):
            self._store(paths[i], value)
        return [joblib.load(path) for path in paths]

    def _cache_path(self, key: dict[str, Any]) -> Path:
        full_key = {"key": key, "quick": self.quick, "random_state": self.random_state}
        blob = json.dumps(full_key, sort_keys=True, default=str).encode()
        return self.out / "cache" / f"{hashlib.sha256(blob).hexdigest()[:24]}.joblib"

    @staticmethod
    def _store(path: Path, value: Any) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        joblib.dump(value, tmp)
        tmp.replace(path)

    def progress(self, items: Iterable[Any], description: str = "") -> Iterator[Any]:
        """Iterate with a progress bar on a terminal (silent otherwise).

        Parameters
        ----------
        items : iterable
            What to iterate over (materialised first, to know the total).
        description : str, default=""
            Label of the bar.

        Yields
        ------
        item : object
            Each of ``items`` in order.
        """
        from rich.console import Console
        from rich.progress import track

        items = list(items)
        console = Console(stderr=True)
        yield from track(
            items,
            description=description or "working",
            transient=True,
            console=console,
            disable=not console.is_terminal,
        )


def register_suite(
    name: str, *, paper: str, description: str | None = None
) -> Callable[[Callable[[SuiteContext], list[dict[str, Any]]]], Callable]:
    """Register a benchmark suite under ``name`` (decorator).

    Parameters
    ----------
    name : str
        The suite's name on the command line (``localselect bench NAME``).
    paper : str
        The paper it reproduces.
    description : str, default=None
        One line for ``localselect bench list``; default the suite function's
        docstring, its lines joined.

    Returns
    -------
    decorator : callable
        Registers the decorated ``suite(ctx) -> records`` and returns it unchanged.
    """

    def decorate(func):
        text = description
        if text is None:
            if not func.__doc__:
                raise TypeError(f"suite {name!r} needs a description or a docstring.")
            text = " ".join(func.__doc__.split())
        _SUITES[name] = Suite(name, func, paper, text)
        return func

    return decorate


def available_suites() -> dict[str, Suite]:
    """List all registered suites, importing every ``suite_*`` module first.

    Returns
    -------
    suites : dict of str to Suite
        The suites by name, sorted.
    """
    import pkgutil

    for folder in FOLDERS:
        package = import_module(f"localselect_benchmarks.{folder}")
        for info in pkgutil.iter_modules(package.__path__):
            if info.name.startswith(SUITE_PREFIX):
                import_module(f"localselect_benchmarks.{folder}.{info.name}")
    return dict(sorted(_SUITES.items()))


def load_published(name: str) -> dict[str, Any]:
    """Load a paper's published table, stored as ``<folder>/published/<name>.json``.

    Parameters
    ----------
    name : str
        File name without the extension (for example ``"lfs_table1"``), looked
        up in the ``published/`` folder of each paper folder (``lfs/``,
        ``margin/``, ``gp/``, ``llds/``, ``compare/``).

    Returns
    -------
    table : dict
        The parsed JSON.

    Raises
    ------
    FileNotFoundError
        When no folder holds ``published/<name>.json``.
    """
    for folder in FOLDERS:
        path = resources.files(f"localselect_benchmarks.{folder}") / "published" / f"{name}.json"
        if path.is_file():
            return json.loads(path.read_text())
    raise FileNotFoundError(f"no published table {name!r} in {', '.join(FOLDERS)}")


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


def _to_jsonable(value: Any, where: str) -> Any:
    import numpy as np

    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, (list, tuple)) and all(
        v is None or isinstance(v, (str, bool, int, float, np.generic)) for v in value
    ):
        return [_to_jsonable(v, where) for v in value]
    raise TypeError(
        f"{where} holds a {type(value).__name__}; records must be flat dicts of numbers, "
        "strings, booleans, None or lists of those."
    )


def _check_records(name: str, records: Any) -> list[dict[str, Any]]:
    if not isinstance(records, list):
        raise TypeError(f"Suite {name!r} returned {type(records).__name__}, not a list of dicts.")
    clean = []
    for i, record in enumerate(records):
        if not isinstance(record, dict):
            raise TypeError(
                f"Suite {name!r}: record {i} is a {type(record).__name__}, not a dict."
            )
        clean.append(
            {
                str(k): _to_jsonable(v, f"suite {name!r}, record {i}, key {k!r}")
                for k, v in record.items()
            }
        )
    return clean


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
        What ``results.json`` holds: suite, paper, settings, environment,
        records, notes and wall time.
    """
    from localselect_benchmarks._report import render_report

    suites = available_suites()
    if name not in suites:
        raise ValueError(f"Unknown benchmark suite {name!r}; choose from {sorted(suites)}.")
    suite = suites[name]
    ctx.out.mkdir(parents=True, exist_ok=True)
    logger.info("running suite %s (quick=%s) into %s", name, ctx.quick, ctx.out)
    start = time.perf_counter()
    # Warnings (a solver at max_iter in every fold) would flood the terminal: collect
    # them, once per message, into results.json and the report. Filters still apply,
    # so warnings configured as errors still raise.
    with warnings.catch_warnings(record=True) as caught:
        records = _check_records(name, suite.func(ctx))
    seconds = time.perf_counter() - start
    counts: dict[str, int] = {}
    for w in caught:
        text = f"{w.category.__name__}: {' '.join(str(w.message).split())}"
        counts[text] = counts.get(text, 0) + 1
    warning_lines = [f"{text} ({n}x)" for text, n in counts.items()]
    settings: dict[str, Any] = {
        "quick": ctx.quick,
        "n_jobs": ctx.n_jobs,
        "datasets": ctx.datasets,
        "random_state": ctx.random_state,
    }
    if ctx.repeats is not None:
        settings["repeats"] = ctx.repeats
    if ctx.methods is not None:
        settings["methods"] = ctx.methods
    if ctx.timeout is not None:
        settings["timeout"] = ctx.timeout
    results = {
        "suite": name,
        "paper": suite.paper,
        "description": suite.description,
        "settings": settings,
        "environment": _environment(),
        "seconds": seconds,
        "load_average": load_average(),
        "notes": list(ctx.notes),
        "warnings": warning_lines,
        "records": records,
    }
    (ctx.out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    report = render_report(
        name=name,
        description=suite.description,
        paper=suite.paper,
        records=records,
        seconds=seconds,
        settings=settings,
        notes=ctx.notes,
        warning_lines=warning_lines,
    )
    (ctx.out / "report.md").write_text(report)
    return results


def run_all(ctx: SuiteContext, names: Iterable[str] | None = None) -> dict[str, dict[str, Any]]:
    """Run several suites (default: all), each into ``ctx.out / name``.

    Parameters
    ----------
    ctx : SuiteContext
        Shared settings; each suite gets a copy with its own output folder.
    names : iterable of str, default=None
        Suites to run; ``None`` runs every registered suite.

    Returns
    -------
    results : dict
        Suite name to the dict :func:`run_suite` returned or, for a suite that
        raised, ``{"suite": name, "error": "<type>: <message>"}``: one broken
        suite does not stop the others (Ctrl-C does).

    Notes
    -----
    ``ctx.out / "timings.json"`` records each suite's wall time, whether it
    succeeded and the load average after it, plus the total; it is rewritten
    after every suite.
    """
    import dataclasses

    names = list(available_suites()) if names is None else list(names)
    out: dict[str, dict[str, Any]] = {}
    timings: dict[str, Any] = {
        "quick": ctx.quick,
        "n_jobs": ctx.n_jobs,
        "load_average_start": load_average(),
        "suites": {},
    }
    start = time.perf_counter()
    for name in names:
        sub = dataclasses.replace(ctx, out=ctx.out / name, notes=[])
        suite_start = time.perf_counter()
        try:
            out[name] = run_suite(name, sub)
        except Exception as exc:
            logger.warning("suite %s failed", name, exc_info=True)
            out[name] = {"suite": name, "error": f"{type(exc).__name__}: {exc}"}
        # Wall time of the whole cell as the user waits for it (setup and report
        # included), beside the suite's own ``seconds``; written after every suite
        # so an interrupted run still leaves the times of the finished suites.
        timings["suites"][name] = {
            "seconds": time.perf_counter() - suite_start,
            "ok": "error" not in out[name],
            "load_average": load_average(),
        }
        timings["total_seconds"] = time.perf_counter() - start
        ctx.out.mkdir(parents=True, exist_ok=True)
        (ctx.out / "timings.json").write_text(json.dumps(timings, indent=2) + "\n")
    return out


def collect_results(folder: str | Path) -> list[dict[str, Any]]:
    """Read every ``results.json`` below ``folder`` (for example ``docs/results/*/``).

    Parameters
    ----------
    folder : str or path-like
        Folder searched recursively.

    Returns
    -------
    results : list of dict
        The parsed files, in path order.

    Raises
    ------
    FileNotFoundError
        When ``folder`` does not exist or holds no results.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"results folder {str(folder)!r} does not exist")
    paths = sorted(folder.rglob("results.json"))
    if not paths:
        raise FileNotFoundError(
            f"no results.json below {str(folder)!r}; run `localselect bench SUITE --out DIR` first"
        )
    results = []
    for path in paths:
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "records" not in data:
            raise ValueError(f"{path} is not a localselect results.json (no 'records').")
        results.append(data)
    return results
