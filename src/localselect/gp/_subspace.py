"""Algorithm 2: the discriminative subspace of each query, vectorised over queries.

Start with the feature of largest discriminative power ``D(j)``; then repeatedly
score every remaining feature by

.. math:: Score(j) = D(j) - \\frac{1}{\\eta} \\sum_{k \\in L} |Corr(j, k)|

and add the best one while ``Score(h) >= mean(Scores) + gamma * std(Scores)``.
Which scores the mean and (population) standard deviation run over is an
option, ``over``:

* ``"all"`` -- Algorithm 2 as printed (step B): every feature except the first
  one chosen, ``m``, so the features already added stay in the statistics
  (with their current scores, whose penalty includes their own correlation
  of 1). The threshold then stays high as the subspace grows, and subspaces
  stay small whatever the number of features;
* ``"remaining"`` -- only the features not yet added (our earlier reading),
  which keeps accepting features while many remain.

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

__all__ = ["THRESHOLD_OVER", "path_mask", "select_subspaces", "subspace_path", "subspace_sizes"]

#: The two readings of the scores behind Algorithm 2's threshold (see the module).
THRESHOLD_OVER = ("all", "remaining")


def subspace_path(
    power: NDArray[np.float64],
    abs_corr: NDArray[np.float64],
    gamma_min: float,
    floor: NDArray[np.float64] | None = None,
    over: str = "all",
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Algorithm 2's order of features for many queries, and the gamma that admits each.

    The order in which Algorithm 2 adds features does not depend on ``gamma``;
    only where it stops does. Step ``t`` (``t >= 1``) adds the best remaining
    feature ``h`` when ``Score(h) >= mean + gamma * std``, i.e. when ``gamma``
    is at most ``c_t = (Score(h) - mean) / std``. The subspace for ``gamma`` is
    the first ``1 + T`` features of the order, ``T`` the number of leading
    steps whose running minimum of ``c`` is at least ``gamma``.

    Parameters
    ----------
    power : ndarray of shape (n_queries, n_features)
        Discriminative power ``D_x(j)`` of every feature at every query.
    abs_corr : ndarray of shape (n_features, n_features)
        Absolute correlations between features (finite; 0 for constant ones).
    gamma_min : float
        Smallest ``gamma`` of interest: a query's path stops at the first step
        that this ``gamma`` would reject (``-inf`` runs every path to the end).
    floor : ndarray of shape (n_queries,), default=None
        If given, a path also stops (for every ``gamma``) when the best
        remaining feature's power ``D`` is below the query's floor; the first
        feature is always kept.
    over : {"all", "remaining"}, default="all"
        Scores the threshold's mean and standard deviation run over: every
        feature but the first chosen (Algorithm 2 as printed) or the features
        not yet added (see the module docstring).

    Returns
    -------
    order : ndarray of shape (n_queries, n_features) of int
        Features in the order Algorithm 2 adds them, ``-1`` after the path
        stopped.
    critical : ndarray of shape (n_queries, n_features)
        ``critical[:, 0] = inf``; ``critical[:, t]`` the running minimum of
        ``c_1 .. c_t`` (the largest ``gamma`` whose subspace has ``t + 1``
        features), ``-inf`` after the path stopped. Non-increasing along rows.

    Notes
    -----
    At most ``n_features`` rounds, each O(n_active * n_features): time
    O(n_queries * n_features^2) in the worst case, memory
    O(n_queries * n_features). With either ``over`` the order does not depend
    on ``gamma``, so the subspaces are nested in ``gamma``. A score equal to
    the threshold up to a relative 1e-12 passes; when every score of the
    statistics is equal (zero spread) the best one passes for every ``gamma``.
    Ties go to the lowest feature index.
    """
    n, m = power.shape
    order = np.full((n, m), -1, dtype=np.intp)
    critical = np.full((n, m), -np.inf)
    if n == 0 or m == 0:
        return order, critical
    first = np.argmax(power, axis=1)
    order[:, 0] = first
    critical[:, 0] = np.inf
    # Working arrays hold the queries still growing; they shrink when some stop.
    rows = np.arange(n)
    D = power.copy()
    chosen = np.zeros((n, m), dtype=bool)
    chosen[rows, first] = True
    # Scores left out of the threshold's statistics: the first feature only
    # (as printed) or every feature chosen so far (the same array as chosen).
    printed = over == "all"
    left_out = chosen.copy() if printed else chosen
    penalty = abs_corr[first]
    count = np.ones(n)
    scale = power[rows, first]
    running = np.full(n, np.inf)
    for step in range(1, m):
        if rows.size == 0:
            break
        n_stat = float(m - 1) if printed else m - count
        score = penalty * (-(scale / count))[:, None]
        score += D
        score[left_out] = 0.0
        mean = score.sum(axis=1) / n_stat
        dev = score - mean[:, None]
        dev[left_out] = 0.0
        std = np.sqrt(np.einsum("ij,ij->i", dev, dev) / n_stat)
        score[chosen] = -np.inf
        active = np.arange(rows.size)
        best = np.argmax(score, axis=1)
        best_score = score[active, best]
        # A relative slack of 1e-12 decides exact ties (e.g. two remaining features
        # with gamma = 1, where the threshold equals the best score) the same way
        # whatever the rounding: best >= mean + gamma * std - slack.
        slack = 1e-12 * np.maximum(np.abs(mean), scale)
        with np.errstate(divide="ignore", invalid="ignore"):
            crit = (best_score - mean + slack) / std
        crit[std <= 0.0] = np.inf
        if floor is not None:
            # NaN stops the path for every gamma, -inf included.
            crit[D[active, best] < floor[rows]] = np.nan
        running = np.minimum(running, crit)
        grow = np.flatnonzero(running >= gamma_min)
        order[rows[grow], step] = best[grow]
        critical[rows[grow], step] = running[grow]
        chosen[grow, best[grow]] = True
        penalty[grow] += abs_corr[best[grow]]
        count[grow] += 1.0
        if grow.size < rows.size:
            rows, D, chosen, penalty = rows[grow], D[grow], chosen[grow], penalty[grow]
            left_out = left_out[grow] if printed else chosen
            count, scale, running = count[grow], scale[grow], running[grow]
    return order, critical


def subspace_sizes(critical: NDArray[np.float64], gamma: float) -> NDArray[np.intp]:
    """Subspace size of each query for ``gamma`` (at least the ``gamma_min`` of the path)."""
    return np.asarray(((critical >= gamma) & (critical > -np.inf)).sum(axis=1), dtype=np.intp)


def path_mask(
    order: NDArray[np.intp], critical: NDArray[np.float64], gamma: float
) -> NDArray[np.bool_]:
    """Boolean subspaces for ``gamma`` from a path of :func:`subspace_path`."""
    n, m = order.shape
    mask = np.zeros((n, m), dtype=bool)
    keep = (critical >= gamma) & (order >= 0)  # stopped steps hold -inf and -1
    r, c = np.nonzero(keep)
    mask[r, order[r, c]] = True
    return mask


def select_subspaces(
    power: NDArray[np.float64],
    abs_corr: NDArray[np.float64],
    gamma: float,
    floor: NDArray[np.float64] | None = None,
    over: str = "all",
) -> NDArray[np.bool_]:
    """Algorithm 2 for many queries at once.

    Parameters
    ----------
    power : ndarray of shape (n_queries, n_features)
        Discriminative power ``D_x(j)`` of every feature at every query.
    abs_corr : ndarray of shape (n_features, n_features)
        Absolute correlations between features (finite; 0 for constant ones).
    gamma : float
        Threshold multiplier of the standard deviation; ``-inf`` selects every
        feature (above the floor).
    floor : ndarray of shape (n_queries,), default=None
        Per-query floor on the power of the features added after the first
        (see :func:`subspace_path`).
    over : {"all", "remaining"}, default="all"
        Scores behind the threshold (see :func:`subspace_path`).

    Returns
    -------
    mask : ndarray of shape (n_queries, n_features) of bool
        The subspace of each query; never empty.

    Notes
    -----
    See :func:`subspace_path` (this is its prefix for ``gamma``).

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.gp._subspace import select_subspaces
    >>> power = np.array([[9.0, 8.5, 0.1, 0.2, 0.1, 0.0]])
    >>> select_subspaces(power, np.zeros((6, 6)), gamma=1.5).astype(int)
    array([[1, 1, 0, 0, 0, 0]])
    """
    if gamma == -np.inf and floor is None:
        return np.ones(power.shape, dtype=bool)
    order, critical = subspace_path(power, abs_corr, gamma, floor, over)
    return path_mask(order, critical, gamma)
