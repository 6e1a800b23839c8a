"""The fit costs of the margin estimators without a measured model: Relief, ReliefF and Simba.

Their declarations hold these (``Declaration(size=...)``); the size check of
:mod:`localselect._runtime` refuses at once a fit estimated past its budget,
with the message these write. IMMIGRATE, IM4E, I-RELIEF and BIM declare a
:class:`~localselect._runtime.MeasuredCost` with :data:`NEIGHBOUR_SEARCH`.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

from localselect._runtime import BUDGET_SECONDS, about, rows_within

__all__ = ["LINEAR_INSTEAD", "NEIGHBOUR_SEARCH", "AllPairsCost", "SimbaCost"]

#: Seconds per (reference row x row) pair, all-pairs Relief-type methods with
#: 20 features (Relief: 9.5 s at 20,000 rows with every row a reference,
#: ReliefF 5.2 s; the larger, and scaled by features / 20).
PAIR_SECONDS = 2.4e-8

#: Seconds per (row x row) pair and pass of Simba (14.2 s at 5,000 rows, 20
#: features, 20 passes: its passes stop early at ``tol``, so this is per fit).
SIMBA_PAIR_SECONDS = 5.7e-7

#: Why the estimators searching their nearest hits and misses exactly among all rows
#: (scikit-learn's ``NearestNeighbors``: close to O(N^2 A) in 20 dimensions) are slow
#: before their linear ``n_candidates`` iterations; measured at 20,000 and 60,000 rows
#: (load average 5 on 2 cores), the exponent the log-log slope between the two.
NEIGHBOUR_SEARCH = (
    "searches every row's nearest hits and misses among all {n} rows (exact "
    "neighbour search, about N^{p:.1f} measured)"
)


#: The cheaper way a refusal of a superlinear margin fit advises.
LINEAR_INSTEAD = "use ReliefF with max_samples, whose cost is linear in N"


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
            else f"fit on a sample of at most {rows_within(PAIR_SECONDS, m)} rows"
        )
        return (
            f"{name} with {refs} reference rows compares each with all {n} rows (O(M N A) "
            f"work for M reference rows): {about(seconds)} on one thread; {fix}."
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
            f"pass (O(N^2 A) per pass, no sampled variant): {about(seconds)} on one thread; "
            f"fit on a sample of at most {rows_within(SIMBA_PAIR_SECONDS, m)} rows, or use "
            "Relief or ReliefF with max_samples."
        )
