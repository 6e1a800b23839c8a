"""One check of a fit's size: refuse at once a fit that would not finish at its settings.

Most estimators scale to a million rows at their defaults, because their
defaults pick a scalable variant (``n_candidates="auto"``: nearest
candidates instead of all pairs; sampled reference rows). A few do O(N^2)
work, or linear work with a large constant, whatever their defaults; on a
large table they would run for hours and then, perhaps, run out of memory.
:func:`check_scale` (called by ``LabelledFitMixin.fit`` right after
validation) refuses such a fit at once with a ``ValueError`` that gives the
estimated time and names what to set.

An estimator declares its cost model in its declaration
(``Declaration(..., size=MeasuredCost(...))``, see
:mod:`localselect._estimators`); a subclass has the model of the nearest
declared class it derives from. A cost model is any object with a method
``refusal(estimator, n_samples, n_features, declared_by)`` returning the
message or None; :class:`MeasuredCost` (a fit time measured at the defaults
and its growth in N) serves most, and a method with a cost that depends on
its parameters writes its own beside its estimator. The costs come from
measured fit times on one thread (seconds per unit of work, measured on a
2-core machine, see ``docs/scaling.md``); a fit is refused when its estimate
exceeds :data:`BUDGET_SECONDS`. This module reads the declaration as a class
attribute and imports nothing of localselect.
"""

from __future__ import annotations

from typing import Any, NamedTuple

__all__ = [
    "BUDGET_SECONDS",
    "MeasuredCost",
    "about",
    "check_scale",
    "rows_within",
    "scale_refusal",
]

#: The longest a fit may be expected to take (one thread) before it is refused.
BUDGET_SECONDS = 600.0


def about(seconds: float) -> str:
    """``seconds`` as a person reads a long wait: "about 3 h", "about 25 min"."""
    if seconds >= 3600:
        return f"about {seconds / 3600:.0f} h"
    return f"about {seconds / 60:.0f} min"


def rows_within(pair_seconds: float, m: int) -> int:
    """Most rows a fit costing ``pair_seconds`` per row pair (20 features) does within budget."""
    return int((BUDGET_SECONDS / (pair_seconds * max(m, 1) / 20)) ** 0.5)


class MeasuredCost(NamedTuple):
    """A fit time measured at the defaults (one thread, 20 features) and its growth in N.

    Parameters
    ----------
    seconds : float
        The measured fit time, at ``n_samples`` rows of 20 features.
    n_samples : int
        The rows of the measurement.
    exponent : float
        The time grows as ``N ** exponent`` (and linearly in the features).
    why : str
        What the cost is, with ``{n}`` (the rows) and ``{p}`` (the exponent).
    fix : str, default=""
        The parameter to set, said in the message before the advised sample.
    per : tuple of (str, float), default=()
        ``(parameter, value at the measurement)``: the time is proportional to
        that parameter (e.g. ``("n_estimators", 100)``).
    instead : str, default=""
        A cheaper way the message advises after the sample size (e.g. another
        estimator whose cost is linear in N).
    """

    seconds: float
    n_samples: int
    exponent: float
    why: str
    fix: str = ""
    per: tuple = ()
    instead: str = ""

    def refusal(self, estimator: Any, n: int, m: int, declared_by: str) -> str | None:
        """The refusal message of a fit on ``n`` x ``m``, or None (:func:`scale_refusal`).

        The time extrapolated from the measurement; the message names
        ``declared_by``, the measured class.
        """
        factor = max(m, 1) / 20
        if self.per:
            parameter, measured_at = self.per
            factor *= estimator.get_params(deep=False).get(parameter, measured_at) / measured_at
        seconds = self.seconds * factor * (n / self.n_samples) ** self.exponent
        if seconds <= BUDGET_SECONDS:
            return None
        ratio = BUDGET_SECONDS / (self.seconds * factor)
        rows = int(self.n_samples * ratio ** (1 / self.exponent))
        why = self.why.format(n=n, p=self.exponent)
        advice = ", or ".join(
            part for part in (f"set {self.fix}" if self.fix else "", self.instead) if part
        )
        return (
            f"{declared_by} {why}: {about(seconds)} on one thread at these settings; fit "
            f"on a sample of at most {rows} rows" + (f" ({advice})." if advice else ".")
        )


def _declared(cls: type) -> tuple[str, Any]:
    """``(class name, size model)`` of the nearest class of ``cls``'s MRO with a declaration."""
    for klass in cls.__mro__:
        found: Any = vars(klass).get("_declaration")
        if getattr(found, "name", ""):  # a mixin's declaration has no name: not an estimator's
            return klass.__name__, found.size
    return cls.__name__, None


def scale_refusal(estimator: Any, n_samples: int, n_features: int) -> str | None:
    """The refusal message of a fit of ``estimator`` on ``n_samples`` rows, or None.

    Parameters
    ----------
    estimator : estimator
        Its declared ``size`` model, or that of the nearest declared class it
        derives from (a user's subclass).
    n_samples, n_features : int
        The shape of the training data.

    Returns
    -------
    message : str or None
        Why the fit would not finish within :data:`BUDGET_SECONDS` and what to
        set; None when it would (or no model is declared).
    """
    name, model = _declared(type(estimator))
    if model is None:
        return None
    return model.refusal(estimator, n_samples, n_features, name)


def check_scale(estimator: Any, X: Any) -> Any:
    """Return ``X`` unchanged, or raise when the fit would not finish (:func:`scale_refusal`).

    Raises
    ------
    ValueError
        The estimated one-thread fit time exceeds :data:`BUDGET_SECONDS`; the
        message says what to set.
    """
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2:
        return X
    message = scale_refusal(estimator, int(shape[0]), int(shape[1]))
    if message is not None:
        raise ValueError(message)
    return X
