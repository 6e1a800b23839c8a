"""The time budget of an LLDS search: pilot timing and ``max_features="auto"``.

An exhaustive search over every subset of at most k of m features visits
``sum_{j <= k} C(m, j)`` subsets, each costing about ``O(n_samples * j)``
(times the windows of a subset for Algorithm 2). The cost per subset size is
measured on a short pilot (:func:`pilot_seconds_per_size`: a few subsets of
each size drawn with a fixed seed) and extrapolated to every subset
(:func:`search_seconds`). The guard refuses an explicit ``max_features``
whose estimate exceeds ``max_seconds``; ``max_features="auto"`` takes the
largest k whose estimate fits it instead (:func:`largest_affordable_size`),
the paper's own practice of bounding the subset size (Marcondes et al.,
Section 5). Neither changes what a search of a given size returns.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from math import comb

import numpy as np

from localselect._runtime import n_threads

__all__ = [
    "auto_max_size",
    "auto_profile_size",
    "largest_affordable_size",
    "largest_countable_size",
    "pilot_seconds_per_size",
    "search_seconds",
]

#: Seconds of subsets timed per size by the pilot (in batches), at least.
BATCH_SECONDS = 0.01
#: Subsets timed per size by the pilot, at most.
MAX_PILOT_SUBSETS = 255

#: Share of the time left that ``max_features="auto"`` lets the estimate take. The
#: estimate is a measurement on a machine whose load changes during the search, and
#: "auto" picks the largest size that passes, so it lands next to the limit: on a
#: 2-core machine at load 14 a search estimated within the budget took 60.0 s of a
#: 60 s ``max_seconds``. A quarter held back keeps the fit within the budget.
AUTO_SHARE = 0.75

#: ``run(subsets)`` does a search's own work on a list of subsets.
RunFn = Callable[[list[tuple[int, ...]]], object]


def pilot_seconds_per_size(
    run: RunFn,
    n_features: int,
    max_size: int,
    *,
    pilot_seconds: float,
    batch_seconds: float = BATCH_SECONDS,
) -> dict[int, float]:
    """Measured seconds per subset of each size ``k = 1 .. max_size``.

    For each size, batches of subsets drawn with a fixed seed (1, 2, 4, ...
    subsets) are timed until they add up to ``batch_seconds`` or
    :data:`MAX_PILOT_SUBSETS` subsets: one subset of a few microseconds is
    timed mostly by the clock and the scheduler (on a loaded machine two
    single subsets per size were measured at a third of the true cost). Sizes
    are measured while the pilot lasts less than ``pilot_seconds``; the sizes
    reached are returned (at least size 1).
    """
    rng = np.random.default_rng(0)
    per_size: dict[int, float] = {}
    start = time.perf_counter()
    for k in range(1, min(max_size, n_features) + 1):
        if time.perf_counter() - start > pilot_seconds:
            break
        batch, done, spent = 1, 0, 0.0
        while spent < batch_seconds and done < MAX_PILOT_SUBSETS:
            subsets = [
                tuple(sorted(rng.choice(n_features, size=k, replace=False).tolist()))
                for _ in range(batch)
            ]
            t0 = time.perf_counter()
            run(subsets)
            spent += time.perf_counter() - t0
            done += batch
            batch *= 2
        per_size[k] = spent / done
    return per_size


def search_seconds(
    per_size: dict[int, float], n_features: int, max_size: int, n_jobs: int | None = None
) -> float:
    """``sum_k C(n_features, k) t_k / jobs`` over ``k = 1 .. max_size``.

    Sizes the pilot did not reach take the time of the largest measured size
    scaled by ``k`` (the counting cost is linear in the subset size).
    """
    last = max(per_size)
    total = sum(
        comb(n_features, k) * (per_size[k] if k in per_size else per_size[last] * k / last)
        for k in range(1, min(max_size, n_features) + 1)
    )
    return total / n_threads(n_jobs)


def largest_countable_size(n_features: int, limit: int) -> int:
    """Largest k with at most ``limit`` subsets of 1 .. k of ``n_features`` (0 if none)."""
    total = 0
    for k in range(1, n_features + 1):
        total += comb(n_features, k)
        if total > limit:
            return k - 1
    return n_features


def largest_affordable_size(estimates: Sequence[float], budget: float | None) -> int:
    """Largest ``k`` (1-based) with ``estimates[k - 1] <= budget``; 0 when none fits.

    ``estimates`` are non-decreasing in k (a larger bound searches more);
    ``budget=None`` affords every size.
    """
    if budget is None:
        return len(estimates)
    fits = np.flatnonzero(np.asarray(estimates, dtype=float) <= budget)
    return int(fits[-1]) + 1 if len(fits) else 0


def auto_max_size(
    run: RunFn,
    n_features: int,
    *,
    budget: float | None,
    limit: int,
    n_jobs: int | None,
    pilot_seconds: float,
) -> tuple[int, float]:
    """``max_features="auto"`` for an exhaustive search: ``(size, estimated seconds)``.

    The largest size ``k`` with at most ``limit`` subsets whose estimated
    search (:func:`search_seconds` from one pilot over every such size) fits
    :data:`AUTO_SHARE` of what is left of ``budget`` after the pilot.
    ``(0, estimate of size 1)``
    when not even single features fit; ``budget=None``: the count limit only
    (no pilot, estimate NaN).
    """
    cap = largest_countable_size(n_features, limit)
    if budget is None or cap == 0:
        return cap, float("nan")
    start = time.perf_counter()
    per_size = pilot_seconds_per_size(run, n_features, cap, pilot_seconds=pilot_seconds)
    left = AUTO_SHARE * (budget - (time.perf_counter() - start))
    estimates = [search_seconds(per_size, n_features, k, n_jobs) for k in range(1, cap + 1)]
    size = largest_affordable_size(estimates, left)
    return size, estimates[max(size, 1) - 1]


def auto_profile_size(
    bound: Callable[[int], float], n_features: int, budget: float | None
) -> tuple[int, float]:
    """``max_features="auto"`` for the pruned profile search: ``(size, bound in seconds)``.

    The largest profile length whose ``bound(k)`` (the
    :func:`~localselect.lift._search.profile_search_seconds` bound the guard of an
    explicit size uses) fits ``budget``; an upper bound, so no share is held back.
    """
    if budget is None:
        return n_features, float("nan")
    estimates = [bound(k) for k in range(1, n_features + 1)]
    size = largest_affordable_size(estimates, budget)
    return size, estimates[max(size, 1) - 1]
