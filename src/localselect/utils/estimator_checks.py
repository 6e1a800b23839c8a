"""Checks every local selector must pass (public, so users can test their own).

scikit-learn's ``check_estimator`` knows nothing about per-sample subsets; these
checks cover what :class:`~localselect.base.LocalSelectorMixin` promises:

* masks are boolean, one row per sample, one column per feature;
* ``get_support()`` is the union of the training masks and ``transform``
  keeps the shape and zeroes exactly the unselected entries (not for a local
  selector that is also a scikit-learn ``SelectorMixin``, such as LLDS: its
  global answer is its own best subset, selected by ``SelectorMixin``);
* permuting the features permutes the masks (up to ties, so the data used has
  none); permuting the samples permutes the training masks;
* a pickle round trip changes nothing;
* training rows and new rows go through one rule: ``get_local_support()``
  equals ``get_local_support(X_train)``, and a row's subset does not depend
  on the other rows passed with it;
* ``local_relevance`` is real, in [0, 1], of the masks' shape, and positive
  wherever the mask selects a feature.

Use :func:`check_local_selector` to run them all, or iterate over
:func:`local_selector_checks` to get one test per check.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterator

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone, is_classifier
from sklearn.datasets import make_classification
from sklearn.feature_selection import SelectorMixin

from localselect._docstrings import fill_doc
from localselect.base import LocalSelectorMixin

__all__ = ["check_local_selector", "local_selector_checks", "make_check_data"]


def make_check_data(
    n_samples: int = 60, n_features: int = 6, random_state: int = 0
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Make small standardised two-class data with informative and noise features.

    Parameters
    ----------
    n_samples : int, default=60
        Number of samples.
    n_features : int, default=6
        Number of features: the first three informative, the rest noise.
    random_state : int, default=0
        Seed of :func:`sklearn.datasets.make_classification`.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        Features, each with mean 0 and standard deviation 1.
    y : ndarray of shape (n_samples,)
        Labels in {0, 1}.
    """
    X, y = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=3,
        n_redundant=0,
        n_clusters_per_class=2,
        class_sep=1.5,
        shuffle=False,
        random_state=random_state,
    )
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    return X, y


def _fit(estimator, X, y):
    return clone(estimator).fit(X, y)


def check_local_mask_shape(name: str, estimator) -> None:
    """Masks are boolean arrays of shape (n_samples, n_features)."""
    X, y = make_check_data()
    est = _fit(estimator, X, y)
    train = est.get_local_support()
    if train.dtype != bool or train.shape != X.shape:
        raise AssertionError(
            f"{name}: training mask has dtype {train.dtype} and shape {train.shape}; "
            f"expected bool {X.shape}."
        )
    new = est.get_local_support(X[:7])
    if new.dtype != bool or new.shape != (7, X.shape[1]):
        raise AssertionError(f"{name}: get_local_support(X[:7]) has shape {new.shape}.")
    idx = est.get_local_support(X[:7], indices=True)
    if len(idx) != 7 or any(not np.array_equal(np.flatnonzero(m), i) for m, i in zip(new, idx)):
        raise AssertionError(f"{name}: indices=True disagrees with the boolean masks.")


def check_support_is_union(name: str, estimator) -> None:
    """``get_support()`` is the union of the training samples' masks."""
    X, y = make_check_data()
    est = _fit(estimator, X, y)
    union = est.get_local_support().any(axis=0)
    if not np.array_equal(est.get_support(), union):
        raise AssertionError(f"{name}: get_support() is not the union of the local masks.")
    if not np.array_equal(est.get_support(indices=True), np.flatnonzero(union)):
        raise AssertionError(f"{name}: get_support(indices=True) disagrees with the mask.")


def check_transform_zeroes_unselected(name: str, estimator) -> None:
    """``transform`` keeps the shape and zeroes exactly the unselected entries."""
    X, y = make_check_data()
    est = _fit(estimator, X, y)
    Xt = est.transform(X)
    mask = est.get_local_support(X)
    if Xt.shape != X.shape:
        raise AssertionError(f"{name}: transform changed the shape to {Xt.shape}.")
    if not (np.array_equal(Xt[mask], X[mask]) and np.all(Xt[~mask] == 0)):
        raise AssertionError(f"{name}: transform does not zero exactly the unselected entries.")
    if len(est.get_feature_names_out()) != X.shape[1]:
        raise AssertionError(f"{name}: get_feature_names_out has the wrong length.")


def check_feature_permutation(name: str, estimator) -> None:
    """Permuting the features permutes the training masks."""
    X, y = make_check_data()
    perm = np.random.default_rng(1).permutation(X.shape[1])
    base = _fit(estimator, X, y).get_local_support()
    permuted = _fit(estimator, X[:, perm], y).get_local_support()
    if not np.array_equal(permuted, base[:, perm]):
        raise AssertionError(f"{name}: permuting features does not permute the local masks.")


def check_sample_permutation(name: str, estimator) -> None:
    """Permuting the training samples permutes their masks."""
    X, y = make_check_data()
    perm = np.random.default_rng(2).permutation(X.shape[0])
    base = _fit(estimator, X, y).get_local_support()
    permuted = _fit(estimator, X[perm], y[perm]).get_local_support()
    if not np.array_equal(permuted, base[perm]):
        raise AssertionError(f"{name}: permuting samples does not permute the local masks.")


def check_pickle_round_trip(name: str, estimator) -> None:
    """A pickled and restored selector gives the same masks and predictions."""
    X, y = make_check_data()
    est = _fit(estimator, X, y)
    restored = pickle.loads(pickle.dumps(est))
    if not np.array_equal(est.get_local_support(X), restored.get_local_support(X)):
        raise AssertionError(f"{name}: masks differ after a pickle round trip.")
    if is_classifier(est) and not np.array_equal(est.predict(X), restored.predict(X)):
        raise AssertionError(f"{name}: predictions differ after a pickle round trip.")


def check_one_rule(name: str, estimator) -> None:
    """Training rows and new rows get their subsets by the same rule."""
    X, y = make_check_data()
    est = _fit(estimator, X, y)
    if not np.array_equal(est.get_local_support(), est.get_local_support(X)):
        raise AssertionError(
            f"{name}: get_local_support() differs from get_local_support(X_train)."
        )
    if not np.allclose(est.local_relevance(), est.local_relevance(X)):
        raise AssertionError(f"{name}: local_relevance() differs from local_relevance(X_train).")
    new, _ = make_check_data(n_samples=12, random_state=1)
    both = est.get_local_support(np.vstack([new, X[:5]]))
    if not np.array_equal(
        both, np.vstack([est.get_local_support(new), est.get_local_support()[:5]])
    ):
        raise AssertionError(f"{name}: a row's subset depends on the rows passed with it.")


def check_local_relevance(name: str, estimator) -> None:
    """``local_relevance`` grades the masks: real, in [0, 1], positive where selected."""
    X, y = make_check_data()
    est = _fit(estimator, X, y)
    new, _ = make_check_data(n_samples=12, random_state=1)
    rel = est.local_relevance(new)
    mask = est.get_local_support(new)
    if rel.shape != mask.shape or rel.dtype != np.float64:
        raise AssertionError(f"{name}: local_relevance has shape {rel.shape}, dtype {rel.dtype}.")
    if not (np.all(rel >= 0) and np.all(rel <= 1)):
        raise AssertionError(f"{name}: local_relevance leaves [0, 1].")
    if np.any(mask & (rel <= 0)):
        raise AssertionError(f"{name}: a selected feature has relevance 0.")


_CHECKS: tuple[Callable[[str, object], None], ...] = (
    check_local_mask_shape,
    check_support_is_union,
    check_transform_zeroes_unselected,
    check_feature_permutation,
    check_sample_permutation,
    check_pickle_round_trip,
    check_one_rule,
    check_local_relevance,
)


#: The checks of the union ``get_support`` and the zeroing ``transform``.
_UNION_CHECKS = (check_support_is_union, check_transform_zeroes_unselected)


@fill_doc
def local_selector_checks(estimator) -> Iterator[Callable[[str, object], None]]:
    """Yield the local-selector checks that apply to ``estimator``.

    %(local_selector_parameter)s

    Yields
    ------
    check : callable
        Called as ``check(name, estimator)``; raises ``AssertionError`` on failure.
    """
    if not isinstance(estimator, LocalSelectorMixin):
        raise TypeError(f"{type(estimator).__name__} is not a LocalSelectorMixin subclass.")
    # A SelectorMixin keeps its own global subset (get_support, transform).
    own_global = isinstance(estimator, SelectorMixin)
    for check in _CHECKS:
        if not (own_global and check in _UNION_CHECKS):
            yield check


@fill_doc
def check_local_selector(estimator) -> None:
    """Run every local-selector check on ``estimator``.

    %(local_selector_parameter)s

    Raises
    ------
    AssertionError
        When a check fails, naming the estimator and the broken promise.
    """
    name = type(estimator).__name__
    for check in local_selector_checks(estimator):
        check(name, estimator)
