"""The relative rule of the saliency selector: a row's saliency pooled with similar rows'.

``per_row="relative"`` of :class:`~localselect.saliency.ConditionalSaliencySelection`
(no error guarantee). The model is fitted on every row; a random subset of the
training rows serves as reference profiles. A row's saliency is averaged with
its ``n_neighbors`` nearest reference profiles (cosine: profiles scaled to
unit length) and divided by the row's largest; the estimator keeps the features
at or above ``relative_threshold``. :func:`fit_relative` returns the fitted
rule as a :class:`RelativeRule` record.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.neighbors import NearestNeighbors

from localselect.saliency._models import ModelFactory, fitted_saliency
from localselect.saliency._saliency import unit_profiles

__all__ = ["RelativeRule", "fit_relative"]


class RelativeRule(NamedTuple):
    """The fitted relative rule.

    Parameters
    ----------
    estimator : estimator
        The model (``estimator_``).
    grid : ndarray of shape (n_quantiles, n_modelled)
        Replacement values of the saliency.
    reference_saliency : ndarray of shape (n_reference, n_modelled)
        Profiles of the reference rows.
    neighbors : NearestNeighbors or None
        Fitted on the unit-length reference profiles; None pools nothing.
    regression : bool
        A continuous target.
    """

    estimator: Any
    grid: NDArray[np.float64]
    reference_saliency: NDArray[np.float64]
    neighbors: NearestNeighbors | None
    regression: bool

    def relevance(self, Z: NDArray[np.float64]) -> NDArray[np.float64]:
        """Pooled saliency of the rows ``Z`` divided by the row's largest (in [0, 1]).

        Parameters
        ----------
        Z : ndarray of shape (n_rows, n_modelled)
            Rows, standardised, in the modelled columns.

        Returns
        -------
        R : ndarray of shape (n_rows, n_modelled)
        """
        P = fitted_saliency(self.estimator, Z, self.grid, regression=self.regression)
        if self.neighbors is not None:
            idx = self.neighbors.kneighbors(unit_profiles(P), return_distance=False)
            P = (P + self.reference_saliency[idx].sum(axis=1)) / (idx.shape[1] + 1)
        top = P.max(axis=1, keepdims=True)
        return np.divide(P, top, out=np.zeros_like(P), where=top > 0)


def fit_relative(
    Xk: NDArray[np.float64],
    target: NDArray,
    models: ModelFactory,
    rng: np.random.RandomState,
    *,
    n_reference: int,
    n_neighbors: int,
) -> RelativeRule:
    """Fit the model on every row and take the profiles of ``n_reference`` random rows.

    Parameters
    ----------
    Xk : ndarray of shape (n_samples, n_modelled)
        The training rows, standardised, in the modelled columns; the model
        is fitted on all of them.
    target : ndarray of shape (n_samples,)
        Its labels: class codes, or the continuous target.
    models : ModelFactory
        Makes, fits and reads the model (and its grid of replacement values).
    rng : RandomState
        The model's seed and the reference rows.
    n_reference : int
        Reference rows.
    n_neighbors : int
        Reference profiles pooled with a row (0: none).

    Returns
    -------
    rule : RelativeRule
    """
    model = models.fit(Xk, target, rng)
    grid = models.grid(Xk)
    ref = rng.permutation(Xk.shape[0])[:n_reference]
    reference = fitted_saliency(model, Xk[ref], grid, regression=models.regression)
    k = min(n_neighbors, ref.size)
    neighbors = NearestNeighbors(n_neighbors=k).fit(unit_profiles(reference)) if k > 0 else None
    return RelativeRule(model, grid, reference, neighbors, models.regression)
