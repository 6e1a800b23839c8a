"""Differences ``|x - x'|`` with missing values (NaN): the expected difference.

The margin family compares samples through the element-wise differences
``d = |x_n - x_j|``. When ``x_{n,a}`` is unknown, Kononenko (1994) replaces the
difference of a discrete feature by its expectation under the value
probabilities of the sample's class, ``1 - P(value(x_j) | class(x_n))``, and
when both values are unknown by ``1 - sum_V P(V | class(x_n)) P(V | class(x_j))``.
For continuous features the same rule, with the class-conditional empirical
distribution of the known values in place of ``P(V | class)``, reads:

* one value unknown (``x_{n,a}`` missing, ``x_{j,a} = v`` known)::

      d_a = E |v - X_a|,      X_a ~ known values of feature a in class(x_n)

* both unknown::

      d_a = E |X_a - X'_a|,   X_a ~ class(x_n), X'_a ~ class(x_j), independent

A sample without a class (a query at prediction time) uses the pooled
distribution of all training samples. A class with no known value of the
feature falls back to the pooled distribution, and a feature with no known
value at all has difference 0 (it then behaves as a constant feature). The
difference is exact, never an imputation: ``E |v - X|`` is not ``|v - E X|``.
Every method then uses the completed ``d`` as it uses a complete one (Relief
squares it, ReliefF sums it, IMMIGRATE forms ``d^T W d``). Differences scale
with the features, so a positive rescaling of a feature rescales them alike.

``E |v - X|`` over the ``m`` sorted known values ``s_1 <= ... <= s_m`` of a
group, with ``k`` of them below ``v``, is
``(v k - sum_{i<=k} s_i + sum_{i>k} s_i - v (m - k)) / m`` (binary search and
prefix sums): O(log m) per unknown entry after an O(N A log N) set-up.

Distances ``sum_a v_a d_a^p`` of whole row blocks (the neighbour searches of
Relief, ReliefF and Simba) never build the ``rows x N x A`` differences: the
distance of the zero-filled data (scikit-learn's ``pairwise_distances``) is
corrected by matrix products over the features that have unknowns, using the
table ``H[c, j, a] = E |x_{j,a} - X_a|`` (``X_a`` in class ``c``) of every
known entry. Memory ``O((C + 1) N A_m)`` for ``A_m`` features with unknowns.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.metrics import pairwise_distances

from localselect._typing import FloatArray

__all__ = ["ExpectedDiff", "expected_diff"]


class ExpectedDiff:
    """The difference rule for missing values of one training set.

    Parameters
    ----------
    X : ndarray of shape (N, A)
        Training data, NaN for a missing value.
    codes : ndarray of shape (N,)
        Class codes ``0 .. n_classes - 1``.
    n_classes : int
        Number of classes; the code ``n_classes`` stands for "class unknown"
        (the pooled distribution).
    features : ndarray of bool of shape (A,), default=None
        Features whose unknowns will be completed; None: those with a NaN in ``X``.
    """

    def __init__(
        self,
        X: FloatArray,
        codes: NDArray[np.intp],
        n_classes: int,
        features: NDArray[np.bool_] | None = None,
    ) -> None:
        a = X.shape[1]
        self.X = X
        self.codes = codes
        self.n_classes = n_classes
        self.n_features = a
        self.pooled = n_classes
        mask = np.isnan(X).any(axis=0) if features is None else features
        index: NDArray[np.intp] = np.flatnonzero(mask)
        rows, cols = np.nonzero(~np.isnan(X[:, index]))
        feats = index[cols]
        vals = X[rows, index[cols]] if index.size else np.empty(0)
        # Group g = c * A + f holds the known values of feature f in class c
        # (c = n_classes: all classes pooled), only for features with an unknown.
        groups = np.concatenate([codes[rows] * a + feats, self.pooled * a + feats])
        values = np.concatenate([vals, vals])
        order = np.lexsort((values, groups))
        self._values = values[order]
        n_groups = (n_classes + 1) * a
        self._count = np.bincount(groups, minlength=n_groups)
        self._start = np.concatenate([[0], np.cumsum(self._count)[:-1]])
        # Prefix sums restart at every group (no cancellation across groups).
        self._cumsum = np.empty(self._values.size + n_groups)
        self._cum_start = self._start + np.arange(n_groups)
        for g in np.flatnonzero(self._count):
            s, m, c0 = self._start[g], self._count[g], self._cum_start[g]
            self._cumsum[c0] = 0.0
            np.cumsum(self._values[s : s + m], out=self._cumsum[c0 + 1 : c0 + 1 + m])
        self._both = self._both_unknown()
        self._features = index
        self._unknown = np.isnan(X[:, index]).astype(np.float64)
        self._zero_filled = np.where(np.isnan(X), 0.0, X)
        self._h: FloatArray | None = None

    def _group(self, c: NDArray[np.intp], f: NDArray[np.intp]) -> NDArray[np.intp]:
        """Group of class ``c`` and feature ``f``; pooled when the class has no value."""
        g = c * self.n_features + f
        empty = self._count[g] == 0
        g[empty] = self.pooled * self.n_features + f[empty]
        return g

    def expect(self, v: FloatArray, c: NDArray[np.intp], f: NDArray[np.intp]) -> FloatArray:
        """``E |v - X|`` with ``X`` the known values of feature ``f`` in class ``c``.

        Element-wise over the equal-length arrays ``v``, ``c``, ``f``; 0 where
        the feature has no known value.
        """
        g = self._group(np.asarray(c, dtype=np.intp), np.asarray(f, dtype=np.intp))
        out = np.zeros(v.shape[0])
        order = np.argsort(g, kind="stable")
        sorted_g = g[order]
        cuts = np.flatnonzero(np.diff(sorted_g)) + 1
        for idx in np.split(order, cuts):
            if idx.size == 0:
                continue
            grp = g[idx[0]]
            m = self._count[grp]
            if m == 0:
                continue
            s, c0 = self._start[grp], self._cum_start[grp]
            vv = v[idx]
            k = np.searchsorted(self._values[s : s + m], vv)
            below = self._cumsum[c0 + k]
            total = self._cumsum[c0 + m]
            out[idx] = (vv * k - below + (total - below) - vv * (m - k)) / m
        return out

    def _known_table(self) -> FloatArray:
        """``H[c, j, a] = E |x_{j,a} - X_a|`` for known entries (0 where unknown).

        Shape (C + 1, N, A_m) over the features with unknowns; built once.
        """
        if self._h is None:
            f = self._features
            sub = self.X[:, f]
            rows, cols = np.nonzero(~np.isnan(sub))
            table = np.zeros((self.n_classes + 1, sub.shape[0], f.size))
            for c in range(self.n_classes + 1):
                table[c, rows, cols] = self.expect(sub[rows, cols], np.full(rows.size, c), f[cols])
            self._h = table
        return self._h

    def distances(self, rows: slice, weights: FloatArray, power: int) -> FloatArray:
        """``sum_a weights_a d_a^power`` of training rows against all, completed.

        Equals ``(self.rows(rows) ** power * weights).sum(-1)`` (``power`` 1 or
        2, ``weights >= 0``) without the ``rows x N x A`` array: the distance
        of the zero-filled data, minus the terms it counts for an unknown
        entry, plus the expected-difference terms (one matrix product per
        class, and per pair of classes for entries unknown on both sides).
        """
        X0, U, f, codes = self._zero_filled, self._unknown, self._features, self.codes
        if power == 1:
            D = pairwise_distances(X0[rows] * weights, X0 * weights, metric="manhattan")
        else:
            s = np.sqrt(weights)
            D = pairwise_distances(X0[rows] * s, X0 * s, metric="sqeuclidean")
        if f.size == 0:
            return D
        v = weights[f]
        Ur = U[rows]
        known_terms = np.abs(X0[:, f]) ** power * v
        D -= known_terms[rows] @ U.T  # x_j unknown: the zero fill counted v |x_i|^p
        D -= Ur @ known_terms.T  # x_i unknown: it counted v |x_j|^p
        H = self._known_table() ** power
        row_codes = codes[rows]
        for c in np.unique(row_codes):  # x_i unknown (class c), x_j known
            sel = row_codes == c
            D[sel] += (Ur[sel] * v) @ H[c].T
        both = self._both[:, :, f] ** power
        for c in range(self.n_classes):  # x_j unknown (class c), x_i known
            cols = np.flatnonzero(codes == c)
            D[:, cols] += (H[c][rows] * v) @ U[cols].T
            for ci in np.unique(row_codes):  # both unknown
                sel = row_codes == ci
                D[np.ix_(sel, cols)] += (Ur[sel] * (v * both[ci, c])) @ U[cols].T
        return np.maximum(D, 0.0)

    def _both_unknown(self) -> FloatArray:
        """``E |X - X'|`` for every pair of classes (pooled included), shape (C+1, C+1, A)."""
        c1, a = self.n_classes + 1, self.n_features
        table = np.zeros((c1, c1, a))
        groups = np.repeat(np.arange(c1 * a), self._count)
        if groups.size == 0:
            return table
        feat = groups % a
        for c in range(c1):
            e = self.expect(self._values, np.full(groups.size, c), feat)
            sums = np.bincount(groups, weights=e, minlength=c1 * a)
            with np.errstate(invalid="ignore", divide="ignore"):
                means = np.where(self._count > 0, sums / np.maximum(self._count, 1), 0.0)
            table[:, c, :] = means.reshape(c1, a)
        # A class without known values of a feature uses the pooled row/column.
        empty = self._count.reshape(c1, a) == 0
        for c in range(c1):
            table[c][:, empty[c]] = table[self.pooled][:, empty[c]]
        return table

    def fill(
        self,
        D: FloatArray,
        A: FloatArray,
        B: FloatArray,
        a_codes: NDArray[np.intp] | int,
        b_codes: NDArray[np.intp] | int,
    ) -> FloatArray:
        """Replace the NaN of ``D = |A - B|`` by the expected differences, in place.

        Parameters
        ----------
        D : ndarray of shape (..., A)
            ``|A - B|`` as broadcast (NaN where either value is missing).
        A, B : ndarray broadcastable to ``D.shape``
            The two sides' values.
        a_codes, b_codes : ndarray broadcastable to ``D.shape[:-1]``
            Class codes of the two sides (``n_classes`` for "unknown class").

        Returns
        -------
        D : ndarray
            The same array, completed.
        """
        pos = np.nonzero(np.isnan(D))
        if pos[0].size == 0:
            return D
        shape = D.shape
        a = np.broadcast_to(A, shape)[pos]
        b = np.broadcast_to(B, shape)[pos]
        ca = np.broadcast_to(np.asarray(a_codes)[..., None], shape)[pos]
        cb = np.broadcast_to(np.asarray(b_codes)[..., None], shape)[pos]
        f = pos[-1]
        na, nb = np.isnan(a), np.isnan(b)
        val = np.empty(a.shape[0])
        both = na & nb
        val[both] = self._both[ca[both], cb[both], f[both]]
        only_a = na & ~nb
        val[only_a] = self.expect(b[only_a], ca[only_a], f[only_a])
        only_b = nb & ~na
        val[only_b] = self.expect(a[only_b], cb[only_b], f[only_b])
        D[pos] = val
        return D

    def abs_diff(
        self, A: FloatArray, B: FloatArray, a_codes: NDArray[np.intp], b_codes: NDArray[np.intp]
    ) -> FloatArray:
        """``|A - B|`` (broadcast) with unknown entries replaced by the expected difference."""
        return self.fill(np.abs(A - B), A, B, a_codes, b_codes)

    def pairs(self, ii: NDArray[np.intp], jj: NDArray[np.intp]) -> FloatArray:
        """``|X[ii] - X[jj]|`` of training pairs, completed (shape (len(ii), A))."""
        X, c = self.X, self.codes
        return self.abs_diff(X[ii], X[jj], c[ii], c[jj])

    def rows(self, rows: slice) -> FloatArray:
        """``|X[rows, None] - X[None]|`` of training rows against all, completed."""
        X, c = self.X, self.codes
        return self.abs_diff(X[rows][:, None, :], X[None], c[rows][:, None], c[None, :])

    def queries(self, Q: FloatArray) -> FloatArray:
        """``|Q[:, None] - X[None]|`` for queries ``Q``, completed.

        Queries have no class: their unknowns use the pooled distribution.
        """
        pooled = np.full(Q.shape[0], self.pooled)
        return self.abs_diff(Q[:, None, :], self.X[None], pooled[:, None], self.codes[None, :])


def expected_diff(
    X: FloatArray,
    codes: NDArray[np.intp],
    n_classes: int | None = None,
    X_query: FloatArray | None = None,
) -> ExpectedDiff | None:
    """The :class:`ExpectedDiff` of ``X`` when ``X`` (or ``X_query``) has a NaN, else None."""
    features: NDArray[np.bool_] = np.asarray(np.isnan(X).any(axis=0))
    if X_query is not None:
        features |= np.isnan(X_query).any(axis=0)
    if not features.any():
        return None
    n_classes = int(codes.max()) + 1 if n_classes is None else n_classes
    return ExpectedDiff(X, codes, n_classes, features)
