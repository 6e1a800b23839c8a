"""Fitted state that ``skops.io`` can save: the estimators' side of safe model files.

``skops.io`` (what ``localselect select`` saves models with) stores numpy
arrays, builtin containers and scikit-learn objects without pickle, but not a
``dict`` keyed by tuples nor a ``pandas.DataFrame``. :class:`PortableStateMixin`
writes such attributes as plain lists in ``__getstate__`` and rebuilds them in
``__setstate__``, so the same fitted estimator saves with skops, pickle and
joblib alike and predicts identically after loading.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PortableStateMixin"]

_TUPLE_KEYS = "__tuple_keyed_dict__:"
_FRAME = "__data_frame__:"


def _encode(value: Any) -> tuple[str, Any] | None:
    """``(prefix, plain value)`` for a value skops cannot store as it is, else None."""
    import pandas as pd

    if isinstance(value, dict) and any(isinstance(k, tuple) for k in value):
        return _TUPLE_KEYS, [list(value), list(value.values())]
    if isinstance(value, pd.DataFrame):
        columns = {str(c): value[c].tolist() for c in value.columns}
        dtypes = {str(c): str(value[c].dtype) for c in value.columns}
        return _FRAME, {"columns": list(columns), "data": columns, "dtypes": dtypes}
    return None


def _decode(prefix: str, value: Any) -> Any:
    if prefix == _TUPLE_KEYS:
        keys, values = value
        return {tuple(k): v for k, v in zip(keys, values, strict=True)}
    import pandas as pd

    frame = pd.DataFrame({c: value["data"][c] for c in value["columns"]}, columns=value["columns"])
    return frame.astype(value["dtypes"])


class PortableStateMixin:
    """Make ``__getstate__`` hold only types ``skops.io`` can save (put before BaseEstimator).

    Tuple-keyed dicts become ``[keys, values]`` lists and data frames a
    ``{"columns", "data"}`` dict of column lists; ``__setstate__`` rebuilds
    both, so nothing else in the estimator sees the difference.
    """

    def __getstate__(self) -> dict[str, Any]:
        parent: Any = super()
        state: dict[str, Any] = dict(parent.__getstate__())
        for name in list(state):
            encoded = _encode(state[name])
            if encoded is not None:
                prefix, plain = encoded
                del state[name]
                state[prefix + name] = plain
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        for name in list(state):
            for prefix in (_TUPLE_KEYS, _FRAME):
                if name.startswith(prefix):
                    state[name[len(prefix) :]] = _decode(prefix, state.pop(name))
        parent: Any = super()
        parent.__setstate__(state)
