"""Relief (Kira and Rendell 1992) and ReliefF (Kononenko 1994) feature weights."""

from __future__ import annotations

from numbers import Integral, Real

from sklearn.utils import check_random_state

from localselect._compat import Interval, RealNotInt, StrOptions
from localselect._docstrings import fill_doc
from localselect.base import Declaration, shared_constraints
from localselect.margin import _nn_kernels, _rrelieff
from localselect.margin._common import _FeatureWeightSelector, input_kinds
from localselect.margin._cost import AllPairsCost

__all__ = ["Relief", "ReliefF"]

#: ``max_samples`` of the Relief family: a count, a fraction, CORElearn's rules, or all rows.
_MAX_SAMPLES = [
    Interval(Integral, 1, None, closed="left"),
    Interval(RealNotInt, 0, 1, closed="right"),
    StrOptions({"sqrt", "log"}),
    None,
]


@fill_doc
class Relief(_FeatureWeightSelector):
    """Relief feature weights from the nearest hit and nearest miss.

    Algorithm 1 of Zhao, Hong and Liu (the original Relief of Kira and Rendell):
    for ``M`` reference samples, ``w += ((x - NM(x))^2 - (x - NH(x))^2) / M``
    element-wise, with the nearest hit ``NH`` and nearest miss ``NM`` under the
    Euclidean distance.

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    n_features_to_select : int, float or None, default=10
        %(n_features_to_select)s
    fdr : float, default=0.1
        %(fdr)s
    max_samples : int, float, {"sqrt", "log"} or None, default=None
        Number ``M`` of reference samples: ``None`` uses every training sample
        (deterministic, as scikit-rebate does), an int that many samples drawn
        without replacement, a float in (0, 1] that fraction, ``"sqrt"`` and
        ``"log"`` ``int(sqrt(N))`` and ``int(ln N)`` samples (CORElearn's
        ``ReliefIterations = -2, -1``).
    task : {"auto", "classification", "regression"}, default="auto"
        ``"auto"`` treats ``y`` as continuous when scikit-learn's
        ``type_of_target`` says ``"continuous"`` (floats not all integers);
        ``"regression"`` makes an integer ``y`` that is a quantity continuous,
        ``"classification"`` makes float labels classes.
    random_state : int, RandomState instance or None, default=None
        Draws the reference samples when ``max_samples`` is not None.
    verbose : int, default=0
        1 logs stages (INFO) to ``logging.getLogger("localselect.margin")``.

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features_in_,)
        Relief weight of each feature (the ``w`` of Algorithm 1).
    max_samples_ : int
        Reference samples used.
    %(fitted_classes_attributes)s

    See Also
    --------
    ReliefF : The k nearest hits and misses, range-normalised differences.
    Simba : Relief with neighbours recomputed under the learned weights.

    Notes
    -----
    %(missing_values_notes)s

    A continuous target (``task_ == "regression"``) gets RReliefF with one
    nearest neighbour (:class:`ReliefF` with ``n_neighbors=1``,
    ``neighbor_weights="equal"``, on the same reference samples): range-scaled
    Manhattan neighbours and differences, the probability-of-different-target
    estimate of Robnik-Sikonja and Kononenko (2003), with ``diff`` per input
    column, missing values and ties as :class:`ReliefF` treats them.

    Misses come from all other classes pooled (one-vs-rest). Ties between
    equally near neighbours go to the lower sample index. Differences are the
    raw squared feature differences of Algorithm 1, so standardise the data
    first (the paper does). A table with nominal columns (a frame's
    ``category``, string or boolean columns) is compared per input column:
    ``diff`` 0 or 1 for a nominal column, ``|a - b| / (max - min)`` for every
    numeric one (then range-scaled, as in ReliefF); a nominal column of ``L >=
    3`` levels enters the kernel as ``L`` indicator columns of height
    ``1/sqrt(2)``, so two levels add 1 to the squared distance, and its weight
    is the sum of theirs (the per-column weight). Time O(N^2 A) for the
    distances, memory bounded by row blocks of the N x N distance matrix.

    References
    ----------
    .. [1] K. Kira and L. A. Rendell, "A practical approach to feature
       selection", ICML 1992.
    .. [2] R. Zhao, P. Hong and J. S. Liu, "IMMIGRATE: A margin-based feature
       selection method with interaction terms", Entropy 22(3), 2020, Alg. 1.

    Examples
    --------
    >>> from localselect import Relief
    >>> from localselect.datasets import make_lfs_synthetic
    >>> X, y, relevant = make_lfs_synthetic(100, 3, random_state=0)  # features 0 and 1
    >>> Relief(n_features_to_select=2).fit(X, y).get_support(indices=True)
    array([0, 1])
    """

    _declaration = Declaration(
        "relief",
        columns="native",
        check={"n_features_to_select": 2},
        demo={"n_features_to_select": 5},
        targets=("classes", "continuous"),
        size=AllPairsCost(),
    )
    _parameter_constraints = {
        **_FeatureWeightSelector._parameter_constraints,
        "max_samples": list(_MAX_SAMPLES),
        **shared_constraints("task", "random_state"),
    }

    def __init__(
        self,
        n_features_to_select=10,
        *,
        fdr=0.1,
        max_samples=None,
        task="auto",
        random_state=None,
        verbose=0,
    ):
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.max_samples = max_samples
        self.task = task
        self.random_state = random_state
        self.verbose = verbose

    _nominal_power = 2

    def _native_nominal(self):
        return self.task_ == "regression"

    def _fit_weights(self, X, codes, log):
        n = X.shape[0]
        ref = _rrelieff.reference_rows(self.max_samples, n, check_random_state(self.random_state))
        self.max_samples_ = len(ref)
        if self.task_ == "regression":
            log(
                1,
                "Relief (RReliefF, k=1): %d reference samples, %d features",
                len(ref),
                X.shape[1],
            )
            nominal, n_levels = input_kinds(self, X.shape[1])
            return _rrelieff.rrelieff(
                X, codes, ref, min(1, n - 1), nominal=nominal, n_levels=n_levels
            )
        log(1, "Relief: %d reference samples, %d features", len(ref), X.shape[1])
        return _nn_kernels.relief(X, codes, ref)


@fill_doc
class ReliefF(_FeatureWeightSelector):
    """ReliefF feature weights from k nearest hits and misses of each class.

    Read more in the :ref:`User Guide <margin>`.

    Parameters
    ----------
    n_neighbors : int, default=10
        Nearest hits, and nearest misses of each other class, per sample.
        Capped per class at the available samples.
    n_features_to_select : int, float or None, default=10
        %(n_features_to_select)s
    fdr : float, default=0.1
        %(fdr)s
    max_samples : int, float, {"auto", "sqrt", "log"} or None, default="auto"
        Number ``m`` of reference samples (the rows whose neighbours are
        sought among all rows): ``"auto"`` uses every sample while ``N^2 <=
        10^8`` (``N <= 10,000``: deterministic, as before), else ``max(1000,
        10^8 // N)`` drawn without replacement (1000 at 100,000 rows and
        beyond: a million rows x 20 in about 20 s on one core), and logs the
        draw at INFO on ``logging.getLogger("localselect.margin._relief")``;
        ``None`` every sample; an int that many; a float in (0, 1] that
        fraction; ``"sqrt"`` and ``"log"`` ``int(sqrt(N))`` and ``int(ln N)``
        (CORElearn's ``ReliefIterations = -2, -1``). The weights are exact for
        the drawn rows (the neighbours and class priors come from all rows);
        their sampling spread is measured in the user guide.
    neighbor_weights : {"equal", "exp_rank"}, default="equal"
        RReliefF only (continuous target): each of the ``k`` neighbours
        weighs ``1/k``, or ``exp(-(r / sigma)^2)`` for the neighbour of rank
        ``r = 0 .. k-1`` (normalised; neighbours at equal distance share a
        rank), CORElearn's ``RReliefFequalK`` and ``RReliefFexpRank``.
    sigma : float, default=20.0
        Width of the ``"exp_rank"`` weights, in ranks (CORElearn's
        ``quotientExpRankDistance``; CORElearn pairs it with 70 neighbours).
    numeric_equal : float, default=0.0
        RReliefF only: two numeric values closer than this fraction of the
        column's range count as equal (``diff = 0``); CORElearn's
        ``numAttrProportionEqual`` (its default 0.04).
    numeric_different : float, default=1.0
        RReliefF only: two numeric values this fraction of the range apart or
        more count as different (``diff = 1``), linear in between; CORElearn's
        ``numAttrProportionDifferent`` (its default 0.1). At 0.0 and 1.0 the
        ramp is off: ``diff = |a - b| / (max - min)``. The ramp applies to the
        target's difference too, as in CORElearn.
    task : {"auto", "classification", "regression"}, default="auto"
        ``"auto"`` treats ``y`` as continuous when scikit-learn's
        ``type_of_target`` says ``"continuous"`` (floats not all integers);
        ``"regression"`` makes an integer ``y`` that is a quantity continuous,
        ``"classification"`` makes float labels classes.
    n_jobs : int, default=None
        Threads: the compiled kernel's tiles and feature blocks (data without
        NaN), else row blocks of the distance matrix. None means 1 unless in a
        ``joblib.parallel_config(n_jobs=...)`` context; -1 all cores. Results
        do not depend on it.
    random_state : int, RandomState instance or None, default=None
        Draws the reference samples when ``max_samples`` samples.
    verbose : int, default=0
        1 logs stages (INFO) to ``logging.getLogger("localselect.margin")``.

    Attributes
    ----------
    feature_importances_ : ndarray of shape (n_features_in_,)
        ReliefF (or, for a continuous target, RReliefF) weight of each
        feature, in [-1, 1].
    n_neighbors_ : int
        Neighbours used: ``min(n_neighbors, n_samples - 1)``.
    max_samples_ : int
        Reference samples used.
    %(fitted_classes_attributes)s

    See Also
    --------
    Relief : One nearest hit and miss, squared differences.
    IRelief : Probabilistic neighbours, iterated weights.

    Notes
    -----
    %(missing_values_notes)s

    ``diff`` is computed per input column (Kononenko 1994; Robnik-Sikonja
    and Kononenko 2003): 0 or 1 for a nominal column (a ``category``, string
    or boolean column of a frame), ``|x_a - x'_a| / (max_a - min_a)`` for a
    numeric one (0 for a constant column, which then scores exactly 0).
    Neighbours are found by the Manhattan distance, the sum of the columns'
    ``diff``. For class labels a nominal column of ``L >= 3`` levels enters
    the kernel as ``L`` indicator columns of height 1/2 (two levels differ by
    1 in the distance and in ``diff``), and its weight is the sum of theirs,
    which equals the per-column weight; its missing values follow the rule
    below. Ties in the class-label case go to the lower sample index
    (CORElearn's ``ReliefFequalK`` agrees to 1e-15 on a mixed table without
    ties; with ties it differs, up to 0.01 on MASS ``birthwt`` and ggplot2
    ``mpg``, same ranking: it skips samples at distance 0 and its heap picks
    among tied ones). For
    sample ``i`` with ``k_h`` hits and ``k_c`` misses of class ``c``::

        W += (-mean_hits diff + sum_{c != y_i} P(c) / (1 - P(y_i)) mean_{misses in c} diff) / N

    with class priors ``P`` from the training data (Kononenko 1994), the sum
    over the ``m`` reference samples divided by ``m`` (every sample up to
    10,000 rows at the default ``max_samples``: deterministic). A class
    with one sample contributes no hit term for that sample.

    A continuous target (``task_ == "regression"``, no ``classes_``) gets
    RReliefF (Robnik-Sikonja and Kononenko, ICML 1997; MLJ 2003, Fig. 3):
    with ``diff(tau) = |y - y'| / (max y - min y)`` and the neighbour weights
    ``d`` (summing to 1 per reference sample) over the ``k`` nearest samples
    (any target value, same distance)::

        W = N_dC&dA / N_dC - (N_dA - N_dC&dA) / (m - N_dC)

    where ``N_dC = sum d diff(tau)``, ``N_dA = sum d diff(A)``, ``N_dC&dA =
    sum d diff(tau) diff(A)`` over references and their neighbours; a constant
    target gives 0. It equals CORElearn's ``attrEval`` with ``RReliefFequalK``
    (``kNearestEqual=k``) and ``RReliefFexpRank`` (``kNearestExpRank=k``,
    ``quotientExpRankDistance=sigma``) at ``ReliefIterations=0``,
    ``numAttrProportionEqual=0``, ``numAttrProportionDifferent=1`` (and at
    any ramp given by ``numeric_equal`` and ``numeric_different``), with
    factors, missing values and distance ties, to 1e-12 on the tables of
    tests/margin/test_rrelieff_corelearn.py (four of them real: MASS
    ``birthwt`` and ``Cars93``, ggplot2 ``mpg``, R's ``airquality``).
    CORElearn's defaults differ: 0.04 and 0.1 make its ``diff`` (features and
    target, in the distance too) a ramp; ours is the paper's plain
    range-scaled difference unless ``numeric_equal`` and ``numeric_different``
    are set.

    Missing values for a continuous target follow CORElearn
    (``estimationReg``): ``diff`` is the probability that the two values
    differ. For a nominal column with ``L`` levels, ``n_v`` rows at level
    ``v`` and ``n_?`` missing, ``P(v) = (n_v + 1) / (N + L - n_?)``; one value
    missing and the other ``v``: ``1 - P(v)``; both: ``1 - sum_v P(v)^2``. A
    numeric column is cut into 5 equal-width intervals of its range (``max(2,
    N // 5)`` below 25 rows) and treated alike over the intervals.

    Ties (continuous target) follow CORElearn's rule: the ``k + 1`` nearest
    samples are chosen by its heap selection (a min-heap built over the
    samples in index order, the minimum moved out ``k + 1`` times), then the
    reference sample itself is replaced by the nearest, and the ``k`` before
    it are the neighbours. Which of several samples at the boundary distance
    are kept is therefore the heap's choice, neither the lower nor the higher
    index; when more than ``k`` samples share the reference's own distance
    (duplicates), or the reference has a positive distance to itself
    (missing values), the nearest one is dropped, as in CORElearn. Distances
    are summed in CORElearn's order (nominal columns first) with its
    arithmetic (``|a - b| * (1 / (max - min))``), so that distances equal
    there are equal here. ``"exp_rank"`` gives samples at equal distance the
    rank of the first of them.

    On binary data with continuous features this equals scikit-rebate's
    ``ReliefF`` with the same ``n_neighbors`` (tested to 1e-9). Deliberate
    differences: scikit-rebate guesses discrete features from a count of
    distinct values and weights multiclass misses by their frequency among
    the neighbours rather than by the class priors; it overwrites
    ``n_neighbors``; it divides by zero on constant features.

    Time O(N^2 A) (distances, in row blocks) plus O(N k C A) for the updates
    (a continuous target: O(m N A) for the distances, vectorised over the
    samples, and O(m k A) for the sums);
    memory O(block * N + block * k * A). On complete data (no NaN) a compiled
    numba kernel (:mod:`localselect.margin._relieff_numba`) computes each pair's distance
    once in cache-sized tiles and the update by blocks of features, in about a
    fifth of the numpy time (``localselect bench margin-perf``); it finds the
    same neighbours, except that distances equal only up to rounding (summed
    in another order) may be ordered differently.

    References
    ----------
    .. [1] I. Kononenko, "Estimating attributes: analysis and extensions of
       RELIEF", ECML 1994.
    .. [2] M. Robnik-Sikonja and I. Kononenko, "Theoretical and empirical
       analysis of ReliefF and RReliefF", Machine Learning 53, 2003.

    Examples
    --------
    >>> from localselect import ReliefF
    >>> from localselect.datasets import make_lfs_synthetic
    >>> X, y, relevant = make_lfs_synthetic(100, 3, random_state=0)  # features 0 and 1
    >>> selector = ReliefF(n_neighbors=5, n_features_to_select=0.4).fit(X, y)
    >>> selector.get_support(indices=True), selector.n_neighbors_
    (array([0, 1]), 5)
    """

    _declaration = Declaration(
        "relieff",
        columns="native",
        check={"n_neighbors": 3, "n_features_to_select": 2},
        demo={"n_features_to_select": 5},
        targets=("classes", "continuous"),
        size=AllPairsCost(),
        collection_fit="localselect.margin._relieff_collections:fit_relieff_collection",
    )
    _parameter_constraints = {
        **_FeatureWeightSelector._parameter_constraints,
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "max_samples": [*_MAX_SAMPLES, StrOptions({"auto"})],
        "neighbor_weights": [StrOptions({"equal", "exp_rank"})],
        "sigma": [Interval(Real, 0, None, closed="neither")],
        "numeric_equal": [Interval(Real, 0, 1, closed="both")],
        "numeric_different": [Interval(Real, 0, 1, closed="both")],
        **shared_constraints("task", "n_jobs", "random_state"),
    }
    _min_class_size = 1  # a one-sample class adds no hit term
    _nominal_power = 1

    def _native_nominal(self):
        return self.task_ == "regression"

    def __init__(
        self,
        n_neighbors=10,
        *,
        n_features_to_select=10,
        fdr=0.1,
        max_samples="auto",
        neighbor_weights="equal",
        sigma=20.0,
        numeric_equal=0.0,
        numeric_different=1.0,
        task="auto",
        n_jobs=None,
        random_state=None,
        verbose=0,
    ):
        self.n_neighbors = n_neighbors
        self.n_features_to_select = n_features_to_select
        self.fdr = fdr
        self.max_samples = max_samples
        self.neighbor_weights = neighbor_weights
        self.sigma = sigma
        self.numeric_equal = numeric_equal
        self.numeric_different = numeric_different
        self.task = task
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _fit_weights(self, X, codes, log):
        n = X.shape[0]
        ramp = (self.numeric_equal, self.numeric_different) != (0.0, 1.0)
        if self.numeric_equal > self.numeric_different:
            raise ValueError(
                f"numeric_equal={self.numeric_equal} exceeds numeric_different="
                f"{self.numeric_different}; the ramp needs numeric_equal <= numeric_different."
            )
        if ramp and self.task_ != "regression":
            raise ValueError(
                "numeric_equal and numeric_different (the ramp) apply to a continuous target "
                "(RReliefF) only; leave them at 0.0 and 1.0 for class labels."
            )
        self.n_neighbors_ = min(self.n_neighbors, n - 1)
        refs = _rrelieff.reference_rows(self.max_samples, n, check_random_state(self.random_state))
        self.max_samples_ = len(refs)
        if len(refs) < n:
            log(0, "ReliefF: %d of %d samples drawn as reference rows", len(refs), n)
        regression = self.task_ == "regression"
        name = "RReliefF" if regression else "ReliefF"
        log(1, "%s: %d samples, %d features, k=%d", name, *X.shape, self.n_neighbors_)
        nominal, n_levels = input_kinds(self, self.n_features_in_)
        if regression:
            return _rrelieff.rrelieff(
                X,
                codes,
                refs,
                self.n_neighbors_,
                neighbor_weights=self.neighbor_weights,
                sigma=self.sigma,
                nominal=nominal,
                n_levels=n_levels,
                numeric_equal=self.numeric_equal,
                numeric_different=self.numeric_different,
                n_jobs=self.n_jobs,
            )
        # With nominal input columns ``X`` is their encoding, already on the diff scale.
        return _nn_kernels.relieff(
            X,
            codes,
            self.n_neighbors_,
            n_jobs=self.n_jobs,
            refs=None if len(refs) == n else refs,
            prescaled=bool(nominal.any()),
        )
