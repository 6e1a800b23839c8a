"""How a fit writes an estimator's fitted state: from a record, and without stale attributes.

A fit that computes its values elsewhere (a kernel, a fit on row blocks)
gets them back as a record, a ``NamedTuple`` whose fields are named after the
fitted attributes they hold, and the estimator assigns it itself
(:meth:`FittedStateMixin._assign`). An attribute that one fit sets and a later
fit of the same estimator leaves unset (the p-values of
``n_features_to_select="auto"``, the training rows' answers) is deleted by
that later fit (:meth:`FittedStateMixin._discard`), so no value of an earlier
fit survives into the next.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

__all__ = ["FittedStateMixin"]


class FittedStateMixin:
    """The two writes of a fitted state that are not a plain ``self.name_ = value``.

    Estimators get it through :class:`~localselect.base.LabelledFitMixin` and
    :class:`~localselect.evidence.EvidenceMixin`.
    """

    def _assign(self, record: NamedTuple) -> None:
        """Set each field of ``record`` as the fitted attribute of its name.

        Parameters
        ----------
        record : NamedTuple
            Fields named after fitted attributes (``feature_importances_``, ...).
        """
        fields: Any = record._asdict()
        for name, value in fields.items():
            setattr(self, name, value)

    def _discard(self, names: Iterable[str]) -> None:
        """Delete the attributes ``names`` that a previous fit set on the instance, if any.

        Parameters
        ----------
        names : iterable of str
            Fitted attributes this fit does not set.
        """
        held = vars(self)
        for name in names:
            if name in held:
                delattr(self, name)
