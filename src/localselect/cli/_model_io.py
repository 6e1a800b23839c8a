"""Model files of ``localselect select`` and ``predict``: skops, never pickle.

``select`` (with or without ``--cluster``) saves its bundle (a dict: the fitted
preparation and estimator, the columns, the method, the task; built in one place,
:func:`write_model`) with :func:`skops.io.dump` as ``model.skops``. ``predict``
reads the file's list of types first (:func:`skops.io.get_untrusted_types`,
which runs nothing) and loads it only when every type is in
:func:`trusted_types`: localselect's estimators, the types they declare they hold
and those of the CLI's preparation. Anything else is refused with one line naming the
type, before any object is built. A pickle or joblib file, which can run any code when
loaded, is refused.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

from localselect._estimators import held_types, registered
from localselect.cli._errors import CLIError

__all__ = [
    "MODEL_FILE",
    "MODEL_FORMAT",
    "load_bundle",
    "load_model",
    "save_model",
    "trusted_types",
    "write_model",
]

#: Name of the model file ``localselect select`` writes into ``--out``.
MODEL_FILE = "model.skops"

#: Version of the bundle ``select`` saves (``{"format": MODEL_FORMAT, ...}``); ``predict``
#: refuses any other.
MODEL_FORMAT = 1

#: Types the CLI's own preparation holds (impute, scale, one-hot, the text cast):
#: scikit-learn's, numpy's and the CLI's. Each estimator declares the types it holds
#: itself (``holds`` of its :class:`~localselect.base.Declaration`).
_PREPARATION_TYPES = (
    "sklearn.pipeline.Pipeline",
    "sklearn.compose._column_transformer.ColumnTransformer",
    "sklearn.compose._column_transformer._RemainderColsList",
    "sklearn.preprocessing._function_transformer.FunctionTransformer",
    "sklearn.preprocessing._data.StandardScaler",
    "sklearn.preprocessing._encoders.OneHotEncoder",
    "sklearn.impute._base.SimpleImputer",
    "sklearn.utils._bunch.Bunch",
    "numpy.dtype",
    # the table layer's records, which every estimator fitted through
    # localselect.base.LabelledFitMixin holds (input_columns_, encoding_)
    "localselect._tables.InputColumns",
    "localselect._encoding.ColumnEncoding",
    "localselect.cli._columns.AsBinary",
    "localselect.cli._columns.AsBooleanLevels",
    "localselect.cli._table._AsText",
)


def trusted_types() -> frozenset[str]:
    """Every type name ``predict`` loads from a model file.

    Returns
    -------
    names : frozenset of str
        ``module.Class`` of each registered estimator and of the types it
        declares it holds (:func:`localselect._estimators.held_types`), and
        the types of the CLI's preparation (:data:`_PREPARATION_TYPES`).
    """
    names = set(_PREPARATION_TYPES)
    for cls in registered().values():
        names |= held_types(cls)
    return frozenset(names)


def save_model(bundle: dict[str, Any], path: Path) -> None:
    """Write ``bundle`` to ``path`` with :func:`skops.io.dump` (no pickle inside)."""
    import skops.io as sio

    sio.dump(bundle, path)


def load_model(path: Path, *, what: str = "") -> Any:
    """Read a model file written by :func:`save_model`.

    Parameters
    ----------
    path : Path
        ``model.skops``.
    what : str, default=""
        The reason a file that is not a model is rejected (prefix of the message).

    Raises
    ------
    CLIError
        The file holds a type outside :func:`trusted_types` (named; nothing was
        built), is not a skops file (a pickle or joblib file is never loaded), or
        cannot be read.
    """
    if not zipfile.is_zipfile(path):
        raise CLIError(
            f"{str(path)!r} is not a skops model file; localselect never loads a pickle or "
            "joblib file (it can run any code when loaded): re-run `localselect select` "
            "to write model.skops"
        )
    import skops.io as sio

    try:
        found = sio.get_untrusted_types(file=path)
    except Exception as exc:
        raise CLIError(f"{what} (skops cannot read it: {type(exc).__name__})") from exc
    trusted = trusted_types()
    untrusted = [name for name in found if name not in trusted]
    if untrusted:
        raise CLIError(
            f"refusing to load {str(path)!r}: it holds the untrusted type {untrusted[0]!r} "
            "(localselect loads only its estimators and the scikit-learn/numpy types they hold)"
        )
    try:
        return sio.load(path, trusted=found)
    except Exception as exc:
        raise CLIError(f"{what} (skops cannot read it: {type(exc).__name__})") from exc


def write_model(
    out: Path,
    *,
    method: str,
    target: str,
    columns: list[str],
    feature_names: list[str],
    pipeline: Any,
    missing: str,
) -> str:
    """Write the bundle ``predict`` applies into ``out``; the file's name (:data:`MODEL_FILE`).

    ``pipeline`` is the fitted preparation with the estimator as its last step
    (``"estimator"``); ``columns`` the input columns it reads, ``feature_names``
    the features the estimator sees, ``missing`` the ``--missing`` mode used.
    Whether the estimator is a classifier and its task (``task_``, else
    classification) are read from it.
    """
    from sklearn.base import is_classifier

    import localselect

    estimator = pipeline.named_steps["estimator"]
    bundle = {
        "format": MODEL_FORMAT,
        "localselect": localselect.__version__,
        "method": method,
        "target": target,
        "columns": list(columns),
        "feature_names": list(feature_names),
        "classifier": is_classifier(estimator),
        "task": getattr(estimator, "task_", "classification"),
        "missing": missing,
        "pipeline": pipeline,
    }
    save_model(bundle, out / MODEL_FILE)
    return MODEL_FILE


def load_bundle(path: Path) -> dict[str, Any]:
    """The model saved by ``select`` (its bundle), or a :class:`CLIError` saying what it is."""
    from localselect.cli._table import looks_like_table

    if not path.is_file():
        raise CLIError(f"model file {str(path)!r} does not exist")
    not_a_model = (
        f"{str(path)!r} is not a localselect model; --model takes the model.skops that "
        "`localselect select` writes into its --out folder"
    )
    if looks_like_table(path):
        raise CLIError(f"{not_a_model} (this looks like a data table: pass it as --input)")
    bundle = load_model(path, what=not_a_model)
    if not isinstance(bundle, dict) or bundle.get("format") != MODEL_FORMAT:
        raise CLIError(f"{not_a_model} (it holds another kind of object)")
    return bundle
