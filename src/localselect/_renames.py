"""Renamed parameters and fitted attributes: the old name works for one release.

One name means one thing across the library (docs/glossary.md). A renamed
parameter keeps its old name in ``__init__`` as a keyword with the default
:data:`DEPRECATED` (scikit-learn's pattern, so ``get_params`` and ``clone`` see
both); the estimator reads the value through :func:`renamed_parameter`, which
warns with a ``FutureWarning`` naming old and new when the old name was
passed. A renamed fitted attribute is a read-only :func:`renamed_attribute`
property that warns likewise.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from localselect._compat import Hidden, StrOptions

__all__ = [
    "DEPRECATED",
    "REMOVED_IN",
    "deprecated_option",
    "renamed_attribute",
    "renamed_parameter",
]

#: Default of a renamed parameter's old name: not passed.
DEPRECATED = "deprecated"
#: The release that drops the old names.
REMOVED_IN = "0.2.0"


def deprecated_option(constraints: list) -> list:
    """The ``_parameter_constraints`` entry of an old name: the new name's, or the marker."""
    return [*constraints, Hidden(StrOptions({DEPRECATED}))]


def _passed(value: Any) -> bool:
    return not (isinstance(value, str) and value == DEPRECATED)


def renamed_parameter(estimator: Any, old: str, new: str, *, warn: bool = True) -> Any:
    """The value of parameter ``new``, or of its old name ``old`` if that was passed.

    Passing the old name warns (``FutureWarning``, unless ``warn`` is False);
    passing both, the new one set away from its default, is a ``ValueError``.
    """
    value = getattr(estimator, old, DEPRECATED)
    if not _passed(value):
        return getattr(estimator, new)
    name = type(estimator).__name__
    default = inspect.signature(type(estimator).__init__).parameters[new].default
    current = getattr(estimator, new)
    if current is not default and current != default:
        raise ValueError(
            f"{name}: got both {old}={value!r} and {new}={current!r}; {old} is the old name "
            f"of {new}, so pass {new} only."
        )
    if warn:
        warnings.warn(
            f"{name}: parameter '{old}' was renamed to '{new}' and the old name will be "
            f"removed in {REMOVED_IN}; pass {new}={value!r} instead.",
            FutureWarning,
            stacklevel=3,
        )
    return value


def renamed_attribute(old: str, new: str) -> property:
    """A read-only alias ``old`` of the fitted attribute ``new`` that warns when read."""

    def get(self: Any) -> Any:
        value = getattr(self, new)  # AttributeError before fit, as for ``new``
        warnings.warn(
            f"{type(self).__name__}: attribute '{old}' was renamed to '{new}' and the old "
            f"name will be removed in {REMOVED_IN}; read {new} instead.",
            FutureWarning,
            stacklevel=2,
        )
        return value

    return property(get, doc=f"Deprecated alias of ``{new}`` (removed in {REMOVED_IN}).")
