"""Discriminative scores, eq. (3), and the discriminative power of sec. 4.3.

* :func:`discriminative_scores` -- eq. (3) at every training point for every
  feature: a Gaussian kernel of the per-feature distance to the other training
  points, averaged over same-class points minus the average over other-class
  points, then mapped to [0, 1] (one constant for all features, or a min-max
  per feature);
* :func:`gaussian_kl` -- ``KL(N(mu, var) || N(mu*, var*))`` in closed form, the
  discriminative power ``D_j(x)`` of a feature GP's prediction with respect to
  the low reference distribution ``y*``.

Nothing here validates user input; callers pass float64 arrays and class codes
``0 .. n_classes - 1`` in which every class has at least two samples.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.parallel import Parallel, delayed

from localselect._pairwise import row_chunks
from localselect._typing import FloatArray

__all__ = ["discriminative_scores", "gaussian_kl", "raw_discriminative_scores"]


_SQRT_2PI = np.sqrt(2.0 * np.pi)


def _pair_weights(y_rows: NDArray[np.intp], rows: slice, y: NDArray[np.intp]) -> FloatArray:
    """Signed averaging weights: ``+1/(n_same - 1)`` same class (self excluded), ``-1/n_other``."""
    counts = np.bincount(y).astype(np.float64)
    n = y.shape[0]
    same = y_rows[:, None] == y[None, :]
    w = np.where(
        same, (1.0 / (counts[y_rows] - 1.0))[:, None], (-1.0 / (n - counts[y_rows]))[:, None]
    )
    w[np.arange(w.shape[0]), np.arange(rows.start, rows.stop)] = 0.0
    return w


def _score_block(
    X: FloatArray, y: NDArray[np.intp], discrete: NDArray[np.bool_], rows: slice
) -> FloatArray:
    diff = X[rows, None, :] - X[None, :, :]
    if discrete.any():
        diff[:, :, discrete] = (diff[:, :, discrete] != 0.0).astype(np.float64)
    kernel = np.exp(-0.5 * diff * diff)
    kernel /= _SQRT_2PI
    return np.einsum("ik,ikm->im", _pair_weights(y[rows], rows, y), kernel)


def raw_discriminative_scores(
    X: FloatArray,
    y: NDArray[np.intp],
    discrete: NDArray[np.bool_] | None = None,
    *,
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> FloatArray:
    """Eq. (3) before normalisation: same-class minus other-class kernel averages.

    For training point ``i`` and feature ``j``,

    .. math:: F_j(x_i) = \\frac{1}{|S_i|} \\sum_{k \\in S_i} K(d^j_{ik})
              - \\frac{1}{|O_i|} \\sum_{k \\in O_i} K(d^j_{ik}),
              \\qquad K(d) = e^{-d^2/2} / \\sqrt{2\\pi},

    with ``S_i`` the other points of ``i``'s class, ``O_i`` the points of every
    other class, and ``d = |x_i(j) - x_k(j)|`` for a continuous feature, the 0/1
    mismatch for a discrete one.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Training data (continuous features on a common scale).
    y : ndarray of shape (n_samples,)
        Class codes; every class has at least two samples.
    discrete : ndarray of shape (n_features,) of bool, default=None
        Features compared by the 0/1 distance of eq. (3).
    n_jobs : int, default=None
        Parallel jobs over blocks of rows.
    working_memory : float, default=None
        MiB for one ``(rows, n_samples, n_features)`` block.

    Returns
    -------
    scores : ndarray of shape (n_samples, n_features)
        Values in ``[-K(0), K(0)]``; a constant feature scores exactly 0.

    Notes
    -----
    Time O(n_samples^2 n_features), memory one block.
    """
    n, m = X.shape
    if discrete is None:
        discrete = np.zeros(m, dtype=bool)
    chunks = row_chunks(n, 3 * n * m * 8, working_memory)
    blocks = Parallel(n_jobs=n_jobs)(
        delayed(_score_block)(X, y, discrete, rows) for rows in chunks
    )
    return np.vstack(blocks) if blocks else np.zeros((0, m))


def discriminative_scores(
    X: FloatArray,
    y: NDArray[np.intp],
    discrete: NDArray[np.bool_] | None = None,
    *,
    scaling: str = "unit",
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> FloatArray:
    """Eq. (3) mapped to [0, 1] by the normalising constant ``eta``.

    Parameters
    ----------
    X, y, discrete, n_jobs, working_memory
        As in :func:`raw_discriminative_scores`.
    scaling : {"unit", "minmax"}, default="unit"
        ``"unit"``: one constant for all features, ``eta = 1 / K(0)`` (the raw
        score's largest possible value), and negative raw scores (other classes
        at least as close as the own class along the feature) clipped to 0, so
        scores stay comparable across features. ``"minmax"``: a min-max over the
        training points, separately per feature (ALGORITHMS.md section 3); a
        feature whose raw scores span less than ``1e-12`` scores 0.

    Returns
    -------
    scores : ndarray of shape (n_samples, n_features)
        Values in [0, 1]; a constant feature scores 0 everywhere, never NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from localselect.gp._scores import discriminative_scores
    >>> X = np.array([[0.0, 5.0], [0.1, 3.0], [3.0, 4.0], [3.1, 6.0]])
    >>> discriminative_scores(X, np.array([0, 0, 1, 1])).round(2)
    array([[0.99, 0.  ],
           [0.98, 0.  ],
           [0.98, 0.  ],
           [0.99, 0.  ]])
    """
    raw = raw_discriminative_scores(X, y, discrete, n_jobs=n_jobs, working_memory=working_memory)
    # A constant feature's same- and other-class averages are equal up to rounding.
    raw[:, np.ptp(X, axis=0) == 0] = 0.0
    if scaling == "unit":
        return np.clip(raw * _SQRT_2PI, 0.0, 1.0)
    lo = raw.min(axis=0, initial=np.inf)
    span = raw.max(axis=0, initial=-np.inf) - lo
    flat = span <= 1e-12
    scores = (raw - lo) / np.where(flat, 1.0, span)
    scores[:, flat] = 0.0
    return scores


def gaussian_kl(
    mean: FloatArray, variance: FloatArray, ref_mean: float, ref_variance: float
) -> FloatArray:
    """``KL(N(mean, variance) || N(ref_mean, ref_variance))``, element-wise.

    .. math:: \\log\\frac{\\sigma^*}{s} + \\frac{s^2 + (\\mu - \\mu^*)^2}{2 (\\sigma^*)^2}
              - \\frac12

    Examples
    --------
    >>> from localselect.gp._scores import gaussian_kl
    >>> float(gaussian_kl(1.0, 1.0, 0.0, 1.0))
    0.5
    """
    mean = np.asarray(mean, dtype=np.float64)
    variance = np.asarray(variance, dtype=np.float64)
    return 0.5 * (
        np.log(ref_variance / variance) + (variance + (mean - ref_mean) ** 2) / ref_variance - 1.0
    )
