"""Input checks and selection policy shared by the margin-based estimators."""

from __future__ import annotations

import logging

import numpy as np
from numpy.typing import NDArray
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from localselect.base import GlobalRelevanceMixin


def encode_targets(
    name: str, y: NDArray, *, need_hits: bool = True
) -> tuple[NDArray, NDArray[np.intp]]:
    """Classes and integer codes of ``y``, with the family's data checks.

    Raises a ValueError naming the problem when ``y`` has one class, or (with
    ``need_hits``) when a class has a single sample, which then has no hit.
    """
    check_classification_targets(y)
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < 2:
        raise ValueError(
            f"{name} needs at least 2 classes in y; got 1 class ({classes[0]!r}). "
            "Pass labels of two or more classes."
        )
    if need_hits:
        counts = np.bincount(codes)
        lonely = classes[counts < 2]
        if len(lonely):
            raise ValueError(
                f"{name} needs at least 2 samples in every class (a sample's 'hits' are "
                f"the other samples of its class); class(es) {list(lonely)!r} have 1 "
                "sample. Remove them or add samples."
            )
    return classes, codes.astype(np.intp)


def top_k_mask(scores: NDArray[np.float64], k: int) -> NDArray[np.bool_]:
    """Mask of the ``k`` highest scores; ties go to the lower feature index."""
    order = np.argsort(-scores, kind="stable")
    mask = np.zeros(scores.shape[0], dtype=bool)
    mask[order[: min(k, scores.shape[0])]] = True
    return mask


def set_verbosity(logger: logging.Logger, verbose: int) -> None:
    """Make ``verbose`` reach the logs: 1 -> INFO, 2 -> DEBUG (never lowers a level)."""
    if verbose >= 2:
        level = logging.DEBUG
    elif verbose == 1:
        level = logging.INFO
    else:
        return
    if logger.getEffectiveLevel() > level:
        logger.setLevel(level)


class _FeatureWeightSelector(GlobalRelevanceMixin, SelectorMixin, BaseEstimator):
    """Global selector on ``feature_importances_``: the top ``n_features_to_select``."""

    def _prepare_fit(
        self, X, y, *, need_hits: bool = True
    ) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """The fit preamble of the Relief family: validated float64 ``X``, class codes.

        Validates ``X`` and ``y`` (setting ``n_features_in_``), makes ``verbose``
        reach the ``localselect.margin`` logs, and sets ``classes_`` through
        :func:`encode_targets` (one class, or a one-sample class with
        ``need_hits``, is a ValueError).
        """
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan")
        set_verbosity(logging.getLogger("localselect.margin"), getattr(self, "verbose", 0))
        self.classes_, codes = encode_targets(type(self).__name__, y, need_hits=need_hits)
        return X, codes

    def _get_support_mask(self):
        check_is_fitted(self)
        k = self.n_features_to_select
        if k is None:
            return self.feature_importances_ > 0
        return top_k_mask(self.feature_importances_, k)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.allow_nan = True
        return tags
