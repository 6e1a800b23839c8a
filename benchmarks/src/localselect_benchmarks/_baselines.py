"""The baselines the papers' tables name, wired from well-kept libraries (never rewritten).

:func:`classifier_baselines` returns ``name -> factory(random_state)`` building
an unfitted classifier; :func:`selector_baselines` returns
``name -> factory(n_features_to_select, random_state)`` building an unfitted
global selector (the LFS paper feeds the top-t features to an RBF SVM).
:func:`unavailable_baselines` lists, with the reason, every baseline a paper
names that cannot run here, so reports say "not run" instead of inventing it.
:data:`PAPER_NAMES` maps the papers' column abbreviations to our names.

Settings are the libraries' defaults, as the papers used theirs ("default
settings"), with these exceptions: K-NN uses K = 1 and 3 (IMMIGRATE Tables
1-3: 1NN, 3NN); the L1 logistic regression is liblinear with C = 1 (the
paper's LASSO column); NCA and LMNN learn a metric for a 3-NN classifier
(metric-learn's LMNN default is 3 target neighbours).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib import import_module
from typing import Any

from sklearn.base import BaseEstimator, ClassifierMixin

__all__ = [
    "PAPER_NAMES",
    "LabelEncodedClassifier",
    "classifier_baselines",
    "selector_baselines",
    "unavailable_baselines",
]

#: Column abbreviations of the papers' tables -> our baseline names.
PAPER_NAMES: dict[str, str] = {
    # IMMIGRATE (Zhao, Hong and Liu 2020), Tables 1-3.
    "SV1": "SVM-sigmoid",
    "SV2": "SVM-RBF",
    "LAS": "L1-LR",
    "DT": "DT",
    "NBC": "NB",
    "1NN": "1-NN",
    "3NN": "3-NN",
    "LMN": "LMNN",
    "LDA": "LDA",
    "REL": "Relief",
    "RFF": "ReliefF",
    "SIM": "Simba",
    "LFE": "LFE",
    "ADB": "AdaBoost",
    "RF": "RF",
    "XGB": "XGBoost",
    "RBF": "RBF-network",
    "SOD": "SODA",
    "HIN": "hierNet",
    # LFS (Armanfard et al. 2016), Table 1.
    "FDA": "Fisher",
    "Simba": "Simba",
    "mRMR": "mRMR",
    "KCSM": "KCSM",
    "Logo": "Logo",
    "DEFS": "DEFS",
    "SVM": "SVM-RBF",
}

#: Baselines the papers name that no installed library provides, and why.
_NEVER_AVAILABLE: dict[str, str] = {
    "RBF-network": "no well-kept Python library provides an RBF network classifier",
    "SODA": "SODA (Li and Liu 2018) exists only as an R package",
    "hierNet": "hierNet (Bien et al. 2013) exists only as an R package",
    "KCSM": "KCSM code was obtained privately by the LFS authors; not public",
    "Logo": "Logo (Sun et al. 2010) has only MATLAB code",
    "DEFS": "DEFS (Khushaba et al. 2011) has only MATLAB code",
}

#: Our own estimators that the tables use as baselines: name -> "module:Class".
_OWN_SELECTORS: dict[str, str] = {
    "Fisher": "localselect.filters:FisherScore",
    "ReliefF": "localselect.margin:ReliefF",
    "Relief": "localselect.margin:Relief",
    "Simba": "localselect.margin:Simba",
    "LFE": "localselect.margin:LFE",
}


def _import(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(import_module(module), name)


def _try_import(path: str) -> tuple[Any, str | None]:
    try:
        return _import(path), None
    except (ImportError, AttributeError) as exc:
        return None, f"{path.replace(':', '.')} is not in this version of localselect ({exc})"


def _knn(k: int, random_state: int | None = None):
    from sklearn.neighbors import KNeighborsClassifier

    return KNeighborsClassifier(n_neighbors=k)


def _svm(kernel: str, random_state: int | None = None):
    from sklearn.svm import SVC

    return SVC(kernel=kernel, random_state=random_state)


def _tree(random_state: int | None = None):
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(random_state=random_state)


def _naive_bayes(random_state: int | None = None):
    from sklearn.naive_bayes import GaussianNB

    return GaussianNB()


def _lda(random_state: int | None = None):
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    return LinearDiscriminantAnalysis()


def _l1_logistic(random_state: int | None = None):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(l1_ratio=1.0, solver="liblinear", random_state=random_state)


def _forest(random_state: int | None = None):
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(random_state=random_state)


def _adaboost(random_state: int | None = None):
    from sklearn.ensemble import AdaBoostClassifier

    return AdaBoostClassifier(random_state=random_state)


def _nca(random_state: int | None = None):
    from sklearn.neighbors import KNeighborsClassifier, NeighborhoodComponentsAnalysis
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        NeighborhoodComponentsAnalysis(random_state=random_state),
        KNeighborsClassifier(n_neighbors=3),
    )


def _xgboost(random_state: int | None = None):
    from xgboost import XGBClassifier

    return LabelEncodedClassifier(XGBClassifier(random_state=random_state, n_jobs=1))


class LabelEncodedClassifier(ClassifierMixin, BaseEstimator):
    """Wrap a classifier that only accepts labels ``0..C-1`` (xgboost) for any labels.

    Parameters
    ----------
    estimator : classifier
        The wrapped classifier, cloned in ``fit``.

    Attributes
    ----------
    estimator_ : classifier
        The fitted clone.
    classes_ : ndarray of shape (n_classes,)
        The original labels.
    """

    def __init__(self, estimator):
        self.estimator = estimator

    def fit(self, X, y):
        """Fit the clone on ``y`` coded as ``0..C-1``."""
        import numpy as np
        from sklearn.base import clone

        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        self.estimator_ = clone(self.estimator).fit(X, codes)
        return self

    def predict(self, X):
        """Predicted original labels."""
        return self.classes_[self.estimator_.predict(X)]

    def predict_proba(self, X):
        """Class probabilities, columns in the order of ``classes_``."""
        return self.estimator_.predict_proba(X)


def _lmnn(random_state: int | None = None):
    from metric_learn import LMNN
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        LMNN(n_neighbors=3, random_state=random_state), KNeighborsClassifier(n_neighbors=3)
    )


@functools.cache
def _probe(name: str) -> str | None:
    """Fit an optional baseline once on tiny data; the error text if it cannot run."""
    import numpy as np

    factory = {"XGBoost": _xgboost, "LMNN": _lmnn}[name]
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 3))
    y = np.repeat(["a", "b"], 12)
    X[y == "b", 0] += 2.0
    try:
        factory(0).fit(X, y).predict(X)
    except ImportError as exc:
        return f"{exc.name or 'its package'} is not installed (pip install {_PIP[name]})"
    except Exception as exc:  # an installed but incompatible library
        return f"{_PIP[name]} is installed but fails here: {type(exc).__name__}: {exc}"
    return None


_PIP = {"XGBoost": "xgboost", "LMNN": "metric-learn"}


def classifier_baselines() -> dict[str, Callable[..., Any]]:
    """Classifier baselines that can run here: ``name -> factory(random_state=None)``.

    Returns
    -------
    factories : dict
        Each factory returns a new unfitted scikit-learn compatible classifier.
        Optional libraries (xgboost, metric-learn) appear only when they
        install and fit; see :func:`unavailable_baselines` for the rest.

    Examples
    --------
    >>> from localselect_benchmarks._baselines import classifier_baselines
    >>> clf = classifier_baselines()["SVM-RBF"](random_state=0)
    >>> clf.kernel
    'rbf'
    """
    found: dict[str, Callable[..., Any]] = {
        "SVM-RBF": functools.partial(_svm, "rbf"),
        "SVM-sigmoid": functools.partial(_svm, "sigmoid"),
        "1-NN": functools.partial(_knn, 1),
        "3-NN": functools.partial(_knn, 3),
        "DT": _tree,
        "NB": _naive_bayes,
        "LDA": _lda,
        "L1-LR": _l1_logistic,
        "RF": _forest,
        "AdaBoost": _adaboost,
        "NCA+3-NN": _nca,
    }
    for name, factory in (("XGBoost", _xgboost), ("LMNN", _lmnn)):
        if _probe(name) is None:
            found[name] = factory
    return found


def selector_baselines() -> dict[str, Callable[..., Any]]:
    """Global-selector baselines that can run here.

    Returns
    -------
    factories : dict
        ``name -> factory(n_features_to_select, random_state=None)``, each
        returning an unfitted selector with ``get_support()``: Fisher score,
        mRMR (ours, MID criterion: :class:`localselect.filters.MRMR`) and, once they land,
        ReliefF, Relief, Simba and LFE from ``localselect.margin``.
    """
    from localselect.filters import MRMR

    found: dict[str, Callable[..., Any]] = {}
    for name, path in _OWN_SELECTORS.items():
        cls, _ = _try_import(path)
        if cls is not None:
            found[name] = functools.partial(_own_selector, cls)
    found["mRMR"] = lambda n_features_to_select, random_state=None: MRMR(
        n_features_to_select=n_features_to_select
    )
    return dict(sorted(found.items()))


def _own_selector(cls: type, n_features_to_select: int, random_state: int | None = None):
    params = cls().get_params()
    kwargs: dict[str, Any] = {}
    if "n_features_to_select" in params:
        kwargs["n_features_to_select"] = n_features_to_select
    if "random_state" in params:
        kwargs["random_state"] = random_state
    return cls(**kwargs)


def unavailable_baselines() -> dict[str, str]:
    """Every baseline the papers name that cannot run here, with the reason.

    Returns
    -------
    reasons : dict
        ``name -> reason``; reports list these as "not run".
    """
    reasons = dict(_NEVER_AVAILABLE)
    for name in ("XGBoost", "LMNN"):
        reason = _probe(name)
        if reason is not None:
            reasons[name] = reason
    for name, path in _OWN_SELECTORS.items():
        cls, reason = _try_import(path)
        if cls is None and reason is not None:
            reasons[name] = reason
    return dict(sorted(reasons.items()))
