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
declared class it derives from. The models here are :class:`AllPairsCost`
(Relief, ReliefF), :class:`SimbaCost`, :class:`LFSCost` and
:class:`MeasuredCost` (a fit time measured at the defaults and its growth in
N); any object with the same ``refusal`` method serves. The costs come from
measured fit times on one thread (seconds per unit of work, measured on a
2-core machine, see ``docs/scaling.md``); a fit is refused when its estimate
exceeds :data:`BUDGET_SECONDS`. This module reads the declaration as a class
attribute and imports nothing of localselect.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any, NamedTuple

__all__ = [
    "BUDGET_SECONDS",
    "AllPairsCost",
    "LFSCost",
    "MeasuredCost",
    "SimbaCost",
    "check_scale",
    "scale_refusal",
]

#: The longest a fit may be expected to take (one thread) before it is refused.
BUDGET_SECONDS = 600.0

#: Seconds per (reference row x row) pair, all-pairs Relief-type methods with
#: 20 features (Relief: 9.5 s at 20,000 rows with every row a reference,
#: ReliefF 5.2 s; the larger, and scaled by features / 20).
PAIR_SECONDS = 2.4e-8

#: Seconds per (row x row) pair and pass of Simba (14.2 s at 5,000 rows, 20
#: features, 20 passes: its passes stop early at ``tol``, so this is per fit).
SIMBA_PAIR_SECONDS = 5.7e-7

#: LocalFeatureSelection's cost per row and pass pair (``max_iter=2``), one thread,
#: 20 features: ``LFS_ROW_SECONDS + LFS_CANDIDATE_SECONDS * candidates``, times
#: ``(M / 20) ** LFS_FEATURE_EXPONENT``. Fitted to fits on a quiet 2-core machine
#: (load < 1): 3.5 s at 5,000 x 20 and 8.5 s at 5,000 x 200 with 50 candidates per
#: class; 11.4 s at 2,000 x 20 and 24.1 s at 2,000 x 200 with every row a candidate
#: (``n_candidates=None``); checked at 100 x 10,000 exact (0.56 s, model 0.73 s) and
#: 900 x 60 exact with 50 passes (103 s, model 95 s). Past 5,000 rows the cost per
#: row grows as ``(N / 5000) ** LFS_ROW_EXPONENT`` (the search for each row's nearest
#: candidates): 51.3 s at 50,000 x 20 at the defaults.
LFS_ROW_SECONDS = 5.7e-4
LFS_ROW_EXPONENT = 0.17
LFS_CANDIDATE_SECONDS = 2.6e-6
LFS_FEATURE_EXPONENT = 0.35


def _hours(seconds: float) -> str:
    if seconds >= 3600:
        return f"about {seconds / 3600:.0f} h"
    return f"about {seconds / 60:.0f} min"


def _reference_rows(estimator: Any, n: int) -> int | None:
    """The reference rows of a Relief-type fit (``max_samples``), or None when it picks them."""
    params = estimator.get_params(deep=False)
    if "max_samples" not in params:
        return n
    m = params["max_samples"]
    if m is None:
        return n
    if isinstance(m, str):  # "auto", "sqrt", "log": the estimator's scalable choice
        return None
    if isinstance(m, Real) and not isinstance(m, Integral):
        return max(1, round(float(m) * n))
    return min(int(m), n)


def _rows_within(pair_seconds: float, m: int) -> int:
    """Most rows an all-pairs fit handles within the budget."""
    return int((BUDGET_SECONDS / (pair_seconds * max(m, 1) / 20)) ** 0.5)


class AllPairsCost:
    """Relief, ReliefF: distances from every reference row (``max_samples``) to every row."""

    def refusal(self, estimator: Any, n: int, m: int, declared_by: str) -> str | None:
        """The refusal message of a fit on ``n`` x ``m``, or None (:func:`scale_refusal`)."""
        refs = _reference_rows(estimator, n)
        if refs is None:
            return None
        seconds = PAIR_SECONDS * refs * n * max(m, 1) / 20
        if seconds <= BUDGET_SECONDS:
            return None
        name = type(estimator).__name__
        fit_refs = int(BUDGET_SECONDS / (PAIR_SECONDS * n * max(m, 1) / 20))
        has = "max_samples" in estimator.get_params(deep=False)
        fix = (
            f"set max_samples (reference rows drawn at random; e.g. "
            f"max_samples={max(fit_refs, 1)} or fewer finishes within 10 minutes)"
            if has
            else f"fit on a sample of at most {_rows_within(PAIR_SECONDS, m)} rows"
        )
        return (
            f"{name} with {refs} reference rows compares each with all {n} rows (O(M N A) "
            f"work for M reference rows): {_hours(seconds)} on one thread; {fix}."
        )


class SimbaCost:
    """Simba: every row's nearest hit and miss among all rows, on each pass."""

    def refusal(self, estimator: Any, n: int, m: int, declared_by: str) -> str | None:
        """The refusal message of a fit on ``n`` x ``m``, or None (:func:`scale_refusal`)."""
        seconds = SIMBA_PAIR_SECONDS * n * n * max(m, 1) / 20
        if seconds <= BUDGET_SECONDS:
            return None
        return (
            f"Simba recomputes every row's nearest hit and miss among all {n} rows on each "
            f"pass (O(N^2 A) per pass, no sampled variant): {_hours(seconds)} on one thread; "
            f"fit on a sample of at most {_rows_within(SIMBA_PAIR_SECONDS, m)} rows, or use "
            "Relief or ReliefF with max_samples."
        )


def _lfs_seconds(n: int, params: dict, m: int) -> float:
    """LocalFeatureSelection's one-thread fit time on ``n`` x ``m`` at ``params``."""
    candidates = params.get("n_candidates")
    if candidates is None:  # the exact method: every row is a candidate, O(N^2) per pass
        candidates = n
    elif isinstance(candidates, str):
        candidates = 50
    iters = max(int(params.get("max_iter", 2)), 1)
    per_row = (LFS_ROW_SECONDS + LFS_CANDIDATE_SECONDS * min(int(candidates), n)) * (iters / 2)
    per_row *= max(n / 5000, 1.0) ** LFS_ROW_EXPONENT
    return per_row * (max(m, 1) / 20) ** LFS_FEATURE_EXPONENT * n


class LFSCost:
    """LocalFeatureSelection: a linear program per representative row and candidate subset."""

    def refusal(self, estimator: Any, n: int, m: int, declared_by: str) -> str | None:
        """The refusal message of a fit on ``n`` x ``m``, or None (:func:`scale_refusal`)."""
        params = estimator.get_params(deep=False)
        seconds = _lfs_seconds(n, params, m)
        if seconds <= BUDGET_SECONDS:
            return None
        # the most rows within budget (bisection: the time grows with the rows, faster
        # than linearly when every row is a candidate)
        fit_rows, over = 1, n
        while over - fit_rows > 1:
            mid = (fit_rows + over) // 2
            within = _lfs_seconds(mid, params, m) <= BUDGET_SECONDS
            fit_rows, over = (mid, over) if within else (fit_rows, mid)
        return (
            f"LocalFeatureSelection solves a linear program per representative row and "
            f"candidate subset ({seconds / n * 1000:.0f} s per 1,000 rows at these settings): "
            f"{_hours(seconds)} for {n} rows on one thread; set n_candidates lower (now "
            f"{params.get('n_candidates')!r}; 'auto' is 50) or max_iter lower (now "
            f"{params.get('max_iter', 2)}), or fit on a sample of at most {fit_rows} rows."
        )


#: Why the estimators searching their nearest hits and misses exactly among all rows
#: (scikit-learn's ``NearestNeighbors``: close to O(N^2 A) in 20 dimensions) are slow
#: before their linear ``n_candidates`` iterations; measured at 20,000 and 60,000 rows
#: (load average 5 on 2 cores), the exponent the log-log slope between the two.
NEIGHBOUR_SEARCH = (
    "searches every row's nearest hits and misses among all {n} rows (exact "
    "neighbour search, about N^{p:.1f} measured)"
)


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
    """

    seconds: float
    n_samples: int
    exponent: float
    why: str
    fix: str = ""
    per: tuple = ()

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
        fix = f"set {self.fix}, or " if self.fix else ""
        return (
            f"{declared_by} {why}: {_hours(seconds)} on one thread at these settings; fit "
            f"on a sample of at most {rows} rows ({fix}use ReliefF with max_samples, whose "
            "cost is linear in N)."
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
