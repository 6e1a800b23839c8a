"""Model-X knockoffs and the knockoff filter: the null behind the feature screen.

Candès, Fan, Janson and Lv (2018), *Panning for gold: model-X knockoffs for
high dimensional controlled variable selection*, JRSS-B 80(3): second-order
(Gaussian) knockoffs with the equicorrelated construction (sec. 3.2) and the
knockoff(+) threshold (Barber and Candès 2015, eq. 1.8-1.9), one implementation
for a single set of statistics or a batch of rows (:func:`knockoff_thresholds`).
The covariance behind every draw is :func:`shrunk_covariance` (Ledoit-Wolf).

For correlated and non-Gaussian columns, :class:`KnockoffSampler`: a Gaussian
copula (each column mapped to normal scores through its empirical distribution,
ties broken at random inside their block, and back through its empirical
quantiles), a Ledoit-Wolf shrunk correlation of the scores, and the
maximum-entropy choice of ``s`` (Gimenez and Zou 2019, AISTATS, sec. 4; the
coordinate ascent of Spector and Janson 2022, *Powerful knockoffs via
minimizing reconstructability*, Ann. Statist. 50(1), sec. 4.1), which keeps
``s_j`` large for a column without a near-copy instead of shrinking every
``s_j`` to ``2 lambda_min`` as the equicorrelated choice does. Columns left
with ``s_j`` below ``min_s`` have a knockoff nearly equal to themselves:
no knockoff filter can find them, and the sampler says so (``no_power_``).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from scipy.special import ndtr, ndtri
from sklearn.covariance import LedoitWolf

__all__ = [
    "KnockoffSampler",
    "NoKnockoffPowerWarning",
    "RowKeyedRandom",
    "gaussian_knockoffs",
    "knockoff_s",
    "knockoff_threshold",
    "knockoff_thresholds",
    "second_order_statistic",
    "shrunk_covariance",
    "target_columns",
]

#: ``s`` constructions of :func:`knockoff_s`.
S_METHODS = ("equicorrelated", "maxent")


class NoKnockoffPowerWarning(UserWarning):
    """Some columns are nearly determined by the others: their knockoffs nearly equal them."""


def knockoff_s(
    corr: NDArray[np.float64], method: str = "maxent", *, n_sweeps: int = 50, tol: float = 1e-6
) -> NDArray[np.float64]:
    """The diagonal ``s`` of a second-order knockoff construction on a correlation matrix.

    ``equicorrelated``: ``s_j = min(1, 2 lambda_min) * 0.999`` for every ``j``
    (Candès et al. 2018, sec. 3.2). ``maxent``: ``s`` maximising ``log det
    diag(s) + log det(2 Sigma - diag(s))``, the entropy of ``[X, X~]``
    (Gimenez and Zou 2019, sec. 4), by coordinate ascent: with ``G = 2 Sigma
    - diag(s)``, the largest feasible ``s_j`` given the others is ``c_j = s_j
    + 1 / (G^{-1})_{jj}`` (Schur complement) and the objective in ``s_j`` is
    ``log s_j + log(c_j - s_j)``, maximised at ``c_j / 2`` (Spector and
    Janson 2022, sec. 4.1); ``G^{-1}`` follows each update by Sherman-Morrison.

    Parameters
    ----------
    corr : ndarray of shape (n_features, n_features)
        Positive definite correlation matrix.
    method : {"maxent", "equicorrelated"}, default="maxent"
        The construction.
    n_sweeps : int, default=50
        Most coordinate-ascent sweeps (``maxent``).
    tol : float, default=1e-6
        Stop when no ``s_j`` moved more than this in a sweep.

    Returns
    -------
    s : ndarray of shape (n_features,)
        In ``(0, 1]``, with ``2 corr - diag(s)`` positive semi-definite.
    """
    d = corr.shape[0]
    lam = float(np.linalg.eigvalsh(corr)[0])
    s = np.full(d, min(1.0, 2.0 * lam) * 0.999)
    if method == "equicorrelated" or d == 1:
        return np.minimum(s, 1.0) if d > 1 else np.ones(1)
    Ginv = np.linalg.inv(2.0 * corr - np.diag(s))
    for _ in range(n_sweeps):
        moved = 0.0
        for j in range(d):
            c = s[j] + 1.0 / Ginv[j, j]
            new = min(1.0, 0.5 * c)
            delta = s[j] - new  # G_jj grows by delta
            if delta != 0.0:
                g = Ginv[:, j].copy()
                Ginv -= np.outer(g, g) * (delta / (1.0 + delta * g[j]))
                s[j] = new
                moved = max(moved, abs(delta))
        if moved < tol:
            break
    return s * 0.999


def gaussian_knockoffs(
    X: NDArray[np.float64],
    cov: NDArray[np.float64],
    rng: np.random.RandomState,
    *,
    s: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Second-order knockoffs of centred rows ``X`` (equicorrelated unless ``s`` is given).

    With ``Sigma = cov`` scaled to a correlation matrix and ``s = min(1, 2
    lambda_min) * 0.999`` (equicorrelated choice, ``D = s I`` on the
    correlation scale) or the given ``s`` (``D = diag(s)``), ``X~ = X - X
    Sigma^{-1} D + Z L^T`` with ``L L^T = 2 D - D Sigma^{-1} D`` (Candès et
    al. 2018, eq. 3.2), so that ``[X, X~]`` has the covariance ``[[Sigma,
    Sigma - D], [Sigma - D, Sigma]]``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Centred rows.
    cov : ndarray of shape (n_features, n_features)
        Positive definite covariance of the rows.
    rng : RandomState
        Source of the Gaussian draw ``Z``.
    s : ndarray of shape (n_features,) or None, default=None
        The construction's diagonal on the correlation scale
        (:func:`knockoff_s`); None for the equicorrelated one.

    Returns
    -------
    knockoffs : ndarray of shape (n_samples, n_features)
    """
    sd = np.sqrt(np.diag(cov))
    corr = cov / np.outer(sd, sd)
    if s is None:
        lam = float(np.linalg.eigvalsh(corr)[0])
        D = min(1.0, 2.0 * lam) * 0.999 * np.eye(len(sd))
    else:
        D = np.diag(np.asarray(s, dtype=np.float64))
    inv_D = np.linalg.solve(corr, D)  # Sigma^{-1} D
    Xc = X / sd
    mean = Xc - Xc @ inv_D
    V = 2.0 * D - D @ inv_D
    V = (V + V.T) / 2.0
    w, U = np.linalg.eigh(V)
    L = U * np.sqrt(np.clip(w, 0.0, None))
    Z = rng.standard_normal(X.shape)
    return (mean + Z @ L.T) * sd


def knockoff_thresholds(
    W: NDArray[np.float64], fdr: float, *, offset: int = 0
) -> NDArray[np.float64]:
    """The knockoff(+) threshold of each row of ``W``: the one implementation, vectorised.

    Row ``i``'s threshold is the smallest ``t`` among the non-zero ``|W_ij|``
    with ``(offset + #{j : W_ij <= -t}) / max(1, #{j : W_ij >= t}) <= fdr``:
    Barber and Candès (2015), eq. (1.8) (``offset=0``, knockoff) and (1.9)
    (``offset=1``, knockoff+).

    Parameters
    ----------
    W : ndarray of shape (n_rows, n_statistics)
        Antisymmetric statistics, one set per row: swapping a feature with its
        knockoff flips the sign of its ``W``.
    fdr : float
        Target false discovery rate ``q``.
    offset : {0, 1}, default=0
        0 for the knockoff threshold, 1 for knockoff+.

    Returns
    -------
    t : ndarray of shape (n_rows,)
        Each row's threshold; ``inf`` where no ``t`` qualifies (nothing selected).

    Notes
    -----
    One stable sort per row, O(n_rows n_statistics log n_statistics). The
    counts at ``t`` are read at the last of each run of equal ``|W|`` in the
    descending order, so ties count whole.
    """
    if W.shape[1] == 0:
        return np.full(W.shape[0], np.inf)
    A = np.abs(W)
    order = np.argsort(-A, axis=1, kind="stable")
    A = np.take_along_axis(A, order, axis=1)
    S = np.take_along_axis(np.sign(W), order, axis=1)
    pos = np.cumsum(S > 0, axis=1)  # #{W >= A[:, r]} when A[:, r] ends a run of ties
    neg = np.cumsum(S < 0, axis=1)
    last = np.ones_like(A, dtype=bool)
    last[:, :-1] = A[:, :-1] != A[:, 1:]  # the last statistic of each run of equal |W|
    ok = last & (A > 0) & ((offset + neg) / np.maximum(pos, 1) <= fdr)
    # the smallest qualifying t is the qualifying |W| furthest down the descending order
    r = A.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1)
    return np.where(ok.any(axis=1), A[np.arange(A.shape[0]), r], np.inf)


def knockoff_threshold(W: NDArray[np.float64], fdr: float, *, offset: int = 0) -> float:
    """Smallest ``t`` with ``(offset + #{W <= -t}) / max(1, #{W >= t}) <= fdr``.

    Barber and Candès (2015), eq. (1.8) (``offset=0``, knockoff) and (1.9)
    (``offset=1``, knockoff+). ``t`` ranges over the non-zero ``|W_j|``. The
    one-row case of :func:`knockoff_thresholds`.

    Parameters
    ----------
    W : ndarray of shape (n_features,)
        One set of antisymmetric statistics.
    fdr : float
        The level ``q``.
    offset : {0, 1}, default=0
        1 for knockoff+ (eq. 1.9), 0 for eq. 1.8.

    Returns
    -------
    t : float
        ``inf`` when no ``t`` qualifies (nothing selected).
    """
    return float(knockoff_thresholds(np.asarray(W).reshape(1, -1), fdr, offset=offset)[0])


def shrunk_covariance(Z: NDArray[np.float64]) -> NDArray[np.float64]:
    """Ledoit-Wolf shrunk covariance of the rows ``Z``, with a ``1e-9`` ridge on the diagonal.

    ``(1 - delta) S + delta mu I + 1e-9 I``, with ``S`` the empirical
    covariance of the centred rows, ``mu`` its mean eigenvalue and ``delta``
    the estimated optimal shrinkage of Ledoit and Wolf (2004), *A
    well-conditioned estimator for large-dimensional covariance matrices*,
    J. Multivariate Anal. 88(2), 365-411 (``sklearn.covariance.LedoitWolf``).
    The ridge keeps it positive definite for the knockoff constructions
    (:func:`gaussian_knockoffs`, Candès et al. 2018, eq. 3.2), which solve
    with it. Every knockoff draw of this folder starts from it.

    Parameters
    ----------
    Z : ndarray of shape (n_samples, n_features)
        Rows.

    Returns
    -------
    cov : ndarray of shape (n_features, n_features)
    """
    d = Z.shape[1]
    return LedoitWolf(store_precision=False).fit(Z).covariance_ + 1e-9 * np.eye(d)


def target_columns(target: NDArray, regression: bool) -> NDArray[np.float64]:
    """The target as :func:`second_order_statistic` reads it: one column per class.

    Class indicators of the codes (one column dropped for two classes, which
    carry the same information), or the standardised target of a regression.

    Parameters
    ----------
    target : ndarray of shape (n_samples,)
        Class codes ``0 .. k - 1``, or a continuous target when ``regression``.
    regression : bool

    Returns
    -------
    Y : ndarray of shape (n_samples, n_columns)
    """
    if regression:
        return ((target - target.mean()) / max(float(target.std()), 1e-300))[:, None]
    Y = np.eye(int(target.max()) + 1)[target]
    return Y[:, :-1] if Y.shape[1] == 2 else Y


def second_order_statistic(
    X: NDArray[np.float64], K: NDArray[np.float64], Y: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Knockoff statistic of each feature's strongest first- or second-order association.

    On the standardised columns ``z`` of ``[X, K]`` and centred class
    indicators ``Y``, feature ``j``'s score is the largest of ``|cov(y_c,
    z_j)|`` (main effect), ``|cov(y_c, z_j^2)|`` (quadratic) and ``|cov(y_c,
    z_j z_k)|`` (pairwise product) over classes ``c`` and the other columns
    ``k`` except ``j``'s own knockoff pair; ``W_j = T_j - T~_j``. Swapping
    ``x_j`` and its knockoff swaps ``T_j`` and ``T~_j``, so ``W_j`` is
    antisymmetric as the knockoff filter requires.

    Parameters
    ----------
    X, K : ndarray of shape (n_samples, n_features)
        Features and their knockoffs.
    Y : ndarray of shape (n_samples, n_classes)
        Class indicators (one column per class).

    Returns
    -------
    W : ndarray of shape (n_features,)
    """
    d = X.shape[1]
    Z = np.hstack([X, K])
    sd = Z.std(axis=0)
    Z = (Z - Z.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    Yc = Y - Y.mean(axis=0)
    n = Z.shape[0]
    T = np.abs(Z.T @ Yc / n).max(axis=1)
    pair = np.arange(2 * d)
    partner = (pair + d) % (2 * d)
    for c in range(Yc.shape[1]):
        C = np.abs((Z * Yc[:, [c]]).T @ Z / n)
        C[pair, partner] = 0.0
        T = np.maximum(T, C.max(axis=1))
    return T[:d] - T[d:]


class KnockoffSampler:
    """Gaussian-copula model-X knockoffs with a shrunk correlation and the max-entropy ``s``.

    ``fit`` learns, per column, its empirical distribution, maps the column to
    normal scores ``z = Phi^{-1}(F(x))`` (``F`` the empirical distribution
    function, a tie broken uniformly at random inside its block, so discrete
    columns get continuous scores), estimates the scores' correlation with
    Ledoit-Wolf shrinkage and solves for ``s`` (:func:`knockoff_s`).
    ``sample`` draws second-order knockoffs of the scores
    (:func:`gaussian_knockoffs`, Candès et al. 2018, eq. 3.2) and maps each
    back through the column's empirical quantile function, so a knockoff
    column has the column's own marginal (its values are training values).
    Exact when the columns follow a Gaussian copula; a column that is a
    non-monotone function of another (a category code and its ordinal
    twin) is beyond it.

    Parameters
    ----------
    method : {"maxent", "equicorrelated"}, default="maxent"
        The ``s`` construction.
    copula : bool, default=True
        Work on normal scores (False: on the standardised columns, the plain
        second-order Gaussian knockoffs).
    min_s : float, default=0.05
        Columns with ``s_j`` below it are reported in ``no_power_`` and by a
        :class:`NoKnockoffPowerWarning`: their knockoff correlates with them
        at ``1 - s_j`` or more, so their statistics are close to 0.

    Attributes
    ----------
    corr_ : ndarray of shape (n_features, n_features)
        Shrunk correlation of the scores.
    s_ : ndarray of shape (n_features,)
        The construction's diagonal.
    no_power_ : ndarray of int
        Columns with ``s_j < min_s``.
    """

    def __init__(self, *, method: str = "maxent", copula: bool = True, min_s: float = 0.05):
        self.method = method
        self.copula = copula
        self.min_s = min_s

    def fit(self, X: NDArray[np.float64], rng: np.random.RandomState) -> KnockoffSampler:
        """Learn the marginals, the correlation of the scores and ``s``.

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Training rows.
        rng : RandomState
            Breaks ties of discrete columns.

        Returns
        -------
        self : KnockoffSampler
        """
        X = np.asarray(X, dtype=np.float64)
        d = X.shape[1]
        self.sorted_ = np.sort(X, axis=0)
        self.mean_, sd = X.mean(axis=0), X.std(axis=0)
        self.scale_ = np.where(sd > 0, sd, 1.0)
        cov = shrunk_covariance(self._scores(X, rng))
        sd = np.sqrt(np.diag(cov))
        self.corr_ = cov / np.outer(sd, sd)
        self.s_ = knockoff_s(self.corr_, self.method)
        self.no_power_ = np.flatnonzero(self.s_ < self.min_s)
        if self.no_power_.size:
            warnings.warn(
                f"{self.no_power_.size} of {d} columns ({self.no_power_.tolist()[:10]}"
                f"{'...' if self.no_power_.size > 10 else ''}) are nearly determined by the "
                f"others (knockoff s_j < {self.min_s}): a knockoff filter has little or no "
                "power to select them; their group's signal goes to no column.",
                NoKnockoffPowerWarning,
                stacklevel=2,
            )
        return self

    def _scores(self, X, rng):
        """Normal scores: ``Phi^{-1}`` of the randomised empirical distribution function."""
        if not self.copula:
            return (X - self.mean_) / self.scale_
        n = self.sorted_.shape[0]
        Z = np.empty_like(X)
        V = rng.random_sample(X.shape)
        for j in range(X.shape[1]):  # one vectorised search per column
            col = self.sorted_[:, j]
            lo = np.searchsorted(col, X[:, j], side="left")
            hi = np.searchsorted(col, X[:, j], side="right")
            Z[:, j] = ndtri((lo + V[:, j] * np.maximum(hi - lo, 1)) / (n + 1))
        return Z

    def sample(self, X: NDArray[np.float64], rng: np.random.RandomState) -> NDArray[np.float64]:
        """Knockoffs of the rows ``X`` (same shape, each column on its training marginal).

        Parameters
        ----------
        X : ndarray of shape (n_samples, n_features)
            Rows to draw knockoffs for (training rows or new ones).
        rng : RandomState
            Source of the tie breaks and the Gaussian draw.

        Returns
        -------
        knockoffs : ndarray of shape (n_samples, n_features)
        """
        X = np.asarray(X, dtype=np.float64)
        K = gaussian_knockoffs(self._scores(X, rng), self.corr_, rng, s=self.s_)
        if not self.copula:
            return K * self.scale_ + self.mean_
        n = self.sorted_.shape[0]
        idx = np.minimum((ndtr(K) * n).astype(np.intp), n - 1)
        return np.take_along_axis(self.sorted_, idx, axis=0)


class RowKeyedRandom:
    """Random draws that depend on each row's values and a seed, not on the row order.

    A stand-in for ``RandomState`` in :meth:`KnockoffSampler.sample`: the
    ``c``-th draw for row ``x`` is a SplitMix64 hash (Steele, Lea and Flood
    2014) of the bytes of ``x``, the seed and ``c``, so permuting the rows
    permutes the knockoffs and the same row always gets the same knockoff.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows the draws are keyed on.
    seed : int
        The seed.
    """

    def __init__(self, X: NDArray[np.float64], seed: int):
        words = np.ascontiguousarray(X, dtype=np.float64).view(np.uint64)
        key = np.full(words.shape[0], np.uint64(seed) ^ np.uint64(0x9E3779B97F4A7C15))
        for j in range(words.shape[1]):  # vectorised over rows, one pass per column
            key = _splitmix(key ^ words[:, j])
        self._key = key
        self._count = 0

    def random_sample(self, shape: tuple[int, int]) -> NDArray[np.float64]:
        """Uniform draws in (0, 1) of ``shape`` (rows first)."""
        m = shape[1]
        offsets = np.arange(self._count, self._count + m, dtype=np.uint64)
        self._count += m
        with np.errstate(over="ignore"):
            bits = _splitmix(self._key[:, None] + offsets[None, :] * np.uint64(0xBF58476D1CE4E5B9))
        return ((bits >> np.uint64(11)).astype(np.float64) + 0.5) / 2.0**53

    def standard_normal(self, shape: tuple[int, int]) -> NDArray[np.float64]:
        """Standard normal draws of ``shape`` (inverse distribution function of uniforms)."""
        return ndtri(self.random_sample(shape))


def _splitmix(z: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's finaliser, elementwise (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))
