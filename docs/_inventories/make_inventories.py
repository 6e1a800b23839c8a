"""Write the intersphinx inventories the docs build reads offline.

The build machine has no internet access, so ``conf.py`` reads ``objects.inv``
files from this folder instead of downloading them. They are generated here
from the *installed* packages: every public name of the modules listed below,
mapped to the page it has on the project's documentation site by the site's
URL scheme. Regenerate after upgrading a dependency::

    python docs/_inventories/make_inventories.py

With network access, ``LOCALSELECT_DOCS_ONLINE_INVENTORIES=1 make -C docs html``
(or the same variable with ``sphinx-build``) uses the projects' published
inventories instead.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

HERE = Path(__file__).resolve().parent

Entry = tuple[str, str, str]  # (name, domain:role, uri)


def _role(obj: object) -> str | None:
    if inspect.ismodule(obj):
        return "py:module"
    if inspect.isclass(obj):
        return "py:exception" if issubclass(obj, BaseException) else "py:class"
    if callable(obj):
        return "py:function"
    return None


def _public(module: object) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in dir(module) if not n.startswith("_")]
    return [n for n in names if not n.startswith("_")]


def _walk(
    modules: Iterable[str],
    page: Callable[[str], str],
    *,
    methods: bool = True,
    module_page: Callable[[str], str] | None = None,
) -> list[Entry]:
    """Every public name of ``modules`` (and public methods of its classes)."""
    entries: list[Entry] = []
    for modname in modules:
        try:
            module = importlib.import_module(modname)
        except ImportError:
            continue
        if module_page is not None:
            entries.append((modname, "py:module", module_page(modname)))
        for name in _public(module):
            try:
                obj = getattr(module, name)
            except (AttributeError, ImportError):  # experimental names need an opt-in
                continue
            role = _role(obj)
            if role is None or role == "py:module":
                continue
            full = f"{modname}.{name}"
            entries.append((full, role, page(full)))
            defined = f"{getattr(obj, '__module__', None)}.{name}"
            if defined != full and role != "py:function":
                # autodoc names base classes by their defining (private) module
                entries.append((defined, role, f"{page(full)}#{full}"))
            if methods and role == "py:class":
                for attr, value in vars(obj).items():
                    if attr.startswith("_") or not callable(value):
                        continue
                    entries.append((f"{full}.{attr}", "py:method", page(full)))
    return entries


def _write(path: Path, project: str, version: str, entries: list[Entry]) -> None:
    seen: set[tuple[str, str]] = set()
    lines = []
    for name, role, uri in sorted(entries):
        if (name, role) in seen:
            continue
        seen.add((name, role))
        anchor_uri = f"{uri}#$" if "#" not in uri else uri
        lines.append(f"{name} {role} 1 {anchor_uri} -")
    header = (
        "# Sphinx inventory version 2\n"
        f"# Project: {project}\n"
        f"# Version: {version}\n"
        "# The remainder of this file is compressed using zlib.\n"
    )
    body = zlib.compress(("\n".join(lines) + "\n").encode())
    path.write_bytes(header.encode() + body)
    print(f"{path.name}: {len(lines)} objects")


def _python() -> list[Entry]:
    """Builtins and the glossary terms numpydoc's default type links point to."""
    import builtins

    out: list[Entry] = [
        ("None", "py:data", "library/constants.html#None"),
        ("True", "py:data", "library/constants.html#True"),
        ("False", "py:data", "library/constants.html#False"),
        ("bltin-boolean-values", "std:label", "library/stdtypes.html#bltin-boolean-values"),
        ("pathlib.Path", "py:class", "library/pathlib.html#pathlib.Path"),
        ("os.PathLike", "py:class", "library/os.html#os.PathLike"),
        ("argparse.ArgumentParser", "py:class", "library/argparse.html#argparse.ArgumentParser"),
        ("logging.Logger", "py:class", "library/logging.html#logging.Logger"),
    ]
    for term in ("sequence", "iterable", "mapping", "hashable", "path-like object", "callable"):
        out.append((term, "std:term", f"glossary.html#term-{term.replace(' ', '-')}"))
    for name in dir(builtins):
        obj = getattr(builtins, name)
        if name.startswith("_") or not callable(obj):
            continue
        if inspect.isclass(obj) and issubclass(obj, BaseException):
            out.append((name, "py:exception", f"library/exceptions.html#{name}"))
        elif inspect.isclass(obj) and name in {
            "str",
            "list",
            "tuple",
            "dict",
            "set",
            "frozenset",
            "bytes",
            "range",
            "memoryview",
        }:
            out.append((name, "py:class", f"library/stdtypes.html#{name}"))
        elif inspect.isclass(obj):
            out.append((name, "py:class", f"library/functions.html#{name}"))
        else:
            out.append((name, "py:function", f"library/functions.html#{name}"))
    return out


def main() -> None:
    import dask
    import joblib
    import numpy
    import pandas
    import scipy
    import sklearn

    sk_modules = [
        f"sklearn.{m}"
        for m in sklearn.__all__
        if m not in {"externals", "experimental", "callback"}
        and importlib.util.find_spec(f"sklearn.{m}") is not None
    ]
    sk_modules = sorted(set(sk_modules) | {"sklearn.base", "sklearn.utils", "sklearn"})
    sk = _walk(
        sk_modules,
        lambda full: f"modules/generated/{full}.html",
        module_page=lambda mod: f"api/{mod}.html",
    )
    _write(HERE / "sklearn.inv", "scikit-learn", sklearn.__version__, sk)

    np_entries = _walk(
        ["numpy", "numpy.linalg", "numpy.fft"],
        lambda full: f"reference/generated/{full}.html",
        methods=False,
    )
    np_entries += [
        ("numpy.ndarray", "py:class", "reference/generated/numpy.ndarray.html"),
        ("numpy.dtype", "py:class", "reference/generated/numpy.dtype.html"),
        ("numpy.float64", "py:class", "reference/arrays.scalars.html#numpy.float64"),
        ("numpy.random", "py:module", "reference/random/index.html#module-numpy.random"),
        (
            "numpy.random.RandomState",
            "py:class",
            "reference/random/legacy.html#numpy.random.RandomState",
        ),
        (
            "numpy.random.Generator",
            "py:class",
            "reference/random/generator.html#numpy.random.Generator",
        ),
        (
            "numpy.random.default_rng",
            "py:function",
            "reference/random/generator.html#numpy.random.default_rng",
        ),
        ("numpy.typing.NDArray", "py:data", "reference/typing.html#numpy.typing.NDArray"),
        ("numpy.typing.ArrayLike", "py:data", "reference/typing.html#numpy.typing.ArrayLike"),
    ]
    np_entries += [
        (term, "std:term", f"glossary.html#term-{term.replace('_', '-')}")
        for term in ("array_like", "array", "ndarray", "dtype", "broadcast")
    ]
    _write(HERE / "numpy.inv", "NumPy", numpy.__version__, np_entries)

    _write(HERE / "python.inv", "Python", "3", _python())

    sp_subs = [
        "optimize",
        "linalg",
        "sparse",
        "stats",
        "special",
        "spatial",
        "spatial.distance",
        "cluster.hierarchy",
        "sparse.linalg",
        "integrate",
        "interpolate",
    ]
    sp = _walk(
        [f"scipy.{s}" for s in sp_subs],
        lambda full: f"reference/generated/{full}.html",
        methods=False,
        module_page=lambda mod: f"reference/{mod.removeprefix('scipy.')}.html#module-{mod}",
    )
    _write(HERE / "scipy.inv", "SciPy", scipy.__version__, sp)

    pd = _walk(["pandas"], lambda full: f"reference/api/{full}.html", methods=False)
    for cls in ("DataFrame", "Series", "Index", "Categorical"):
        obj = getattr(pandas, cls)
        for attr in dir(obj):
            if not attr.startswith("_"):
                full = f"pandas.{cls}.{attr}"
                role = "py:method" if callable(getattr(obj, attr, None)) else "py:attribute"
                pd.append((full, role, f"reference/api/{full}.html"))
    _write(HERE / "pandas.inv", "pandas", pandas.__version__, pd)

    jl = _walk(["joblib"], lambda full: f"generated/{full}.html")
    _write(HERE / "joblib.inv", "joblib", joblib.__version__, jl)

    dk = _walk(
        ["dask.array", "dask.dataframe", "dask.bag"],
        lambda full: f"generated/{full}.html",
        methods=False,
    )
    dk += [
        ("dask.delayed", "py:function", "delayed-api.html#dask.delayed.delayed"),
        ("dask.compute", "py:function", "api.html#dask.compute"),
        ("dask.persist", "py:function", "api.html#dask.persist"),
    ]
    _write(HERE / "dask.inv", "Dask", dask.__version__, dk)

    try:
        import distributed
    except ImportError:  # pragma: no cover - the dask extra is absent
        return
    dd = [
        (f"distributed.{name}", role, f"api.html#distributed.{name}")
        for name in _public(distributed)
        if (role := _role(getattr(distributed, name, None))) in {"py:class", "py:function"}
    ]
    _write(HERE / "distributed.inv", "distributed", distributed.__version__, dd)


if __name__ == "__main__":
    main()
