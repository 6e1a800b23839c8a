"""Regimes: groups of rows that use the same features, for any fitted selector.

A local selector answers per row (:func:`localselect.base.local_support`,
:func:`~localselect.base.local_relevance`); :func:`find_regimes` turns those
``n_rows`` answers into a few *regimes* a reader can take in at a glance: how
many groups of rows, how large, which features each uses, which classes it
holds, and which features every regime shares (the global part of the answer).
A global selector gives one regime.

The grouping (documented in :func:`find_regimes`, Notes):

1. each row's answer as a vector: its relevance centred per feature and
   scaled to unit length (``metric="cosine"``), or its 0/1 subset
   (``metric="jaccard"``);
2. k-means on the distinct vectors, weighted by how many rows share each,
   for every ``k`` from 2 to ``max_regimes``; each grouping is then *merged*:
   groups whose features (those at least half their rows select) coincide
   become one regime, and a group of under :data:`MIN_SHARE` of the rows joins
   the nearest. The merged grouping with the fewest regimes whose mean
   silhouette (Rousseeuw 1987, on up to :data:`SILHOUETTE_ROWS` rows) is within
   :data:`SILHOUETTE_TOLERANCE` of the best wins, and one regime is kept when
   no ``k`` reaches :data:`MIN_SILHOUETTE` (Kaufman and Rousseeuw's "no substantial structure");
3. with the input rows ``X``, a vote among each row's ``n_neighbors``
   nearest rows in ``X`` (columns weighted by how well they separate the
   regimes), so that a regime is a region of the input and not a scatter of
   rows whose estimated answers are noisy; then merged again.

A regime is defined by the features it uses, so the count is that of the
distinct feature sets the answers hold, not of k-means' best ``k``: k-means
with more groups than regimes puts the rows of mixed answers (near a switch)
in groups of their own, and merging gives them to the side whose features they
use. Measured (adjusted Rand index against the rows grouped by their true
relevant set): Syn4, ``ConditionalSaliencySelection`` on 10,000 rows, seeds
0-3: 0.82, 0.92, 0.94, 0.89 with merging (silhouette alone: 0.82, 0.64, 0.51,
0.42, choosing 2, 4, 5 and 4 regimes); ``make_lfs_synthetic(300, 20)`` with
LFS, seeds 0-4: 0.81-0.89, three regimes each. Merging needs answers whose
feature sets are clear: with 6,000 Syn4 rows (seed 0) the selector keeps x1
or x2 on about half the rows of the other side, the groups' feature sets
differ by features near half their rows, and "auto" reports 4 regimes (ARI
0.43). (Syn4's features are named here as INVASE names them, x1 .. x11; an
array's columns are named x0 .. x10 in the answers, see :func:`column_names`.)
"""

from __future__ import annotations

from numbers import Integral
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import check_random_state

from localselect._compat import Interval, StrOptions, validate_params
from localselect.base import is_selector, local_relevance, local_support, relevance_scope

__all__ = [
    "MIN_SHARE",
    "MIN_SILHOUETTE",
    "SILHOUETTE_ROWS",
    "SILHOUETTE_TOLERANCE",
    "Regimes",
    "column_names",
    "find_regimes",
]

#: Below this mean silhouette no grouping into 2 or more regimes is kept (Kaufman and
#: Rousseeuw 1990, ch. 2: under 0.25 "no substantial structure has been found").
MIN_SILHOUETTE = 0.25

#: Most rows the silhouette of a candidate grouping is measured on (a random subset,
#: drawn from ``random_state``): its cost is quadratic in the rows.
SILHOUETTE_ROWS = 2000

#: ``"auto"`` keeps the fewest regimes whose silhouette is within this fraction of the
#: best (parsimony, as the one-standard-error rule): on answers estimated row by row the
#: silhouette is flat over ``k`` (0.32-0.41 on Syn4) and its maximum an accident.
SILHOUETTE_TOLERANCE = 0.1

#: ``"auto"`` folds a regime holding fewer than this share of the rows into the nearest
#: regime: on Syn4 k-means splits off groups of 0.3-2 % of the rows near the switch, where
#: the selector's answers are mixed, not a regime a reader should be told about.
MIN_SHARE = 0.02

#: Rounds of the neighbour vote (each row takes its neighbours' most common regime).
VOTE_ROUNDS = 3


class Regimes(NamedTuple):
    """Groups of rows that use the same features (:func:`find_regimes`).

    Regimes are numbered by size, largest first (ties: the regime of the
    earlier row first).

    Parameters
    ----------
    labels : ndarray of shape (n_rows,)
        The regime of each row.
    sizes : ndarray of shape (n_regimes,)
        Rows per regime.
    support_rate : ndarray of shape (n_regimes, n_features)
        Fraction of the regime's rows whose subset holds each feature.
    mean_relevance : ndarray of shape (n_regimes, n_features)
        Mean ``local_relevance`` of the regime's rows.
    features : list of ndarray
        Per regime, the features at least half its rows select, most relevant
        first.
    shared : ndarray
        The features every regime uses (in ``features`` of each): the global
        part of the answer.
    classes : ndarray or None
        The class labels of ``y`` (None without ``y`` or for a continuous ``y``).
    class_counts : ndarray of shape (n_regimes, n_classes) or None
        Rows of each class per regime.
    target_mean : ndarray of shape (n_regimes,) or None
        Mean of a continuous ``y`` per regime.
    silhouettes : dict
        ``k -> mean silhouette`` of the grouping of every ``k`` tried (for
        ``n_regimes="auto"``, after merging; -1 when it merged into one).
    scope : str
        ``"local"`` or ``"global"`` (:func:`localselect.base.relevance_scope`).
    feature_names : tuple of str or None, default=None
        The name of each feature (:func:`column_names`: the selector's
        ``feature_names_in_``, the columns of a frame ``X``, else ``x0``,
        ``x1``, ...), used by :meth:`describe` and the figures.
    """

    labels: NDArray[np.intp]
    sizes: NDArray[np.intp]
    support_rate: NDArray[np.float64]
    mean_relevance: NDArray[np.float64]
    features: list[NDArray[np.intp]]
    shared: NDArray[np.intp]
    classes: Any
    class_counts: Any
    target_mean: Any
    silhouettes: dict[int, float]
    scope: str
    feature_names: tuple[str, ...] | None = None

    @property
    def n_regimes(self) -> int:
        """Number of regimes."""
        return len(self.sizes)

    def describe(self, feature_names: Any = None, *, max_features: int = 6) -> str:
        """The regimes in words: sizes, the features each uses, what is global.

        Parameters
        ----------
        feature_names : sequence of str, default=None
            Names of the features; default :attr:`feature_names` (the
            selector's ``feature_names_in_``, or ``x0``, ``x1``, ...).
        max_features : int, default=6
            Most features named per regime (the rest are counted).

        Returns
        -------
        text : str
            One paragraph.
        """
        return _describe(self, feature_names, max_features)


def column_names(
    source: Any = None, n_features: int | None = None, feature_names: Any = None, X: Any = None
) -> list[str]:
    """One name per input column, the same in every answer, figure and text.

    The first of: ``feature_names`` as given; ``source.feature_names_in_`` (an
    estimator fitted on a frame); the string column names of a frame ``X``
    (or of ``source`` itself when it is a frame of answers), when it has
    ``n_features`` of them; else ``x0``, ``x1``, ... (scikit-learn's names
    for the columns of an array, as ``get_feature_names_out`` gives them).

    Parameters
    ----------
    source : estimator, array-like or None, default=None
        A fitted estimator, or the answers (a mask or relevance frame).
    n_features : int, default=None
        Number of columns; default ``source.n_features_in_``.
    feature_names : sequence of str, default=None
        Names that override the others.
    X : array-like or frame, default=None
        The rows the answers are about.

    Returns
    -------
    names : list of str
        ``n_features`` names.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.regimes import column_names
    >>> column_names(np.zeros((2, 3), dtype=bool), 3)
    ['x0', 'x1', 'x2']
    """
    if n_features is None:
        n_features = getattr(source, "n_features_in_", None)
    if feature_names is None:
        feature_names = getattr(source, "feature_names_in_", None)
    for frame in (X, source):
        columns = _frame_columns(frame)
        if feature_names is None and columns and len(columns) == (n_features or len(columns)):
            feature_names = columns
    if n_features is None:
        if feature_names is None:
            raise ValueError("Pass n_features: the source has no n_features_in_.")
        n_features = len(feature_names)
    if feature_names is None:
        return [f"x{j}" for j in range(n_features)]
    names = [str(name) for name in feature_names]
    if len(names) != n_features:
        raise ValueError(
            f"Got {len(names)} feature names for {n_features} features; pass one name per "
            "column of X."
        )
    return names


def _frame_columns(frame: Any) -> list[str] | None:
    """The column names of a pandas or polars frame whose names are all strings, else None."""
    columns = getattr(frame, "columns", None)
    if columns is None or not hasattr(frame, "shape"):
        return None
    names = list(columns)
    return names if names and all(isinstance(n, str) for n in names) else None


def _answers(source: Any, X: Any) -> tuple[np.ndarray, np.ndarray, str]:
    """``(masks, relevance, scope)`` of a fitted selector on ``X``, or of an array."""
    if is_selector(source):
        scope = relevance_scope(source)
        if X is None and scope != "local":
            mask = np.asarray(source.get_support(), dtype=bool)[None, :]
            return mask, mask.astype(np.float64), scope
        masks = np.asarray(local_support(source, X), dtype=bool)
        return masks, np.asarray(local_relevance(source, X), dtype=np.float64), scope
    values = np.asarray(source)
    if values.ndim != 2:
        raise ValueError(
            f"Expected a fitted selector or a 2-D array of subsets; got shape {values.shape}."
        )
    if values.dtype == bool:
        return values, values.astype(np.float64), "local"
    relevance = np.asarray(values, dtype=np.float64)
    if not np.isfinite(relevance).all():
        raise ValueError("The relevance array holds NaN or infinite values.")
    return relevance > 0, relevance, "local"


def _vectors(masks: np.ndarray, relevance: np.ndarray, metric: str) -> np.ndarray:
    """Each row's answer as the vector k-means groups (Notes of :func:`find_regimes`)."""
    if metric == "jaccard":
        return masks.astype(np.float64)
    centred = relevance - relevance.mean(axis=0)
    norms = np.linalg.norm(centred, axis=1, keepdims=True)
    return np.divide(centred, norms, out=np.zeros_like(centred), where=norms > 0)


class _Sample(NamedTuple):
    """The rows the silhouette is measured on and their pairwise distances."""

    rows: np.ndarray
    distances: np.ndarray


def _sample(vectors, masks, metric, seed) -> _Sample:
    """Up to :data:`SILHOUETTE_ROWS` rows (drawn from ``seed``) and their distance matrix."""
    from sklearn.metrics import pairwise_distances

    n = len(vectors)
    rng = np.random.RandomState(seed)
    rows = np.sort(rng.choice(n, SILHOUETTE_ROWS, replace=False)) if n > SILHOUETTE_ROWS else None
    rows = np.arange(n) if rows is None else rows
    if metric == "jaccard":
        return _Sample(rows, pairwise_distances(masks[rows], metric="jaccard"))
    return _Sample(rows, pairwise_distances(vectors[rows]))


def _silhouette(labels: np.ndarray, sample: _Sample) -> float:
    """Mean silhouette of ``labels`` on the sampled rows (-1 with fewer than 2 groups)."""
    from sklearn.metrics import silhouette_score

    codes = labels[sample.rows]
    if len(np.unique(codes)) < 2:
        return -1.0
    return float(silhouette_score(sample.distances, codes, metric="precomputed"))


def _means(labels: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(sizes, per-regime mean of values)`` for labels ``0 .. k-1``."""
    k = int(labels.max()) + 1
    onehot = np.zeros((len(labels), k))
    onehot[np.arange(len(labels)), labels] = 1.0
    sizes = onehot.sum(axis=0)
    return sizes, (onehot.T @ values) / np.maximum(sizes, 1.0)[:, None]


def _renumber(labels: np.ndarray) -> np.ndarray:
    return np.unique(labels, return_inverse=True)[1].ravel()


def _merge(labels: np.ndarray, masks: np.ndarray, vectors: np.ndarray) -> np.ndarray:
    """Regimes that use the same features made one; regimes under :data:`MIN_SHARE` folded.

    Two rules, repeated until neither applies (labels renumbered ``0 .. k-1``):
    two regimes whose features (those at least half their rows select)
    coincide become one; a regime with fewer than ``MIN_SHARE`` of the rows
    joins the regime whose mean answer vector is nearest.
    """
    labels = _renumber(labels)
    min_rows = MIN_SHARE * len(labels)
    while labels.max() > 0:
        sizes, support = _means(labels, masks.astype(np.float64))
        _, same = np.unique(support >= 0.5, axis=0, return_inverse=True)
        same = same.ravel()
        if len(np.unique(same)) < len(sizes):
            labels = _renumber(same[labels])
            continue
        if sizes.min() < min_rows:
            _, centres = _means(labels, vectors)
            small = int(np.argmin(sizes))
            gaps = np.linalg.norm(centres - centres[small], axis=1)
            gaps[small] = np.inf
            labels = _renumber(np.where(labels == small, int(np.argmin(gaps)), labels))
            continue
        break
    return labels


def _group(masks, vectors, n_regimes, max_regimes, sample: _Sample, seed):
    """Labels of the best grouping, and the silhouette of every ``k`` tried.

    With ``n_regimes="auto"`` each k-means grouping is first merged
    (:func:`_merge`) and scored as merged; ``silhouettes`` maps ``k`` to that
    score, and the grouping kept is the one with the fewest regimes (after
    merging) within :data:`SILHOUETTE_TOLERANCE` of the best score.
    """
    from sklearn.cluster import KMeans

    distinct, inverse, counts = np.unique(vectors, axis=0, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    n = len(vectors)
    if len(distinct) < 2:
        return np.zeros(n, dtype=np.intp), {}
    auto = n_regimes == "auto"
    tried = range(2, max_regimes + 1) if auto else [n_regimes]
    found: dict[int, tuple[float, np.ndarray]] = {}
    for k in tried:
        if k > len(distinct):
            break
        km = KMeans(n_clusters=k, n_init=4, random_state=seed)
        labels = km.fit(distinct, sample_weight=counts).labels_[inverse]
        if auto:
            labels = _merge(labels, masks, vectors)
        found[k] = (_silhouette(labels, sample), labels)
    if not found:
        return np.zeros(n, dtype=np.intp), {}
    scores = {k: score for k, (score, _) in found.items()}
    top = max(scores.values())
    if auto and top < MIN_SILHOUETTE:
        return np.zeros(n, dtype=np.intp), scores
    near = [k for k, score in scores.items() if score >= (1 - SILHOUETTE_TOLERANCE) * top]
    best = min(near, key=lambda k: (int(found[k][1].max()), -scores[k], k))
    return found[best][1], scores


def _vote(X: Any, labels: np.ndarray, n_neighbors: int) -> np.ndarray:
    """Each row's regime by a vote of its nearest rows in ``X`` (Notes of :func:`find_regimes`).

    Columns are weighted by their F statistic between the regimes (one-way
    ANOVA, ``sklearn.feature_selection.f_classif``) over the largest, squared,
    so the distance is measured in the columns that tell the regimes apart.
    """
    from sklearn.feature_selection import f_classif
    from sklearn.neighbors import NearestNeighbors

    try:
        values = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return labels  # a table with text columns (LLDS): no geometry to vote in
    k = len(np.unique(labels))
    if k < 2 or values.ndim != 2 or not np.isfinite(values).all():
        return labels
    with np.errstate(divide="ignore", invalid="ignore"):
        f_stat = np.nan_to_num(f_classif(values, labels)[0], nan=0.0, posinf=0.0)
    if f_stat.max() <= 0:
        return labels
    weighted = values * (f_stat / f_stat.max()) ** 2
    n_neighbors = min(n_neighbors, len(values))
    neighbours = (
        NearestNeighbors(n_neighbors=n_neighbors)
        .fit(weighted)
        .kneighbors(weighted, return_distance=False)
    )
    rows = np.repeat(np.arange(len(values)), n_neighbors)
    for _ in range(VOTE_ROUNDS):
        votes = np.zeros((len(values), labels.max() + 1))
        np.add.at(votes, (rows, labels[neighbours].ravel()), 1.0)
        labels = votes.argmax(axis=1)
    return labels


def _by_size(labels: np.ndarray) -> np.ndarray:
    """Regimes renumbered 0, 1, ... by size (largest first; ties: earliest row first)."""
    present, first, counts = np.unique(labels, return_index=True, return_counts=True)
    order = np.lexsort((first, -counts))
    new = np.empty(present.max() + 1, dtype=np.intp)
    new[present[order]] = np.arange(len(present))
    return new[labels]


def _target_summary(y: Any, labels: np.ndarray, k: int):
    """``(classes, class_counts, target_mean)`` of ``y`` per regime."""
    if y is None:
        return None, None, None
    from sklearn.utils.multiclass import type_of_target

    y = np.asarray(y)
    if len(y) != len(labels):
        raise ValueError(f"y has {len(y)} rows; the answers have {len(labels)}.")
    if type_of_target(y) == "continuous":
        sums = np.bincount(labels, weights=y.astype(np.float64), minlength=k)
        return None, None, sums / np.bincount(labels, minlength=k)
    classes, codes = np.unique(y, return_inverse=True)
    counts = np.zeros((k, len(classes)), dtype=np.intp)
    np.add.at(counts, (labels, codes.ravel()), 1)
    return classes, counts, None


@validate_params(
    {
        "n_regimes": [StrOptions({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_regimes": [Interval(Integral, 2, None, closed="left")],
        "metric": [StrOptions({"cosine", "jaccard"})],
        "n_neighbors": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def find_regimes(
    source: Any,
    X: Any = None,
    y: Any = None,
    *,
    n_regimes: int | str = "auto",
    max_regimes: int = 10,
    metric: str = "cosine",
    n_neighbors: int = 30,
    random_state: Any = None,
) -> Regimes:
    """Group rows by the features they use: the regimes of a selector's answer.

    Parameters
    ----------
    source : fitted selector or array-like of shape (n_rows, n_features)
        A fitted selector (local or global; its answers on ``X`` by
        :func:`localselect.base.local_support` and
        :func:`~localselect.base.local_relevance`), a boolean mask of subsets,
        or a real relevance matrix (a feature is selected where it is > 0).
    X : array-like of shape (n_rows, n_features), default=None
        The rows. With a selector, its answers are computed on them (``None``:
        a local selector's training rows); with any source, a numeric ``X``
        also drives the neighbour vote (``n_neighbors``).
    y : array-like of shape (n_rows,), default=None
        Class labels (class mix per regime) or a continuous target (its mean
        per regime).
    n_regimes : int or "auto", default="auto"
        Number of regimes (k-means' ``k``, kept as asked); ``"auto"`` measures
        2 to ``max_regimes`` by the silhouette after merging regimes that use
        the same features and those under :data:`MIN_SHARE` of the rows, and
        keeps one regime when none has structure.
    max_regimes : int, default=10
        Most regimes ``"auto"`` considers.
    metric : {"cosine", "jaccard"}, default="cosine"
        ``"cosine"``: rows compared by their relevance, centred per feature;
        ``"jaccard"``: by their 0/1 subsets.
    n_neighbors : int, default=30
        Rows in the vote that smooths the regimes over the input ``X``; 0
        groups rows by their answers alone.
    random_state : int, RandomState instance or None, default=None
        Seeds k-means and the rows the silhouette is measured on.

    Returns
    -------
    regimes : Regimes
        Labels per row, sizes, features, class mix, mean relevance, and the
        name of each feature (:func:`column_names`: the selector's
        ``feature_names_in_``, the columns of a frame ``X``, else ``x0``,
        ``x1``, ...).

    Notes
    -----
    The answer vectors (step 1 of the module docstring) are grouped by
    k-means (Lloyd's algorithm, ``sklearn.cluster.KMeans``, 4 starts) on the
    distinct vectors with their multiplicities as weights. For ``cosine`` the
    Euclidean distance between unit vectors is the chord
    :math:`\\sqrt{2 (1 - \\cos)}`, so k-means and the silhouette use the
    cosine's order. Centring per feature removes what every row shares, so
    the regimes differ in what the rows do *not* share.

    The neighbour vote weights column :math:`j` of ``X`` by
    :math:`(F_j / \\max_l F_l)^2`, :math:`F_j` the one-way ANOVA statistic of
    the column between the regimes, and gives each row the most common regime
    of its ``n_neighbors`` nearest rows (itself included), :data:`VOTE_ROUNDS`
    times. Answers estimated row by row are noisy near a switch of regime; the
    vote makes each regime the region of the input where its features are
    used.

    Cost: k-means :math:`O(u \\, k \\, d)` per iteration on the ``u`` distinct
    answers; the silhouette :math:`O(m^2 d)` on
    :math:`m \\le` :data:`SILHOUETTE_ROWS` rows per ``k``; the vote one
    neighbour search, :math:`O(n \\log n \\, d)` with a tree.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.regimes import find_regimes
    >>> masks = np.zeros((6, 3), dtype=bool)
    >>> masks[:4, 0] = masks[4:, 1] = True
    >>> regimes = find_regimes(masks, random_state=0)
    >>> regimes.sizes.tolist(), [f.tolist() for f in regimes.features]
    ([4, 2], [[0], [1]])
    """
    masks, relevance, scope = _answers(source, X)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    if scope == "local" and n_regimes != 1:
        vectors = _vectors(masks, relevance, metric)
        sample = _sample(vectors, masks, metric, seed)
        labels, silhouettes = _group(masks, vectors, n_regimes, max_regimes, sample, seed)
        if X is not None and n_neighbors > 0 and len(X) == len(labels):
            labels = _vote(X, labels, n_neighbors)
            if n_regimes == "auto":
                labels = _merge(labels, masks, vectors)
    else:
        labels, silhouettes = np.zeros(len(masks), dtype=np.intp), {}
    labels = _by_size(labels)
    k = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=k)
    support = np.zeros((k, masks.shape[1]))
    np.add.at(support, labels, masks.astype(np.float64))
    support /= sizes[:, None]
    mean_relevance = np.zeros_like(support)
    np.add.at(mean_relevance, labels, relevance)
    mean_relevance /= sizes[:, None]
    features = [
        np.flatnonzero(support[r] >= 0.5)[np.argsort(-mean_relevance[r][support[r] >= 0.5])]
        for r in range(k)
    ]
    shared = np.flatnonzero((support >= 0.5).all(axis=0))
    classes, counts, target_mean = _target_summary(y, labels, k)
    names = tuple(column_names(source, masks.shape[1], None, X))
    return Regimes(
        labels, sizes, support, mean_relevance, features, shared, classes, counts,
        target_mean, silhouettes, scope, names,
    )  # fmt: skip


def _listed(names: list[str], most: int) -> str:
    if not names:
        return "no feature"
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def _mix(regimes: Regimes, r: int) -> str:
    if regimes.class_counts is not None:
        counts = regimes.class_counts[r]
        order = np.argsort(-counts, kind="stable")
        parts = [
            f"{100 * counts[c] / counts.sum():.0f}% {regimes.classes[c]}"
            for c in order[:3]
            if counts[c]
        ]
        return "; " + ", ".join(parts)
    if regimes.target_mean is not None:
        return f"; mean target {regimes.target_mean[r]:.3g}"
    return ""


def _describe(regimes: Regimes, feature_names: Any, max_features: int) -> str:
    n_rows = int(regimes.sizes.sum())
    if feature_names is None:
        feature_names = regimes.feature_names
    names = column_names(None, regimes.support_rate.shape[1], feature_names)
    if regimes.scope != "local":
        used = [names[j] for j in regimes.features[0]]
        return (
            f"The answer is global: every one of the {n_rows} rows uses the same "
            f"{len(used)} feature(s) ({_listed(used, max_features)})."
        )
    if regimes.n_regimes == 1:
        used = [names[j] for j in regimes.features[0]]
        return (
            f"The {n_rows} rows form one regime (no grouping into regimes has structure): "
            f"most rows use {_listed(used, max_features)}."
        )
    shared = set(regimes.shared.tolist())
    lines = [f"The {n_rows} rows fall into {regimes.n_regimes} regimes of rows that use "
             "the same features."]  # fmt: skip
    if shared:
        common = [names[j] for j in regimes.shared]
        lines.append(f"Every regime uses {_listed(common, max_features)}.")
    for r in range(regimes.n_regimes):
        own = [names[j] for j in regimes.features[r] if j not in shared]
        share = 100 * regimes.sizes[r] / n_rows
        what = _listed(own, max_features) if own or not shared else "only the shared features"
        lines.append(
            f"Regime {r + 1} ({regimes.sizes[r]} rows, {share:.0f}%{_mix(regimes, r)}): "
            f"{'also ' if shared and own else ''}{what}."
        )
    return " ".join(lines)
