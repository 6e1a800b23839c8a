"""The LLDS search of one fit: how large (``max_features="auto"``), and which search.

* :func:`auto_size` -- the largest subset size whose search fits the time
  left (:mod:`localselect.lift._budget`), as an :class:`AutoSize`;
* :func:`search_lattice` -- the pruned profile search on per-feature codes
  (Algorithm 3, :func:`~localselect.lift._search.search_profiles`) or the
  exhaustive subset search of the resolution
  (:func:`~localselect.lift._search.search_subsets`), with progress, as a
  :class:`LatticeSearch`.

Nothing here validates user input.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

from localselect._runtime import Reporter
from localselect._typing import Int64Array
from localselect.lift._budget import auto_max_size, auto_profile_size
from localselect.lift._coding import FeatureCodes, JointCodes
from localselect.lift._search import (
    MAX_SUBSETS,
    PILOT_SECONDS,
    count_subsets,
    profile_search_seconds,
    search_profiles,
    search_subsets,
    subset_runner,
)

__all__ = ["AutoSize", "LatticeSearch", "auto_size", "search_lattice"]


class AutoSize(NamedTuple):
    """Result of :func:`auto_size`: the size (0 when single features do not fit), its estimate."""

    size: int
    estimate: float


class LatticeSearch(NamedTuple):
    """Result of :func:`search_lattice`.

    ``records`` best first (see :class:`~localselect.lift._search.SearchResult`);
    ``n_counted`` the candidates whose counts were computed, ``n_visited`` the
    lattice nodes reached (the profiles that survived the match-count bound
    for the pruned search), ``n_passed`` those that met ``min_support``.
    """

    records: list[dict]
    n_counted: int
    n_visited: int
    n_passed: int


def auto_size(
    resolution: str,
    coding: FeatureCodes | JointCodes,
    y: Int64Array,
    n_classes: int,
    n_features: int,
    *,
    min_support: float,
    top_k: int,
    targets: Sequence[int],
    n_jobs: int | None,
    budget: float | None,
) -> AutoSize:
    """The largest subset size whose search fits ``budget`` seconds (None: no time limit).

    The pruned profile search is sized by its bound
    (:func:`~localselect.lift._search.profile_search_seconds`), an exhaustive
    search by a timed pilot (:func:`~localselect.lift._budget.auto_max_size`,
    at most :data:`~localselect.lift._search.MAX_SUBSETS` subsets).
    """
    codes = coding.codes
    if resolution == "profiles" and codes is not None:
        cards = [int(codes[:, j].max(initial=-1)) + 1 for j in range(codes.shape[1])]
        n_all = int(((codes >= 0).all(axis=1) & (y >= 0)).sum())
        threshold = min_support * n_all - 1e-9
        bound = partial(profile_search_seconds, cards, len(y), threshold)
        return AutoSize(*auto_profile_size(bound, n_features, budget))
    run = subset_runner(
        resolution,
        coding.columns,
        y,
        n_classes,
        min_support=min_support,
        top_k=top_k,
        targets=targets,
    )
    size, estimate = auto_max_size(
        run,
        n_features,
        budget=budget,
        limit=MAX_SUBSETS,
        n_jobs=n_jobs,
        pilot_seconds=PILOT_SECONDS,
    )
    return AutoSize(size, estimate)


def search_lattice(
    resolution: str,
    coding: FeatureCodes | JointCodes,
    y: Int64Array,
    n_classes: int,
    n_features: int,
    *,
    max_size: int,
    top_k: int,
    min_support: float,
    targets: Sequence[int],
    n_jobs: int | None,
    max_seconds: float | None,
    log: Reporter,
) -> LatticeSearch:
    """Run the search of ``resolution`` over subsets of at most ``max_size`` features.

    Raises :class:`~localselect.lift._search.SearchTooLong` before searching
    when the search is estimated past ``max_seconds``. Progress goes to a task
    of ``log`` (first features of the pruned search, else subsets).
    """
    codes = coding.codes
    pruned = resolution == "profiles" and codes is not None
    total = n_features if pruned else count_subsets(n_features, max_size)
    unit = "first features" if pruned else "subsets"
    with log.task(total, f"LLDS {resolution} search", unit=unit) as task:
        options: dict[str, Any] = {
            "max_size": max_size,
            "top_k": top_k,
            "n_jobs": n_jobs,
            "max_seconds": max_seconds,
            "progress": task,
            "min_support": min_support,
            "targets": targets,
        }
        if pruned and codes is not None:
            res = search_profiles(codes, y, n_classes, **options)
            visited = res.n_frequent
        else:
            res = search_subsets(resolution, coding.columns, y, n_classes, n_features, **options)
            visited = res.n_visited
    return LatticeSearch(res.records, int(res.n_visited), int(visited), int(res.n_passed))
