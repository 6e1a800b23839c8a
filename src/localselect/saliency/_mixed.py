"""Null draws and replacement values of a table with nominal columns or missing values.

The loss-change test of the saliency selector replaces one column at a time by a
draw that is null for it: under ``x_j`` independent of the target given the
other columns, the row with ``x_j`` replaced has the law of the row as it is, so
the mean loss change is 0 whatever the model (the conditional randomization
argument of Candès, Fan, Janson and Lv 2018, sec. 4). On numeric, complete
columns the draws are Gaussian model-X knockoffs
(:func:`~localselect.saliency._knockoffs.gaussian_knockoffs`). Gaussian
knockoffs of a level code mean nothing, and they take no missing value, so a
table with nominal columns or NaN is drawn from conditionals of each column
given the others (:class:`ConditionalNullSampler`):

* a **nominal** column takes the level of a row drawn at random among the
  ``n_neighbors`` reference rows nearest in the other columns (a numeric
  column standardised, a nominal one as indicators scaled so that a differing
  level adds 1 to the squared distance, as a numeric column one standard
  deviation apart does): a nearest-neighbour estimate of ``P(x_j | x_-j)``,
  which assumes that this law changes little across a row's neighbours (at
  most :data:`NULL_REFERENCE` reference rows, evenly spaced, are searched);
* a **numeric** column takes ``E[x_j | x_-j] + sigma_j z``, ``z`` standard
  normal, with the mean the ridge least-squares fit of ``x_j`` on the other
  numeric columns and the indicators of the nominal ones and ``sigma_j`` its
  residual standard deviation: the Gaussian conditional, which assumes
  ``x_j`` linear in the others with Gaussian noise of one variance (what the
  Gaussian knockoffs of the numeric path assume of the joint law).

A **missing** cell stays missing in every draw (the swap leaves that row's
column as it is: its loss change is 0), and in the others' conditioning it
reads as the column's mean (numeric) or as no level (nominal). The draws are
conditional draws for one column at a time, which is all the swap test uses;
they are not knockoffs of the whole table, so the knockoff filters
(``screen=True``, :class:`~localselect.saliency.LocalKnockoffFilter`) do not
use them.

:func:`mixed_grid` gives the saliency's replacement values of such a table: a
numeric column's quantiles of its present values, and for a nominal column
its levels at the same probabilities (the ``inverted_cdf`` quantiles of its
codes, so every value is a level, each in proportion to its frequency).

Kernel only: no input validation, no estimators.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from sklearn.neighbors import NearestNeighbors

__all__ = ["ConditionalNullSampler", "mixed_grid"]

#: Reference rows among which a nominal column's draw is taken (its nearest neighbours).
NULL_NEIGHBORS = 20

#: Most reference rows searched for a nominal column's neighbours (evenly spaced beyond).
NULL_REFERENCE = 5000

#: Ridge of the numeric conditionals, relative to the mean diagonal of the Gram matrix.
_RIDGE = 1e-6


def mixed_grid(
    X: NDArray[np.float64], nominal: NDArray[np.bool_], n_quantiles: int
) -> NDArray[np.float64]:
    """The ``(r + 1/2) / n_quantiles`` quantiles of each column's present values.

    Numeric columns interpolate (as
    :func:`~localselect.saliency._saliency.quantile_grid`); nominal columns
    take the ``inverted_cdf`` quantile of their codes, a level. A column with
    no present value gets NaN.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Rows (level codes in the nominal columns, NaN missing).
    nominal : ndarray of shape (n_features,) of bool
        Which columns are nominal.
    n_quantiles : int
        Values per column.

    Returns
    -------
    grid : ndarray of shape (n_quantiles, n_features)
    """
    levels = (np.arange(n_quantiles) + 0.5) / n_quantiles
    grid = np.full((n_quantiles, X.shape[1]), np.nan)
    present = ~np.isnan(X).all(axis=0)
    numeric, discrete = present & ~nominal, present & nominal
    if numeric.any():
        grid[:, numeric] = np.nanquantile(X[:, numeric], levels, axis=0)
    if discrete.any():
        grid[:, discrete] = np.nanquantile(X[:, discrete], levels, axis=0, method="inverted_cdf")
    return grid


class ConditionalNullSampler:
    """Draws of each column from its law given the others, for mixed and incomplete tables.

    See the module docstring for the two conditionals and what they assume.

    Parameters
    ----------
    nominal : ndarray of shape (n_features,) of bool
        Which columns hold level codes.
    n_neighbors : int, default=NULL_NEIGHBORS
        Reference rows a nominal column's draw is taken among.
    """

    def __init__(self, nominal: NDArray[np.bool_], n_neighbors: int = NULL_NEIGHBORS) -> None:
        self.nominal = np.asarray(nominal, dtype=bool)
        self.n_neighbors = n_neighbors

    def _design(self, X: NDArray[np.float64]) -> tuple[NDArray[np.float64], list[slice]]:
        """The conditioning columns of ``X`` and each input column's block in them.

        A numeric column as is (NaN: the reference mean, 0 on the standardised
        scale), a nominal one as its level indicators over ``sqrt(2)`` (NaN: all 0).
        """
        blocks, parts, start = [], [], 0
        for j in range(X.shape[1]):
            x = X[:, j]
            if self.nominal[j]:
                ind = (x[:, None] == np.arange(self._n_levels[j])[None, :]) / np.sqrt(2.0)
                parts.append(ind)
            else:
                parts.append(np.where(np.isnan(x), self._means[j], x)[:, None])
            width = parts[-1].shape[1]
            blocks.append(slice(start, start + width))
            start += width
        return np.hstack(parts), blocks

    def fit(self, X: NDArray[np.float64]) -> ConditionalNullSampler:
        """Fit the conditionals on the reference rows ``X``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Reference rows (numeric columns on a common scale, level codes, NaN).

        Returns
        -------
        self : ConditionalNullSampler
        """
        d = X.shape[1]
        present = ~np.isnan(X)
        self._means = np.array(
            [X[present[:, j], j].mean() if present[:, j].any() else 0.0 for j in range(d)]
        )
        self._n_levels = np.array(
            [
                int(np.nanmax(X[:, j])) + 1 if self.nominal[j] and present[:, j].any() else 0
                for j in range(d)
            ]
        )
        F, self._blocks = self._design(X)
        p = F.shape[1]
        numeric = [j for j in range(d) if not self.nominal[j] and present[:, j].sum() >= 2]
        self._numeric_columns = np.asarray(numeric, dtype=np.intp)
        self._coef = np.zeros((p, len(numeric)))  # full-width slopes (0 on the own block)
        self._intercept = np.zeros(len(numeric))
        self._sigma = np.zeros(len(numeric))
        self._nearest: dict[int, tuple] = {}
        # one Gram matrix of the centred design serves every complete column's regression
        F_mean = F.mean(axis=0)
        Fc = F - F_mean
        full_gram = Fc.T @ Fc
        for i, j in enumerate(numeric):
            others = np.ones(p, dtype=bool)
            others[self._blocks[j]] = False
            rows = present[:, j]
            own = self._blocks[j].start  # a numeric column is its own design column
            if rows.all():
                gram = full_gram[np.ix_(others, others)]
                cross = full_gram[others, own]
                total, mean_a, mean_x = full_gram[own, own], F_mean[others], F_mean[own]
            else:
                A = F[rows][:, others]
                x = X[rows, j]
                mean_a, mean_x = A.mean(axis=0), x.mean()
                Ac, xc = A - mean_a, x - mean_x
                gram, cross, total = Ac.T @ Ac, Ac.T @ xc, float(xc @ xc)
            ridge = _RIDGE * max(float(np.trace(gram)) / max(gram.shape[0], 1), 1e-12)
            beta = np.linalg.solve(gram + ridge * np.eye(gram.shape[0]), cross)
            residual = total - 2.0 * beta @ cross + beta @ gram @ beta
            self._coef[others, i] = beta
            self._intercept[i] = mean_x - mean_a @ beta
            self._sigma[i] = float(np.sqrt(max(residual, 0.0) / rows.sum()))
        for j in np.flatnonzero(self.nominal).tolist():
            ref = np.flatnonzero(present[:, j])
            if ref.size < 2:
                continue  # nothing to draw from: the column is left as it is
            if ref.size > NULL_REFERENCE:  # evenly spaced rows bound the neighbour search
                ref = ref[np.linspace(0, ref.size - 1, NULL_REFERENCE).astype(np.intp)]
            others = np.ones(p, dtype=bool)
            others[self._blocks[j]] = False
            nn = NearestNeighbors(n_neighbors=min(self.n_neighbors, ref.size))
            self._nearest[j] = (others, nn.fit(F[ref][:, others]), X[ref, j].copy())
        return self

    def for_rows(
        self, X: NDArray[np.float64]
    ) -> Callable[[np.random.RandomState], NDArray[np.float64]]:
        """A function that draws a null table for the rows ``X`` from a random state.

        The conditional means and the neighbours of ``X`` are computed once; each
        call draws the noise and the neighbours' picks.

        Parameters
        ----------
        X : ndarray of shape (n_rows, n_features)
            Rows (their missing cells stay missing in every draw).

        Returns
        -------
        draw : callable
            ``draw(rng)``: ndarray of shape (n_rows, n_features).
        """
        F, _ = self._design(X)
        missing = np.isnan(X)
        means = F @ self._coef + self._intercept
        neighbours = {
            j: (nn.kneighbors(F[:, others], return_distance=False), levels)
            for j, (others, nn, levels) in self._nearest.items()
        }
        n = X.shape[0]

        def draw(rng: np.random.RandomState) -> NDArray[np.float64]:
            K = X.copy()
            numeric = list(self._numeric_columns)
            for j in range(X.shape[1]):
                if j in numeric:
                    i = numeric.index(j)
                    K[:, j] = means[:, i] + self._sigma[i] * rng.standard_normal(n)
                elif j in neighbours:
                    idx, levels = neighbours[j]
                    pick = rng.randint(idx.shape[1], size=n)
                    K[:, j] = levels[idx[np.arange(n), pick]]
            K[missing] = np.nan
            return K

        return draw
