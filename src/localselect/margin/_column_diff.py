"""``diff`` per input column for RReliefF: nominal columns, missing values and the ramp.

The Relief family compares two samples column by column (Kononenko 1994;
Robnik-Sikonja and Kononenko 2003, section 2.3):

* a nominal column (level codes ``0 .. L-1``): ``diff = 0`` when the levels
  are equal, else 1;
* a numeric column: ``diff = |a - b| / (max - min)``, or, with the ramp
  ``(e, d)`` (CORElearn's ``numAttrProportionEqual`` and
  ``numAttrProportionDifferent``), 0 when ``|a - b| <= e (max - min)``, 1 when
  ``|a - b| >= d (max - min)`` and linear between; ``(e, d) = (0, 1)`` is the
  plain difference. A constant column has ``diff = 0``;
* a missing value (NaN), CORElearn's rule for a continuous target
  (``estimationReg``): the probability that the two values differ, from the
  column's distribution with a Laplace correction. For a nominal column with
  ``L`` levels, ``n_v`` rows at level ``v`` and ``n_?`` missing among ``N``,
  ``P(v) = (n_v + 1) / (N + L - n_?)``; one value missing and the other ``v``:
  ``1 - P(v)``; both missing: ``1 - sum_v P(v)^2``. A numeric column is cut
  into ``B`` equal-width intervals over its range (``B = 5``, or
  ``max(2, N // 5)`` below 25 rows) and treated as a nominal one over the
  intervals.

The distance of two samples is the sum of the ``diff`` of all columns, in
CORElearn's order (the nominal columns, then the numeric ones) and with its
arithmetic (``|a - b| * (1 / (max - min))``), so that distances equal there are
equal here and ties are broken alike (:func:`corelearn_select`). The kernels
are compiled with numba; they loop over reference rows in tiles and over
feature columns, never over samples in Python.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from localselect._runtime import kernel_input, register_kernel
from localselect._typing import FloatArray
from localselect.margin._relieff_numba import _heap_select, _pushdown, _run, corelearn_select

__all__ = [
    "COLUMN_DIFF_KERNEL",
    "ColumnDiff",
    "column_diff",
    "mixed_nearest",
    "mixed_rrelieff_sums",
    "ramp",
    "settle",
]

#: CORElearn's intervals of a numeric column for the missing-value rule
#: (``constNAdiscretizationIntervals``), and the fewest rows per interval
#: (``constAverageExamplesPerInterval``) before it uses fewer.
NA_INTERVALS = 5
NA_ROWS_PER_INTERVAL = 5


class ColumnDiff(NamedTuple):
    """What the ``diff`` of every column needs (module docstring).

    Attributes
    ----------
    values : ndarray of shape (N, A)
        The data: numbers, level codes for a nominal column, NaN when missing.
    kind : ndarray of shape (A,)
        1 for a nominal column, 0 for a numeric one.
    order : ndarray of shape (A,)
        The columns in the order distances sum them (nominal first).
    low, equal, different, slope, step : ndarray of shape (A,)
        Per numeric column: its minimum; the ramp's thresholds ``e (max - min)``
        and ``d (max - min)`` (infinite for a constant column, whose ``diff``
        is 0); ``1 / (d - e) / (max - min)`` scaled to the absolute difference;
        the width of the missing-value intervals.
    missing : ndarray of shape (A, L + 1)
        ``missing[a, 0]``: ``diff`` when both values are missing;
        ``missing[a, 1 + v]``: when one is missing and the other is level
        (interval) ``v``.
    """

    values: FloatArray
    kind: NDArray[np.int64]
    order: NDArray[np.int64]
    low: FloatArray
    equal: FloatArray
    different: FloatArray
    slope: FloatArray
    step: FloatArray
    missing: FloatArray


def _laplace_table(bins: NDArray[np.intp], known: NDArray[np.bool_], n_bins: int) -> FloatArray:
    """``[1 - sum_v P(v)^2, 1 - P(0), ..., 1 - P(n_bins - 1)]`` (module docstring)."""
    counts = np.bincount(bins[known], minlength=n_bins)[:n_bins].astype(np.float64)
    n_missing = np.count_nonzero(~known)
    p = (counts + 1.0) / (bins.shape[0] + n_bins - n_missing)
    return np.concatenate([[1.0 - np.sum(p * p)], 1.0 - p])


def column_diff(
    X: FloatArray,
    nominal: NDArray[np.bool_],
    *,
    n_levels: NDArray[np.intp] | None = None,
    numeric_equal: float = 0.0,
    numeric_different: float = 1.0,
) -> ColumnDiff:
    """The :class:`ColumnDiff` of ``X`` (CORElearn's tables, module docstring).

    Parameters
    ----------
    X : ndarray of shape (N, A)
        Numbers, level codes ``0 .. L-1`` (as floats) in the nominal columns,
        NaN for a missing value.
    nominal : ndarray of bool of shape (A,)
        The nominal columns.
    n_levels : ndarray of shape (A,), default=None
        Levels of each nominal column; None: one more than its largest code.
    numeric_equal, numeric_different : float, default=0.0 and 1.0
        The ramp ``(e, d)``, as fractions of each column's range.

    Returns
    -------
    ColumnDiff
    """
    n, a = X.shape
    nominal = np.asarray(nominal, dtype=bool)
    known = ~np.isnan(X)
    has_any = known.any(axis=0)
    low = np.where(has_any, np.where(known, X, np.inf).min(axis=0), 0.0)
    high = np.where(has_any, np.where(known, X, -np.inf).max(axis=0), 0.0)
    span = high - low
    varies = span > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        equal = np.where(varies, span * numeric_equal, np.inf)
        different = np.where(varies, span * numeric_different, np.inf)
        width = different - equal
        slope = np.where(varies & (width > 0), 1.0 / width, np.finfo(np.float64).max)
    if n_levels is None:
        top = np.where(known & nominal[None, :], X, -1.0).max(axis=0) if n else np.zeros(a)
        n_levels = np.maximum(top.astype(np.intp) + 1, 1)
    n_levels = np.asarray(n_levels, dtype=np.intp)
    intervals = NA_INTERVALS
    if n // intervals < NA_ROWS_PER_INTERVAL:
        intervals = max(2, n // NA_ROWS_PER_INTERVAL)
    # CORElearn widens the intervals by 1e-6 so that the maximum falls in the last one.
    step = np.where(varies, span / intervals * 1.000001, np.inf)
    n_bins = np.where(nominal, n_levels, intervals)
    table = np.zeros((a, int(n_bins.max(initial=1)) + 1))
    for f in range(a):  # one column at a time; each a vectorised count
        col = np.where(known[:, f], X[:, f], low[f])
        scaled = col if nominal[f] else (col - low[f]) / step[f]
        bins = scaled.astype(np.intp)
        table[f, : n_bins[f] + 1] = _laplace_table(bins, known[:, f], int(n_bins[f]))
    kind = nominal.astype(np.int64)
    order = np.concatenate([np.flatnonzero(nominal), np.flatnonzero(~nominal)]).astype(np.int64)
    return ColumnDiff(kernel_input(X), kind, order, low, equal, different, slope, step, table)


def ramp(distance: FloatArray, equal: float, different: float, slope: float) -> FloatArray:
    """CORElearn's ``CARamp``: 1 at or above ``different``, 0 at or below ``equal``,
    else ``(distance - equal) * slope``."""
    with np.errstate(over="ignore"):  # slope is the largest float for a step (equal == different)
        out = (distance - equal) * slope
    out = np.where(distance <= equal, 0.0, out)
    return np.where(distance >= different, 1.0, out)


@njit(nogil=True, cache=True, inline="always")
def _known_diff(u, v, nominal, equal, different, slope):  # pragma: no cover
    """``diff`` of one column between two known values (scalars only: no reference counting)."""
    if nominal:
        return 0.0 if u == v else 1.0
    d = abs(v - u)
    if d >= different:
        return 1.0
    if d <= equal:
        return 0.0
    return (d - equal) * slope


@njit(nogil=True, cache=True)
def _missing_diff(u, v, f, nominal, low, step, missing):  # pragma: no cover
    """``diff`` of column ``f`` when ``u`` or ``v`` is missing (module docstring)."""
    nu = np.isnan(u)
    if nu and np.isnan(v):
        return missing[f, 0]
    w = v if nu else u
    if nominal:
        return missing[f, 1 + int(w)]
    return missing[f, 1 + int((w - low) / step)]


@njit(nogil=True, cache=True)
def _distance_row(
    VT, bins, complete, i, kind, order, equal, different, slope, missing, row
):  # pragma: no cover
    """``row[j] = sum_f diff_f(i, j)`` over the columns in ``order``, for every ``j``.

    Column by column over all samples (``VT`` is the data transposed, ``bins``
    the level or interval of each value, -1 when missing; ``complete`` marks
    the columns without one), so that the inner
    loop runs over samples with selects the compiler vectorises; each pair's
    sum still adds the columns in ``order``, as CORElearn's ``caseDist``.
    """
    n = VT.shape[1]
    row[:] = 0.0
    for t in range(order.shape[0]):
        f = order[t]
        col = VT[f]
        b = bins[f]
        u = col[i]
        if np.isnan(u):
            both = missing[f, 0]
            for j in range(n):
                row[j] += both if b[j] < 0 else missing[f, 1 + b[j]]
            continue
        one = missing[f, 1 + b[i]]
        if kind[f] == 1:
            for j in range(n):
                v = col[j]
                d = 0.0 if v == u else 1.0
                row[j] += one if np.isnan(v) else d
            continue
        lo = equal[f]
        hi = different[f]
        sl = slope[f]
        if complete[f] and lo == 0.0:  # no missing value, no lower ramp: fewer selects
            for j in range(n):
                d = abs(col[j] - u)
                row[j] += 1.0 if d >= hi else d * sl
            continue
        for j in range(n):
            v = col[j]
            d = abs(v - u)
            r = 1.0 if d >= hi else (0.0 if d <= lo else (d - lo) * sl)
            row[j] += one if np.isnan(v) else r


@njit(nogil=True, cache=True)
def _mixed_neighbours(
    VT,
    bins,
    complete,
    kind,
    order,
    equal,
    different,
    slope,
    missing,
    refs,
    k,
    nb_idx,
    nb_d,
    t0,
    t1,
):  # pragma: no cover
    """The ``k`` nearest samples of references ``refs[t0:t1]`` (:func:`corelearn_select`)."""
    n = VT.shape[1]
    row = np.empty(n)
    keys = np.empty(n)
    vals = np.empty(n, dtype=np.int64)
    for r in range(t0, t1):
        i = refs[r]
        _distance_row(VT, bins, complete, i, kind, order, equal, different, slope, missing, row)
        corelearn_select(row, i, k, keys, vals, nb_idx[r], nb_d[r])


@njit(nogil=True, cache=True)
def _mixed_sums(
    V,
    kind,
    low,
    equal,
    different,
    slope,
    step,
    missing,
    refs,
    nb_idx,
    nb_w,
    dy,
    diff_a,
    diff_ca,
    f0,
    f1,
):  # pragma: no cover
    """RReliefF's ``N_dA`` and ``N_dC&dA`` of the columns ``f0:f1`` (each owns its sums)."""
    for f in range(f0, f1):
        nominal = kind[f] == 1
        acc_a = 0.0
        acc_ca = 0.0
        for r in range(refs.shape[0]):
            u = V[refs[r], f]
            for t in range(nb_idx.shape[1]):
                w = nb_w[r, t]
                if w == 0.0:
                    continue
                v = V[nb_idx[r, t], f]
                if np.isnan(u) or np.isnan(v):
                    d = _missing_diff(u, v, f, nominal, low[f], step[f], missing)
                else:
                    d = _known_diff(u, v, nominal, equal[f], different[f], slope[f])
                acc_a += w * d
                acc_ca += w * dy[r, t] * d
        diff_a[f] = acc_a
        diff_ca[f] = acc_ca


def _tables(spec: ColumnDiff) -> tuple:
    return (spec.kind, spec.low, spec.equal, spec.different, spec.slope, spec.step, spec.missing)


@njit(nogil=True, cache=True)
def _pair_distances(
    V, kind, order, low, equal, different, slope, step, missing, refs, cand, out, r0, r1
):  # pragma: no cover
    """``out[r, t]``: the distance of ``refs[r]`` and ``cand[r, t]``, as :func:`_distance_row`.

    The same terms added in the same order, so equal to the row's entry bit for bit.
    """
    for r in range(r0, r1):
        i = refs[r]
        for t in range(cand.shape[1]):
            j = cand[r, t]
            s = 0.0
            for q in range(order.shape[0]):
                f = order[q]
                u = V[i, f]
                v = V[j, f]
                if np.isnan(u) or np.isnan(v):
                    s += _missing_diff(u, v, f, kind[f] == 1, low[f], step[f], missing)
                else:
                    s += _known_diff(u, v, kind[f] == 1, equal[f], different[f], slope[f])
            out[r, t] = s


def settle(
    spec: ColumnDiff,
    refs: NDArray[np.int64],
    cand: NDArray[np.int64],
    near_d: FloatArray,
    k: int,
    threads: int,
) -> tuple[NDArray[np.int64], FloatArray]:
    """CORElearn's ``k`` neighbours from ``k + 1`` candidates found by a faster search.

    ``cand`` (``(m, k + 1)``, or ``(m, k)`` when ``k = N - 1``) holds each
    reference's nearest samples (itself excluded) by a distance that agrees
    with CORElearn's to rounding, ``near_d`` their distances, nearest first.
    The candidates' distances are recomputed in CORElearn's arithmetic and
    sorted (stably); a reference whose ``k``-th distance is not clearly below
    the next candidate's and every other sample's (a tie at the boundary, up
    to 1e-10 relative) gets its neighbours from :func:`mixed_nearest`
    (CORElearn's heap). Elsewhere the neighbours are those CORElearn chooses;
    samples at equal distance inside the ``k`` may come in another order,
    which changes no neighbour weight. Returns ``(indices, distances)``.
    """
    m = refs.shape[0]
    exact = np.empty(cand.shape)
    kind, low, equal, different, slope, step, missing = _tables(spec)
    args = (
        spec.values,
        kind,
        spec.order,
        low,
        equal,
        different,
        slope,
        step,
        missing,
        refs,
        cand,
        exact,
    )
    _run(threads, _pair_distances, m, *args)
    order = np.argsort(exact, axis=1, kind="stable")
    exact = np.take_along_axis(exact, order, axis=1)
    cand = np.take_along_axis(cand, order, axis=1)
    redo = np.zeros(m, dtype=bool)
    if cand.shape[1] > k:
        bound = near_d.max(axis=1)  # every sample outside the candidates is at least this far
        tol = 1e-10 * (1.0 + np.abs(bound))
        redo = (exact[:, k - 1] >= exact[:, k]) | (exact[:, k - 1] >= bound - tol)
    nb_idx = np.ascontiguousarray(cand[:, :k])
    nb_d = np.ascontiguousarray(exact[:, :k])
    if redo.any():
        sub = np.ascontiguousarray(refs[redo])
        nb_idx[redo], nb_d[redo] = mixed_nearest(spec, sub, k, threads)
    return nb_idx, nb_d


def _bins(spec: ColumnDiff) -> NDArray[np.int64]:
    """The level (nominal) or missing-value interval (numeric) of each value, -1 if missing."""
    V = spec.values
    known = ~np.isnan(V)
    with np.errstate(invalid="ignore"):
        numeric = (np.where(known, V, spec.low) - spec.low) / spec.step
    bins = np.where(spec.kind[None, :] == 1, np.where(known, V, 0.0), numeric)
    return np.ascontiguousarray(np.where(known, bins, -1.0).astype(np.int64).T)


def mixed_nearest(
    spec: ColumnDiff, refs: NDArray[np.int64], k: int, threads: int
) -> tuple[NDArray[np.int64], FloatArray]:
    """The ``k`` nearest samples of each reference under the columns' ``diff``.

    Returns ``(indices, distances)``, each ``(len(refs), k)``, nearest first
    (CORElearn's selection and tie rule, :func:`corelearn_select`). Time
    O(m N A), memory O(N A) for the transposed data and the bins.
    """
    m = refs.shape[0]
    nb_idx = np.zeros((m, k), dtype=np.int64)
    nb_d = np.zeros((m, k))
    VT = np.ascontiguousarray(spec.values.T)
    bins = _bins(spec)
    complete = (bins >= 0).all(axis=1)

    def part(r0: int, r1: int) -> None:
        _mixed_neighbours(
            VT,
            bins,
            complete,
            spec.kind,
            spec.order,
            spec.equal,
            spec.different,
            spec.slope,
            spec.missing,
            refs,
            k,
            nb_idx,
            nb_d,
            r0,
            r1,
        )

    _run(threads, part, m)
    return nb_idx, nb_d


def mixed_rrelieff_sums(
    spec: ColumnDiff,
    refs: NDArray[np.int64],
    nb_idx: NDArray[np.int64],
    nb_w: FloatArray,
    dy: FloatArray,
    threads: int,
) -> tuple[FloatArray, FloatArray]:
    """RReliefF's ``N_dA`` and ``N_dC&dA`` under the columns' ``diff``, by column ranges."""
    a = spec.values.shape[1]
    diff_a = np.zeros(a)
    diff_ca = np.zeros(a)
    kind, low, equal, different, slope, step, missing = _tables(spec)
    args = (
        spec.values,
        kind,
        low,
        equal,
        different,
        slope,
        step,
        missing,
        refs,
        nb_idx,
        kernel_input(nb_w),
        kernel_input(dy),
        diff_a,
        diff_ca,
    )
    _run(threads, _mixed_sums, a, *args)
    return diff_a, diff_ca


def _warm_up() -> None:
    """Both kernels on five samples with a nominal column and missing values."""
    X = np.array([[0.0, 1.0], [1.0, np.nan], [np.nan, 3.0], [0.0, 0.5], [1.0, 2.0]])
    spec = column_diff(X, np.array([True, False]))
    refs = np.arange(5, dtype=np.int64)
    nb_idx, nb_d = mixed_nearest(spec, refs, 2, 1)
    mixed_rrelieff_sums(spec, refs, nb_idx, np.full((5, 2), 0.5), nb_d, 1)
    cand = np.array([[1, 2, 3], [0, 2, 3], [0, 1, 3], [0, 1, 2], [0, 1, 2]], dtype=np.int64)
    settle(spec, refs, cand, np.ones((5, 3)), 2, 1)


#: The compiled kernel of mixed columns, as the runtime's kernel registry knows it.
COLUMN_DIFF_KERNEL = register_kernel(
    "RReliefF (mixed columns)",
    (
        _distance_row,
        _mixed_neighbours,
        _mixed_sums,
        _pair_distances,
        corelearn_select,
        _heap_select,
        _pushdown,
    ),
    _warm_up,
    "compiling the RReliefF kernel for mixed columns once (about 10 s; cached afterwards)",
)
