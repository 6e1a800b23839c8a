"""Profile search of the multi-resolution lattice (Algorithm 3 of Marcondes et al.).

:func:`search_profiles`: profiles (A, x) with support >= ``min_support``, scored
by the lift L(x, y) of a target class; :func:`search_profiles_per_subset` the
same per subset for a per-subset discretizer; :func:`profile_search_seconds`
the estimate behind ``max_seconds``. The lattice, tables, ranking and runner
are those of :mod:`localselect.lift._search`.

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
``np.bitwise_count``; no Python loop runs over rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._parallel import Parallel, delayed
from localselect._progress import ProgressTask
from localselect._typing import FloatArray, Int64Array
from localselect.lift._search import (
    ColumnsFn,
    SearchResult,
    SearchTooLong,
    _decode,
    _exhaustive,
    _rank_key,
    _table,
    count_subsets,
)

__all__ = [
    "MAX_LEVEL_PROFILES",
    "PROFILE_SECONDS",
    "profile_search_seconds",
    "search_profiles",
    "search_profiles_per_subset",
]

#: Profiles kept at one lattice level beyond which the profile search stops
#: with an error (raise ``min_support`` or bound ``max_size``).
MAX_LEVEL_PROFILES = 3_000_000


def _profile_records(
    features: Int64Array,
    values: Int64Array,
    n_match: FloatArray,
    n_comp: FloatArray,
    class_match: FloatArray,
    class_comp: FloatArray,
    targets: Sequence[int],
    top_k: int,
) -> list[dict]:
    """Records for qualifying profiles (arrays over profiles) and each target class."""
    out = []
    support = n_match / n_comp
    for c in targets:
        with np.errstate(divide="ignore", invalid="ignore"):
            lift = np.where(
                class_comp[:, c] > 0,
                (class_match[:, c] / n_match) / (class_comp[:, c] / n_comp),
                0.0,
            )
        # Only profiles tied with or above the top_k-th lift can be kept.
        if len(lift) > top_k:
            kth = np.partition(lift, len(lift) - top_k)[len(lift) - top_k]
            chosen = np.flatnonzero(lift >= kth)
        else:
            chosen = np.arange(len(lift))
        for i in chosen.tolist():
            out.append(
                {
                    "features": tuple(features[i].tolist()),
                    "profile": tuple(values[i].tolist()),
                    "window": None,
                    "score": float(lift[i]),
                    "lift": float(lift[i]),
                    "support": float(support[i]),
                    "n_complete": int(n_comp[i]),
                    "target": int(c),
                }
            )
    return out


def _top_per_target(records: list[dict], top_k: int) -> list[dict]:
    by_target: dict[int, list[dict]] = {}
    for rec in sorted(records, key=_rank_key):
        kept = by_target.setdefault(rec["target"], [])
        if len(kept) < top_k:
            kept.append(rec)
    return sorted((r for kept in by_target.values() for r in kept), key=_rank_key)


def _popcount_rows(bits: NDArray[np.uint8]) -> FloatArray:
    return np.bitwise_count(bits).sum(axis=-1, dtype=np.int64).astype(np.float64)


class _Items(NamedTuple):
    """Packed row sets of every (feature, value) item, of each feature's present rows
    and of each class, shared by all branches."""

    bits: NDArray[np.uint8]  # (n_items, n_bytes) rows with feature == value
    feature: Int64Array  # (n_items,) feature of each item
    value: Int64Array  # (n_items,) value code of each item
    kept: NDArray[np.bool_]  # item count >= threshold (the level-1 survivors)
    present: NDArray[np.uint8]  # (n_features, n_bytes) rows where the feature is not missing
    classes: NDArray[np.uint8]  # (n_classes, n_bytes) rows of each class


def _items(
    codes: Int64Array, cards: Sequence[int], y: Int64Array, n_classes: int, threshold: float
) -> _Items:
    m = codes.shape[1]
    valid_y = y >= 0
    feature = np.array([j for j in range(m) for _ in range(cards[j])], dtype=np.int64)
    value = np.array([v for j in range(m) for v in range(cards[j])], dtype=np.int64)
    bits = np.packbits((codes[:, feature] == value[None, :]) & valid_y[:, None], axis=0).T
    bits = np.ascontiguousarray(bits)
    present = np.ascontiguousarray(np.packbits((codes >= 0) & valid_y[:, None], axis=0).T)
    classes = np.ascontiguousarray(
        np.packbits(y[:, None] == np.arange(n_classes)[None, :], axis=0).T
    )
    count = _popcount_rows(bits)
    return _Items(bits, feature, value, (count >= threshold) & (count > 0), present, classes)


def _sibling_pairs(
    parent: Int64Array, feat: Int64Array, n_features: int
) -> tuple[Int64Array, Int64Array]:
    """Pairs (i, s) of profiles with the same parent and s's last feature after i's.

    Profiles must be sorted by (parent, last feature); the pairs come sorted by
    i, then s (so children stay sorted by (parent, last feature) too).
    """
    key = parent * (n_features + 1) + feat
    start = np.searchsorted(key, parent * (n_features + 1) + feat + 1, side="left")
    end = np.searchsorted(key, (parent + 1) * (n_features + 1), side="left")
    n_pairs = end - start
    i = np.repeat(np.arange(len(key)), n_pairs)
    offsets = np.arange(int(n_pairs.sum())) - np.repeat(np.cumsum(n_pairs) - n_pairs, n_pairs)
    return i, start[i] + offsets


def _profile_branch(
    root: int,
    items: _Items,
    n_classes: int,
    threshold: float,
    min_support: float,
    max_size: int,
    targets: Sequence[int],
    top_k: int,
) -> tuple[list[dict], int, int, int]:
    """Every qualifying profile whose first feature is ``root`` (one parallel unit).

    Candidates are made by the prefix join of frequent-itemset mining: a profile
    of d + 1 features is counted only when its two d-feature sub-profiles
    sharing the first d - 1 features both survived the match-count bound (a
    necessary condition, since the count is anti-monotone). Returns the
    records, the candidates counted after level 1, the qualifying profiles and the
    profiles that survived the match-count bound.
    """
    m = items.present.shape[0]
    level1 = np.flatnonzero(items.kept & (items.feature == root))
    match = items.bits[level1]
    comp = np.repeat(items.present[root][None, :], len(level1), axis=0)
    feats = np.full((len(level1), 1), root, dtype=np.int64)
    vals = items.value[level1][:, None]
    last_item = level1
    parent = np.zeros(len(level1), dtype=np.int64)
    n_match = _popcount_rows(match)
    visited = passed = frequent = 0
    records: list[dict] = []
    depth = 1
    while len(match):
        frequent += len(match)
        n_comp = _popcount_rows(comp)
        ok = n_match >= min_support * n_comp - 1e-9
        passed += int(ok.sum())
        if ok.any():
            class_match = np.stack(
                [_popcount_rows(match[ok] & items.classes[c]) for c in range(n_classes)], axis=1
            )
            class_comp = np.stack(
                [_popcount_rows(comp[ok] & items.classes[c]) for c in range(n_classes)], axis=1
            )
            recs = _profile_records(
                feats[ok],
                vals[ok],
                n_match[ok],
                n_comp[ok],
                class_match,
                class_comp,
                targets,
                top_k,
            )
            records = _top_per_target(records + recs, top_k)
        if depth >= max_size:
            break
        if depth == 1:
            # The root's values join every surviving item of a later feature.
            later = np.flatnonzero(items.kept & (items.feature > root))
            i = np.repeat(np.arange(len(match)), len(later))
            child_item = np.tile(later, len(match))
        else:
            i, s = _sibling_pairs(parent, feats[:, -1], m)
            child_item = last_item[s]
        if len(i) > MAX_LEVEL_PROFILES:
            raise ValueError(
                f"The profile lattice holds over {MAX_LEVEL_PROFILES:,} candidate profiles "
                f"with {depth + 1} features at min_support={min_support}; raise min_support "
                "or set max_features to bound the profile length."
            )
        child_feat = items.feature[child_item]
        match = match[i] & items.bits[child_item]
        comp = comp[i] & items.present[child_feat]
        feats = np.hstack([feats[i], child_feat[:, None]])
        vals = np.hstack([vals[i], items.value[child_item][:, None]])
        parent, last_item = i, child_item
        n_match = _popcount_rows(match)
        visited += len(match)
        keep = (n_match >= threshold) & (n_match > 0)
        match, comp, feats, vals = match[keep], comp[keep], feats[keep], vals[keep]
        parent, last_item, n_match = parent[keep], last_item[keep], n_match[keep]
        depth += 1
    return records, visited, passed, frequent


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
    branches = Parallel(n_jobs=n_jobs, prefer="threads", return_as="generator")(
        delayed(_profile_branch)(
            root, items, n_classes, threshold, min_support, max_size, targets, top_k
        )
        for root in range(m)
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
    subsets: list[tuple[int, ...]],
    columns: ColumnsFn,
    y: Int64Array,
    n_classes: int,
    min_support: float,
    targets: Sequence[int],
    top_k: int,
) -> tuple[list[dict], int, int]:
    records: list[dict] = []
    visited = passed = 0
    for subset in subsets:
        codes, cards = columns(subset)
        counts, ids, n_complete = _table(codes, cards, y, n_classes)
        if n_complete == 0:
            continue
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


def search_profiles_per_subset(
    columns: ColumnsFn,
    y: Int64Array,
    n_classes: int,
    n_features: int,
    *,
    max_size: int,
    min_support: float,
    top_k: int,
    targets: Sequence[int],
    n_jobs: int | None = None,
    max_seconds: float | None = None,
    progress: ProgressTask | None = None,
) -> SearchResult:
    """Algorithm 3 when each subset is discretised jointly (profiles are joint bins).

    The bins of a subset are re-cut for every subset, so match counts are not
    nested across subsets and nothing can be pruned: every subset of at most
    ``max_size`` features is visited (exact within the bound). ``max_seconds``
    and ``progress`` as in :func:`search_features`.
    """
    args = (columns, y, n_classes, min_support, targets, top_k)
    _, parts = _exhaustive(
        _joint_profiles_chunk, args, n_features, max_size, max_seconds, n_jobs, progress
    )
    records = _top_per_target([r for part, _, _ in parts for r in part], top_k)
    return SearchResult(records, sum(v for _, v, _ in parts), sum(p for _, _, p in parts))
