"""Votes of LFS regions: does a row's nearest neighbour side with the representative?

The radii (impurity level gamma) and leave-one-out scores are computed by the
compiled core (:mod:`localselect.lfs._core`); their numpy versions are the
tests' references (``tests/lfs/_reference_numpy.py``).
"""

from __future__ import annotations

from localselect._typing import BoolArray, FloatArray

__all__ = ["nn_votes"]


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
