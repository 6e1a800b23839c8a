"""LLDS codes of a Dask collection: ``discretizer="auto"`` with exact sample tertiles.

:class:`~localselect.lift.LiftFeatureSelector` codes numeric data per column:
a column holding a non-integer value is cut at its sample tertiles
(``np.nanquantile(x, [1/3, 2/3])``, linear interpolation), every other column
keeps its values; the codes are the ranks of the observed values. On a Dask
collection each step is a reduction over the row blocks
(:func:`~localselect._runtime._collections.reduce_blocks`):

1. :func:`column_kinds`: which columns hold a non-integer value (one pass);
2. :func:`exact_quantiles`: the two order statistics each quantile
   interpolates, found exactly by narrowing a value bracket around each rank
   (a pass counts, per target rank, the values below the bracket and a
   histogram of :data:`N_BINS` bins inside it; the bin holding the rank and its
   neighbours become the next bracket), then one pass gathering only the
   values left in the brackets (at most :data:`GATHER_VALUES` in all). The
   edges are then interpolated exactly as NumPy does (Hyndman and Fan's
   method 7), so they equal the in-memory edges bit for bit;
3. :func:`observed_categories`: the observed values of every coded column
   (tertile bins 0, 1, 2 or the integer values), merged as sorted sets.

:func:`block_codes` turns a block's rows into the codes the in-memory
``encode_discrete`` gives them. Nothing here validates user input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from localselect._runtime._collections import RowBlocks, reduce_blocks

__all__ = [
    "GATHER_VALUES",
    "N_BINS",
    "CodeSpec",
    "block_codes",
    "column_kinds",
    "exact_quantiles",
    "linear_quantile",
    "observed_categories",
]

#: Histogram bins per target rank and pass of :func:`exact_quantiles`.
N_BINS = 256
#: Values left in all brackets at which :func:`exact_quantiles` gathers them.
GATHER_VALUES = 4096
#: Narrowing passes of :func:`exact_quantiles` at most before gathering anyway.
MAX_PASSES = 40


class CodeSpec(NamedTuple):
    """How a block's rows become codes (shipped to every block)."""

    binned: NDArray[np.int64]
    """Columns cut at tertiles."""
    edges: NDArray[np.float64]
    """(2, len(binned)) tertile edges of those columns."""
    categories: tuple[NDArray[np.float64], ...]
    """Sorted observed values of every column after binning (code -> value)."""


def _nonint_block(x, y, offset):
    return np.any(x != np.round(x), axis=0)


def column_kinds(blocks: RowBlocks) -> NDArray[np.int64]:
    """Columns holding a non-integer value (the ones ``"auto"`` cuts at tertiles)."""
    flags = reduce_blocks(blocks, _nonint_block, np.logical_or, name="localselect-llds-kinds")
    return np.flatnonzero(flags).astype(np.int64)


def linear_quantile(n: int, q: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
    """Ranks ``(previous, next)`` and weights of NumPy's linear quantiles of ``n`` values.

    The arithmetic of ``numpy.quantile(method="linear")``: virtual index
    ``(n - 1) q``, its floor and the fractional part ``gamma``, ranks clipped
    to ``[0, n - 1]``.
    """
    virtual = (n - 1) * q
    previous = np.floor(virtual)
    following = previous + 1
    above = virtual >= n - 1
    previous[above] = n - 1
    following[above] = n - 1
    below = virtual < 0
    previous[below] = 0
    following[below] = 0
    gamma = virtual - np.floor(virtual)
    return previous.astype(np.int64), following.astype(np.int64), gamma


def _lerp(a, b, t):
    """NumPy's ``_lerp``: ``a + (b - a) t``, or ``b - (b - a)(1 - t)`` for ``t >= 0.5``."""
    diff = b - a
    return np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)


def _bracket_block(x, y, offset, cols, lo, hi):
    """Per target: values below ``lo``, a histogram of ``[lo, hi]``, the inside min and max."""
    xc = x[:, cols]
    below = (xc < lo).sum(axis=0)
    inside = (xc >= lo) & (xc <= hi)
    width = np.where(hi > lo, hi - lo, 1.0)
    with np.errstate(invalid="ignore", over="ignore"):
        idx = np.clip(np.floor((xc - lo) / width * N_BINS), 0, N_BINS - 1).astype(np.int64)
    target = np.broadcast_to(np.arange(len(cols)), xc.shape)
    hist = np.bincount((target * N_BINS + idx)[inside], minlength=len(cols) * N_BINS)
    inner_lo = np.where(inside, xc, np.inf).min(axis=0, initial=np.inf)
    inner_hi = np.where(inside, xc, -np.inf).max(axis=0, initial=-np.inf)
    return below, hist.reshape(len(cols), N_BINS), inner_lo, inner_hi


def _merge_brackets(a, b):
    return a[0] + b[0], a[1] + b[1], np.minimum(a[2], b[2]), np.maximum(a[3], b[3])


def _gather_block(x, y, offset, cols, lo, hi):
    """Per target: values below ``lo`` and the values inside ``[lo, hi]``."""
    xc = x[:, cols]
    below = (xc < lo).sum(axis=0)
    return below, [xc[(xc[:, t] >= lo[t]) & (xc[:, t] <= hi[t]), t] for t in range(len(cols))]


def _merge_gathered(a, b):
    return a[0] + b[0], [np.concatenate([u, v]) for u, v in zip(a[1], b[1], strict=True)]


def _order_statistics(blocks: RowBlocks, cols, ranks, lo, hi) -> NDArray[np.float64]:
    """The values of rank ``ranks[t]`` (0-based, ascending) in columns ``cols[t]``."""
    lo, hi = lo.astype(np.float64).copy(), hi.astype(np.float64).copy()
    value = np.full(len(cols), np.nan)
    open_ = np.ones(len(cols), dtype=bool)
    for _ in range(MAX_PASSES):
        todo = np.flatnonzero(open_)
        if len(todo) == 0:
            return value
        args = (cols[todo], lo[todo], hi[todo])
        below, hist, inner_lo, inner_hi = reduce_blocks(
            blocks, _bracket_block, _merge_brackets, *args, name="localselect-llds-bracket"
        )
        inside = hist.sum(axis=1)
        tied = inner_lo == inner_hi
        value[todo[tied]] = inner_lo[tied]
        open_[todo[tied]] = False
        if inside[~tied].sum() <= GATHER_VALUES:
            break
        # Narrow each open bracket to the bin holding its rank and one bin either side.
        for k in np.flatnonzero(~tied):
            t = todo[k]
            cum = below[k] + np.cumsum(hist[k])
            b = int(np.searchsorted(cum, ranks[t], side="right"))
            width = hi[t] - lo[t]
            new_lo = max(lo[t] + (b - 1) * width / N_BINS, lo[t])
            new_hi = min(lo[t] + (b + 2) * width / N_BINS, hi[t])
            lo[t], hi[t] = max(new_lo, inner_lo[k]), min(new_hi, inner_hi[k])
    todo = np.flatnonzero(open_)
    if len(todo):
        below, values = reduce_blocks(
            blocks, _gather_block, _merge_gathered, cols[todo], lo[todo], hi[todo],
            name="localselect-llds-gather",
        )  # fmt: skip
        for i, t in enumerate(todo):
            sorted_values = np.sort(values[i])
            position = int(ranks[t] - below[i])
            if not 0 <= position < len(sorted_values):
                raise RuntimeError("exact quantile: the rank left its bracket")  # a bug
            value[t] = sorted_values[position]
    return value


def exact_quantiles(
    blocks: RowBlocks, columns: NDArray[np.int64], q: NDArray[np.float64], lo, hi
) -> NDArray[np.float64]:
    """``np.quantile(X[:, columns], q, axis=0)`` of a collection without NaN, exactly.

    Parameters
    ----------
    blocks : RowBlocks
    columns : ndarray of int
    q : ndarray of float
        Quantile levels in [0, 1].
    lo, hi : ndarray of shape (n_features,)
        Column minima and maxima (the first pass).

    Returns
    -------
    edges : ndarray of shape (len(q), len(columns))
        Equal to the in-memory quantiles (see the module docstring).
    """
    previous, following, gamma = linear_quantile(blocks.n_samples, np.asarray(q, np.float64))
    ranks = np.unique(np.concatenate([previous, following]))
    cols = np.repeat(columns, len(ranks))
    all_ranks = np.tile(ranks, len(columns))
    stats = _order_statistics(blocks, cols, all_ranks, lo[cols], hi[cols])
    stats = stats.reshape(len(columns), len(ranks))
    a = stats[:, np.searchsorted(ranks, previous)].T
    b = stats[:, np.searchsorted(ranks, following)].T
    return _lerp(a, b, gamma[:, None])


def _binned(x, binned, edges):
    out = np.array(x, dtype=np.float64, copy=True)
    if len(binned):
        sub = out[:, binned]
        out[:, binned] = (sub > edges[0]).astype(np.float64) + (sub > edges[1])
    return out


def _unique_block(x, y, offset, binned, edges):
    values = _binned(x, binned, edges)
    return [np.unique(values[:, j]) for j in range(values.shape[1])]


def _merge_unique(a, b):
    return [np.union1d(u, v) for u, v in zip(a, b, strict=True)]


def observed_categories(blocks: RowBlocks, binned, edges) -> tuple[NDArray[np.float64], ...]:
    """Sorted observed values of every column after binning (one pass)."""
    merged = reduce_blocks(
        blocks, _unique_block, _merge_unique, binned, edges, name="localselect-llds-categories"
    )
    return tuple(merged)


def block_codes(x: NDArray[np.float64], spec: CodeSpec) -> NDArray[np.int64]:
    """Codes of a block's rows: the rank of each (binned) value among the observed ones."""
    values = _binned(x, spec.binned, spec.edges)
    codes = np.empty(values.shape, dtype=np.int64)
    for j, categories in enumerate(spec.categories):
        codes[:, j] = np.searchsorted(categories, values[:, j])
    return codes
