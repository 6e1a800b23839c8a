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

import itertools

import numpy as np
from numpy.typing import NDArray

from localselect._docstrings import fill_doc
from localselect._pairwise import row_chunks
from localselect._runtime import map_tasks, n_threads

__all__ = [
    "discriminative_scores",
    "gaussian_kl",
    "raw_discriminative_scores",
    "scale_scores",
]

Float = NDArray[np.float64]

_SQRT_2PI = np.sqrt(2.0 * np.pi)

#: Past this many distinct values of a feature, the kernel sums of eq. (3) come
#: from the truncated Taylor series of :func:`_gauss_sums_series` instead of the
#: (U, U) kernel matrix (time O(U B P) instead of O(U^2) for B bins).
SERIES_MIN_VALUES = 2048

#: Bin width (in the units of the standardised feature) and number of Taylor
#: terms of the series: with sources within half a bin (r = 0.5) of their bin's
#: centre, the remainder after 22 terms is at most
#: max_x exp(-x^2/2 + r x) (r x)^22 / 22! < 3e-17 per unit of source weight,
#: relative to the kernel's peak exp(0) = 1.
_BIN_WIDTH = 1.0
_SERIES_TERMS = 22

#: Targets farther than this from a bin's centre skip that bin: its sources
#: then weigh at most exp(-(10 - 0.5)^2 / 2) < 3e-20 each.
_SERIES_CUTOFF = 10.0


def _gauss_sums_exact(values: Float, tally: Float, working_memory: float | None) -> Float:
    """``S[u] = sum_v exp(-(u - v)^2 / 2) tally[v]`` from the kernel matrix, in row blocks."""
    n_values = values.size
    sums = np.empty((n_values, tally.shape[1]))
    for rows in row_chunks(n_values, 2 * n_values * 8, working_memory):
        d = values[rows, None] - values[None, :]
        d *= d
        d *= -0.5
        K = np.exp(d, out=d)
        sums[rows] = K @ tally
    return sums


def _taylor_terms(x: Float, scale_by_factorial: bool) -> Float:
    """``exp(-x^2/2) x^n`` (divided by ``n!`` if asked), ``n = 0 .. _SERIES_TERMS - 1``."""
    out = np.empty((x.size, _SERIES_TERMS))
    out[:, 0] = np.exp(-0.5 * x * x)
    for n in range(1, _SERIES_TERMS):
        np.multiply(out[:, n - 1], x / n if scale_by_factorial else x, out=out[:, n])
    return out


def _gauss_sums_series(values: Float, tally: Float) -> Float:
    r"""The kernel sums of :func:`_gauss_sums_exact` by a fast Gauss transform.

    Sorted distinct ``values`` fall in bins of width ``_BIN_WIDTH``; for a
    source ``v`` in the bin of centre ``c`` and a target ``u``, with
    ``x = u - c`` and ``y = v - c``,

    .. math:: e^{-(u - v)^2/2} = e^{-x^2/2} e^{-y^2/2} e^{x y}
              = e^{-x^2/2} \sum_n x^n \, e^{-y^2/2} y^n / n! ,

    so each bin is summarised by ``_SERIES_TERMS`` moments of its sources (per
    column of ``tally``) and each target sums ``e^{-x^2/2} x^n`` times them over
    the bins within ``_SERIES_CUTOFF``: two matrix products per bin. The
    error is below ``1e-16`` per unit of source weight (see the constants).
    """
    lo = values[0]
    b = np.floor((values - lo) / _BIN_WIDTH).astype(np.intp)
    centres = lo + (np.arange(b[-1] + 1) + 0.5) * _BIN_WIDTH
    edges = np.flatnonzero(np.diff(b)) + 1
    starts = np.concatenate([[0], edges])
    stops = np.concatenate([edges, [values.size]])
    sums = np.zeros((values.size, tally.shape[1]))
    for s0, s1 in zip(starts, stops):
        c = centres[b[s0]]
        moments = _taylor_terms(values[s0:s1] - c, True).T @ tally[s0:s1]
        t0, t1 = np.searchsorted(values, [c - _SERIES_CUTOFF, c + _SERIES_CUTOFF], side="left")
        sums[t0:t1] += _taylor_terms(values[t0:t1] - c, False) @ moments
    return sums


def _feature_scores(
    x: Float,
    labels: NDArray[np.intp],
    n_classes: int,
    discrete: bool,
    working_memory: float | None,
    series_min_values: int = SERIES_MIN_VALUES,
) -> Float:
    """Eq. (3) before normalisation for one feature and several labelings.

    The kernel sums of eq. (3) depend on a point only through its value and its
    class, so they are computed once per distinct value ``u``, labeling ``l``
    and class ``c``: ``S[u, l, c] = sum over the class-c points k of labeling l
    of K(d(u, x_k))``, one product of the ``(U, U)`` kernel matrix of the
    distinct values (in row blocks of bounded memory) with their class counts.
    The kernel matrix does not depend on the labels, so extra labelings cost
    only a wider product. ``labels[l, i] = -1`` leaves point ``i`` out of
    labeling ``l`` (its score is 0). Past ``series_min_values`` distinct
    values the products come from a series (:func:`_gauss_sums_series`, error
    below 1e-16 of the kernel's peak per point) in O(U) time; a discrete
    feature's sums are exact in O(U).
    """
    values, inverse = np.unique(x, return_inverse=True)
    inverse = inverse.ravel()
    n_lab = labels.shape[0]
    n_values = values.size
    scored = labels >= 0
    code = np.where(scored, labels, 0)
    # tally[u, l * C + c]: points of value u in class c of labeling l (one bincount).
    flat = (inverse[None, :] * n_lab + np.arange(n_lab)[:, None]) * n_classes + code
    tally = (
        np.bincount(flat[scored], minlength=n_values * n_lab * n_classes)
        .astype(np.float64)
        .reshape(n_values, n_lab * n_classes)
    )
    k0 = 1.0 / _SQRT_2PI
    if discrete:
        # K is k0 e^{-1/2} between different values and k0 for equal ones.
        sums = k0 * (np.exp(-0.5) * tally.sum(axis=0) + (1.0 - np.exp(-0.5)) * tally)
    elif n_values > series_min_values:
        sums = k0 * _gauss_sums_series(values, tally)
    else:
        sums = k0 * _gauss_sums_exact(values, tally, working_memory)
    at = sums.reshape(n_values, n_lab, n_classes)[inverse]  # (n, n_lab, n_classes)
    counts = tally.sum(axis=0).reshape(n_lab, n_classes)
    n_scored = scored.sum(axis=1)
    codes = code.T[:, :, None]
    own = np.take_along_axis(at, codes, axis=2)[:, :, 0].T - k0  # the point itself left out
    other = at.sum(axis=2).T - k0 - own
    own_count = np.take_along_axis(counts, code, axis=1)
    # A class with one sample has no same-class term (possible only in the
    # estimator's inner folds).
    out = own / np.maximum(own_count - 1.0, 1.0) - other / np.maximum(
        n_scored[:, None] - own_count, 1.0
    )
    out[~scored] = 0.0
    return out


def _feature_block(
    X: Float,
    labels: NDArray[np.intp],
    discrete: NDArray[np.bool_],
    cols: range,
    working_memory: float | None,
) -> Float:
    n_classes = int(labels.max()) + 1
    return np.stack(
        [
            _feature_scores(X[:, j], labels, n_classes, bool(discrete[j]), working_memory)
            for j in cols
        ],
        axis=2,
    )


def scale_scores(
    raw: Float, X: Float, scaling: str, rows: NDArray[np.bool_] | None = None
) -> Float:
    """Map raw eq. (3) scores to [0, 1] (see :func:`discriminative_scores`).

    ``rows`` marks the scored points (the min-max of ``"minmax"`` runs over
    them; the others stay 0).
    """
    raw = raw.copy()
    # A constant feature's same- and other-class averages are equal up to rounding.
    raw[:, np.ptp(X, axis=0) == 0] = 0.0
    if scaling == "unit":
        return np.clip(raw * _SQRT_2PI, 0.0, 1.0)
    sel = raw if rows is None else raw[rows]
    lo = sel.min(axis=0, initial=np.inf)
    span = sel.max(axis=0, initial=-np.inf) - lo
    flat = span <= 1e-12
    scores = (raw - lo) / np.where(flat, 1.0, span)
    scores[:, flat] = 0.0
    if rows is not None:
        scores[~rows] = 0.0
    return scores


@fill_doc
def raw_discriminative_scores(
    X: Float,
    y: NDArray[np.intp],
    discrete: NDArray[np.bool_] | None = None,
    *,
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> Float:
    """Eq. (3) before normalisation: same-class minus other-class kernel averages.

    For training point ``i`` and feature ``j``,

    .. math:: F_j(x_i) = \\frac{1}{|S_i|} \\sum_{k \\in S_i} K(d^j_{ik})
              - \\frac{1}{|O_i|} \\sum_{k \\in O_i} K(d^j_{ik}),
              \\qquad K(d) = e^{-d^2/2} / \\sqrt{2\\pi},

    with ``S_i`` the other points of ``i``'s class, ``O_i`` the points of every
    other class, and ``d = |x_i(j) - x_k(j)|`` for a continuous feature, the 0/1
    mismatch for a discrete one.

    ``y`` may also hold several labelings of the same points, of shape
    ``(n_labelings, n_samples)``: they are scored together on one kernel matrix
    per feature, and a code ``-1`` leaves a point out of that labeling (neither
    scored nor another point's neighbour).

    %(scores_data)s
    %(scores_resources)s

    Returns
    -------
    scores : ndarray of shape (n_samples, n_features) or (n_labelings, n_samples, n_features)
        Values in ``[-K(0), K(0)]``; a constant feature scores exactly 0, and so
        does a left-out point.

    Notes
    -----
    Per feature with ``U`` distinct values and ``C`` classes: time O(U^2 C + N C),
    memory O(U C) plus one block. At most O(N^2 M) in all, and far less when
    features repeat values (measurements rounded to a few digits, categories).
    """
    y = np.asarray(y, dtype=np.intp)
    n, m = X.shape
    if discrete is None:
        discrete = np.zeros(m, dtype=bool)
    labels = np.atleast_2d(y)
    if n == 0 or m == 0:
        return np.zeros((*y.shape[:-1], n, m))
    n_blocks = min(m, 8 * n_threads(n_jobs))
    edges = np.linspace(0, m, n_blocks + 1).astype(int)
    blocks = map_tasks(
        _feature_block,
        (
            (X, labels, discrete, range(a, b), working_memory)
            for a, b in itertools.pairwise(edges)
            if b > a
        ),
        n_jobs,
    )
    scores = np.concatenate(blocks, axis=2)
    return scores if y.ndim == 2 else scores[0]


@fill_doc
def discriminative_scores(
    X: Float,
    y: NDArray[np.intp],
    discrete: NDArray[np.bool_] | None = None,
    *,
    scaling: str = "unit",
    n_jobs: int | None = None,
    working_memory: float | None = None,
) -> Float:
    """Eq. (3) mapped to [0, 1] by the normalising constant ``eta``.

    %(scores_data)s
    scaling : {"unit", "minmax"}, default="unit"
        ``"unit"``: one constant for all features, ``eta = 1 / K(0)`` (the raw
        score's largest possible value), and negative raw scores (other classes
        at least as close as the own class along the feature) clipped to 0, so
        scores stay comparable across features. ``"minmax"``: a min-max over the
        training points, separately per feature (ALGORITHMS.md section 3); a
        feature whose raw scores span less than ``1e-12`` scores 0.
    %(scores_resources)s

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
    return scale_scores(raw, X, scaling)


def gaussian_kl(mean: Float, variance: Float, ref_mean: float, ref_variance: float) -> Float:
    """``KL(N(mean, variance) || N(ref_mean, ref_variance))``, element-wise.

    .. math:: \\log\\frac{\\sigma^*}{s} + \\frac{s^2 + (\\mu - \\mu^*)^2}{2 (\\sigma^*)^2}
              - \\frac12

    Parameters
    ----------
    mean : array-like
        Means of the first Gaussians.
    variance : array-like
        Their variances (positive), broadcast against ``mean``.
    ref_mean : float
        Mean of the reference Gaussian.
    ref_variance : float
        Variance of the reference Gaussian (positive).

    Returns
    -------
    kl : ndarray
        The divergences, in nats, of the broadcast shape of the inputs.

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
