"""Regression designs with known relevant features: Friedman #1-#3, a switch, LSPIN's designs.

* :func:`make_friedman_synthetic` -- scikit-learn's ``make_friedman1``,
  ``make_friedman2`` and ``make_friedman3`` (Friedman 1991; Breiman 1996)
  with ``n_noise`` added U(0, 1) columns that ``y`` does not depend on.
* :func:`make_switch_regression` -- ours: the relevant columns of the
  regression function change with the sign of ``x1``, so every row has its
  own ground truth (the regression counterpart of INVASE's Syn4-Syn6).
* :func:`make_lspin_synthetic` -- the synthetic regressions of Yang, Lindenbaum
  and Kluger (2022), *Locally sparse neural networks for tabular biomedical
  data*, ICML, as in the notebooks ``Demo0.ipynb``, ``Demo1.ipynb`` and
  ``Demo2.ipynb`` of the public code (jcyang34/lspin, commit 015a013), with
  the per-row ground truth stated there.

Every generator returns ``(X, y, relevant)``, ``relevant[i, j]`` True when
feature ``j`` matters for row ``i``, like
:func:`~localselect.datasets.make_instancewise_synthetic`.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from numpy.typing import NDArray
from sklearn.datasets import make_friedman1, make_friedman2, make_friedman3
from sklearn.utils import check_random_state

from localselect._compat import Interval, StrOptions, validate_params

__all__ = [
    "FRIEDMAN_NOISE",
    "LSPIN_DESIGNS",
    "make_friedman_synthetic",
    "make_lspin_synthetic",
    "make_switch_regression",
]

#: Default noise standard deviation of Friedman #1-#3: 1 (Friedman 1991) and the levels
#: Breiman (1996, "Bagging predictors") chose for a 3:1 signal-to-noise ratio.
FRIEDMAN_NOISE = {1: 1.0, 2: 125.0, 3: 0.1}
_FRIEDMAN_RELEVANT = {1: 5, 2: 4, 3: 4}

#: LSPIN's designs: name -> (notebook, default number of rows).
LSPIN_DESIGNS = {"linear": ("Demo0", 1000), "linear-shared": ("Demo1", 600), "e5": ("Demo2", 1500)}

_Out = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.bool_]]


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "design": [Interval(Integral, 1, 3, closed="both")],
        "n_noise": [Interval(Integral, 0, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left"), None],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_friedman_synthetic(
    n_samples: int = 1000,
    design: int = 1,
    *,
    n_noise: int = 20,
    noise: float | None = None,
    random_state: int | np.random.RandomState | None = None,
) -> _Out:
    """Friedman #1, #2 or #3 with ``n_noise`` irrelevant U(0, 1) columns appended.

    #1: ``y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + e`` on
    U(0, 1) features (5 relevant; the noise columns are scikit-learn's
    ``n_features - 5`` extra columns). #2: ``y = sqrt(x1^2 + (x2 x3 - 1 /
    (x2 x4))^2) + e`` and #3: ``y = arctan((x2 x3 - 1 / (x2 x4)) / x1) + e`` on
    x1 ~ U(0, 100), x2 ~ U(40 pi, 560 pi), x3 ~ U(0, 1), x4 ~ U(1, 11) (4
    relevant), the noise columns drawn after them from the same generator.
    The features of #2 and #3 have different ranges: standardise them for
    the distance-based methods.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    design : {1, 2, 3}, default=1
        Which of Friedman's functions.
    n_noise : int, default=20
        Irrelevant U(0, 1) columns after the relevant ones.
    noise : float or None, default=None
        Standard deviation of the Gaussian noise ``e``; None: 1 for #1
        (Friedman 1991), 125 for #2 and 0.1 for #3 (Breiman 1996, a 3:1
        signal-to-noise ratio), see :data:`FRIEDMAN_NOISE`.
    random_state : int, RandomState instance or None, default=None
        Seeds scikit-learn's generator, then the noise columns.

    Returns
    -------
    X : ndarray of shape (n_samples, 5 + n_noise) or (n_samples, 4 + n_noise)
        The relevant columns first.
    y : ndarray of shape (n_samples,)
        The target.
    relevant : ndarray of shape (n_samples, n_features) of bool
        The first 5 (#1) or 4 (#2, #3) columns, for every row.

    References
    ----------
    J. H. Friedman, "Multivariate adaptive regression splines", The Annals of
    Statistics 19(1), 1991. L. Breiman, "Bagging predictors", Machine Learning
    24, 1996.

    Examples
    --------
    >>> from localselect.datasets import make_friedman_synthetic
    >>> X, y, relevant = make_friedman_synthetic(50, 2, n_noise=3, random_state=0)
    >>> X.shape, relevant[0].tolist()
    ((50, 7), [True, True, True, True, False, False, False])
    """
    rng = check_random_state(random_state)
    sd = FRIEDMAN_NOISE[design] if noise is None else float(noise)
    n_relevant = _FRIEDMAN_RELEVANT[design]
    if design == 1:
        X, y = make_friedman1(n_samples, n_features=5 + n_noise, noise=sd, random_state=rng)
    else:
        maker = make_friedman2 if design == 2 else make_friedman3
        X, y = maker(n_samples, noise=sd, random_state=rng)
        X = np.hstack([X, rng.uniform(size=(n_samples, n_noise))])
    relevant = np.zeros(X.shape, dtype=bool)
    relevant[:, :n_relevant] = True
    return X.astype(np.float64), y.astype(np.float64), relevant


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 5, None, closed="left")],
        "noise": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_switch_regression(
    n_samples: int = 1000,
    *,
    n_features: int = 10,
    noise: float = 0.5,
    random_state: int | np.random.RandomState | None = None,
) -> _Out:
    """A regression whose relevant columns switch with the sign of ``x1`` (ours).

    ``x ~ N(0, I_d)`` and ``y = 2 x2 + 2 x3 + e`` where ``x1 < 0``,
    ``y = 2 x4 - 2 x5 + e`` where ``x1 >= 0``, ``e ~ N(0, noise^2)``. Row
    ``i``'s relevant features are ``x1`` (it decides which function applies;
    relevant for every row, as ``x11`` in INVASE's Syn4-Syn6) and
    ``{x2, x3}`` or ``{x4, x5}``; ``x6 .. xd`` are irrelevant everywhere.
    Globally ``x2 .. x5`` all matter and a single linear model explains
    only part of ``y``: a per-row selector should find the switch.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=10
        Number of features, at least 5.
    noise : float, default=0.5
        Standard deviation of the Gaussian noise (the signal's is about 2.8).
    random_state : int, RandomState instance or None, default=None
        Seeds ``X``, then the noise.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Standard normal features.
    y : ndarray of shape (n_samples,)
        The target.
    relevant : ndarray of shape (n_samples, n_features) of bool
        ``x1`` and the two columns of the row's function.

    Examples
    --------
    >>> from localselect.datasets import make_switch_regression
    >>> X, y, relevant = make_switch_regression(4, n_features=6, random_state=2)
    >>> relevant.astype(int).tolist()
    [[1, 1, 1, 0, 0, 0], [1, 0, 0, 1, 1, 0], [1, 0, 0, 1, 1, 0], [1, 1, 1, 0, 0, 0]]
    """
    rng = check_random_state(random_state)
    X = rng.standard_normal((n_samples, n_features))
    low = X[:, 0] < 0
    signal = np.where(low, 2 * X[:, 1] + 2 * X[:, 2], 2 * X[:, 3] - 2 * X[:, 4])
    y = signal + noise * rng.standard_normal(n_samples)
    relevant = np.zeros(X.shape, dtype=bool)
    relevant[:, 0] = True
    relevant[:, 1:3] = low[:, None]
    relevant[:, 3:5] = ~low[:, None]
    return X, y, relevant


def _lspin_linear(sizes, rng, shared: bool):
    """Demo0 (``shared=False``) and Demo1: two Gaussian groups, one linear function each."""
    d = 5 if shared else 4
    first = rng.normal(1.0, 0.5, size=(sizes[0], d))
    second = rng.normal(-1.0, 0.5, size=(sizes[1], d))
    if shared:
        y1 = -2 * first[:, 0] + first[:, 1] - 0.5 * first[:, 2]
        y2 = -0.5 * second[:, 2] + second[:, 3] - 2 * second[:, 4]
        truth = ([0, 1, 2], [2, 3, 4])
    else:
        y1 = -2 * first[:, 0] + first[:, 1]
        y2 = second[:, 2] - 2 * second[:, 3]
        truth = ([0, 1], [2, 3])
    y = np.r_[y1, y2]
    y = (y - y.min()) / (y.max() - y.min())  # the notebooks' min-max scaling
    relevant = np.zeros((sum(sizes), d), dtype=bool)
    relevant[: sizes[0], truth[0]] = True
    relevant[sizes[0] :, truth[1]] = True
    return np.vstack([first, second]), y, relevant


def _lspin_e5(sizes, rng):
    """Demo2 (E5): 20 signs and a group column in {-1, 0, 1} choosing the product."""
    n = sum(sizes)
    X = np.sign(rng.standard_normal((n, 20)))
    group = np.repeat([-1.0, 0.0, 1.0], sizes)
    first = np.repeat([0, 1, 2], sizes)  # the product x_{g+1} x_{g+2}, 0-based g
    rows = np.arange(n)
    y = X[rows, first] * X[rows, first + 1] + 2 * group
    relevant = np.zeros((n, 21), dtype=bool)
    relevant[rows, first] = True
    relevant[rows, first + 1] = True
    relevant[:, 20] = True
    return np.c_[X, group], y, relevant


@validate_params(
    {
        "n_samples": [Interval(Integral, 3, None, closed="left"), None],
        "design": [StrOptions(set(LSPIN_DESIGNS))],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_lspin_synthetic(
    n_samples: int | None = None,
    design: str = "linear",
    *,
    random_state: int | np.random.RandomState | None = None,
) -> _Out:
    """Draw LSPIN's synthetic regressions (Yang, Lindenbaum and Kluger 2022), with per-row truth.

    * ``"linear"`` (``Demo0.ipynb``): two groups of rows, ``x ~ N(1, 0.5^2
      I_4)`` with ``y = -2 x1 + x2`` and ``x ~ N(-1, 0.5^2 I_4)`` with ``y =
      x3 - 2 x4``; truth ``{x1, x2}`` and ``{x3, x4}``.
    * ``"linear-shared"`` (``Demo1.ipynb``): five features, ``y = -2 x1 +
      x2 - 0.5 x3`` in the first group and ``y = -0.5 x3 + x4 - 2 x5`` in the
      second; truth ``{x1, x2, x3}`` and ``{x3, x4, x5}`` (``x3`` shared).
    * ``"e5"`` (``Demo2.ipynb``): ``x1 .. x20`` random signs (+-1) and
      ``x21`` a group label in {-1, 0, 1} (a third of the rows each);
      ``y = x1 x2 + 2 x21``, ``x2 x3 + 2 x21``, ``x3 x4 + 2 x21`` in the
      three groups; truth the two factors of the row's product and ``x21``.

    The linear designs min-max scale ``y`` to [0, 1] as the notebooks do;
    none adds noise (nor do the notebooks). Rows come in a random order
    (the notebooks shuffle before splitting). Where the notebooks differ
    from this: ``Demo0`` draws from NumPy's global generator despite
    creating a seeded one; here ``random_state`` seeds everything.

    Parameters
    ----------
    n_samples : int or None, default=None
        Number of rows, split evenly between the groups (the first groups
        get the remainder); None: the notebook's, 1000 (``"linear"``), 600
        (``"linear-shared"``) or 1500 (``"e5"``, its training set).
    design : {"linear", "linear-shared", "e5"}, default="linear"
        The notebook's design.
    random_state : int, RandomState instance or None, default=None
        Seeds the draw and the row order.

    Returns
    -------
    X : ndarray of shape (n_samples, 4), (n_samples, 5) or (n_samples, 21)
        The features (E5: the 20 signs, then the group column ``x21``).
    y : ndarray of shape (n_samples,)
        The target.
    relevant : ndarray of shape (n_samples, n_features) of bool
        The notebooks' ground-truth gate matrix.

    References
    ----------
    J. Yang, O. Lindenbaum and Y. Kluger, "Locally sparse neural networks for
    tabular biomedical data", ICML 2022 (code: github.com/jcyang34/lspin).

    Examples
    --------
    >>> from localselect.datasets import make_lspin_synthetic
    >>> X, y, relevant = make_lspin_synthetic(design="e5", random_state=0)
    >>> X.shape, sorted(set(relevant.sum(axis=1).tolist()))
    ((1500, 21), [3])
    """
    rng = check_random_state(random_state)
    n = LSPIN_DESIGNS[design][1] if n_samples is None else int(n_samples)
    n_groups = 3 if design == "e5" else 2
    sizes = [len(part) for part in np.array_split(np.arange(n), n_groups)]
    if design == "e5":
        X, y, relevant = _lspin_e5(sizes, rng)
    else:
        X, y, relevant = _lspin_linear(sizes, rng, shared=design == "linear-shared")
    order = rng.permutation(n)
    return X[order], y[order], relevant[order]
