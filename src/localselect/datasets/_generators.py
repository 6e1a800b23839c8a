"""Synthetic data sets of the papers, returned with their ground truth.

Each generator returns ``(X, y, relevant)`` where ``relevant`` is a bool array
of shape ``(n_samples, n_features)``: ``relevant[i, j]`` is True when feature
``j`` is one of the features the design makes relevant *for sample* ``i``.
That is the reference a local selector's ``get_local_support`` is scored
against (precision and recall per sample, as in Pichara and Soto, sec. 5.6, or
the "percentage of correct feature selection" of Armanfard et al., Fig. 4).

All randomness comes from one ``numpy.random.RandomState`` obtained with
:func:`sklearn.utils.check_random_state`, so ``random_state`` fixes the output.
"""

from __future__ import annotations

import itertools
import math
from numbers import Integral, Real
from typing import Literal, overload

import numpy as np
from numpy.typing import NDArray
from sklearn.utils import check_random_state

from localselect._compat import Interval, validate_params
from localselect._docstrings import fill_doc

__all__ = [
    "make_immigrate_synthetic",
    "make_lfs_synthetic",
    "make_subspace_classification",
]

RandomStateLike = int | np.random.RandomState | None

# Above this many candidate subspaces they are sampled by redrawing duplicates
# instead of being enumerated (see ``_draw_subspaces``).
_MAX_ENUMERATED_SUBSPACES = 20_000


# --------------------------------------------------------------------------- #
# LFS (Armanfard, Reilly and Komeili 2016, sec. 4 and 4.2, Fig. 3 and 4)
# --------------------------------------------------------------------------- #


@overload
def make_lfs_synthetic(
    n_samples: int = ...,
    n_irrelevant: int = ...,
    *,
    class_sep: float = ...,
    shuffle: bool = ...,
    return_subclass: Literal[False] = ...,
    random_state: RandomStateLike = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]: ...


@overload
def make_lfs_synthetic(
    n_samples: int = ...,
    n_irrelevant: int = ...,
    *,
    class_sep: float = ...,
    shuffle: bool = ...,
    return_subclass: Literal[True],
    random_state: RandomStateLike = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]: ...


@validate_params(
    {
        "n_samples": [Interval(Integral, 4, None, closed="left")],
        "n_irrelevant": [Interval(Integral, 0, None, closed="left")],
        "class_sep": [Interval(Real, 0, None, closed="left")],
        "shuffle": ["boolean"],
        "return_subclass": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def make_lfs_synthetic(
    n_samples: int = 100,
    n_irrelevant: int = 100,
    *,
    class_sep: float = 4.0,
    shuffle: bool = True,
    return_subclass: bool = False,
    random_state: RandomStateLike = None,
) -> (
    tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]
    | tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]
):
    """Two-class problem whose relevant features change across the sample space.

    The synthetic data set of the LFS paper (Armanfard et al. 2016, sec. 4,
    Fig. 3; used for the correct-selection curves of sec. 4.2, Fig. 4). Class
    :math:`Y_1` is split into two disjoint subclasses, class :math:`Y_2` is one
    compact cluster, and all three are unit-variance Gaussians in the relevant
    features :math:`x_1, x_2`:

    ========  =====  ===================  ==================  ====================
    subclass  label  paper symbol         centre (x1, x2)     expected features
    ========  =====  ===================  ==================  ====================
    0         0      '+' (in Y1)          (class_sep, 0)      x1
    1         0      '◊' (in Y1)          (0, class_sep)      x2
    2         1      'o' (class Y2)       (0, 0)              x1 and x2
    ========  =====  ===================  ==================  ====================

    Subclass '+' differs from :math:`Y_2` in :math:`x_1` only, so :math:`x_1`
    alone discriminates it; subclass '◊' needs only :math:`x_2`; :math:`Y_2`,
    facing both subclasses, needs both (sec. 4.2). ``n_irrelevant`` features
    drawn i.i.d. from N(0, 1) are appended, and every column is then replaced
    by its z-score, as in the paper (sec. 4).

    Parameters
    ----------
    n_samples : int, default=100
        Number of samples, at least 4. Half (rounded down) belong to
        :math:`Y_1`, split evenly between its two subclasses (the second gets
        the odd one); the rest belong to :math:`Y_2`.
    n_irrelevant : int, default=100
        Number of irrelevant N(0, 1) features appended after :math:`x_1,
        x_2`. The paper sweeps 1 to 30,000 (Fig. 4).
    class_sep : float, default=4.0
        Distance from the centre of :math:`Y_2` to the centre of each
        subclass of :math:`Y_1`, in units of the (unit) standard deviation.
        The paper gives the geometry only as a figure; see Notes.
    shuffle : bool, default=True
        Shuffle the samples. If False they come ordered by subclass.
    return_subclass : bool, default=False
        Also return the subclass of each sample.
    random_state : int, RandomState instance or None, default=None
        Seed or generator for all random draws.

    Returns
    -------
    X : ndarray of shape (n_samples, 2 + n_irrelevant)
        Z-scored data; columns 0 and 1 are :math:`x_1` and :math:`x_2`.
    y : ndarray of shape (n_samples,)
        Class labels: 0 for :math:`Y_1`, 1 for :math:`Y_2`.
    relevant : ndarray of shape (n_samples, 2 + n_irrelevant), dtype=bool
        Expected features per sample: column 0 for subclass '+', column 1 for
        '◊', both for :math:`Y_2`; irrelevant columns are always False.
    subclass : ndarray of shape (n_samples,)
        Only when ``return_subclass=True``: 0 for '+', 1 for '◊', 2 for
        :math:`Y_2` (see the table above).

    See Also
    --------
    make_immigrate_synthetic : Interacting features with label noise.
    make_subspace_classification : Samples drawn in random feature subspaces.

    Notes
    -----
    The paper states the distributions (unit-variance normals, irrelevant
    features N(0, 1), z-scores) and which features discriminate each subclass,
    but gives the cluster positions only in Fig. 3. The "L" layout above is
    the simplest one with exactly the stated discrimination pattern; with the
    default ``class_sep=4`` a single feature separates '+' (or '◊') from
    :math:`Y_2` with a Bayes error of about 2.3 %. The class sizes are not
    given either; we use balanced classes.

    The draws are ordered so that, for a fixed ``random_state``, the relevant
    columns, ``y`` and the sample order do not depend on ``n_irrelevant``: a
    sweep over ``n_irrelevant`` (as in Fig. 4) adds noise to the same data.

    The z-scores use the population standard deviation (``ddof=0``).

    %(references_lfs)s

    Examples
    --------
    >>> from localselect.datasets import make_lfs_synthetic
    >>> X, y, relevant = make_lfs_synthetic(8, n_irrelevant=3, random_state=0)
    >>> X.shape, relevant.shape
    ((8, 5), (8, 5))
    >>> int(y.sum())
    4
    >>> bool(relevant[y == 1, :2].all())
    True
    """
    rng = check_random_state(random_state)
    n_y1 = n_samples // 2
    counts = [n_y1 // 2, n_y1 - n_y1 // 2, n_samples - n_y1]
    subclass = np.repeat(np.arange(3, dtype=np.int64), counts)
    centers = np.array([[class_sep, 0.0], [0.0, class_sep], [0.0, 0.0]])

    # Draw order: relevant features, then the permutation, then the
    # irrelevant block, so n_irrelevant does not change the rest.
    X_rel = centers[subclass] + rng.standard_normal((n_samples, 2))
    if shuffle:
        order = rng.permutation(n_samples)
        X_rel, subclass = X_rel[order], subclass[order]
    X_irr = rng.standard_normal((n_samples, n_irrelevant))
    X = _zscore(np.hstack([X_rel, X_irr]))

    y = (subclass == 2).astype(np.int64)
    relevant = np.zeros(X.shape, dtype=bool)
    relevant[:, 0] = subclass != 1
    relevant[:, 1] = subclass != 0
    if return_subclass:
        return X, y, relevant, subclass
    return X, y, relevant


def _zscore(X: NDArray[np.float64]) -> NDArray[np.float64]:
    """Column z-scores with the population standard deviation."""
    std = X.std(axis=0)
    std[std == 0.0] = 1.0  # a constant column stays 0 rather than NaN
    return (X - X.mean(axis=0)) / std


# --------------------------------------------------------------------------- #
# IMMIGRATE (Zhao, Hong and Liu, sec. 4.1, Fig. 2 and 3)
# --------------------------------------------------------------------------- #

_IMMIGRATE_MEANS = np.array([[4.0, 2.0], [6.0, 0.0]])
_IMMIGRATE_COV = np.array([[1.0, 0.5], [0.5, 1.0]])
_IMMIGRATE_NOISE_MEANS = np.array([[8.0, -2.0], [2.0, 4.0]])
_IMMIGRATE_NOISE_COV = np.array([[8.0, 4.0], [4.0, 8.0]])


@overload
def make_immigrate_synthetic(
    n_per_class: int = ...,
    noise_level: float = ...,
    *,
    n_noise_features: int = ...,
    shuffle: bool = ...,
    return_noise: Literal[False] = ...,
    random_state: RandomStateLike = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]: ...


@overload
def make_immigrate_synthetic(
    n_per_class: int = ...,
    noise_level: float = ...,
    *,
    n_noise_features: int = ...,
    shuffle: bool = ...,
    return_noise: Literal[True],
    random_state: RandomStateLike = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]]: ...


@validate_params(
    {
        "n_per_class": [Interval(Integral, 2, None, closed="left")],
        "noise_level": [Interval(Real, 0, 1, closed="left")],
        "n_noise_features": [Interval(Integral, 0, None, closed="left")],
        "shuffle": ["boolean"],
        "return_noise": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def make_immigrate_synthetic(
    n_per_class: int = 100,
    noise_level: float = 0.1,
    *,
    n_noise_features: int = 0,
    shuffle: bool = True,
    return_noise: bool = False,
    random_state: RandomStateLike = None,
) -> (
    tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]
    | tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]]
):
    """Two interacting Gaussian features with class-flipping noise.

    The synthetic data set of the IMMIGRATE paper (Zhao, Hong and Liu, sec.
    4.1, Fig. 2), built to test the detection of the interaction between
    features 1 and 2:

    - class 1 (label 0): N((4, 2), C), class 2 (label 1): N((6, 0), C), with
      C = [[1, 0.5], [0.5, 1]];
    - noise of class 1: N((8, -2), 8 C), noise of class 2: N((2, 4), 8 C),
      i.e. covariance [[8, 4], [4, 8]].

    The classes are separated by a line of slope 1 (``x2 - x1 = -4``); each
    class's noise lies on the *other* class's side of it, so the noise acts
    as label noise that blurs the interaction.

    Parameters
    ----------
    n_per_class : int, default=100
        Number of samples per class, at least 2 (the paper uses 100).
    noise_level : float, default=0.1
        Fraction of each class's samples drawn from that class's noise
        distribution, in [0, 1). ``round(noise_level * n_per_class)`` samples
        of each class (ties rounded up) are noise. The paper sweeps 0.05 to
        0.5 in steps of 0.05 (Fig. 3) and plots 0.1 (Fig. 2).
    n_noise_features : int, default=0
        Number of extra irrelevant N(0, 1) features appended after the two of
        the paper (not in the paper; useful to check that interaction weights
        stand out from noise features).
    shuffle : bool, default=True
        Shuffle the samples. If False they come ordered by class, the noise
        samples of each class first.
    return_noise : bool, default=False
        Also return which samples were drawn from a noise distribution.
    random_state : int, RandomState instance or None, default=None
        Seed or generator for all random draws.

    Returns
    -------
    X : ndarray of shape (2 * n_per_class, 2 + n_noise_features)
        The data; columns 0 and 1 are the paper's features 1 and 2.
    y : ndarray of shape (2 * n_per_class,)
        Class labels: 0 for the paper's class 1, 1 for class 2.
    relevant : ndarray of shape (2 * n_per_class, 2 + n_noise_features), dtype=bool
        True in columns 0 and 1 for every sample (the signal is the
        interaction of the two features), False in the appended noise
        features.
    is_noise : ndarray of shape (2 * n_per_class,), dtype=bool
        Only when ``return_noise=True``: True for samples drawn from a noise
        distribution.

    See Also
    --------
    make_lfs_synthetic : Relevant features that change across the space.
    make_subspace_classification : Samples drawn in random feature subspaces.

    Notes
    -----
    The paper says noise is "added" to each class and shows a data set
    "containing 10% samples from the noise distributions" (Fig. 2). We read
    the noise level as the fraction of each class, of fixed size
    ``n_per_class``, that comes from the noise distribution; the noise
    samples keep the label of the class they were added to.

    The draws are ordered so that, for a fixed ``random_state``, columns 0
    and 1, ``y`` and the sample order do not depend on ``n_noise_features``.

    References
    ----------
    .. [1] R. Zhao, P. Hong and J. S. Liu, "IMMIGRATE: A margin-based feature
       selection method with interaction terms", Entropy, 22(3), 291, 2020.

    Examples
    --------
    >>> from localselect.datasets import make_immigrate_synthetic
    >>> X, y, relevant, is_noise = make_immigrate_synthetic(
    ...     20, noise_level=0.1, return_noise=True, random_state=0)
    >>> X.shape, int(is_noise.sum())
    ((40, 2), 4)
    >>> bool(relevant.all())
    True
    """
    rng = check_random_state(random_state)
    n_samples = 2 * n_per_class
    n_noise = math.floor(noise_level * n_per_class + 0.5)
    y = np.repeat(np.arange(2, dtype=np.int64), n_per_class)
    is_noise = np.tile(np.arange(n_per_class) < n_noise, 2)

    means = np.where(is_noise[:, None], _IMMIGRATE_NOISE_MEANS[y], _IMMIGRATE_MEANS[y])
    chol = np.stack([np.linalg.cholesky(_IMMIGRATE_COV), np.linalg.cholesky(_IMMIGRATE_NOISE_COV)])
    Z = rng.standard_normal((n_samples, 2))
    X_rel = means + np.einsum("nij,nj->ni", chol[is_noise.astype(np.intp)], Z)
    if shuffle:
        order = rng.permutation(n_samples)
        X_rel, y, is_noise = X_rel[order], y[order], is_noise[order]
    X = np.hstack([X_rel, rng.standard_normal((n_samples, n_noise_features))])

    relevant = np.zeros(X.shape, dtype=bool)
    relevant[:, :2] = True
    if return_noise:
        return X, y, relevant, is_noise
    return X, y, relevant


# --------------------------------------------------------------------------- #
# GP local selection (Pichara and Soto, sec. 5.1, Algorithm 3)
# --------------------------------------------------------------------------- #


@overload
def make_subspace_classification(
    n_samples: int = ...,
    n_features: int = ...,
    n_classes: int = ...,
    n_subspaces: int = ...,
    *,
    subspace_size: int | tuple[int, int] | None = ...,
    cluster_std: float = ...,
    empty_subspace: bool = ...,
    shared_distributions: bool = ...,
    return_subspace: Literal[False] = ...,
    random_state: RandomStateLike = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]: ...


@overload
def make_subspace_classification(
    n_samples: int = ...,
    n_features: int = ...,
    n_classes: int = ...,
    n_subspaces: int = ...,
    *,
    subspace_size: int | tuple[int, int] | None = ...,
    cluster_std: float = ...,
    empty_subspace: bool = ...,
    shared_distributions: bool = ...,
    return_subspace: Literal[True],
    random_state: RandomStateLike = ...,
) -> tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]: ...


@validate_params(
    {
        "n_samples": [Interval(Integral, 1, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left")],
        "n_classes": [Interval(Integral, 2, None, closed="left")],
        "n_subspaces": [Interval(Integral, 1, None, closed="left")],
        "subspace_size": [Interval(Integral, 1, None, closed="left"), tuple, None],
        "cluster_std": [Interval(Real, 0, None, closed="left")],
        "empty_subspace": ["boolean"],
        "shared_distributions": ["boolean"],
        "return_subspace": ["boolean"],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
@fill_doc
def make_subspace_classification(
    n_samples: int = 500,
    n_features: int = 50,
    n_classes: int = 4,
    n_subspaces: int = 6,
    *,
    subspace_size: int | tuple[int, int] | None = None,
    cluster_std: float = 0.05,
    empty_subspace: bool = True,
    shared_distributions: bool = True,
    return_subspace: bool = False,
    random_state: RandomStateLike = None,
) -> (
    tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_]]
    | tuple[NDArray[np.float64], NDArray[np.int64], NDArray[np.bool_], NDArray[np.int64]]
):
    """Make classes that live in random feature subspaces, with uniform noise elsewhere.

    Algorithm 3 of Pichara and Soto (sec. 5.1), the synthetic data of their
    GP local feature selection experiments (500 samples, 50 features, 4
    classes, 6 subspaces: the defaults here):

    1. Draw a set :math:`B = \\{S_1, \\dots, S_m\\}` of ``n_subspaces``
       distinct random feature subsets.
    2. Draw a normal distribution :math:`G_j` for each feature :math:`j` of
       the subspaces.
    3. Let :math:`B' = B \\cup \\{S_\\emptyset\\}` and associate a class
       :math:`c(S)` with each element of :math:`B'`.
    4. For each sample, pick :math:`S_p \\in B'` at random and label the
       sample :math:`c(S_p)`; draw feature :math:`j` from :math:`G_j` if
       :math:`j \\in S_p`, else from a uniform distribution (so a sample of
       :math:`S_\\emptyset` is uniform in every feature).

    Parameters
    ----------
    n_samples : int, default=500
        Number of samples. At least the number of elements of :math:`B'`
        (``n_subspaces + 1``, or ``n_subspaces`` without the empty subspace),
        since each element generates at least one sample.
    n_features : int, default=50
        Number of features :math:`d`.
    n_classes : int, default=4
        Number of classes :math:`c`, at least 2.
    n_subspaces : int, default=6
        Number of subspaces :math:`m = |B|`, at least ``n_classes`` (each
        class gets at least one subspace) and at most the number of distinct
        feature subsets whose size is allowed by ``subspace_size``.
    subspace_size : int or tuple of (int, int), default=None
        Size of each subspace: an int fixes it, a pair ``(low, high)`` draws
        it uniformly from ``low, ..., high`` (inclusive). None means
        ``(min(2, n_features), min(10, n_features))``. Sizes must lie in
        ``[1, n_features]``.
    cluster_std : float, default=0.05
        Standard deviation of every :math:`G_j`. The uniform distribution is
        on [0, 1) and the means of the :math:`G_j` are drawn uniformly on
        [0, 1).
    empty_subspace : bool, default=True
        Include :math:`S_\\emptyset` (pure uniform-noise samples) in
        :math:`B'`, as Algorithm 3 does. If False, every sample comes from a
        subspace of :math:`B`.
    shared_distributions : bool, default=True
        If True, as written in Algorithm 3, one :math:`G_j` per feature is
        shared by all subspaces that contain feature :math:`j`. If False,
        each subspace draws its own mean for each of its features.
    return_subspace : bool, default=False
        Also return the index of the subspace that generated each sample.
    random_state : int, RandomState instance or None, default=None
        Seed or generator for all random draws.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The data.
    y : ndarray of shape (n_samples,)
        Class labels in ``0, ..., n_classes - 1``.
    relevant : ndarray of shape (n_samples, n_features), dtype=bool
        ``relevant[i]`` marks the features of the subspace that generated
        sample ``i``; all False for samples of :math:`S_\\emptyset`.
    subspace : ndarray of shape (n_samples,)
        Only when ``return_subspace=True``: index in ``0, ..., m - 1`` of the
        subspace of each sample, -1 for :math:`S_\\emptyset`.

    See Also
    --------
    make_lfs_synthetic : Two relevant features whose use varies by subclass.
    make_immigrate_synthetic : Interacting features with label noise.

    Notes
    -----
    Algorithm 3 leaves several choices open; ours are:

    - the uniform distribution is on [0, 1) in every feature, the means of
      the :math:`G_j` are uniform on [0, 1) and their standard deviation is
      ``cluster_std``;
    - subspace sizes are uniform on the ``subspace_size`` range and, given
      the size, the features are a uniform random subset; a subset drawn
      twice is redrawn, so the subspaces are distinct (identical subspaces
      with different classes could not be told apart);
    - classes: the subspaces of :math:`B` receive every class at least once
      (a random permutation of all classes, the remaining subspaces a class
      drawn uniformly), and :math:`S_\\emptyset` a class drawn uniformly;
    - sample assignment: Algorithm 3 picks the element of :math:`B'` for
      each sample uniformly and independently. We make every element
      generate at least one sample (one per element, the remaining samples
      uniformly and independently, then shuffled), so each class appears.

    Time and memory are O(n_samples * n_features) once the subspaces are
    drawn.

    %(references_gp)s

    Examples
    --------
    >>> from localselect.datasets import make_subspace_classification
    >>> X, y, relevant, subspace = make_subspace_classification(
    ...     60, n_features=8, n_classes=2, n_subspaces=3, return_subspace=True,
    ...     random_state=0)
    >>> X.shape, relevant.shape
    ((60, 8), (60, 8))
    >>> bool(relevant[subspace == -1].any())
    False
    """
    low, high = _subspace_size_range(subspace_size, n_features)
    capacity = sum(math.comb(n_features, k) for k in range(low, high + 1))
    if n_subspaces > capacity:
        raise ValueError(
            f"n_subspaces={n_subspaces} distinct subspaces of size {low} to {high} do not "
            f"exist among n_features={n_features} features (at most {capacity})."
        )
    if n_subspaces < n_classes:
        raise ValueError(
            f"n_subspaces={n_subspaces} must be at least n_classes={n_classes}, so that "
            "every class has a subspace."
        )
    n_components = n_subspaces + int(empty_subspace)
    if n_samples < n_components:
        raise ValueError(
            f"n_samples={n_samples} must be at least the number of subspaces"
            f"{' plus the empty one' if empty_subspace else ''} ({n_components})."
        )

    rng = check_random_state(random_state)
    masks = _draw_subspaces(rng, n_subspaces, n_features, low, high)
    if shared_distributions:
        means = np.broadcast_to(rng.uniform(size=n_features), (n_subspaces, n_features))
    else:
        means = rng.uniform(size=(n_subspaces, n_features))
    subspace_class = rng.permutation(
        np.concatenate(
            [np.arange(n_classes), rng.randint(n_classes, size=n_subspaces - n_classes)]
        )
    ).astype(np.int64)

    component = np.concatenate(
        [np.arange(n_components), rng.randint(n_components, size=n_samples - n_components)]
    )
    component = rng.permutation(component).astype(np.int64)
    if empty_subspace:
        empty_class = rng.randint(n_classes)
        component[component == n_subspaces] = -1
        # Row -1 of the padded tables is the empty subspace.
        masks = np.vstack([masks, np.zeros((1, n_features), dtype=bool)])
        means = np.vstack([means, np.zeros((1, n_features))])
        subspace_class = np.append(subspace_class, np.int64(empty_class))

    uniform = rng.uniform(size=(n_samples, n_features))
    gauss = means[component] + cluster_std * rng.standard_normal((n_samples, n_features))
    relevant = masks[component]
    X = np.where(relevant, gauss, uniform)
    y = subspace_class[component]
    if return_subspace:
        return X, y, relevant, component
    return X, y, relevant


def _subspace_size_range(
    subspace_size: int | tuple[int, int] | None, n_features: int
) -> tuple[int, int]:
    """Inclusive (low, high) range of subspace sizes, checked against n_features."""
    if subspace_size is None:
        return min(2, n_features), min(10, n_features)
    if isinstance(subspace_size, tuple):
        if len(subspace_size) != 2 or not all(
            isinstance(s, Integral) and not isinstance(s, bool) for s in subspace_size
        ):
            raise ValueError(
                "subspace_size must be an int or a pair of ints (low, high); "
                f"got {subspace_size!r}."
            )
        low, high = int(subspace_size[0]), int(subspace_size[1])
    else:
        low = high = int(subspace_size)
    if not 1 <= low <= high <= n_features:
        raise ValueError(
            f"subspace_size must satisfy 1 <= low <= high <= n_features={n_features}; "
            f"got {subspace_size!r}."
        )
    return low, high


def _draw_subspaces(
    rng: np.random.RandomState, n_subspaces: int, n_features: int, low: int, high: int
) -> NDArray[np.bool_]:
    """Distinct random feature subsets as a bool array (n_subspaces, n_features).

    Each subset has a size drawn uniformly from ``low..high`` and, given its
    size, uniformly random features; a subset already drawn is redrawn. When
    the candidates are few they are enumerated and drawn without replacement
    with the same probabilities (``1 / (n_sizes * C(n_features, size))``), which
    is the same distribution without the risk of many redraws.
    """
    sizes = range(low, high + 1)
    capacity = sum(math.comb(n_features, k) for k in sizes)
    masks = np.zeros((n_subspaces, n_features), dtype=bool)
    if capacity <= _MAX_ENUMERATED_SUBSPACES:
        candidates = [c for k in sizes for c in itertools.combinations(range(n_features), k)]
        p = np.concatenate(
            [np.full(math.comb(n_features, k), 1.0 / math.comb(n_features, k)) for k in sizes]
        )
        chosen = rng.choice(len(candidates), size=n_subspaces, replace=False, p=p / p.sum())
        for row, idx in enumerate(chosen):
            masks[row, list(candidates[idx])] = True
        return masks
    seen: set[tuple[int, ...]] = set()
    max_draws = 1000 * n_subspaces + 10_000
    n_draws = 0
    while len(seen) < n_subspaces:
        if n_draws == max_draws:  # pragma: no cover - needs n_subspaces close to capacity
            raise RuntimeError(
                f"Could not draw {n_subspaces} distinct subspaces in {max_draws} draws; "
                "ask for fewer subspaces or a wider subspace_size range."
            )
        n_draws += 1
        k = rng.randint(low, high + 1)
        subset = tuple(sorted(rng.choice(n_features, size=k, replace=False).tolist()))
        if subset not in seen:
            masks[len(seen), list(subset)] = True
            seen.add(subset)
    return masks
