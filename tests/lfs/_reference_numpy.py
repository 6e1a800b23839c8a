"""The numpy LFS per-representative functions: the references of the compiled core.

Vectorised numpy versions of eq. (10) (:func:`lfs_weights`,
:func:`local_weights`), eq. (5) (:func:`class_distances`), the sphere radius
and the leave-one-out score of sec. 3.2 (:func:`sphere_radius`,
:func:`local_score`). The library computes all of them in
:mod:`localselect.lfs._regions`; these slower versions, themselves checked
against the loops of :mod:`._reference`, stay here to check it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from joblib import Parallel, delayed
from numpy.typing import NDArray
from sklearn import get_config

from localselect._pairwise import default_block_memory, row_chunks
from localselect._typing import BoolArray, FloatArray, IntArray
from localselect.lfs._record import regions_of


def _partial_weights(
    X: FloatArray,
    same: BoolArray,
    subsets: list[NDArray[np.intp]],
    counts: list[int],
    sigma: float,
) -> FloatArray:
    """Sum over the given subspaces of ``count * exp(-(d - d_min)^2 / sigma)``.

    Rows are processed in blocks whose temporaries (about six ``rows x N``
    arrays) fit scikit-learn's ``working_memory``.
    """
    X, same = np.asarray(X), np.asarray(same)  # plain views of joblib's memmaps
    n = X.shape[0]
    total = np.zeros((n, n))
    chunks = row_chunks(n, 6 * 8 * n, float(get_config()["working_memory"]))
    for feats, count in zip(subsets, counts):
        if feats.size == 0:
            total += count  # every distance is 0: weight exp(0) = 1
            continue
        Z = X[:, feats]
        norms = np.einsum("ij,ij->i", Z, Z)
        for rows in chunks:
            idx = np.arange(rows.start, rows.stop)
            sq = Z[rows] @ Z.T
            d = np.sqrt(np.maximum(norms[rows, None] + norms[None, :] - 2.0 * sq, 0.0))
            d[np.arange(idx.size), idx] = 0.0
            own = np.zeros(d.shape, dtype=bool)
            own[np.arange(idx.size), idx] = True
            same_r = same[rows]
            # Minimum over the representative's own class (itself excluded) and over the rest.
            d_same = np.where(same_r & ~own, d, np.inf).min(axis=1, keepdims=True)
            d_opp = np.where(~same_r, d, np.inf).min(axis=1, keepdims=True)
            dmin = np.where(same_r, d_same, d_opp)
            with np.errstate(invalid="ignore"):
                e = np.exp(-((d - dmin) ** 2) / sigma)
            total[rows] += count * np.nan_to_num(e, nan=0.0)
    return total


def lfs_weights(
    X: FloatArray,
    same: BoolArray,
    support: BoolArray,
    *,
    sigma: float,
    n_jobs: int | None = None,
) -> FloatArray:
    """Weights ``w_j^(i)`` of eq. (10) from the previous iteration's subsets.

    For representative ``i`` and every training subspace ``f_p``,
    ``d_p(j) = ||f_p * (x_i - x_j)||``; the weight of ``j`` is the average over
    ``p`` of ``exp(-(d_p(j) - min_v d_p(v))^2 / sigma)``, the minimum taken over
    ``j``'s side (``i``'s class without ``i``, or the other classes). Weights are
    then normalised to sum to 1 on each side.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data.
    same : ndarray of shape (n_samples, n_samples), dtype=bool
        ``same[i, j]``: ``j`` has ``i``'s class.
    support : ndarray of shape (n_samples, n_features), dtype=bool
        Previous subsets ``f_p`` (all False in the first iteration: uniform weights).
    sigma : float
        Width of the exponential (``sigma`` of the authors' code; 1 in eq. (10)).
    n_jobs : int or None
        Parallel jobs over blocks of distinct subspaces.

    Returns
    -------
    W : ndarray of shape (n_samples, n_samples)
        ``W[i, j]``; ``W[i, i] = 0``; each row sums to 1 over ``same[i] & (j != i)``
        and to 1 over ``~same[i]``.

    Notes
    -----
    Distinct subspaces are computed once and weighted by their multiplicity.
    Time O(U N^2 k) for U distinct subspaces of up to k features (Gram
    products), memory O(N^2) per job.
    """
    n = X.shape[0]
    uniq, inverse = np.unique(support, axis=0, return_inverse=True)
    counts = np.bincount(inverse.ravel(), minlength=uniq.shape[0])
    subsets = [np.flatnonzero(row) for row in uniq]
    n_blocks = 1 if n_jobs in (None, 1) else max(1, min(len(subsets), 4 * abs(int(n_jobs))))
    chunks = np.array_split(np.arange(len(subsets)), n_blocks)
    parts = Parallel(n_jobs=n_jobs if n_blocks > 1 else None)(
        delayed(_partial_weights)(
            X, same, [subsets[k] for k in ch], [int(counts[k]) for k in ch], sigma
        )
        for ch in chunks
        if ch.size
    )
    W = np.sum(parts, axis=0) / n
    W[np.eye(n, dtype=bool)] = 0.0
    for side in (same, ~same):
        Ws = np.where(side, W, 0.0)
        sums = Ws.sum(axis=1, keepdims=True)
        sums[sums == 0] = 1.0
        W = np.where(side, Ws / sums, W)
    return W


def class_distances(
    X: FloatArray, i: int, same_row: BoolArray, w_row: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The vectors ``a`` and ``b`` of eq. (5) for representative ``i``.

    ``a = sum_{j same, j != i} w_j (x_i - x_j)^2 / (N_same - 1)`` and
    ``b = sum_{j other} w_j (x_i - x_j)^2 / N_other`` (elementwise squares;
    the normalisations of the authors' code).
    """
    diff2 = (X - X[i]) ** 2
    n_same = int(same_row.sum())
    n_opp = same_row.size - n_same
    same_idx = np.flatnonzero(same_row)
    same_idx = same_idx[same_idx != i]
    opp_idx = np.flatnonzero(~same_row)
    a = w_row[same_idx] @ diff2[same_idx] / (n_same - 1)
    b = w_row[opp_idx] @ diff2[opp_idx] / n_opp
    return a, b


def local_weights(
    X_local: FloatArray,
    i: int,
    same_row: BoolArray,
    support_local: BoolArray,
    *,
    sigma: float,
) -> FloatArray:
    """Eq. (10) weights of one representative over its own candidate points.

    The nearest-candidate form of :func:`lfs_weights`: the representative
    ``X_local[i]``, its candidates (the other rows of ``X_local``) and the
    previous subsets of all of them (``support_local``). For every row ``p``,
    ``d_p(j) = ||f_p * (x_i - x_j)||`` over the candidates ``j``; the weight of
    ``j`` averages ``exp(-(d_p(j) - min_v d_p(v))^2 / sigma)`` over ``p``, the
    minimum taken over ``j``'s side, and is normalised to sum 1 on each side.
    With every training point a candidate this is :func:`lfs_weights`' row
    ``i`` (up to rounding: differences here, Gram products there).

    Parameters
    ----------
    X_local : ndarray of shape (n_local, n_features)
    i : int
        Row of the representative in ``X_local``.
    same_row : ndarray of shape (n_local,), dtype=bool
        Rows of the representative's class (itself included).
    support_local : ndarray of shape (n_local, n_features), dtype=bool
        Previous subsets of the rows.
    sigma : float

    Returns
    -------
    w : ndarray of shape (n_local,)
        ``w[i] = 0``. Time O(n_local^2 k) for subsets of at most ``k`` features.
    """
    n, m = X_local.shape
    sizes = support_local.sum(axis=1)
    k = int(sizes.max()) if n else 0
    if k == 0:
        e_mean = np.ones(n)
    else:
        rows, cols = np.nonzero(support_local)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        pad = np.full((n, k), m)
        pad[rows, np.arange(rows.size) - starts[rows]] = cols
        diff2 = np.zeros((n, m + 1))
        diff2[:, :m] = (X_local - X_local[i]) ** 2
        d = np.sqrt(diff2[:, pad].sum(axis=2))  # d[j, p]
        others = np.arange(n) != i
        same_side = same_row & others
        d_same = np.where(same_side[:, None], d, np.inf).min(axis=0)
        d_opp = np.where(~same_row[:, None], d, np.inf).min(axis=0)
        dmin = np.where(same_row[:, None], d_same[None, :], d_opp[None, :])
        with np.errstate(invalid="ignore"):
            e = np.exp(-((d - dmin) ** 2) / sigma)
        e_mean = np.nan_to_num(e, nan=0.0).mean(axis=1)
    w = e_mean.copy()
    w[i] = 0.0
    for side in (same_row, ~same_row):
        total = w[side].sum()
        if total > 0:
            w[side] /= total
    return w


#: Radius used when the impurity test already fails at distance 0 (the authors
#: use 1e-6 on z-scored data); capped below half the next distance.
_TINY_RADIUS = 1e-6


def sphere_radius(dist: FloatArray, same: BoolArray, gamma: float) -> float:
    """Radius of the region around a representative (sec. 3.2).

    Parameters
    ----------
    dist : ndarray of shape (n_samples,)
        Distances, in the representative's subspace, from the representative
        to every training point (itself included, at 0).
    same : ndarray of shape (n_samples,), dtype=bool
        Training points of the representative's class.
    gamma : float
        Impurity level.

    Returns
    -------
    radius : float
        With ``u_1 = 0 < u_2 < ...`` the distinct distances, the first ``k``
        with ``gamma * (n_same(<= u_k) - 1) / (N_same - 1) < n_opp(<= u_k) /
        N_opp`` gives ``r = (u_{k-1} + u_k) / 2`` (``r = u_1`` when ``k = 1``;
        a zero radius becomes ``min(1e-6, u_2 / 2)``). When no ``k`` passes
        (possible only for ``gamma = 1``) the sphere holds every point.
    """
    u, inv = np.unique(dist, return_inverse=True)
    n_same_total = int(same.sum())
    n_opp_total = same.size - n_same_total
    cum_same = np.cumsum(np.bincount(inv, weights=same, minlength=u.size))
    cum_opp = np.cumsum(np.bincount(inv, weights=~same, minlength=u.size))
    passes = gamma * (cum_same - 1) / (n_same_total - 1) < cum_opp / n_opp_total
    hits = np.flatnonzero(passes)
    if hits.size == 0:
        return float(u[-1])
    k = int(hits[0])
    r = float(u[0]) if k == 0 else 0.5 * float(u[k - 1] + u[k])
    if r == 0.0:
        r = _TINY_RADIUS if u.size == 1 else min(_TINY_RADIUS, 0.5 * float(u[1]))
    return r


#: Below this many features the direct differences are as fast as the Gram route.
_GRAM_MIN_FEATURES = 4


def nearest_votes(
    A: FloatArray, B: FloatArray, same: BoolArray, exclude: IntArray | None = None
) -> BoolArray:
    """:func:`nn_votes` of the rows of ``A`` against the points ``B``, exactly, via BLAS.

    Squared distances are first estimated by the Gram expansion
    ``|a|^2 + |b|^2 - 2 a.b`` (one matrix product). Its rounding error is at
    most ``(2k + 10) u (|a|^2 + |b|^2)`` for ``k`` features and unit roundoff
    ``u``, so every point that can be a nearest neighbour lies within twice
    that bound (times a safety factor 4) of the estimated row minimum. Only
    those candidates are recomputed exactly, as sums of squared differences
    in the order of :func:`subspace_sq_distances`,
    and the ties and votes are taken on the exact values: the result is that
    of ``nn_votes(subspace_sq_distances(A, B), same)``.

    Parameters
    ----------
    A : ndarray of shape (n_rows, k)
    B : ndarray of shape (n_points, k)
    same : ndarray of shape (n_points,), dtype=bool
        Points of the representative's class.
    exclude : ndarray of shape (n_rows,), dtype=int, optional
        For each row, a column of ``B`` left out (the row's own point).
    """
    n_a, k = A.shape
    if k < _GRAM_MIN_FEATURES or n_a == 0:
        sq = subspace_sq_distances(A, B)
        if exclude is not None:
            sq[np.arange(n_a), exclude] = np.inf
        return nn_votes(sq, same)
    out = np.empty(n_a, dtype=bool)
    norm_b = np.einsum("ij,ij->i", B, B)
    for rows in row_chunks(n_a, 16 * B.shape[0], default_block_memory()):
        out[rows] = _gram_votes(
            A[rows], B, norm_b, same, None if exclude is None else exclude[rows]
        )
    return out


def _gram_votes(
    A: FloatArray,
    B: FloatArray,
    norm_b: FloatArray,
    same: BoolArray,
    exclude: IntArray | None,
) -> BoolArray:
    n_a, k = A.shape
    norm_a = np.einsum("ij,ij->i", A, A)
    approx = A @ B.T
    approx *= -2.0
    approx += norm_a[:, None]
    approx += norm_b[None, :]
    if exclude is not None:
        approx[np.arange(n_a), exclude] = np.inf
    tol = 4.0 * (2 * k + 10) * np.finfo(np.float64).eps * (norm_a + norm_b.max())
    rows, cols = np.nonzero(approx <= (approx.min(axis=1) + 2.0 * tol)[:, None])
    exact = np.zeros(rows.size)
    for col_a, col_b in zip(A.T, B.T):
        diff = col_a[rows] - col_b[cols]
        exact += diff * diff
    row_min = np.full(n_a, np.inf)
    np.minimum.at(row_min, rows, exact)
    tied = exact <= row_min[rows]
    n_tied = np.bincount(rows, weights=tied, minlength=n_a)
    n_same = np.bincount(rows, weights=tied & same[cols], minlength=n_a)
    return n_same > n_tied - n_same


def local_score(
    X: FloatArray, i: int, feats: IntArray, same: BoolArray, gamma: float
) -> tuple[float, float]:
    """Radius and leave-one-out score of the subset ``feats`` for representative ``i``.

    Every training point inside the sphere is classified by its nearest other
    training points in the subspace (ties: strict majority for ``i``'s class
    versus the rest). ``DR`` counts points of ``i``'s class classified as that
    class, ``FAR`` points of other classes classified as ``i``'s class; the score
    is ``DR / N_same - FAR / N_other`` (sec. 3.2, the authors' code).

    Only training points within ``2 r`` of ``x_i`` are searched for the
    neighbours of the other points inside the sphere: a point ``p`` at
    ``d(p, x_i) <= r`` has its nearest neighbours no farther than ``x_i``, so
    within ``d(p, x_i) + r <= 2 r`` of ``x_i`` (triangle inequality; a relative
    1e-9 margin covers rounding). ``x_i``'s own neighbours come from the
    distances already computed.

    Returns
    -------
    radius, score : float
    """
    Z = X[:, feats]
    sq_i = subspace_sq_distances(Z[i : i + 1], Z)[0]
    dist = np.sqrt(sq_i)
    r = sphere_radius(dist, same, gamma)
    inside = np.flatnonzero(dist <= r)
    others = inside[inside != i]
    cols = np.flatnonzero(dist <= 2.0 * r * (1.0 + 1e-9))
    row_i = sq_i.copy()
    row_i[i] = np.inf
    classified = np.empty(inside.size, dtype=bool)
    classified[inside != i] = nearest_votes(
        Z[others], Z[cols], same[cols], exclude=np.searchsorted(cols, others)
    )
    classified[inside == i] = nn_votes(row_i[None, :], same)
    n_same = int(same.sum())
    dr = int(np.count_nonzero(classified & same[inside]))
    far = int(np.count_nonzero(classified & ~same[inside]))
    return r, dr / n_same - far / (same.size - n_same)


def pool_wins(
    Q: FloatArray,
    X_fit: FloatArray,
    y_fit: NDArray[np.intp],
    pool: NDArray[np.intp],
    feats: NDArray[np.intp],
    n_classes: int,
) -> NDArray[np.bool_]:
    """The neighbour rule of eq. (11) with each query's own candidate pool.

    For each query ``Q[q]``, the training points ``pool[q]`` nearest to it in
    the subspace ``feats`` (every point at the minimum squared distance, summed
    feature after feature as :func:`subspace_sq_distances`
    does); class ``c`` wins when strictly more of them are of class ``c`` than
    not. A region of class ``c`` with subset ``feats`` votes for ``c`` exactly
    where ``c`` wins, so one call serves every region with that subset.

    Returns
    -------
    wins : ndarray of shape (n_queries, n_classes), dtype=bool
    """
    sq = np.zeros(pool.shape)
    for f in feats:
        diff = Q[:, f][:, None] - X_fit[pool, f]
        sq += diff * diff
    tied = sq <= sq.min(axis=1, keepdims=True)
    cls = y_fit[pool]
    per_class = np.stack([(tied & (cls == c)).sum(axis=1) for c in range(n_classes)], axis=1)
    return per_class > tied.sum(axis=1, keepdims=True) - per_class


def similarities_candidates(est: Any, X: FloatArray, eta: FloatArray) -> FloatArray:
    """The nearest-candidate ``S_c`` of eq. (11) (numpy reference of
    :func:`localselect.lfs._candidate_votes.candidate_sphere_votes`)."""
    n_classes = est.classes_.size
    groups = region_groups(np.asarray(est.local_support_, dtype=bool))
    S = np.empty((X.shape[0], n_classes))
    for start in range(0, X.shape[0], 1024):
        Q = X[start : start + 1024]
        pool = regions_of(est).pools(Q)
        sphere = np.zeros((Q.shape[0], n_classes))
        for feats, reps in groups:
            sq = subspace_sq_distances(Q[:, feats], est.X_fit_[reps][:, feats])
            inside = np.sqrt(sq) <= est.radii_[reps]
            rows = np.flatnonzero(inside.any(axis=1))
            if rows.size == 0:
                continue
            wins = pool_wins(Q[rows], est.X_fit_, est.y_fit_, pool[rows], feats, n_classes)
            for c in range(n_classes):
                held = inside[rows][:, est.y_fit_[reps] == c].sum(axis=1)
                sphere[rows, c] += wins[:, c] * held
        none = np.flatnonzero(~sphere.any(axis=1))
        if none.size:  # no region votes: every region by its neighbour rule alone
            nearest = np.zeros((none.size, n_classes))
            for feats, reps in groups:
                wins = pool_wins(Q[none], est.X_fit_, est.y_fit_, pool[none], feats, n_classes)
                nearest += wins * np.bincount(est.y_fit_[reps], minlength=n_classes)
            sphere[none] = nearest
        S[start : start + Q.shape[0]] = sphere / eta
    return S


def block_candidates(est: Any, Q: FloatArray, groups: list) -> tuple[FloatArray, BoolArray]:
    """Numpy reference of :func:`localselect.lfs._candidate_votes.candidate_ratio_votes`.

    As :func:`localselect.lfs._decide._block_exact` with the nearest-candidate rule.

    The neighbours of a query are searched among its own candidate pool
    (``Regions.pools``). Votes are computed where they count: for the
    queries inside some sphere of a group of regions, and for every region
    when none of a query's spheres votes (the fallback).
    """
    n_train = est.X_fit_.shape[0]
    n_classes = est.classes_.size
    pool = regions_of(est).pools(Q)
    ratio = np.full((Q.shape[0], n_train), np.inf)
    votes = np.zeros(ratio.shape, dtype=bool)
    for feats, reps in groups:
        sq = subspace_sq_distances(Q[:, feats], est.X_fit_[reps][:, feats])
        ratio[:, reps] = np.sqrt(sq) / est.radii_[reps]
        rows = np.flatnonzero((ratio[:, reps] <= 1.0).any(axis=1))
        if rows.size:
            wins = pool_wins(Q[rows], est.X_fit_, est.y_fit_, pool[rows], feats, n_classes)
            votes[np.ix_(rows, reps)] = wins[:, est.y_fit_[reps]]
    none = np.flatnonzero(~(votes & (ratio <= 1.0)).any(axis=1))
    if none.size:
        for feats, reps in groups:
            wins = pool_wins(Q[none], est.X_fit_, est.y_fit_, pool[none], feats, n_classes)
            votes[np.ix_(none, reps)] = wins[:, est.y_fit_[reps]]
    return ratio, votes


def subspace_sq_distances(A: FloatArray, B: FloatArray) -> FloatArray:
    """Squared Euclidean distances between the rows of ``A`` and ``B``, by differences.

    Computed as sums of squared coordinate differences, feature after feature
    (not the Gram expansion), so equal pairs of points give exactly equal
    distances (nearest-neighbour ties on discrete data stay ties) and the
    summation order is that of ``sum((a_m - b_m) ** 2 for m in features)``.
    Temporaries are bounded by row blocks of :func:`~localselect._pairwise.row_chunks`.
    """
    n_a, n_b = A.shape[0], B.shape[0]
    out = np.zeros((n_a, n_b))
    if n_a == 0 or n_b == 0 or A.shape[1] == 0:
        return out
    BT = np.ascontiguousarray(B.T)
    for rows in row_chunks(n_a, 8 * n_b, default_block_memory()):
        acc = out[rows]
        tmp = np.empty_like(acc)
        for col_a, col_b in zip(A[rows].T, BT):
            np.subtract(col_a[:, None], col_b[None, :], out=tmp)
            np.multiply(tmp, tmp, out=tmp)
            acc += tmp
    return out


def nn_votes(sq: FloatArray, same: BoolArray) -> BoolArray:
    """Whether each row's nearest neighbours are mostly of the representative's class.

    ``sq`` holds squared distances from query rows to the training points (an
    excluded pair is ``inf``). All training points at the minimum distance are
    the neighbours; the row votes for the representative's class when
    strictly more of them are of that class (``same``) than not.
    """
    dmin = sq.min(axis=1, keepdims=True)
    tied = sq <= dmin
    n_same = (tied & same[None, :]).sum(axis=1)
    return n_same > tied.sum(axis=1) - n_same


def region_groups(support: BoolArray) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """Regions with a non-empty subset, grouped by identical subsets: ``(features, regions)``."""
    active = np.flatnonzero(support.any(axis=1))
    if active.size == 0:
        return []
    uniq, inverse = np.unique(support[active], axis=0, return_inverse=True)
    inverse = inverse.ravel()
    return [(np.flatnonzero(row), active[inverse == g]) for g, row in enumerate(uniq)]


def block_exact(est: Any, Q: FloatArray, groups: list) -> tuple[FloatArray, BoolArray]:
    """Ratio ``d_i(x) / r_i`` and neighbour-rule votes of every region (exact method):
    the numpy reference of :func:`localselect.lfs._decide._block_votes` there."""
    n_train = est.X_fit_.shape[0]
    n_classes = est.classes_.size
    onehot = np.eye(n_classes, dtype=np.int64)[est.y_fit_]
    ratio = np.full((Q.shape[0], n_train), np.inf)
    votes = np.zeros((Q.shape[0], n_train), dtype=bool)
    for feats, reps in groups:
        sq = subspace_sq_distances(Q[:, feats], est.X_fit_[:, feats])
        tied = sq <= sq.min(axis=1, keepdims=True)
        per_class = tied.astype(np.int64) @ onehot
        wins = per_class > tied.sum(axis=1, keepdims=True) - per_class
        ratio[:, reps] = np.sqrt(sq[:, reps]) / est.radii_[reps]
        votes[:, reps] = wins[:, est.y_fit_[reps]]
    return ratio, votes


def similarities_exact(est: Any, X: FloatArray) -> FloatArray:
    """The exact method's ``S_c`` of eq. (11) (numpy reference of
    :func:`localselect.lfs._decide.similarities` with every training point as pool)."""
    n_classes = est.classes_.size
    onehot = np.eye(n_classes, dtype=np.int64)[est.y_fit_]
    eta = np.bincount(est.y_fit_[est.local_support_.any(axis=1)], minlength=n_classes).astype(
        np.float64
    )
    eta[eta == 0] = np.inf
    S = np.empty((X.shape[0], n_classes))
    groups = region_groups(np.asarray(est.local_support_, dtype=bool))
    for start in range(0, X.shape[0], 1024):
        Q = X[start : start + 1024]
        sphere = np.zeros((Q.shape[0], n_classes))
        nearest = np.zeros((Q.shape[0], n_classes))
        for feats, reps in groups:
            sq = subspace_sq_distances(Q[:, feats], est.X_fit_[:, feats])
            tied = sq <= sq.min(axis=1, keepdims=True)
            per_class = tied.astype(np.int64) @ onehot  # tied neighbours per class
            wins = per_class > tied.sum(axis=1, keepdims=True) - per_class
            for c in range(n_classes):
                reps_c = reps[est.y_fit_[reps] == c]
                if reps_c.size == 0:
                    continue
                inside = np.sqrt(sq[:, reps_c]) <= est.radii_[reps_c]
                sphere[:, c] += wins[:, c] * inside.sum(axis=1)
                nearest[:, c] += wins[:, c] * reps_c.size
        none = ~sphere.any(axis=1)
        sphere[none] = nearest[none]
        S[start : start + Q.shape[0]] = sphere / eta
    return S
