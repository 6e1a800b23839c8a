"""The labelings a GP fit scores with eq. (3), computed together: the score tables.

A fit needs eq. (3) for the real labels (the feature GPs), for label
permutations (the null behind the power floor, ``null_quantile``) and for the
training part of every fold of the inner validation (real and permuted
labels, with -1 for the held-out samples). All of them share one kernel
matrix per feature (:func:`~localselect.gp._scores.raw_discriminative_scores`),
so they are computed in one pass when their tables fit :data:`SCORES_MEMORY`;
past it, each fold's scores are left to the validation of that fold.

Nothing here validates user input.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from sklearn.model_selection import StratifiedKFold

from localselect.gp._scores import raw_discriminative_scores, scale_scores

__all__ = ["SCORES_MEMORY", "ScoreTables", "n_permutations", "score_tables"]

Float = NDArray[np.float64]

#: Folds of the inner validation (fewer when a class has fewer samples).
VALIDATION_FOLDS = 3

#: The power floor pools at least this many null values per query (features
#: times label permutations), with at most MAX_PERMUTATIONS permutations.
NULL_VALUES = 100
MAX_PERMUTATIONS = 10

#: Bytes of eq. (3) scores computed in one pass (real labels, permutations and
#: the validation folds' labelings share each feature's kernel matrix); past
#: it, each fold's scores are computed when the fold is validated.
SCORES_MEMORY = 512 * 2**20


class ScoreTables(NamedTuple):
    """Result of :func:`score_tables`.

    ``scores`` are eq. (3) of the real labels and ``null_scores`` those of
    each label permutation, mapped to [0, 1]; ``folds`` the ``(train, test)``
    index pairs of the inner validation, ``fold_labels`` the labelings of each
    fold (real, then permuted; -1 outside its training part) and ``fold_raw``
    their raw eq. (3) scores, or None for a fold whose scores were not
    computed in the one pass.
    """

    scores: Float
    null_scores: list[Float]
    folds: list[tuple[NDArray[np.intp], NDArray[np.intp]]]
    fold_labels: list[NDArray[np.intp]]
    fold_raw: list[Float | None]


def n_permutations(null_quantile: float | None, n_features: int) -> int:
    """Label permutations behind the power floor (none without a floor)."""
    if null_quantile is None:
        return 0
    return int(min(MAX_PERMUTATIONS, -(-NULL_VALUES // n_features)))


def score_tables(
    Xs: Float,
    y: NDArray[np.intp],
    discrete: NDArray[np.bool_],
    rng: np.random.RandomState,
    *,
    n_perm: int,
    score_scaling: str,
    n_jobs: int | None = None,
) -> ScoreTables:
    """Eq. (3) for the real labels, ``n_perm`` permutations and the validation folds.

    Parameters
    ----------
    Xs : ndarray of shape (n_samples, n_features)
        Standardised training data.
    y : ndarray of shape (n_samples,)
        Class codes; every class has at least 2 samples.
    discrete : ndarray of shape (n_features,) of bool
        Features compared by the 0/1 distance.
    rng : RandomState
        Source of the permutations and of the folds' seed, drawn in this order:
        the permutations of the real labels, the folds' seed, then each fold's
        permutations.
    n_perm : int
        Label permutations (:func:`n_permutations`).
    score_scaling : {"unit", "minmax"}
        How eq. (3) is mapped to [0, 1] (:func:`~localselect.gp._scores.scale_scores`).
    n_jobs : int, default=None
        Parallel jobs of the score computation.

    Returns
    -------
    ScoreTables
    """
    n_samples, n_features = Xs.shape
    labels = [y] + [y[rng.permutation(n_samples)] for _ in range(n_perm)]
    n_splits = int(max(2, min(VALIDATION_FOLDS, np.bincount(y).min())))
    splitter = StratifiedKFold(n_splits, shuffle=True, random_state=rng.randint(2**31 - 1))
    folds = list(splitter.split(Xs, y))
    fold_labels = []
    for train, _ in folds:
        lab = np.full((1 + n_perm, n_samples), -1, dtype=np.intp)
        lab[0, train] = y[train]
        for p in range(n_perm):
            lab[1 + p, train] = y[train][rng.permutation(train.size)]
        fold_labels.append(lab)
    together = (1 + n_perm) * (1 + n_splits) * n_samples * n_features * 8 <= SCORES_MEMORY
    if together:
        labels += [row for lab in fold_labels for row in lab]
    raw = raw_discriminative_scores(Xs, np.vstack(labels), discrete, n_jobs=n_jobs)
    scores = scale_scores(raw[0], Xs, score_scaling)
    null_scores = [scale_scores(r, Xs, score_scaling) for r in raw[1 : 1 + n_perm]]
    fold_raw: list[Float | None] = (
        [raw[(1 + n_perm) * (1 + f) : (1 + n_perm) * (2 + f)] for f in range(n_splits)]
        if together
        else [None] * n_splits
    )
    return ScoreTables(scores, null_scores, folds, fold_labels, fold_raw)
