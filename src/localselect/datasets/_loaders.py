"""Loaders for the real data sets used by the papers (LFS, IMMIGRATE, GP-LFS, LLDS).

The metadata lives in ``_registry.json``, generated from the data directory's
``manifest.json``: file paths, expected shapes, how to decode each file, and its
public download routes. Files are looked up in the data directory
(:func:`get_data_home`), then in the download cache. A missing file is fetched
from a public original when one is known, into the cache:

- ``github``: the exact file from the source repository, pinned to a commit and
  checked against the manifest's sha256 (decoded exactly like the local file);
- ``openml``: the same data set through :func:`sklearn.datasets.fetch_openml`
  (OpenML's column names and label spellings, which may differ from the file's);
- ``none``: no public route, the file must be in the data directory.

The cache is ``$LOCALSELECT_CACHE`` or ``~/.cache/localselect``.
"""

from __future__ import annotations

import difflib
import gzip
import hashlib
import json
import os
from functools import cache
from pathlib import Path
from typing import Any, Literal, cast, overload
from urllib.parse import quote
from urllib.request import urlopen

import numpy as np
import numpy.typing as npt
import pandas as pd
import sklearn.datasets
from scipy.io import loadmat
from sklearn.datasets import fetch_openml, load_svmlight_file

__all__ = [
    "DatasetNotFoundError",
    "get_data_home",
    "list_datasets",
    "load_dataset",
    "load_lfs_sample",
]

DATA_ENV = "LOCALSELECT_DATA"
CACHE_ENV = "LOCALSELECT_CACHE"
_GITHUB_RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
_TIMEOUT = 60  # seconds per HTTP request

Entry = dict[str, Any]
PathLike = str | os.PathLike[str]
Float64Array = npt.NDArray[np.float64]
Int64Array = npt.NDArray[np.int64]


class DatasetNotFoundError(ValueError):
    """A data set name is unknown, or its files are neither local nor downloadable."""


@cache
def _registry() -> dict[str, Entry]:
    text = Path(__file__).with_name("_registry.json").read_text(encoding="utf-8")
    return {entry["name"]: entry for entry in json.loads(text)["datasets"]}


def _lookup(name: str) -> Entry:
    """Registry entry for ``name`` (case-insensitive), with close matches on failure."""
    registry = _registry()
    by_lower = {key.lower(): key for key in registry}
    key = by_lower.get(str(name).lower())
    if key is not None:
        return registry[key]
    close = difflib.get_close_matches(str(name).lower(), by_lower, n=5)
    hint = f" Did you mean {', '.join(repr(by_lower[c]) for c in close)}?" if close else ""
    raise DatasetNotFoundError(
        f"Unknown dataset {name!r}.{hint} "
        f"See localselect.datasets.list_datasets() for all {len(registry)} names."
    )


# --------------------------------------------------------------------------- locations


def _is_repo_root(path: Path) -> bool:
    pyproject = path / "pyproject.toml"
    return pyproject.is_file() and 'name = "localselect"' in pyproject.read_text(errors="ignore")


def _repo_root() -> Path | None:
    parents = Path(__file__).resolve().parents
    if len(parents) > 3 and _is_repo_root(parents[3]):  # src layout, editable install
        return parents[3]
    cwd = Path.cwd()
    return next((d for d in (cwd, *cwd.parents) if _is_repo_root(d)), None)


def get_data_home(data_home: PathLike | None = None) -> Path | None:
    """Directory holding the benchmark data files.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Explicit directory; returned as given (with ``~`` expanded).

    Returns
    -------
    path : Path or None
        ``data_home`` if given, else ``$LOCALSELECT_DATA`` if set, else
        ``<repository>/../shared/data`` when that directory exists, else None.
        The repository root is the checkout holding this module (editable
        install), else the first directory above the working directory whose
        ``pyproject.toml`` names the ``localselect`` project.

    Examples
    --------
    >>> from localselect.datasets import get_data_home
    >>> get_data_home("~/data").name
    'data'
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    if os.environ.get(DATA_ENV):
        return Path(os.environ[DATA_ENV]).expanduser()
    root = _repo_root()
    if root is not None and (root.parent / "shared" / "data").is_dir():
        return (root.parent / "shared" / "data").resolve()
    return None


def _cache_home() -> Path:
    return Path(os.environ.get(CACHE_ENV) or Path.home() / ".cache" / "localselect").expanduser()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _local_files(entry: Entry, home: Path | None, *, verify: bool = False) -> list[Path] | None:
    """The entry's files in the data directory or the cache, or None if any is absent."""
    for base in (home, _cache_home() / "files"):
        paths = [base / rel for rel in entry["files"]] if base is not None else []
        if paths and all(p.is_file() for p in paths):
            if verify and base == home:
                for rel, path in zip(entry["files"], paths):
                    expected = entry["sha256"].get(rel)
                    if expected and _sha256(path) != expected:
                        raise ValueError(f"sha256 of {path} differs from the manifest")
            return paths
    return None


def _routes(entry: Entry) -> str:
    routes = ["sklearn"] if entry["sklearn"] else []
    if entry["github"]:
        routes.append(f"github:{entry['github']['repo']}")
    if entry["openml"]:
        routes.append(f"openml:{entry['openml']}")
    return ", ".join(routes) or "none"


# --------------------------------------------------------------------------- downloads


def _urlread(url: str) -> bytes:
    with urlopen(url, timeout=_TIMEOUT) as response:
        return response.read()


def _download_github(entry: Entry) -> list[Path]:
    """Fetch the pinned source files into the cache, keeping the data-dir layout."""
    github, out = entry["github"], []
    for rel, src, compress in zip(entry["files"], github["paths"], github["gzip"]):
        dest = _cache_home() / "files" / rel
        if not dest.is_file():
            url = _GITHUB_RAW.format(repo=github["repo"], commit=github["commit"], path=quote(src))
            data = _urlread(url)
            expected = entry["sha256"].get(rel)
            if compress:  # the data directory holds a gzipped copy of the original
                data = gzip.compress(data, mtime=0)
            elif expected and hashlib.sha256(data).hexdigest() != expected:
                raise ValueError(f"sha256 of {url} differs from the manifest")
            dest.parent.mkdir(parents=True, exist_ok=True)
            part = dest.with_name(f".{dest.name}.{os.getpid()}.part")
            part.write_bytes(data)
            part.replace(dest)
        out.append(dest)
    return out


def _obtain(
    entry: Entry, home: Path | None, *, download_if_missing: bool, verify: bool
) -> list[Path] | tuple[pd.DataFrame, pd.Series]:
    """Local files of ``entry``, downloading them or an OpenML copy when absent."""
    paths = _local_files(entry, home, verify=verify)
    if paths is not None:
        return paths
    tried: list[str] = []
    error: Exception | None = None
    if download_if_missing and entry["github"]:
        try:
            return _download_github(entry)
        except (OSError, ValueError) as exc:
            tried.append(f"github:{entry['github']['repo']} ({type(exc).__name__}: {exc})")
            error = exc
    if download_if_missing and entry["openml"]:
        try:
            bunch = fetch_openml(
                data_id=entry["openml"], data_home=str(_cache_home() / "openml"), as_frame=True
            )
            return bunch.data, bunch.target
        except (OSError, ValueError) as exc:
            tried.append(f"openml:{entry['openml']} ({type(exc).__name__}: {exc})")
            error = exc
    where = (
        f"the data directory {str(home)!r}"
        if home is not None
        else f"no data directory (no data_home, {DATA_ENV} unset, no ../shared/data)"
    )
    if tried:
        route = "Download failed: " + "; ".join(tried) + "."
    elif download_if_missing:
        route = "No public download route."
    else:
        route = f"Download disabled (download_if_missing=False); routes: {_routes(entry)}."
    raise DatasetNotFoundError(
        f"Dataset {entry['name']!r} not found: expected {' + '.join(entry['files'])!r} "
        f"in {where} or the cache {str(_cache_home() / 'files')!r}. "
        f"{route} Set the {DATA_ENV} environment variable (or pass data_home=) to the "
        "directory holding the benchmark data and its manifest.json."
    ) from error


# --------------------------------------------------------------------------- readers


def _is_text(col: pd.Series) -> bool:
    return pd.api.types.is_object_dtype(col.dtype) or isinstance(col.dtype, pd.StringDtype)


def _frame(X: npt.ArrayLike) -> pd.DataFrame:
    X = np.asarray(X, dtype=np.float64)
    return pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])])


def _split(df: pd.DataFrame, spec: Entry) -> tuple[pd.DataFrame, pd.Series]:
    """Separate the target, drop ID-like columns, tidy text labels."""
    df = df.rename(columns=lambda c: c.strip() if isinstance(c, str) else c)
    y = df.pop(spec["target"])
    if _is_text(y):
        y = y.str.strip().replace(spec.get("label_map", {}))
    return df.drop(columns=spec.get("drop", [])), y


def _read_table(paths: list[Path], spec: Entry) -> tuple[pd.DataFrame, pd.Series]:
    header = 0 if spec.get("header", True) else None
    frames = [
        pd.read_csv(
            p, sep=spec.get("sep", ","), header=header, names=spec.get("names"), na_values=["?"]
        )
        for p in paths
    ]
    return _split(pd.concat(frames, ignore_index=True), spec)


def _read_xls_sheet(path: Path, sheet: str | int, usecols: int | None) -> pd.DataFrame:
    try:
        import xlrd
    except ImportError as exc:
        raise ImportError(
            "Reading .xls files needs xlrd: pip install 'localselect[excel]'"
        ) from exc
    book = xlrd.open_workbook(str(path))
    sh = book.sheet_by_name(sheet) if isinstance(sheet, str) else book.sheet_by_index(sheet)
    ncols = usecols or sh.ncols
    rows = [[None if v == "" else v for v in sh.row_values(i, 0, ncols)] for i in range(sh.nrows)]
    return pd.DataFrame(rows[1:], columns=rows[0]).dropna(how="all").infer_objects()


def _read_excel(paths: list[Path], spec: Entry) -> tuple[pd.DataFrame, pd.Series]:
    frames = []
    for path in paths:
        for sheet in spec.get("sheets", [0]):
            if path.suffix == ".xls":  # read with xlrd directly: pandas' xlrd engine is deprecated
                frames.append(_read_xls_sheet(path, sheet, spec.get("usecols")))
            else:
                frames.append(pd.read_excel(path, sheet_name=sheet, usecols=spec.get("usecols")))
    return _split(pd.concat(frames, ignore_index=True), spec)


def _read_mat(paths: list[Path], spec: Entry) -> tuple[pd.DataFrame, pd.Series]:
    mat = loadmat(paths[0])
    return _frame(mat["X"]), pd.Series(np.ravel(mat["Y"]).astype(np.int64), name="Y")


def _read_libsvm(paths: list[Path], spec: Entry) -> tuple[pd.DataFrame, pd.Series]:
    X, y = load_svmlight_file(str(paths[0]), n_features=spec["n_features"])
    return _frame(X.toarray()), pd.Series(y.astype(np.int64), name="target")


def _lfs_arrays(path: Path) -> tuple[Float64Array, Int64Array, Float64Array, Int64Array]:
    mat = loadmat(path)  # Train/Test are stored features x samples
    return (
        np.asarray(mat["Train"].T, dtype=np.float64),
        np.ravel(mat["TrainLables"]).astype(np.int64),
        np.asarray(mat["Test"].T, dtype=np.float64),
        np.ravel(mat["TestLables"]).astype(np.int64),
    )


def _read_lfs(paths: list[Path], spec: Entry) -> tuple[pd.DataFrame, pd.Series]:
    X_train, y_train, X_test, y_test = _lfs_arrays(paths[0])
    y = pd.Series(np.concatenate([y_train, y_test]), name="label")
    return _frame(np.vstack([X_train, X_test])), y


_READERS = {
    "table": _read_table,
    "excel": _read_excel,
    "mat": _read_mat,
    "libsvm": _read_libsvm,
    "lfs": _read_lfs,
}


def _to_output(
    X: pd.DataFrame, y: pd.Series, as_frame: bool
) -> tuple[Float64Array, npt.NDArray[Any]] | tuple[pd.DataFrame, pd.Series]:
    X, y = X.reset_index(drop=True), y.reset_index(drop=True)
    text = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c].dtype)]
    if text:
        X = X.astype(dict.fromkeys(text, "category"))
    if as_frame:
        return X, y
    if text:
        X = X.copy()
        for c in text:
            codes = X[c].cat.codes
            X[c] = codes.astype(np.float64).where(codes >= 0)
    return X.to_numpy(dtype=np.float64, na_value=np.nan), np.asarray(y)


# --------------------------------------------------------------------------- public API


def list_datasets(*, data_home: PathLike | None = None) -> pd.DataFrame:
    """Table of the registered real data sets, in manifest order.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; see :func:`get_data_home`.

    Returns
    -------
    table : DataFrame
        One row per data set with columns ``name``, ``n_samples``,
        ``n_features`` (target, ID and name columns excluded), ``n_classes``,
        ``papers`` (tables using it, e.g. ``"LFS T2, IMM T4"``), ``path``
        (relative to the data directory; None for scikit-learn's bundled sets),
        ``available`` (all files present in the data directory or the download
        cache; always True for the bundled sets), ``download`` (public routes:
        ``"sklearn"``, ``"github:<repo>"``, ``"openml:<id>"`` or ``"none"``),
        ``target``, ``license`` and ``notes``.

    Examples
    --------
    >>> from localselect.datasets import list_datasets
    >>> table = list_datasets()
    >>> table.loc[table["name"] == "Sonar", ["n_samples", "n_features", "n_classes"]]
      n_samples  n_features  n_classes
    5       208          60          2
    """
    home = get_data_home(data_home)
    rows = [
        {
            "name": e["name"],
            "n_samples": e["n_samples"],
            "n_features": e["n_features"],
            "n_classes": e["n_classes"],
            "papers": e["papers"],
            "path": " + ".join(e["files"]) or None,
            "available": e["sklearn"] or _local_files(e, home) is not None,
            "download": _routes(e),
            "target": e["target"],
            "license": e["license"],
            "notes": e["notes"],
        }
        for e in _registry().values()
    ]
    return pd.DataFrame(rows)


@overload
def load_dataset(
    name: str,
    *,
    data_home: PathLike | None = ...,
    as_frame: Literal[False] = ...,
    download_if_missing: bool = ...,
    verify: bool = ...,
) -> tuple[Float64Array, npt.NDArray[Any]]: ...


@overload
def load_dataset(
    name: str,
    *,
    data_home: PathLike | None = ...,
    as_frame: Literal[True],
    download_if_missing: bool = ...,
    verify: bool = ...,
) -> tuple[pd.DataFrame, pd.Series]: ...


def load_dataset(
    name: str,
    *,
    data_home: PathLike | None = None,
    as_frame: bool = False,
    download_if_missing: bool = True,
    verify: bool = False,
) -> tuple[Float64Array, npt.NDArray[Any]] | tuple[pd.DataFrame, pd.Series]:
    """Load a real benchmark data set as features and class labels.

    Parameters
    ----------
    name : str
        Data set name as in :func:`list_datasets`, matched case-insensitively.
    data_home : str or path-like, default=None
        Data directory; see :func:`get_data_home`.
    as_frame : bool, default=False
        Return a DataFrame and a Series instead of arrays.
    download_if_missing : bool, default=True
        Fetch a public original into the cache when the files are not local.
    verify : bool, default=False
        Check the sha256 of files read from the data directory against the
        manifest (downloads are always checked).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features) or DataFrame
        Features as float64. Text columns (e.g. HouseVotes84's ``y``/``n``
        votes) are ordinal-encoded as float codes ``0, 1, ...`` in sorted order
        of their values, missing entries stay NaN. With ``as_frame=True``: the
        original column names, text columns as ``category`` dtype, numeric
        columns as read. Arrays without column names (``.mat``, LIBSVM) get
        ``x0, x1, ...``.
    y : ndarray of shape (n_samples,) or Series
        Class labels as in the file: strings stay strings (surrounding spaces
        stripped), integers are int64. The Series is named after the target
        column (``"Y"`` for ``.mat``, ``"target"`` for LIBSVM and scikit-learn).

    Raises
    ------
    DatasetNotFoundError
        If ``name`` is unknown (the message lists close matches), or the files
        are absent and cannot be downloaded.

    See Also
    --------
    list_datasets : Names, shapes, papers and availability.
    load_lfs_sample : The LFS authors' sample data with its train/test split.

    Notes
    -----
    Decoding follows the data directory's ``MANIFEST.md``: ``?`` and empty
    cells are NaN; target, ID and name columns are removed (wdbc/wpbc: column 0
    is the ID, column 1 the target; electrical grid also drops ``stab``, from
    which the target ``stabf`` is derived); urban_land_cover concatenates
    ``training.csv`` and ``testing.csv``; user_knowledge concatenates both
    sheets, spelling ``'Very Low'`` as ``'very_low'``; ``lfs_sample`` returns
    train followed by test; LIBSVM files are read with 123 features.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.datasets import load_dataset
    >>> X, y = load_dataset("sklearn_wine")
    >>> X.shape, X.dtype, np.unique(y)
    ((178, 13), dtype('float64'), array([0, 1, 2]))
    """
    entry = _lookup(name)
    spec = entry["read"]
    if spec["reader"] == "sklearn":
        bunch = getattr(sklearn.datasets, spec["loader"])(as_frame=True)
        return _to_output(bunch.data, bunch.target, as_frame)
    found = _obtain(
        entry, get_data_home(data_home), download_if_missing=download_if_missing, verify=verify
    )
    X, y = found if isinstance(found, tuple) else _READERS[spec["reader"]](found, spec)
    return _to_output(X, y, as_frame)


def load_lfs_sample(
    *, data_home: PathLike | None = None, download_if_missing: bool = True
) -> tuple[Float64Array, Int64Array, Float64Array, Int64Array]:
    """The LFS authors' sample data with their train/test split.

    Parameters
    ----------
    data_home : str or path-like, default=None
        Data directory; see :func:`get_data_home`.
    download_if_missing : bool, default=True
        Fetch the file from the authors' public repository when not local.

    Returns
    -------
    X_train : ndarray of shape (100, 160)
        Training samples as rows (the file stores features x samples), z-scored.
    y_train : ndarray of shape (100,)
        Labels in {0, 1}.
    X_test : ndarray of shape (108, 160)
        Test samples as rows.
    y_test : ndarray of shape (108,)
        Labels in {0, 1}.

    Notes
    -----
    The public Python port (LFSpy) reaches a test accuracy of 0.7963 on this
    split (rounding seed 20). ``load_dataset("lfs_sample")`` returns the
    concatenation, train first.

    Examples
    --------
    >>> from localselect.datasets import load_lfs_sample  # doctest: +SKIP
    >>> X_train, y_train, X_test, y_test = load_lfs_sample()  # doctest: +SKIP
    >>> X_train.shape, X_test.shape  # doctest: +SKIP
    ((100, 160), (108, 160))
    """
    entry = _lookup("lfs_sample")
    found = _obtain(
        entry, get_data_home(data_home), download_if_missing=download_if_missing, verify=False
    )
    return _lfs_arrays(cast(list[Path], found)[0])  # files: this entry has no OpenML route
