"""The packed bit-set lattice of the profile search (Algorithm 3 of Marcondes et al.).

:func:`~localselect.lift._search.search_profiles` grows profiles (A, x) like
frequent-itemset mining: a profile's matching rows are a packed bit set (one
bit per row), every (feature, value) item's rows are precomputed
(:func:`_items`), and a whole level of the lattice is extended at once with
``&`` and ``np.bitwise_count`` (:func:`_profile_branch`), pruning a profile as
soon as its match count falls below ``min_support`` times the rows complete
on every feature (see :mod:`localselect.lift._search` for why that is exact).
This module also holds the records of qualifying profiles
(:func:`_profile_records`) and the ranking every search shares
(:func:`_rank_key`, :func:`_top_per_target`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._typing import FloatArray, Int64Array

__all__ = ["MAX_LEVEL_PROFILES"]

#: Profiles kept at one lattice level beyond which the profile search stops
#: with an error (raise ``min_support`` or bound ``max_size``).
MAX_LEVEL_PROFILES = 3_000_000


def _rank_key(rec: dict) -> tuple:
    # Best first: higher score, then higher support, fewer features, then the
    # lexicographic order of feature indices and value codes (a stable rule).
    return (
        -rec["score"],
        -rec["support"],
        len(rec["features"]),
        rec["features"],
        rec["profile"] or (),
        rec["window"] or (),
        rec["target"],
    )


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
