"""Algorithm 2: the discriminative subspace of each query, vectorised over queries.

Start with the feature of largest discriminative power ``D(j)``; then repeatedly
score every remaining feature by

.. math:: Score(j) = D(j) - \\frac{1}{\\eta} \\sum_{k \\in L} |Corr(j, k)|

and add the best one while ``Score(h) >= mean(Scores) + gamma * std(Scores)``
(mean and population standard deviation over the remaining features).

Our choice for the paper's unspecified ``eta``: ``eta = |L| / max_j D(j)``, so
the penalty is the mean absolute correlation with the features already chosen,
in units of the query's largest discriminative power (the two terms are then on
the same scale whatever the reference distribution). Ties go to the lowest
feature index; a score equal to the threshold up to a relative 1e-12 passes.
Because the order in which features are added does not depend on
``gamma``, a larger ``gamma`` gives a prefix of the same sequence: subspaces are
nested in ``gamma``.

Nothing here validates user input.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["select_subspaces"]


def select_subspaces(
    power: NDArray[np.float64], abs_corr: NDArray[np.float64], gamma: float
) -> NDArray[np.bool_]:
    """Algorithm 2 for many queries at once.

    Parameters
    ----------
    power : ndarray of shape (n_queries, n_features)
        Discriminative power ``D_x(j)`` of every feature at every query.
    abs_corr : ndarray of shape (n_features, n_features)
        Absolute correlations between features (finite; 0 for constant ones).
    gamma : float
        Threshold multiplier of the standard deviation.

    Returns
    -------
    mask : ndarray of shape (n_queries, n_features) of bool
        The subspace of each query; never empty.

    Notes
    -----
    At most ``n_features`` rounds, each O(n_active * n_features): time
    O(n_queries * n_features^2) in the worst case, memory O(n_queries * n_features).

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.gp._subspace import select_subspaces
    >>> power = np.array([[9.0, 8.5, 0.1, 0.2, 0.1, 0.0]])
    >>> select_subspaces(power, np.zeros((6, 6)), gamma=1.5).astype(int)
    array([[1, 1, 0, 0, 0, 0]])
    """
    n, m = power.shape
    mask = np.zeros((n, m), dtype=bool)
    if n == 0 or m == 0:
        return mask
    first = np.argmax(power, axis=1)
    mask[np.arange(n), first] = True
    # Working arrays hold the queries still growing; they shrink when some stop.
    rows = np.arange(n)
    D = power.copy()
    chosen = mask.copy()
    penalty = abs_corr[first]
    count = np.ones(n)
    scale = power[rows, first]
    for _ in range(1, m):
        if rows.size == 0:
            break
        n_left = m - count
        score = penalty * (-(scale / count))[:, None]
        score += D
        score[chosen] = 0.0
        mean = score.sum(axis=1) / n_left
        dev = score - mean[:, None]
        dev[chosen] = 0.0
        std = np.sqrt(np.einsum("ij,ij->i", dev, dev) / n_left)
        score[chosen] = -np.inf
        best = np.argmax(score, axis=1)
        best_score = score[np.arange(rows.size), best]
        # A relative slack of 1e-12 decides exact ties (e.g. two remaining features
        # with gamma = 1, where the threshold equals the best score) the same way
        # whatever the rounding.
        threshold = mean + gamma * std
        accept = best_score >= threshold - 1e-12 * np.maximum(np.abs(threshold), scale)
        grow = np.flatnonzero(accept)
        chosen[grow, best[grow]] = True
        mask[rows[grow], best[grow]] = True
        penalty[grow] += abs_corr[best[grow]]
        count[grow] += 1.0
        if grow.size < rows.size:
            rows, D, chosen, penalty = rows[grow], D[grow], chosen[grow], penalty[grow]
            count, scale = count[grow], scale[grow]
    return mask
