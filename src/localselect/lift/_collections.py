"""LiftFeatureSelector on a Dask collection, from contingency counts summed on the workers.

Every LLDS measure (the lift, eta of a subset or of a window) is a function
of the contingency table n(x, y) of a feature subset's profiles against the
classes, and row blocks add these tables up. So a fit on a ``dask.array`` /
``dask.dataframe`` codes the rows as the in-memory fit does
(:mod:`localselect.lift._collection_codes`: exact tertile edges for
``discretizer="auto"``), then runs the lattice search of its resolution with
each search step's tables counted in one pass over the blocks
(:func:`~localselect._runtime._collections.reduce_blocks`; per block, for
every subset of the step, the value counts of its mixed-radix profile code
times the class, merged by key):

* ``"features"`` and ``"windows"`` (Algorithms 1 and 2): the exhaustive
  search has no dependence between subsets, so it is one step: every subset
  of at most ``max_features`` features, in passes of at most
  :data:`SUBSETS_PER_PASS` subsets; the records come from the same functions
  as in memory (:func:`~localselect.lift._search.features_records`,
  :func:`~localselect.lift._search.windows_records`);
* ``"profiles"`` (Algorithm 3): the pruned frequent-itemset search level by
  level (one pass per profile length): level 1 counts every single feature;
  level d + 1 joins the surviving profiles of level d sharing their first
  d - 1 items (the prefix join of
  :func:`~localselect.lift._lattice._profile_branch`) and counts the tables of
  the subsets those candidates use. Candidates, pruning by match count and
  records are those of the in-memory search, so ``n_counted_``,
  ``n_visited_`` and ``n_passed_`` agree too.

Counts are integers (exact in float64) laid out in the in-memory order (the
observed profiles in increasing code order), so eta and the lift equal the
in-memory values bit for bit. The client receives tables, never rows.

Not on a collection: ``max_features="auto"`` and ``max_seconds`` (they time
a pilot on rows in memory; pass an integer ``max_features``), a fitted or a
joint ``discretizer`` (refitted on every subset's rows), missing values and
non-numeric columns; ``local_support_`` and ``local_relevance_`` of the
training rows are not kept (``get_local_support(X)`` and
``local_relevance(X)`` answer them lazily, block by block).

:func:`fit_llds_collection` returns a :class:`LiftCollectionFit` that the
estimator assigns itself (``LiftFeatureSelector._set_collection_fit``: the
coding, the search's ranking and counts).
"""

from __future__ import annotations

from math import prod
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._runtime._collections import RowBlocks, Summary, reduce_blocks
from localselect.lift._coding import FeatureCodes
from localselect.lift._collection_codes import (
    CodeSpec,
    block_codes,
    column_kinds,
    exact_quantiles,
    observed_categories,
)
from localselect.lift._driver import LatticeSearch
from localselect.lift._lattice import (
    MAX_LEVEL_PROFILES,
    _profile_records,
    _sibling_pairs,
    _top_per_target,
)
from localselect.lift._measures import EncodedData
from localselect.lift._search import _best, _subsets, features_records, windows_records
from localselect.lift._search import subsets_total as _subsets_total

__all__ = ["LiftCollectionFit", "fit_llds_collection"]

#: Feature subsets whose tables one pass counts at most (bounds the partial results).
SUBSETS_PER_PASS = 4096
#: Tertile levels of ``discretizer="auto"``.
TERTILES = np.array([1 / 3, 2 / 3])


class LiftCollectionFit(NamedTuple):
    """What :func:`fit_llds_collection` fits, for the estimator to assign."""

    #: The per-feature codes (their fitted discretizer and categories).
    coding: FeatureCodes
    #: The largest subset size searched (``max_features_``).
    max_features: int
    #: The search's records (best first) and counts.
    search: LatticeSearch
    #: The feature names of the ranking.
    names: list[str]


def _refuse(estimator) -> None:
    if estimator.max_features == "auto":
        raise ValueError(
            "LiftFeatureSelector(max_features='auto') sizes its search by timing a pilot on "
            "rows in memory, which a Dask collection does not give; pass an integer "
            "max_features (each subset size is counted on the workers), or fit 'auto' on "
            "a sample in memory."
        )
    if estimator.discretizer not in ("auto", None):
        raise ValueError(
            "LiftFeatureSelector on a Dask collection codes columns with "
            "discretizer='auto' (exact sample tertiles, computed on the workers) or None "
            "(discrete data); a transformer would be fitted on rows in memory. Pass "
            "discretizer='auto', or bin the columns on the cluster first."
        )


def _table_block(x, y, offset, spec, classes, subsets, cards):
    """Value counts of ``profile code * n_classes + class`` of each subset, in one block."""
    codes = block_codes(x, spec)
    y_codes = np.searchsorted(classes, np.asarray(y))
    out = []
    for subset in subsets:
        key = np.zeros(len(codes), dtype=np.int64)
        for j in subset:
            key *= cards[j]
            key += codes[:, j]
        key *= len(classes)
        key += y_codes
        out.append(np.unique(key, return_counts=True))
    return out


def _merge_tables(a, b):
    out = []
    for (ka, ca), (kb, cb) in zip(a, b, strict=True):
        keys, inverse = np.unique(np.concatenate([ka, kb]), return_inverse=True)
        out.append((keys, np.bincount(inverse, weights=np.concatenate([ca, cb]))))
    return out


class _Table:
    """A subset's contingency: observed profile ids (mixed radix, increasing) and counts."""

    def __init__(self, keys, counts, n_classes: int, cards: list[int]) -> None:
        ids, inverse = np.unique(keys // n_classes, return_inverse=True)
        self.counts = np.zeros((len(ids), n_classes))
        self.counts[inverse, keys % n_classes] = counts
        self.ids = ids
        self.cards = cards

    def labels(self) -> list[tuple[int, ...]]:
        """Value codes of each observed profile, in table order."""
        out = np.empty((len(self.ids), len(self.cards)), dtype=np.int64)
        rest = self.ids.copy()
        for j in range(len(self.cards) - 1, -1, -1):
            out[:, j] = rest % self.cards[j]
            rest //= self.cards[j]
        return [tuple(r) for r in out.tolist()]


def _count_tables(blocks, spec, classes, subsets, cards) -> dict[tuple[int, ...], _Table]:
    """Contingency tables of ``subsets``, one pass per :data:`SUBSETS_PER_PASS` of them."""
    for subset in subsets:
        if prod(cards[j] for j in subset) * len(classes) >= 1 << 62:
            raise ValueError(
                f"LiftFeatureSelector on a Dask collection: the profiles of features "
                f"{subset} have too many value combinations to count by code; lower "
                "max_features or use fewer values per column."
            )
    tables = {}
    for start in range(0, len(subsets), SUBSETS_PER_PASS):
        batch = [tuple(int(j) for j in s) for s in subsets[start : start + SUBSETS_PER_PASS]]
        merged = reduce_blocks(
            blocks, _table_block, _merge_tables, spec, classes, batch, cards,
            name="localselect-llds-tables",
        )  # fmt: skip
        for subset, (keys, counts) in zip(batch, merged, strict=True):
            sub_cards = [cards[j] for j in subset]
            tables[subset] = _Table(keys, counts, len(classes), sub_cards)
    return tables


def _exhaustive(estimator, blocks, spec, classes, cards, max_size, targets, log):
    """Algorithms 1 and 2: every subset's table, then the in-memory records."""
    m = len(cards)
    subsets = _subsets(m, max_size)
    log(1, "LLDS %s on a Dask collection: %d subsets", estimator.resolution, len(subsets))
    tables = _count_tables(blocks, spec, classes, subsets, cards)
    n = blocks.n_samples
    if estimator.resolution == "features":
        rows = ((s, tables[s].counts, n) for s in subsets)
        records = features_records(rows, len(classes))
        visited, passed = len(subsets), len(records)
    else:
        rows4 = ((s, tables[s].counts, tables[s].labels, n) for s in subsets)
        records, visited, passed = windows_records(
            rows4, min_support=estimator.min_support, top_k=estimator.top_k, targets=targets
        )
    return LatticeSearch(_best(records, estimator.top_k), visited, visited, passed)


def _join(feats: NDArray[np.int64], vals: NDArray[np.int64], m: int):
    """Prefix join of surviving profiles: pairs sharing all items but the last."""
    depth = feats.shape[1]
    if depth == 1:
        parent = np.zeros(len(feats), dtype=np.int64)
    else:
        prefix = np.hstack([feats[:, :-1], vals[:, :-1]])
        parent = np.unique(prefix, axis=0, return_inverse=True)[1].ravel().astype(np.int64)
    order = np.lexsort((vals[:, -1], feats[:, -1], parent))
    feats, vals, parent = feats[order], vals[order], parent[order]
    i, s = _sibling_pairs(parent, feats[:, -1].copy(), m)
    return np.hstack([feats[i], feats[s, -1:]]), np.hstack([vals[i], vals[s, -1:]])


def _class_match(tables, feats, vals, n_classes):
    """n(x, y) of each candidate profile (zeros for a profile never observed)."""
    out = np.zeros((len(feats), n_classes))
    subsets, inverse = np.unique(feats, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    for g, subset in enumerate(subsets.tolist()):
        rows = np.flatnonzero(inverse == g)
        table = tables[tuple(subset)]
        ids = np.zeros(len(rows), dtype=np.int64)
        for k, card in enumerate(table.cards):
            ids = ids * card + vals[rows, k]
        where = np.minimum(np.searchsorted(table.ids, ids), max(len(table.ids) - 1, 0))
        found = table.ids[where] == ids
        out[rows[found]] = table.counts[where[found]]
    return out


def _profiles(estimator, blocks, spec, classes, cards, max_size, targets, class_sizes, log):
    """Algorithm 3 on per-feature codes, one pass per profile length (module docstring)."""
    m, n, n_classes = len(cards), blocks.n_samples, len(classes)
    min_support, top_k = estimator.min_support, estimator.top_k
    threshold = min_support * n - 1e-9
    singles = [(j,) for j in range(m)]
    tables = _count_tables(blocks, spec, classes, singles, cards)
    feats = np.array([[j] for j in range(m) for _ in range(cards[j])], dtype=np.int64)
    vals = np.array([[v] for j in range(m) for v in range(cards[j])], dtype=np.int64)
    feats, vals = feats.reshape(-1, 1), vals.reshape(-1, 1)
    match = _class_match(tables, feats, vals, n_classes)
    visited, passed, frequent, records = len(feats), 0, 0, []
    depth = 1
    while True:
        n_match = match.sum(axis=1)
        keep = (n_match >= threshold) & (n_match > 0)
        feats, vals, match, n_match = feats[keep], vals[keep], match[keep], n_match[keep]
        if len(feats) == 0:
            break
        frequent += len(feats)
        ok = n_match >= min_support * n - 1e-9
        passed += int(ok.sum())
        if ok.any():
            k = int(ok.sum())
            recs = _profile_records(
                feats[ok], vals[ok], n_match[ok], np.full(k, float(n)), match[ok],
                np.broadcast_to(class_sizes, (k, n_classes)), targets, top_k,
            )  # fmt: skip
            records = _top_per_target(records + recs, top_k)
        if depth >= max_size:
            break
        feats, vals = _join(feats, vals, m)
        if len(feats) > MAX_LEVEL_PROFILES:
            raise ValueError(
                f"The profile lattice holds over {MAX_LEVEL_PROFILES:,} candidate profiles "
                f"with {depth + 1} features at min_support={min_support}; raise min_support "
                "or set max_features to bound the profile length."
            )
        visited += len(feats)
        log(1, "LLDS profiles: %d candidates of %d features", len(feats), depth + 1)
        if len(feats) == 0:
            break
        subsets = [tuple(s) for s in np.unique(feats, axis=0).tolist()]
        tables = _count_tables(blocks, spec, classes, subsets, cards)
        match = _class_match(tables, feats, vals, n_classes)
        depth += 1
    return LatticeSearch(records, visited, frequent, passed)


def _coding(estimator, blocks: RowBlocks, summary: Summary, names) -> tuple:
    """The codes of ``discretizer="auto"`` / None, from passes over the blocks."""
    from localselect.lift._column_bins import TertileBins

    m = blocks.X.shape[1]
    binned = column_kinds(blocks)
    if len(binned) and estimator.discretizer is None:
        raise ValueError(
            f"X has continuous (non-integer) values in columns {binned[:10].tolist()}; the "
            "lift dependence scale needs discrete features. Pass discretizer='auto' "
            "(sample tertiles per feature, computed exactly on the workers)."
        )
    fitted = None
    edges = np.empty((2, 0))
    if len(binned):
        edges = exact_quantiles(blocks, binned, TERTILES, summary.lo, summary.hi)
        fitted = TertileBins(binned.tolist()).with_edges(edges)
    categories = observed_categories(blocks, binned, edges)
    spec = CodeSpec(binned, edges, categories)
    encoded = EncodedData(
        np.empty((0, m), dtype=np.int64), [np.asarray(c, dtype=object) for c in categories], names
    )
    return FeatureCodes(encoded, fitted), spec


def fit_llds_collection(
    estimator, blocks: RowBlocks, summary: Summary, counts, log
) -> LiftCollectionFit:
    """``LiftFeatureSelector.fit`` on a Dask collection (see the module docstring)."""
    from localselect.lift._selector import ranked_targets

    _refuse(estimator)
    n, m = blocks.n_samples, int(blocks.X.shape[1])
    max_size = m if estimator.max_features is None else min(estimator.max_features, m)
    if estimator.resolution in ("features", "windows"):
        _subsets_total(m, max_size)
    targets = ranked_targets(estimator.classes_, estimator.target_class, "classification")
    names = (
        [str(c) for c in estimator.feature_names_in_]
        if hasattr(estimator, "feature_names_in_")
        else [f"x{j}" for j in range(m)]
    )
    coding, spec = _coding(estimator, blocks, summary, names)
    cards = [len(c) for c in spec.categories]
    classes = estimator.classes_
    log(1, "LLDS %s on a Dask collection: %d samples, %d features, subsets up to %d",
        estimator.resolution, n, m, max_size)  # fmt: skip
    if estimator.resolution == "profiles":
        class_sizes = np.asarray(counts, dtype=np.float64)
        search = _profiles(
            estimator, blocks, spec, classes, cards, max_size, targets, class_sizes, log
        )
    else:
        search = _exhaustive(estimator, blocks, spec, classes, cards, max_size, targets, log)
    return LiftCollectionFit(coding, int(max_size), search, names)
