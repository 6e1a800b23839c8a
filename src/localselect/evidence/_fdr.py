"""Benjamini-Hochberg q-values and the selection they give at a target FDR."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["bh_qvalues", "bh_select"]


def bh_qvalues(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Benjamini-Hochberg adjusted p-values (q-values).

    With the ``m`` p-values sorted, ``p_(1) <= ... <= p_(m)``,

    .. math:: q_{(i)} = \\min_{k \\ge i} \\min\\left(1, \\frac{m\\,p_{(k)}}{k}\\right)

    (Benjamini and Hochberg 1995, the step-up procedure written as adjusted
    p-values). Rejecting every hypothesis with ``q <= alpha`` is the BH
    procedure at level ``alpha``: the expected false discovery proportion is at
    most ``alpha * m0 / m`` for independent (or PRDS) p-values.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        P-values in [0, 1]; NaN is not allowed.

    Returns
    -------
    qvalues : ndarray of shape (m,)
        The adjusted p-values, in the input order.

    Examples
    --------
    >>> from localselect.evidence import bh_qvalues
    >>> bh_qvalues([0.01, 0.04, 0.03, 0.5]).round(3)
    array([0.04 , 0.053, 0.053, 0.5  ])
    """
    p = np.asarray(pvalues, dtype=np.float64).ravel()
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("bh_qvalues needs p-values in [0, 1] without NaN.")
    m = p.shape[0]
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    q_sorted = np.minimum(np.minimum.accumulate(scaled[::-1])[::-1], 1.0)
    q = np.empty(m)
    q[order] = q_sorted
    return q


def bh_select(pvalues: ArrayLike, fdr: float) -> NDArray[np.bool_]:
    """The features the Benjamini-Hochberg procedure keeps at level ``fdr``.

    Parameters
    ----------
    pvalues : array-like of shape (m,)
        P-values in [0, 1].
    fdr : float
        Target false discovery rate, in (0, 1).

    Returns
    -------
    mask : ndarray of shape (m,) of bool
        ``bh_qvalues(pvalues) <= fdr``.
    """
    if not 0 < fdr < 1:
        raise ValueError(f"fdr must be in (0, 1); got {fdr!r}.")
    return bh_qvalues(pvalues) <= fdr
