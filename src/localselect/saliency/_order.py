"""The column order fixed by a table's contents, in which both estimators of this folder work.

Their model initialisation and batches, knockoff draws and reference rows
depend on the order of the columns and rows; working in an order fixed by the
values makes permuting the features or the rows permute the answer.
"""

from __future__ import annotations

import hashlib

import numpy as np
from numpy.typing import NDArray

__all__ = ["canonical_order"]


def canonical_order(X: NDArray[np.float64]) -> NDArray[np.intp]:
    """Column order by a hash of each column's sorted values (independent of the row order).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)

    Returns
    -------
    order : ndarray of shape (n_features,) of int
        Columns sorted by the BLAKE2b digest (8 bytes) of their sorted values.
    """
    keys = [
        hashlib.blake2b(np.sort(X[:, j]).tobytes(), digest_size=8).hexdigest()
        for j in range(X.shape[1])
    ]
    return np.array(sorted(range(X.shape[1]), key=lambda j: keys[j]), dtype=np.intp)
