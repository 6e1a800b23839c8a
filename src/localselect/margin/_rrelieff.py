"""RReliefF: ReliefF for a continuous target, and the reference rows of the Relief family.

Robnik-Sikonja and Kononenko (ICML 1997; Machine Learning 53, 2003, Fig. 3)
estimate, for each feature ``A``, the difference of two probabilities over
near pairs of samples: that ``A`` differs given that the target differs, and
that ``A`` differs given that it does not. With reference rows ``R_i`` (``m``
of them), their ``k`` nearest samples ``I_j`` and neighbour weights ``d(i, j)``
(summing to 1 over ``j``)::

    N_dC    = sum_i sum_j d(i, j) diff(tau, R_i, I_j)
    N_dA    = sum_i sum_j d(i, j) diff(A, R_i, I_j)
    N_dC&dA = sum_i sum_j d(i, j) diff(tau, R_i, I_j) diff(A, R_i, I_j)
    W[A]    = N_dC&dA / N_dC - (N_dA - N_dC&dA) / (m - N_dC)

``diff(A, ., .) = |x_A - x'_A| / (max_A - min_A)`` (0 for a constant feature)
and ``diff(tau, ., .) = |y - y'| / (max y - min y)``, ranges over all rows.
Neighbours: the Manhattan distance of the range-scaled features, the sample
itself excluded, ties to the lower index (the compiled kernel of
:mod:`localselect.margin._relieff_numba`). Neighbour weights: ``"equal"``,
``d = 1/k``; ``"exp_rank"``, ``d`` proportional to ``exp(-(r / sigma)^2)`` for
the neighbour of rank ``r = 0, 1, ..., k-1`` (nearest ``r = 0``; neighbours at
equal distance share the rank of the first of them), as CORElearn's
``RReliefFexpRank`` computes it.
"""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
from numpy.typing import NDArray

from localselect._runtime import ensure_compiled, n_threads
from localselect._typing import FloatArray
from localselect.margin import _column_diff, _relieff_numba

__all__ = ["AUTO_PAIR_BUDGET", "MIN_AUTO_REFERENCES", "rank_weights", "reference_rows", "rrelieff"]

#: ``max_samples="auto"``: every row is a reference while ``N^2`` stays within this
#: many distance evaluations (``N <= 10,000``), else ``max(1000, budget // N)`` rows.
AUTO_PAIR_BUDGET = 10**8
#: The fewest reference rows ``"auto"`` draws once it samples.
MIN_AUTO_REFERENCES = 1000


def n_references(max_samples: int | float | str | None, n: int) -> int:
    """The number ``m`` of reference rows that ``max_samples`` means for ``n`` rows.

    ``None``: ``n``; an int: itself (at most ``n``, else ``ValueError``); a
    float in (0, 1]: ``max(1, round(max_samples * n))``; ``"sqrt"`` and
    ``"log"``: ``int(sqrt(n))`` and ``int(ln n)`` (at least 1), as CORElearn's
    ``ReliefIterations = -2, -1``; ``"auto"``: ``n`` if ``n^2 <= 10^8``, else
    ``max(1000, 10^8 // n)``.
    """
    if max_samples is None:
        return n
    if max_samples == "auto":
        return n if n * n <= AUTO_PAIR_BUDGET else max(MIN_AUTO_REFERENCES, AUTO_PAIR_BUDGET // n)
    if max_samples == "sqrt":
        return max(1, int(math.sqrt(n)))
    if max_samples == "log":
        return max(1, int(math.log(n)))
    if isinstance(max_samples, Real) and not isinstance(max_samples, Integral):
        return max(1, round(max_samples * n))
    m = int(max_samples)
    if m > n:
        raise ValueError(f"max_samples={m} exceeds the {n} training samples.")
    return m


def reference_rows(max_samples, n: int, rng: np.random.RandomState) -> NDArray[np.intp]:
    """The sorted reference rows: all ``n`` when :func:`n_references` gives ``n``
    (no draw), else that many drawn without replacement by ``rng``."""
    m = n_references(max_samples, n)
    if m >= n:
        return np.arange(n)
    return np.sort(rng.choice(n, size=m, replace=False))


def rank_weights(distances: FloatArray, sigma: float) -> FloatArray:
    """Exponential-rank neighbour weights, each row summing to 1.

    Parameters
    ----------
    distances : ndarray of shape (m, k)
        Each reference's neighbour distances, nearest first.
    sigma : float
        ``d(r) = exp(-(r / sigma)^2)`` for rank ``r`` (0 for the nearest);
        a neighbour at the same distance as the one before it keeps that
        one's rank (CORElearn's rule).

    Returns
    -------
    weights : ndarray of shape (m, k)
    """
    m, k = distances.shape
    ranks = np.broadcast_to(np.arange(k), (m, k))
    new = np.ones((m, k), dtype=bool)
    new[:, 1:] = distances[:, 1:] != distances[:, :-1]
    first = np.maximum.accumulate(np.where(new, ranks, 0), axis=1)
    w = np.exp(-((first / sigma) ** 2))
    return w / w.sum(axis=1, keepdims=True)


def rrelieff(
    X: FloatArray,
    y: FloatArray,
    refs: NDArray[np.intp],
    n_neighbors: int,
    *,
    neighbor_weights: str = "equal",
    sigma: float = 20.0,
    nominal: NDArray[np.bool_] | None = None,
    n_levels: NDArray[np.intp] | None = None,
    numeric_equal: float = 0.0,
    numeric_different: float = 1.0,
    n_jobs: int | None = None,
    matrix_bytes: float = 256 * 2**20,
) -> FloatArray:
    """RReliefF weights (Robnik-Sikonja and Kononenko 2003, Fig. 3).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data: numbers, level codes ``0 .. L-1`` in the nominal columns,
        NaN for a missing value.
    y : ndarray of shape (n_samples,)
        The continuous target (complete).
    refs : ndarray of shape (m,)
        The reference rows ``R_i`` (sorted); their neighbours come from all rows.
    n_neighbors : int
        ``k``, at most ``n_samples - 1``.
    neighbor_weights : {"equal", "exp_rank"}, default="equal"
        The neighbour weights ``d(i, j)`` (module docstring).
    sigma : float, default=20.0
        Width of the ``"exp_rank"`` weights, in ranks (CORElearn's
        ``quotientExpRankDistance``).
    nominal : ndarray of bool of shape (n_features,), default=None
        The nominal columns (``diff`` 0 or 1); None: none.
    n_levels : ndarray of shape (n_features,), default=None
        Levels of each nominal column (for the missing-value rule); None:
        one more than its largest code.
    numeric_equal, numeric_different : float, default=0.0 and 1.0
        CORElearn's ramp of the numeric ``diff`` and of the target's, as
        fractions of the range (:mod:`localselect.margin._column_diff`);
        the defaults give the plain range-scaled difference.
    n_jobs : int or None, default=None
        Threads of the compiled kernel; results do not depend on it.
    matrix_bytes : float, default=256 MiB
        Numeric complete data: the largest ``N x N`` distance matrix held when
        every row is a reference (each pair computed once).

    Returns
    -------
    weights : ndarray of shape (n_features,)
        ``W[A]`` of the module docstring, in [-1, 1]; all 0 for a constant
        target (``N_dC = 0``: no pair differs in the target).

    Notes
    -----
    Neighbours follow CORElearn's ``diff``, arithmetic, selection and tie
    rule (:func:`localselect.margin._relieff_numba.corelearn_select`).
    Numeric complete data without the ramp: the tiled kernel of
    :mod:`localselect.margin._relieff_numba` finds ``k + 1`` candidates and
    sums, as before nominal columns and missing values were taken, and
    :func:`localselect.margin._column_diff.settle` makes the candidates
    CORElearn's neighbours (its heap for a reference with a tie at the
    boundary). Otherwise the column-by-column kernel of
    :mod:`localselect.margin._column_diff` finds the neighbours and sums. Time
    O(m N A) for the distances (``O(N^2 A / 2)`` for numeric complete data
    when every row is a reference and the matrix fits), O(m k A) for the
    sums; memory O(N A) for a transposed copy of the data and its bins (mixed
    data), plus O(m k).
    """
    threads = n_threads(n_jobs)
    refs = np.asarray(refs, dtype=np.int64)
    m = len(refs)
    plain = numeric_equal == 0.0 and numeric_different == 1.0
    mixed = (nominal is not None and bool(np.any(nominal))) or not plain
    if not mixed and np.isnan(X).any():
        mixed = True
    ensure_compiled(_column_diff.COLUMN_DIFF_KERNEL)
    mask = np.zeros(X.shape[1], dtype=bool) if nominal is None else np.asarray(nominal)
    spec = _column_diff.column_diff(
        X,
        mask,
        n_levels=n_levels,
        numeric_equal=numeric_equal,
        numeric_different=numeric_different,
    )
    if mixed:
        nb_idx, nb_d = _column_diff.mixed_nearest(spec, refs, n_neighbors, threads)
    else:
        # The tiled kernel finds k + 1 candidates (each pair once while the matrix
        # fits); CORElearn's arithmetic and heap settle them (ties at the boundary).
        ensure_compiled(_relieff_numba.RELIEFF_KERNEL)
        Xs = _relieff_numba.scaled(X, threads)
        n = X.shape[0]
        k_per = np.array([[min(n_neighbors + 1, n - 1)]], dtype=np.int64)
        codes = np.zeros(n, dtype=np.intp)
        cand, _, near_d = _relieff_numba.nearest(
            Xs, codes, k_per, np.ones((1, 1)), refs, threads, matrix_bytes
        )
        nb_idx, nb_d = _column_diff.settle(spec, refs, cand, near_d, n_neighbors, threads)
    if neighbor_weights == "exp_rank":
        nb_w = rank_weights(nb_d, sigma)
    else:
        nb_w = np.full(nb_idx.shape, 1.0 / n_neighbors)
    span = float(y.max() - y.min())
    if span == 0.0:
        return np.zeros(X.shape[1])
    gap = np.abs(y[refs][:, None] - y[nb_idx])
    if plain:
        dy = gap * (1.0 / span)
    else:
        width = span * (numeric_different - numeric_equal)
        slope = 1.0 / width if width > 0 else np.finfo(np.float64).max
        dy = _column_diff.ramp(gap, span * numeric_equal, span * numeric_different, slope)
    n_dc = float(np.sum(nb_w * dy))
    if mixed:
        n_da, n_dcda = _column_diff.mixed_rrelieff_sums(spec, refs, nb_idx, nb_w, dy, threads)
    else:
        n_da, n_dcda = _relieff_numba.regression_sums(Xs, refs, nb_idx, nb_w, dy, threads)
    # 0/0 terms (every near pair equal, or all different, in the target) count as 0.
    first = n_dcda / n_dc if n_dc > 0 else np.zeros_like(n_da)
    rest = m - n_dc
    second = (n_da - n_dcda) / rest if rest > 0 else np.zeros_like(n_da)
    return first - second
