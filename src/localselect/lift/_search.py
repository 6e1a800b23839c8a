"""Searches of the multi-resolution lattice (Algorithms 1, 2 and 3 of Marcondes et al.).

Three resolutions share one lattice of feature subsets A (the paper's BLFS):

* :func:`search_subsets` with ``"features"`` (Algorithm 1): eta(X_A) for every
  subset of at most ``max_size`` features (exhaustive within that bound);
* :func:`search_subsets` with ``"windows"`` (Algorithm 2): for every subset,
  windows W (sets of observed profiles of X_A) with support >= ``min_support``,
  scored by eta(W);
* :func:`search_profiles` (Algorithm 3): profiles (A, x) with support >=
  ``min_support``, scored by the lift L(x, y) of a target class.

Complete-case counting (the paper's Table 5): subset A counts only the rows
complete on A, so the support n(x) / n_complete(A) of a profile is *not*
anti-monotone, but the match count n(x) is. :func:`search_profiles` therefore
grows profiles like frequent-itemset mining (each profile extended only by
features after its last one, so every profile is visited once) and prunes a
profile once n(x) < min_support * n_all, with n_all the rows complete on every
feature: every extension x' then has n(x') <= n(x) < min_support * n_all <=
min_support * n_complete(A'), so none can qualify. Profiles that are kept are
tested on their exact support. The search is exact (it finds every qualifying
profile up to ``max_size`` features); pruning only skips profiles that cannot
qualify.

Counting is vectorised: a profile's matching rows are a packed bit set, and a
whole level of the lattice is extended at once with ``&`` and
``np.bitwise_count`` (:mod:`localselect.lift._lattice`); no Python loop runs
over rows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial
from itertools import combinations
from math import comb
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._runtime import ProgressTask, map_tasks
from localselect._typing import FloatArray, Int64Array
from localselect.lift._budget import pilot_seconds_per_size, search_seconds
from localselect.lift._lattice import (
    MAX_LEVEL_PROFILES,
    _items,
    _profile_branch,
    _profile_records,
    _rank_key,
    _top_per_target,
)
from localselect.lift._measures import _plogp_terms, joint_codes

__all__ = [
    "MAX_LEVEL_PROFILES",
    "MAX_SUBSETS",
    "MAX_WINDOW_PROFILES",
    "SearchResult",
    "SearchTooLong",
    "count_subsets",
    "estimate_search_seconds",
    "features_records",
    "profile_search_seconds",
    "search_profiles",
    "search_subsets",
    "subset_runner",
    "subsets_total",
    "windows_records",
]


#: Feature subsets beyond which an exhaustive subset search refuses to start.
MAX_SUBSETS = 2_000_000
#: Seconds of pilot timing spent by :func:`estimate_search_seconds` at most
#: (plus the time of the last subset it started).
PILOT_SECONDS = 0.5
#: Windows are enumerated exhaustively when a subset has at most this many
#: qualifying profiles (2**16 windows); beyond it only the nested "best-ratio
#: prefix" windows are scored (see :func:`search_subsets`).
MAX_WINDOW_PROFILES = 16

#: ``columns(subset)`` returns the codes of a subset's profile variables
#: (n_samples, k') with -1 for missing, and their cardinalities.
ColumnsFn = Callable[[tuple[int, ...]], tuple[Int64Array, list[int]]]


class SearchResult(NamedTuple):
    """Records of a search, best first, and how much of the lattice it visited.

    records : list of dict with keys ``features`` (tuple of column indices),
        ``profile`` (tuple of codes or None), ``window`` (tuple of profiles or
        None), ``score``, ``lift``, ``support``, ``n_complete``, ``target``
        (class code or -1).
    n_visited : profiles (or subsets, or windows) whose counts were computed.
    n_passed : how many of them met ``min_support``.
    n_frequent : profiles that survived the match-count bound (and were
        extended); equals ``n_passed`` where nothing is pruned.
    """

    records: list[dict]
    n_visited: int
    n_passed: int
    n_frequent: int = -1


def count_subsets(n_features: int, max_size: int, cap: int | None = None) -> int:
    """Number of non-empty subsets of at most ``max_size`` of ``n_features`` features.

    With ``cap`` the count stops as soon as it exceeds ``cap`` (and returns that
    partial count, above ``cap``): the exact binomials of thousands of features
    take seconds.
    """
    total = 0
    for k in range(1, min(max_size, n_features) + 1):
        total += comb(n_features, k)
        if cap is not None and total > cap:
            break
    return total


class SearchTooLong(ValueError):
    """An exhaustive search is estimated to run past its time limit (raised before it starts)."""


def estimate_search_seconds(
    run: Callable[[list[tuple[int, ...]]], object],
    n_features: int,
    max_size: int,
    *,
    n_jobs: int | None = None,
    pilot_seconds: float = PILOT_SECONDS,
) -> float:
    """Seconds an exhaustive subset search should take, from a timed pilot.

    ``run(subsets)`` does the search's own work on a list of subsets (its
    result is discarded). For each size ``k = 1 .. max_size`` a batch of
    subsets drawn with a fixed seed is timed while the pilot lasts less than
    ``pilot_seconds``; sizes left unmeasured take the time of the
    largest measured size scaled by ``k`` (the counting cost is linear in
    the subset size). The estimate is ``sum_k C(n_features, k) t_k``
    divided by the number of parallel jobs. It is a measurement of this
    machine now, so it varies with its load; it never changes a result.
    See :mod:`localselect.lift._budget`.
    """
    per_size = pilot_seconds_per_size(run, n_features, max_size, pilot_seconds=pilot_seconds)
    return search_seconds(per_size, n_features, max_size, n_jobs)


def subsets_total(n_features: int, max_size: int) -> int:
    """Subsets an exhaustive search visits; ValueError past :data:`MAX_SUBSETS`."""
    total = count_subsets(n_features, max_size, cap=MAX_SUBSETS)
    if total > MAX_SUBSETS:
        raise ValueError(
            f"An exhaustive search over subsets of up to {max_size} of {n_features} features "
            f"visits more than {MAX_SUBSETS:,} subsets (limit {MAX_SUBSETS:,}); set "
            "max_features to a smaller subset size."
        )
    return total


def _subsets(n_features: int, max_size: int, total: int | None = None) -> list[tuple[int, ...]]:
    if total is None:
        subsets_total(n_features, max_size)
    return [
        s
        for k in range(1, min(max_size, n_features) + 1)
        for s in combinations(range(n_features), k)
    ]


def _table(
    codes: Int64Array, cards: Sequence[int], y: Int64Array, n_classes: int
) -> tuple[FloatArray, Int64Array, int]:
    """Contingency of a subset: counts (P, C) of observed profiles, their joint ids, n_complete."""
    joint, n_levels = joint_codes(codes, cards)
    keep = (joint >= 0) & (y >= 0)
    if not keep.all():
        joint, y = joint[keep], y[keep]
    n = len(joint)
    yk = y
    if n_levels * n_classes > max(8 * n, 1 << 16):
        ids, inv = np.unique(joint, return_inverse=True)
        counts = np.bincount(inv * n_classes + yk, minlength=len(ids) * n_classes)
        return counts.reshape(len(ids), n_classes).astype(np.float64), ids, n
    joint *= n_classes
    joint += yk
    counts = np.bincount(joint, minlength=n_levels * n_classes)
    counts = counts.reshape(n_levels, n_classes)
    ids = np.flatnonzero(counts.sum(axis=1))
    return counts[ids].astype(np.float64), ids.astype(np.int64), n


def _decode(ids: Int64Array, cards: Sequence[int], codes: Int64Array) -> list[tuple[int, ...]]:
    """Value codes of each profile id (mixed radix), read back from the data when compressed."""
    cards = [max(int(c), 1) for c in cards]
    if int(np.prod(cards, dtype=np.float64)) <= 1 << 24:
        out = np.empty((len(ids), len(cards)), dtype=np.int64)
        rest = ids.copy()
        for j in range(len(cards) - 1, -1, -1):
            out[:, j] = rest % cards[j]
            rest //= cards[j]
        return [tuple(r) for r in out.tolist()]
    joint, _ = joint_codes(codes, cards)
    uniq, first = np.unique(joint[joint >= 0], return_index=True)
    rows = codes[joint >= 0][first]
    return [tuple(r) for r in rows[np.searchsorted(uniq, ids)].tolist()]


def _lift_of(counts: FloatArray, rows: NDArray[np.bool_], targets: Sequence[int]) -> float:
    """Lift of the region ``rows`` for the target classes (the largest over them)."""
    n = counts.sum()
    region = counts[rows].sum(axis=0)
    col = counts.sum(axis=0)
    best = 0.0
    for c in targets:
        if region.sum() > 0 and col[c] > 0:
            best = max(best, float(region[c] / region.sum() / (col[c] / n)))
    return best


class _Task(NamedTuple):
    """What every chunk of an exhaustive search reads besides its subsets."""

    columns: ColumnsFn
    y: Int64Array
    n_classes: int
    min_support: float
    top_k: int
    targets: Sequence[int]


def _tables(
    subsets: list[tuple[int, ...]], task: _Task
) -> Iterator[tuple[tuple[int, ...], Int64Array, list[int], FloatArray, Int64Array, int]]:
    """``(subset, codes, cards, counts, ids, n_complete)`` of each subset with a complete row."""
    for subset in subsets:
        codes, cards = task.columns(subset)
        counts, ids, n_complete = _table(codes, cards, task.y, task.n_classes)
        if n_complete > 0:
            yield subset, codes, cards, counts, ids, n_complete


def features_records(
    tables: Iterable[tuple[tuple[int, ...], FloatArray, int]], n_classes: int
) -> list[dict]:
    """Algorithm 1 from contingency tables: one record per ``(subset, counts, n_complete)``.

    ``counts`` is the (observed profiles, classes) table of the subset's
    complete rows; eta(X_A) = I(X_A; Y) / H(Y) (eq. (2)).
    """
    records = []
    all_classes = list(range(n_classes))
    for subset, counts, n_complete in tables:
        kl, ce = _plogp_terms(counts)
        den = ce.sum()
        eta = 0.0 if den <= 0 else float(min(max(kl.sum() / den, 0.0), 1.0))
        rows = np.ones(len(counts), dtype=bool)
        records.append(
            {
                "features": subset,
                "profile": None,
                "window": None,
                "score": eta,
                "lift": _lift_of(counts, rows, all_classes),
                "support": 1.0,
                "n_complete": n_complete,
                "target": -1,
            }
        )
    return records


def _features_chunk(subsets: list[tuple[int, ...]], task: _Task) -> tuple[list[dict], int, int]:
    """Algorithm 1 on a chunk: one record per subset (every subset counted, all pass)."""
    tables = ((s, counts, n) for s, _, _, counts, _, n in _tables(subsets, task))
    records = features_records(tables, task.n_classes)
    return records, len(subsets), len(records)


def _chunks(items: list, n_jobs: int | None) -> list[list]:
    # About 100 chunks (at least 4 per job) so progress can be reported as they finish.
    n_chunks = max(100, 4 * max(abs(int(n_jobs or 1)), 2))
    size = max(1, -(-len(items) // n_chunks))
    return [items[i : i + size] for i in range(0, len(items), size)]


def _guard(
    run: Callable[[list[tuple[int, ...]]], object],
    n_features: int,
    max_size: int,
    max_seconds: float | None,
    n_jobs: int | None,
) -> None:
    """Raise :class:`SearchTooLong` when the pilot estimate exceeds ``max_seconds``."""
    if max_seconds is None:
        return
    estimate = estimate_search_seconds(run, n_features, max_size, n_jobs=n_jobs)
    if estimate > max_seconds:
        err = SearchTooLong(
            f"the search is estimated at {estimate:.0f} s (limit {max_seconds:g} s)"
        )
        err.estimate = estimate  # type: ignore[attr-defined]
        err.n_subsets = count_subsets(n_features, max_size)  # type: ignore[attr-defined]
        raise err


def _run_chunks(
    func: Callable[..., object],
    subsets: list[tuple[int, ...]],
    args: tuple,
    n_jobs: int | None,
    progress: ProgressTask | None,
) -> list:
    """``func(chunk, *args)`` over chunks of ``subsets`` in order, counting subsets done."""
    chunks = _chunks(subsets, n_jobs)
    results = map_tasks(
        func, ((chunk, *args) for chunk in chunks), n_jobs, prefer="threads", generator=True
    )
    parts = []
    for chunk, part in zip(chunks, results):
        parts.append(part)
        if progress is not None:
            progress.advance(len(chunk))
    return parts


def _exhaustive(
    chunk: Callable[..., object],
    args: tuple,
    n_features: int,
    max_size: int,
    max_seconds: float | None,
    n_jobs: int | None,
    progress: ProgressTask | None,
) -> list:
    """``chunk(subsets, *args)`` over every subset of at most ``max_size`` features.

    The pilot guard first (:class:`SearchTooLong` past ``max_seconds``), then
    the subsets in chunks; returns the chunk results in order.
    """
    count_check = subsets_total(n_features, max_size)
    _guard(lambda s: chunk(s, *args), n_features, max_size, max_seconds, n_jobs)
    subsets = _subsets(n_features, max_size, count_check)
    return _run_chunks(chunk, subsets, args, n_jobs, progress)


def _window_masks(n_profiles: int) -> NDArray[np.float64]:
    bits = np.arange(1, 1 << n_profiles, dtype=np.int64)
    return ((bits[:, None] >> np.arange(n_profiles)) & 1).astype(np.float64)


def windows_records(
    tables: Iterable[tuple[tuple[int, ...], FloatArray, Callable[[], list[tuple]], int]],
    *,
    min_support: float,
    top_k: int,
    targets: Sequence[int],
) -> tuple[list[dict], int, int]:
    """Algorithm 2 from contingency tables: each subset's ``top_k`` windows (eq. (3)).

    ``tables`` yields ``(subset, counts, labels, n_complete)`` with ``counts``
    the (observed profiles, classes) table in increasing profile order and
    ``labels()`` the profiles' value codes in that order (called only when a
    window qualifies). Returns the records, windows visited and passed.
    """
    records: list[dict] = []
    visited = passed = 0
    for subset, counts, labels_of, n_complete in tables:
        kl, ce = _plogp_terms(counts)
        freq = counts.sum(axis=1) / n_complete
        n_prof = len(counts)
        if n_prof <= MAX_WINDOW_PROFILES:
            masks = _window_masks(n_prof)
        else:
            # Nested windows: the profiles in decreasing order of their own eta.
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = np.where(ce > 0, kl / ce, 0.0)
            order = np.argsort(-ratio, kind="stable")
            masks = np.zeros((n_prof, n_prof))
            masks[:, order] = np.tril(np.ones((n_prof, n_prof)))  # row i: best i + 1 profiles
        support = masks @ freq
        den = masks @ ce
        with np.errstate(divide="ignore", invalid="ignore"):
            eta = np.where(den > 0, (masks @ kl) / den, 0.0)
        eta = np.clip(eta, 0.0, 1.0)
        ok = support >= min_support - 1e-12
        visited += len(masks)
        passed += int(ok.sum())
        cand = np.flatnonzero(ok)
        if len(cand) == 0:
            continue
        best = cand[np.lexsort((-support[cand], -eta[cand]))][:top_k]
        labels = labels_of()
        for w in best:
            rows = masks[w] > 0
            records.append(
                {
                    "features": subset,
                    "profile": None,
                    "window": tuple(labels[i] for i in np.flatnonzero(rows)),
                    "score": float(eta[w]),
                    "lift": _lift_of(counts, rows, targets),
                    "support": float(support[w]),
                    "n_complete": n_complete,
                    "target": -1 if len(targets) != 1 else int(targets[0]),
                }
            )
    return records, visited, passed


def _windows_chunk(subsets: list[tuple[int, ...]], task: _Task) -> tuple[list[dict], int, int]:
    """Algorithm 2 on a chunk: each subset's ``top_k`` windows, windows visited and passed."""
    tables = (
        (subset, counts, partial(_decode, ids, cards, codes), n_complete)
        for subset, codes, cards, counts, ids, n_complete in _tables(subsets, task)
    )
    return windows_records(
        tables, min_support=task.min_support, top_k=task.top_k, targets=task.targets
    )


#: Seconds per candidate profile of the pruned search, at 1,000 rows and per
#: extra row (bit-set work), measured on the reference machine (2 cores).
PROFILE_SECONDS = (5e-6, 5e-9)


def profile_search_seconds(
    cards: Sequence[int], n_samples: int, threshold: float, max_size: int
) -> float:
    """Upper bound on the time of :func:`search_profiles`, known before it runs.

    A subset A of k features splits its complete rows into disjoint profiles,
    so at most ``min(prod cards, n_samples / threshold)`` of them reach the
    match count ``threshold``; the candidates counted at size k are at most
    the surviving profiles of size k - 1 times the items that extend them,
    bounded here by ``C(m, k)`` subsets times that many profiles each. The
    bound is loose for a large ``min_support`` and exact in the worst case
    (``min_support = 0`` on data whose every profile occurs).
    """
    m = len(cards)
    top = sorted((max(int(c), 1) for c in cards), reverse=True)
    per_subset_cap = np.inf if threshold <= 0 else n_samples / threshold
    total = 0.0
    prod = 1.0
    for k in range(1, min(max_size, m) + 1):
        prod *= top[k - 1]
        total += comb(m, k) * min(prod, per_subset_cap, float(n_samples))
    per_candidate = PROFILE_SECONDS[0] + PROFILE_SECONDS[1] * n_samples
    return total * per_candidate


def search_profiles(
    codes: Int64Array,
    y: Int64Array,
    n_classes: int,
    *,
    max_size: int,
    min_support: float,
    top_k: int,
    targets: Sequence[int],
    n_jobs: int | None = None,
    max_seconds: float | None = None,
    progress: ProgressTask | None = None,
) -> SearchResult:
    """Algorithm 3 on per-feature codes: the profiles of largest lift for each target class.

    Exact: every profile (subset A of at most ``max_size`` features, one value
    per feature) with support n(x) / n_complete(A) >= ``min_support`` is scored,
    and the ``top_k`` of each target are returned. The lattice is pruned by
    match count (module docstring) and candidates are generated by prefix join
    (see ``_profile_branch``). One parallel unit per first feature;
    ``progress`` counts the first features done.
    ``n_visited`` counts every profile whose match count was computed.
    Time O(n_visited * n_samples / 8) bit operations; memory one lattice level
    of packed row sets (n_samples / 8 bytes per profile).

    Raises :class:`SearchTooLong` before searching when
    :func:`profile_search_seconds` exceeds ``max_seconds``.
    """
    m = codes.shape[1]
    cards = [int(codes[:, j].max(initial=-1)) + 1 for j in range(m)]
    n_all = int(((codes >= 0).all(axis=1) & (y >= 0)).sum())
    threshold = min_support * n_all - 1e-9
    if max_seconds is not None:
        estimate = profile_search_seconds(cards, len(y), threshold, max_size)
        if estimate > max_seconds:
            err = SearchTooLong(f"the search is estimated at up to {estimate:.0f} s")
            err.estimate = estimate  # type: ignore[attr-defined]
            err.n_subsets = count_subsets(m, max_size)  # type: ignore[attr-defined]
            raise err
    items = _items(codes, cards, y, n_classes, threshold)
    branches = map_tasks(
        _profile_branch,
        (
            (root, items, n_classes, threshold, min_support, max_size, targets, top_k)
            for root in range(m)
        ),
        n_jobs,
        prefer="threads",
        generator=True,
    )
    parts = []
    for part in branches:
        parts.append(part)
        if progress is not None:
            progress.advance()
    records = _top_per_target([r for part, *_ in parts for r in part], top_k)
    visited = len(items.feature) + sum(part[1] for part in parts)
    passed = sum(part[2] for part in parts)
    return SearchResult(records, visited, passed, sum(part[3] for part in parts))


def _joint_profiles_chunk(
    subsets: list[tuple[int, ...]], task: _Task
) -> tuple[list[dict], int, int]:
    """Algorithm 3 on a chunk of jointly discretised subsets (no pruning across subsets)."""
    min_support, top_k, targets = task.min_support, task.top_k, task.targets
    records: list[dict] = []
    visited = passed = 0
    for subset, codes, cards, counts, ids, n_complete in _tables(subsets, task):
        n_match = counts.sum(axis=1)
        visited += len(counts)
        ok = n_match >= min_support * n_complete - 1e-9
        passed += int(ok.sum())
        if not ok.any():
            continue
        labels = _decode(ids, cards, codes)
        class_comp = np.broadcast_to(counts.sum(axis=0), counts.shape)
        recs = _profile_records(
            np.array([subset] * int(ok.sum()), dtype=np.int64).reshape(int(ok.sum()), -1),
            np.array([labels[i] for i in np.flatnonzero(ok)], dtype=np.int64),
            n_match[ok],
            np.full(int(ok.sum()), float(n_complete)),
            counts[ok],
            class_comp[ok],
            targets,
            top_k,
        )
        records = _top_per_target(records + recs, top_k)
    return records, visited, passed


def _best(records: list[dict], top_k: int) -> list[dict]:
    return sorted(records, key=_rank_key)[:top_k]


#: resolution -> (the search of one chunk of subsets, the ranking of all records).
_EXHAUSTIVE: dict[str, tuple[Callable[..., tuple[list[dict], int, int]], Callable]] = {
    "features": (_features_chunk, _best),
    "windows": (_windows_chunk, _best),
    "profiles": (_joint_profiles_chunk, _top_per_target),
}


def subset_runner(
    resolution: str,
    columns: ColumnsFn,
    y: Int64Array,
    n_classes: int,
    *,
    min_support: float,
    top_k: int,
    targets: Sequence[int],
) -> Callable[[list[tuple[int, ...]]], tuple[list[dict], int, int]]:
    """The work of :func:`search_subsets` on a list of subsets (for timing pilots).

    The arguments are those of :func:`search_subsets`. Returns
    ``run(subsets) -> (records, n_visited, n_passed)``.
    """
    chunk = _EXHAUSTIVE[resolution][0]
    task = _Task(columns, y, n_classes, min_support, top_k, targets)
    return lambda subsets: chunk(subsets, task)


def search_subsets(
    resolution: str,
    columns: ColumnsFn,
    y: Int64Array,
    n_classes: int,
    n_features: int,
    *,
    max_size: int,
    top_k: int,
    min_support: float = 0.0,
    targets: Sequence[int] = (),
    n_jobs: int | None = None,
    max_seconds: float | None = None,
    progress: ProgressTask | None = None,
) -> SearchResult:
    """Exhaustive search of every subset of at most ``max_size`` features.

    ``resolution`` chooses the algorithm run on each subset:

    * ``"features"`` (Algorithm 1): eta(X_A) = I(X_A; Y) / H(Y) of the subset,
      one record per subset; ``n_visited`` counts subsets and ``n_passed``
      those with a complete row. ``lift`` is the largest lift of the whole
      range for any class, which is 1. ``min_support`` and ``targets`` are
      not used. Time O(n_subsets * n_samples * max_size), memory
      O(n_samples + cells).
    * ``"windows"`` (Algorithm 2): the (subset, window) pairs of largest
      eta(W), eq. (3). Every non-empty window of the subset's observed
      profiles with support >= ``min_support`` is scored when the subset has
      at most :data:`MAX_WINDOW_PROFILES` profiles (exact). With more profiles
      only the nested windows made of the profiles of largest own eta are
      scored: without a support bound the best window is always a single
      profile (eta(W) is a ratio of sums, never above its largest term), so
      the unconstrained optimum is still found, but under a support bound
      this is a heuristic. ``lift`` is the window's largest lift over
      ``targets``.
    * ``"profiles"`` (Algorithm 3 when each subset is discretised jointly,
      so profiles are joint bins): the bins of a subset are re-cut for every
      subset, so match counts are not nested across subsets and nothing can
      be pruned (compare :func:`search_profiles`); the ``top_k`` profiles of
      each target.

    Exhaustive within the size bound (exact over those subsets). Raises
    :class:`SearchTooLong` before the search when the pilot estimate
    (:func:`estimate_search_seconds`) exceeds ``max_seconds``; ``progress``
    counts subsets done.
    """
    chunk, rank = _EXHAUSTIVE[resolution]
    task = _Task(columns, y, n_classes, min_support, top_k, targets)
    parts = _exhaustive(chunk, (task,), n_features, max_size, max_seconds, n_jobs, progress)
    records = rank([r for part, _, _ in parts for r in part], top_k)
    return SearchResult(records, sum(v for _, v, _ in parts), sum(p for _, _, p in parts))
