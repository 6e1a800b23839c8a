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

__all__ = [
    "INSTANCEWISE_DESIGNS",
    "REAL_COLUMN_DESIGNS",
    "instancewise_score",
    "make_instancewise_synthetic",
    "make_real_column_design",
]

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


#: Real tables of the shared data (:func:`localselect.datasets.load_dataset` names) and the
#: columns of their planted rule: ``(switch, (a1, a2), (b1, b2))`` by column name.
REAL_COLUMN_DESIGNS: dict[str, tuple[str, tuple[str, ...], tuple[str, str], tuple[str, str]]] = {
    # 30 tumour measurements: radius, perimeter, area (mean and worst) correlate at 0.99+.
    "wdbc": (
        "wdbc",
        ("texture_mean",),
        ("radius_mean", "smoothness_mean"),
        ("concavity_mean", "fractal_dimension_mean"),
    ),
    # 12 uniform columns; p1 = -(p2 + p3 + p4) exactly, so p2 is determined by the others.
    "electrical_grid": (
        "electrical_grid_stability",
        ("tau1",),
        ("tau2", "g2"),
        ("p2", "g3"),
    ),
    # 14 mixed columns (codes, counts, a 92 % zero capital-gain); education is a
    # non-monotone relabelling of education-num.
    "adult": (
        "pmlb_adult",
        ("age",),
        ("hours-per-week", "sex"),
        ("education-num", "capital-gain"),
    ),
    # 40 columns: 21 smoothly correlated waveform channels and 19 Gaussian noise columns.
    "waveform": ("pmlb_waveform_40", ("X10",), ("X04", "X06"), ("X14", "X16")),
}


def _normal_scores(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """``Phi^{-1}`` of each column's mid-ranks over ``(n + 1)``: the rule's scale."""
    from scipy.special import ndtri
    from scipy.stats import rankdata

    return ndtri(rankdata(X, axis=0) / (X.shape[0] + 1))


@validate_params(
    {
        "name": [StrOptions(set(REAL_COLUMN_DESIGNS))],
        "n_samples": [Interval(Integral, 1, None, closed="left"), None],
        "data_home": "no_validation",
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_real_column_design(
    name: str = "wdbc",
    *,
    n_samples: int | None = None,
    data_home=None,
    random_state: int | np.random.RandomState | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]:
    """A label planted on the real columns of a benchmark table, with each row's relevant columns.

    The columns are a real table's features, unchanged (correlated, skewed,
    discrete); its own label is dropped. With ``u`` the normal scores of the
    columns (``Phi^{-1}`` of mid-ranks), the planted logit follows Syn4's
    switch (:func:`make_instancewise_synthetic`): where the switch column's
    score is negative, ``z = 2 u_a1 u_a2`` (an interaction, as Syn1), else
    ``z = 1.5 (u_b1 + u_b2)`` (main effects), and ``y = 1`` with probability
    ``1 / (1 + e^z)``. A row's truth is its columns, one by one: the switch
    and the two of its regime. A column that correlates with them (radius and
    perimeter in ``wdbc``) is not relevant to any row: this is what tests a
    knockoff filter's validity on real columns.

    Parameters
    ----------
    name : {"wdbc", "electrical_grid", "adult", "waveform"}, default="wdbc"
        The table and its rule (:data:`REAL_COLUMN_DESIGNS`): ``wdbc`` (569 x
        30, near-collinear), ``electrical_grid`` (10,000 x 12, uniform columns,
        one exact linear dependence), ``adult`` (48,842 x 14, codes and
        counts), ``waveform`` (5,000 x 40).
    n_samples : int or None, default=None
        Rows drawn without replacement (at most the table's); None keeps all,
        in the table's order.
    data_home : path or None, default=None
        Directory of the benchmark data (:func:`localselect.datasets.load_dataset`).
    random_state : int, RandomState instance or None, default=None
        Seeds the row subset and then the labels.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The table's columns (float64).
    y : ndarray of shape (n_samples,) of int
        The planted label.
    relevant : ndarray of shape (n_samples, n_features) of bool
        Each row's relevant columns.
    """
    from localselect.datasets._loaders import load_dataset

    table, switch, low, high = REAL_COLUMN_DESIGNS[name]
    frame, _ = load_dataset(table, data_home=data_home, as_frame=True)
    columns = [str(c) for c in frame.columns]
    X = frame.to_numpy(dtype=np.float64)
    rng = check_random_state(random_state)
    if n_samples is not None and n_samples < X.shape[0]:
        X = X[np.sort(rng.permutation(X.shape[0])[:n_samples])]
    U = _normal_scores(X)
    s, a, b = (np.array([columns.index(c) for c in cols]) for cols in (switch, low, high))
    lower = U[:, s[0]] < 0
    z = np.where(lower, 2.0 * U[:, a[0]] * U[:, a[1]], 1.5 * (U[:, b[0]] + U[:, b[1]]))
    y = 1 - rng.binomial(1, expit(z)).astype(np.int64)
    R = np.zeros(X.shape, dtype=bool)
    R[:, s] = True
    R[np.ix_(lower, a)] = True
    R[np.ix_(~lower, b)] = True
    return X, y, R
