"""Shared pairwise kernels: chunked ``|x_i - x_j|`` work and stable hit/miss softmax.

Margin-based methods (Relief, IM4E, I-RELIEF, IMMIGRATE, ...) all look at the
element-wise absolute differences ``|x_n - x_j|`` between a sample and every
other sample, split into *hits* (same class, the sample itself excluded) and
*misses* (any other class). This module holds that shared machinery, with
memory bounded by a working-memory budget:

* :func:`row_chunks` -- row slices whose ``(rows, n_other, n_features)``
  block fits the budget;
* :func:`abs_diff` -- the block ``|X[rows, None, :] - Y[None, :, :]|``;
* :class:`PairDiffs` -- ``|x_i - x_j|`` for the pairs ``i < j`` only (half the
  work of full rows, for symmetric quantities), in blocks, cached across
  calls when all pairs fit the working-memory budget;
* :func:`hit_miss_masks` -- boolean hit and miss masks of a block of rows;
* :func:`masked_softmax` -- ``softmax(logits)`` restricted to a mask, by
  log-sum-exp, with the entropy of the result.

Nothing here validates user input; callers pass float64 arrays and integer
class codes ``0 .. n_classes - 1``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn import get_config

__all__ = [
    "DEFAULT_BLOCK_MEMORY",
    "DEFAULT_WORKING_MEMORY",
    "MaskedSoftmax",
    "PairDiffs",
    "abs_diff",
    "default_block_memory",
    "hit_miss_masks",
    "masked_softmax",
    "row_chunks",
]

#: Default memory of one pairwise block, in MiB: small blocks stay in the CPU
#: caches and are markedly faster than one large block.
DEFAULT_BLOCK_MEMORY = 8

#: Fallback budget, in MiB, for pairwise data kept across iterations (the
#: ``|x_i - x_j|`` of all pairs is cached only when it fits). The default
#: budget is scikit-learn's ``working_memory`` setting (1024 MiB unless changed
#: with ``sklearn.set_config``); this value is used only if that is unset.
DEFAULT_WORKING_MEMORY = 1024


def default_block_memory() -> float:
    """Budget of one pairwise block in MiB: :data:`DEFAULT_BLOCK_MEMORY`, capped by
    scikit-learn's ``working_memory`` setting."""
    configured = get_config().get("working_memory") or DEFAULT_WORKING_MEMORY
    return float(min(DEFAULT_BLOCK_MEMORY, configured))


def row_chunks(
    n_rows: int, bytes_per_row: int, working_memory: float | None = None
) -> list[slice]:
    """Split ``range(n_rows)`` into contiguous slices that fit a memory budget.

    Parameters
    ----------
    n_rows : int
        Number of rows to split.
    bytes_per_row : int
        Memory one row of the block needs (e.g. ``3 * n_other * n_features * 8``
        for an absolute-difference block and two temporaries).
    working_memory : float, default=None
        Budget of one block in MiB; ``None`` uses :data:`DEFAULT_BLOCK_MEMORY`,
        or scikit-learn's ``working_memory`` setting when that is smaller (so
        ``sklearn.config_context(working_memory=2)`` bounds every block).

    Returns
    -------
    slices : list of slice
        Consecutive slices covering ``0 .. n_rows``; at least one row each.
        The split depends only on the arguments, never on the number of jobs.
    """
    if working_memory is None:
        working_memory = default_block_memory()
    budget = working_memory * 2**20
    size = max(1, int(budget // max(1, bytes_per_row)))
    return [slice(start, min(start + size, n_rows)) for start in range(0, n_rows, size)]


def abs_diff(X_rows: NDArray[np.float64], Y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Element-wise absolute differences of every row of ``X_rows`` with every row of ``Y``.

    Parameters
    ----------
    X_rows : ndarray of shape (n_rows, n_features)
    Y : ndarray of shape (n_other, n_features)

    Returns
    -------
    D : ndarray of shape (n_rows, n_other, n_features)
        ``D[i, j] = |X_rows[i] - Y[j]|``. Bound ``n_rows`` with :func:`row_chunks`.
    """
    return np.abs(X_rows[:, None, :] - Y[None, :, :])


def hit_miss_masks(
    codes: NDArray[np.intp], rows: slice
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """Hit and miss masks of a block of rows against all samples.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer class codes of all samples.
    rows : slice
        The block's rows (indices into ``codes``).

    Returns
    -------
    hits : ndarray of shape (n_rows, n_samples), dtype=bool
        Same class, the sample itself excluded.
    misses : ndarray of shape (n_rows, n_samples), dtype=bool
        Any other class (all other classes pooled: one-vs-rest).
    """
    block = codes[rows]
    same = block[:, None] == codes[None, :]
    idx = np.arange(rows.start, rows.stop)
    hits = same.copy()
    hits[np.arange(len(idx)), idx] = False
    return hits, ~same


class MaskedSoftmax(NamedTuple):
    """Result of :func:`masked_softmax`."""

    probs: NDArray[np.float64]
    """Probabilities, zero outside the mask; each row sums to 1."""
    entropy: NDArray[np.float64]
    """Shannon entropy (natural log) of each row's distribution."""
    log_norm: NDArray[np.float64]
    """``log(sum_{mask} exp(logits))`` of each row (log-sum-exp)."""


def masked_softmax(logits: NDArray[np.float64], mask: NDArray[np.bool_]) -> MaskedSoftmax:
    """Row-wise softmax of ``logits`` over the entries where ``mask`` is True.

    Computed by log-sum-exp, so it neither overflows nor underflows to NaN for
    very negative or very positive logits (e.g. ``-q / sigma`` with a tiny
    ``sigma``). Every row must have at least one True entry.

    Parameters
    ----------
    logits : ndarray of shape (n_rows, n_cols)
    mask : ndarray of shape (n_rows, n_cols), dtype=bool

    Returns
    -------
    result : MaskedSoftmax
        ``probs``, ``entropy`` (``-sum p log p``) and ``log_norm`` per row.
    """
    z = np.where(mask, logits, -np.inf)
    top = z.max(axis=1, keepdims=True)
    shifted = z - top
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    probs = e / total
    log_p = np.where(mask, shifted - np.log(total), 0.0)
    entropy = -(probs * log_p).sum(axis=1)
    return MaskedSoftmax(probs, entropy, (top + np.log(total))[:, 0])


class _PairBlocks:
    """The ``(i, j)`` indices of each block of pairs, built on demand.

    Holding the indices of all ``N (N - 1) / 2`` pairs would take ``8 N^2`` bytes;
    only the row range of each block is kept.
    """

    def __init__(self, n: int, ranges: list[tuple[int, int]]) -> None:
        self.n = n
        self.ranges = ranges

    def __len__(self) -> int:
        return len(self.ranges)

    def __getitem__(self, k: int) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        start, stop = self.ranges[k]
        counts = np.arange(self.n - 1 - start, self.n - 1 - stop, -1)
        ii = np.repeat(np.arange(start, stop), counts)
        offsets = np.arange(ii.size) - np.repeat(np.cumsum(counts) - counts, counts)
        return ii, ii + 1 + offsets


class PairDiffs:
    """Absolute differences ``|x_i - x_j|`` of the pairs ``i < j``, in blocks.

    Quantities that are symmetric in the pair (a distance, a scatter matrix)
    need each pair once: half the work of full rows. Blocks hold whole rows of
    the upper triangle (pairs of row ``i`` are ``(i, i+1) ... (i, N-1)``), about
    ``block_memory`` MiB each. When all pairs fit ``working_memory`` MiB the
    differences are computed once and kept, so iterative methods pay for them
    once per fit.

    Parameters
    ----------
    X : ndarray of shape (N, A)
    block_memory : float, default=None
        MiB per block; ``None`` uses :func:`default_block_memory`.
    working_memory : float, default=None
        MiB allowed for the cache; ``None`` uses scikit-learn's
        ``working_memory`` configuration (:data:`DEFAULT_WORKING_MEMORY` if unset).
    missing : object with a ``pairs(ii, jj)`` method, default=None
        When ``X`` has missing values: computes the completed differences of
        the pairs ``(ii, jj)`` (:class:`localselect.margin._missing.ExpectedDiff`).

    Attributes
    ----------
    blocks : sequence of (ndarray, ndarray)
        Row and column indices ``(i, j)`` of the pairs of each block, computed
        when indexed (``len(blocks)`` is the number of blocks).
    cached : bool
        Whether the differences are kept after their first computation.
    """

    def __init__(
        self,
        X: NDArray[np.float64],
        *,
        block_memory: float | None = None,
        working_memory: float | None = None,
        missing: Any = None,
    ) -> None:
        n, a = X.shape
        self.X = X
        self.missing = missing
        block = (default_block_memory() if block_memory is None else block_memory) * 2**20
        if working_memory is None:
            working_memory = get_config().get("working_memory") or DEFAULT_WORKING_MEMORY
        cache = working_memory * 2**20
        per_block = max(1, int(block // (8 * max(a, 1))))
        row_pairs = np.arange(n - 1, -1, -1)
        cum = np.concatenate([[0], np.cumsum(row_pairs)])
        self.n_pairs = int(cum[-1])
        ranges: list[tuple[int, int]] = []
        start = 0
        while start < n - 1:
            stop = int(np.searchsorted(cum, cum[start] + per_block, side="right")) - 1
            stop = min(max(stop, start + 1), n - 1)
            ranges.append((start, stop))
            start = stop
        self.blocks = _PairBlocks(n, ranges)
        self.cached = self.n_pairs * a * 8 <= cache
        self._store: list[NDArray[np.float64] | None] = [None] * len(self.blocks)

    def __len__(self) -> int:
        return len(self.blocks)

    def diffs(self, k: int) -> NDArray[np.float64]:
        """``|X[i] - X[j]|`` for the pairs of block ``k``, shape (n_pairs_k, A)."""
        stored = self._store[k]
        if stored is not None:
            return stored
        if self.missing is not None:
            F = self.missing.pairs(*self.blocks[k])
            if self.cached:
                self._store[k] = F
            return F
        first, last = self.blocks.ranges[k]
        n = self.X.shape[0]
        # Row i of the block holds the pairs (i, i+1 .. N-1): contiguous slices of X,
        # written in place (no gathered copies of X).
        size = (last - first) * (2 * n - 1 - first - last) // 2
        F = np.empty((size, self.X.shape[1]))
        start = 0
        for i in range(first, last):
            stop = start + n - 1 - i
            np.subtract(self.X[i + 1 :], self.X[i], out=F[start:stop])
            start = stop
        np.abs(F, out=F)
        if self.cached:
            self._store[k] = F
        return F
