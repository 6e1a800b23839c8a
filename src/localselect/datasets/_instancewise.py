"""INVASE's instance-wise feature selection benchmark, Syn1-Syn6.

Yoon, Jordon and van der Schaar (2019), *INVASE: instance-wise variable
selection using neural networks*, ICLR, sec. 5.1. Features are
``x ~ N(0, I_d)`` (d = 11 or 100) and the label is drawn from a logistic model
whose score ``z(x)`` depends on a few features; in Syn4-Syn6 the sign of
``x11`` switches between two of the first three designs, so the relevant
features change from row to row.

The formulas follow the public code (``data_generation.py`` of
jsyoon0823/INVASE) where it differs from the text: Syn3 uses
``-10 sin(0.2 x7) + |x8|`` (the docstring there says ``sin(2 x7)`` and
``2 |x8|``). The code draws the label with ``P(y = 0 | x) = e^z / (1 + e^z)``,
so here ``y = 1`` with probability ``1 / (1 + e^z)``; and ``x11`` is relevant
for every row of Syn4-Syn6 (it decides which features matter).

INVASE built these on the designs of L2X (Chen, Song, Wainwright and Jordan
(2018), *Learning to explain: an information-theoretic perspective on model
interpretation*, ICML, sec. 4.1), but L2X's own code (``make_data.py`` of
Jianbo-Lab/L2X) differs, so results here compare with INVASE's Table 1, not
with L2X's figures. L2X draws d = 10 features; its XOR, orange-skin and
nonlinear-additive designs all use the first columns (``x1 x2``, ``x1..x4``,
``x1..x4``), the additive one with ``-100 sin(0.2 x1)``; its one switch
design draws ``x10`` from N(3, 1) for half the rows and from N(-3, 1) for the
other half, with orange skin on ``x1..x4`` in the first half and the
additive design on ``x5..x8`` in the second. It has no counterpart of Syn4
or Syn5.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
from numpy.typing import NDArray
from scipy.special import expit
from sklearn.utils import check_random_state

from localselect._compat import Interval, StrOptions, validate_params

__all__ = ["INSTANCEWISE_DESIGNS", "instancewise_score", "make_instancewise_synthetic"]

#: Syn1-Syn3: the 0-based columns each design uses. Syn4-Syn6: (design if x11 < 0,
#: design if x11 >= 0).
INSTANCEWISE_DESIGNS: dict[str, tuple[int, ...] | tuple[str, str]] = {
    "syn1": (0, 1),
    "syn2": (2, 3, 4, 5),
    "syn3": (6, 7, 8, 9),
    "syn4": ("syn1", "syn2"),
    "syn5": ("syn1", "syn3"),
    "syn6": ("syn2", "syn3"),
}
_SWITCH = 10  # x11, 0-based


def _base_score(X: NDArray[np.float64], design: str) -> NDArray[np.float64]:
    """The logit ``z(x)`` of Syn1, Syn2 or Syn3 (``P(y = 0) = sigmoid(z)``)."""
    if design == "syn1":
        return X[:, 0] * X[:, 1]
    if design == "syn2":
        return np.sum(X[:, 2:6] ** 2, axis=1) - 4.0
    return -10.0 * np.sin(0.2 * X[:, 6]) + np.abs(X[:, 7]) + X[:, 8] + np.exp(-X[:, 9]) - 2.4


def instancewise_score(X, design: str) -> NDArray[np.float64]:
    """The logit ``z(x)`` of an instance-wise design, ``P(y = 0 | x) = 1 / (1 + e^{-z})``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        At least 10 features (Syn1-Syn3) or 11 (Syn4-Syn6).
    design : {"syn1", "syn2", "syn3", "syn4", "syn5", "syn6"}
        The design.

    Returns
    -------
    z : ndarray of shape (n_samples,)
        The score; the Bayes classifier predicts ``y = 1`` where ``z < 0``.
    """
    X = np.asarray(X, dtype=np.float64)
    parts = INSTANCEWISE_DESIGNS[design]
    if isinstance(parts[0], int):
        return _base_score(X, design)
    low, high = str(parts[0]), str(parts[1])
    return np.where(X[:, _SWITCH] < 0, _base_score(X, low), _base_score(X, high))


def _relevant(X: NDArray[np.float64], design: str) -> NDArray[np.bool_]:
    R = np.zeros(X.shape, dtype=bool)
    parts = INSTANCEWISE_DESIGNS[design]
    if isinstance(parts[0], int):
        R[:, list(parts)] = True
        return R
    low = X[:, _SWITCH] < 0
    for rows, sub in ((low, str(parts[0])), (~low, str(parts[1]))):
        cols = np.array(INSTANCEWISE_DESIGNS[sub], dtype=np.intp)
        R[np.ix_(rows, cols)] = True
    R[:, _SWITCH] = True
    return R


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "design": [StrOptions(set(INSTANCEWISE_DESIGNS))],
        "n_features": [Interval(Integral, 11, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_instancewise_synthetic(
    n_samples: int = 10_000,
    design: str = "syn4",
    *,
    n_features: int = 11,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]:
    """Syn1-Syn6 of INVASE (after L2X's designs), with each row's relevant features.

    INVASE's versions (d = 11 or more, disjoint column blocks, ``-10 sin``, a
    switch on the sign of ``x11 ~ N(0, 1)``); L2X's code differs (module
    docstring).

    Parameters
    ----------
    n_samples : int, default=10_000
        Number of rows (INVASE trains on 10,000 and tests on 10,000).
    design : {"syn1", "syn2", "syn3", "syn4", "syn5", "syn6"}, default="syn4"
        ``syn1``: ``z = x1 x2``; ``syn2``: ``z = x3^2 + ... + x6^2 - 4``;
        ``syn3``: ``z = -10 sin(0.2 x7) + |x8| + x9 + exp(-x10) - 2.4``;
        ``syn4``/``syn5``/``syn6``: Syn1/Syn1/Syn2 where ``x11 < 0``, else
        Syn2/Syn3/Syn3.
    n_features : int, default=11
        Number of N(0, 1) features, at least 11 (INVASE uses 11 and 100);
        the columns after the first eleven are irrelevant everywhere.
    random_state : int, RandomState instance or None, default=None
        Seeds the draw of ``X`` and then of ``y``. Train and test sets should
        come from different seeds (the public code reuses seed 0 for both).

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Standard normal features.
    y : ndarray of shape (n_samples,) of int
        ``1`` with probability ``1 / (1 + exp(z))`` (column 1 of the public
        code's one-hot labels), else ``0``.
    relevant : ndarray of shape (n_samples, n_features) of bool
        The ground truth of ``generate_ground_truth``: the design's columns,
        plus ``x11`` for every row of Syn4-Syn6.

    Examples
    --------
    >>> from localselect.datasets import make_instancewise_synthetic
    >>> X, y, relevant = make_instancewise_synthetic(4, "syn4", random_state=0)
    >>> X.shape, relevant.sum(axis=1).tolist()
    ((4, 11), [5, 5, 3, 5])
    """
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    z = instancewise_score(X, design)
    y = 1 - rng.binomial(1, expit(z)).astype(np.int64)
    return X, y, _relevant(X, design)
