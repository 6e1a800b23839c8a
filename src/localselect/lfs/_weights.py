"""Subspace distances of LFS, by coordinate differences.

The eq. (10) weights and the eq. (5) vectors are computed by the compiled
core (:mod:`localselect.lfs._core`); their numpy versions are the tests'
references (``tests/lfs/_reference_numpy.py``).
"""

from __future__ import annotations

import numpy as np

from localselect._pairwise import default_block_memory, row_chunks
from localselect._typing import FloatArray

__all__ = ["subspace_sq_distances"]


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
