"""One check of a fit's size: refuse at once a fit that would not finish at its settings.

Most estimators scale to a million rows at their defaults, because their
defaults pick a scalable variant (``n_candidates="auto"``: nearest
candidates instead of all pairs; sampled reference rows). A few do O(N^2)
work, or linear work with a large constant, whatever their defaults; on a
large table they would run for hours and then, perhaps, run out of memory.
:func:`check_scale` (called by ``LabelledFitMixin.fit`` right after
validation) refuses such a fit at once with a ``ValueError`` that gives the
estimated time and names what to set.

An estimator declares its limit with a method ``_scale_limit(n_samples,
n_features)`` returning the refusal message or ``None``; the estimators
whose modules this one does not edit are declared in :data:`LIMITS`, by
class path. The limits come from measured fit times on one thread (the
costs below, in seconds per unit of work, measured on a loaded 2-core
machine, see ``docs/scaling.md``); a fit is refused when its estimate
exceeds :data:`BUDGET_SECONDS`.
"""

from __future__ import annotations

from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, NamedTuple

__all__ = ["BUDGET_SECONDS", "LIMITS", "MEASURED", "Measured", "check_scale", "scale_refusal"]

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


def _all_pairs(estimator: Any, n: int, m: int) -> str | None:
    """Relief, ReliefF: distances from every reference row to every row."""
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
        f"set max_samples (reference rows drawn at random; e.g. max_samples={max(fit_refs, 1)}"
        " or fewer finishes within 10 minutes)"
        if has
        else f"fit on a sample of at most {_rows_within(PAIR_SECONDS, m)} rows"
    )
    return (
        f"{name} with {refs} reference rows compares each with all {n} rows (O(M N A) "
        f"work for M reference rows): {_hours(seconds)} on one thread; {fix}."
    )


def _rows_within(pair_seconds: float, m: int) -> int:
    """Most rows an all-pairs fit handles within the budget."""
    return int((BUDGET_SECONDS / (pair_seconds * max(m, 1) / 20)) ** 0.5)


def _simba(estimator: Any, n: int, m: int) -> str | None:
    seconds = SIMBA_PAIR_SECONDS * n * n * max(m, 1) / 20
    if seconds <= BUDGET_SECONDS:
        return None
    return (
        f"Simba recomputes every row's nearest hit and miss among all {n} rows on each pass "
        f"(O(N^2 A) per pass, no sampled variant): {_hours(seconds)} on one thread; fit on "
        f"a sample of at most {_rows_within(SIMBA_PAIR_SECONDS, m)} rows, or use Relief or "
        "ReliefF with max_samples."
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


def _lfs(estimator: Any, n: int, m: int) -> str | None:
    params = estimator.get_params(deep=False)
    seconds = _lfs_seconds(n, params, m)
    if seconds <= BUDGET_SECONDS:
        return None
    # the most rows within budget (bisection: the time grows with the rows, faster than
    # linearly when every row is a candidate)
    fit_rows, over = 1, n
    while over - fit_rows > 1:
        mid = (fit_rows + over) // 2
        fit_rows, over = (
            (mid, over) if _lfs_seconds(mid, params, m) <= BUDGET_SECONDS else (fit_rows, mid)
        )
    return (
        f"LocalFeatureSelection solves a linear program per representative row and "
        f"candidate subset ({seconds / n * 1000:.0f} s per 1,000 rows at these settings): "
        f"{_hours(seconds)} for {n} rows on one thread; set n_candidates lower (now "
        f"{params.get('n_candidates')!r}; 'auto' is 50) or max_iter lower (now "
        f"{params.get('max_iter', 2)}), or fit on a sample of at most {fit_rows} rows."
    )


class Measured(NamedTuple):
    """A fit time measured at the defaults (one thread, 20 features) and its growth in N."""

    seconds: float
    n_samples: int
    exponent: float
    why: str
    fix: str


#: Estimators whose nearest hits and misses are searched exactly among all rows
#: (scikit-learn's ``NearestNeighbors``: close to O(N^2 A) in 20 dimensions) before
#: their linear ``n_candidates`` iterations. Measured at 20,000 and 60,000 rows
#: (load average 5 on 2 cores); the exponent is the log-log slope between the two.
_NEIGHBOURS = (
    "searches every row's nearest hits and misses among all {n} rows (exact "
    "neighbour search, about N^{p:.1f} measured)"
)
MEASURED: dict[str, Measured] = {
    "IRelief": Measured(46.8, 60_000, 1.6, _NEIGHBOURS, ""),
    "IM4E": Measured(83.1, 60_000, 1.9, _NEIGHBOURS, ""),
    "Immigrate": Measured(160.0, 60_000, 2.0, _NEIGHBOURS, ""),
    "BoostedImmigrate": Measured(
        77.6,
        20_000,
        1.7,
        "fits n_estimators weak IMMIGRATE models, each searching neighbours among all "
        "{n} rows (about N^{p:.1f} measured)",
        "n_estimators lower (time is proportional to it)",
    ),
    "ConditionalSaliencySelection": Measured(
        194.3,
        20_000,
        1.6,
        "fits its model and compares each row's saliency profile with its held-out "
        "neighbours' ({n} rows; about N^{p:.1f} measured at 5,000 and 20,000 rows of 20 "
        "features, 22.0 s and 194.3 s, quiet machine)",
        "",
    ),
}


def _measured(estimator: Any, n: int, m: int) -> str | None:
    """The estimators of :data:`MEASURED`: their time extrapolated from the measurement."""
    # a user's subclass has the limit of the measured class it derives from
    name = next(k.__name__ for k in type(estimator).__mro__ if k.__name__ in MEASURED)
    point = MEASURED[name]
    params = estimator.get_params(deep=False)
    factor = max(m, 1) / 20
    if name == "BoostedImmigrate":
        factor *= params.get("n_estimators", 100) / 100
    seconds = point.seconds * factor * (n / point.n_samples) ** point.exponent
    if seconds <= BUDGET_SECONDS:
        return None
    ratio = BUDGET_SECONDS / (point.seconds * factor)
    rows = int(point.n_samples * ratio ** (1 / point.exponent))
    why = point.why.format(n=n, p=point.exponent)
    fix = f"set {point.fix}, or " if point.fix else ""
    return (
        f"{name} {why}: {_hours(seconds)} on one thread at these settings; fit on a "
        f"sample of at most {rows} rows ({fix}use ReliefF with max_samples, whose cost is "
        "linear in N)."
    )


#: Class path -> its limit, for the estimators whose modules declare none themselves.
LIMITS: dict[str, Callable[[Any, int, int], str | None]] = {
    "localselect.margin._relief.Relief": _all_pairs,
    "localselect.margin._relief.ReliefF": _all_pairs,
    "localselect.margin._simba.Simba": _simba,
    "localselect.lfs._estimator.LocalFeatureSelection": _lfs,
    "localselect.margin._irelief.IRelief": _measured,
    "localselect.margin._im4e.IM4E": _measured,
    "localselect.margin._immigrate.Immigrate": _measured,
    "localselect.margin._boosted.BoostedImmigrate": _measured,
    "localselect.saliency._estimator.ConditionalSaliencySelection": _measured,
}


def scale_refusal(estimator: Any, n_samples: int, n_features: int) -> str | None:
    """The refusal message of a fit of ``estimator`` on ``n_samples`` rows, or None.

    Parameters
    ----------
    estimator : estimator
        Its own ``_scale_limit(n_samples, n_features)`` method if it has one,
        else the first class of its MRO in :data:`LIMITS`.
    n_samples, n_features : int
        The shape of the training data.

    Returns
    -------
    message : str or None
        Why the fit would not finish within :data:`BUDGET_SECONDS` and what to
        set; None when it would (or no limit is declared).
    """
    own = getattr(estimator, "_scale_limit", None)
    if callable(own):
        return own(n_samples, n_features)
    for klass in type(estimator).__mro__:
        rule = LIMITS.get(f"{klass.__module__}.{klass.__qualname__}")
        if rule is not None:
            return rule(estimator, n_samples, n_features)
    return None


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
