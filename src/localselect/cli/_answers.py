"""The answer of a fitted selector on the CLI's rows: per-row subsets and the per-feature table.

``select`` and ``predict`` compute every output (``selected_features.csv``,
``importances.*``, the summary line, the report's figures) from
:func:`row_masks`; :mod:`localselect.cli._columns` then aggregates the encoded
features back to the user's columns.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from localselect.cli._errors import CLIError

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = ["feature_stats_table", "feature_table", "row_masks", "row_relevance"]


def row_masks(estimator: Any, X: Any, n_rows: int) -> np.ndarray | None:
    """Per-row subsets by the rule of :mod:`localselect.base` (a global subset on every row).

    Every output of ``select`` (``selected_features.csv``, ``importances.*``, the
    summary line and the report's figures) is computed from this one array.
    """
    import numpy as np

    from localselect.base import is_selector, local_support

    if not is_selector(estimator):
        return None
    masks = np.asarray(local_support(estimator, X), dtype=bool)
    if masks.shape[0] != n_rows:
        raise CLIError(f"the selector returned {masks.shape[0]} subsets for {n_rows} rows")
    return masks


def row_relevance(estimator: Any, X: Any, masks: np.ndarray | None) -> np.ndarray | None:
    """Per-row relevance in [0, 1] (``local_relevance``), beside :func:`row_masks`."""
    import numpy as np

    from localselect.base import local_relevance

    if masks is None:
        return None
    return np.asarray(local_relevance(estimator, X), dtype=float)


def feature_table(
    estimator: Any,
    names: list[str],
    masks: np.ndarray | None,
    relevance: np.ndarray | None = None,
) -> pd.DataFrame:
    """Per feature: importance, selection frequency, mean relevance, selected.

    ``selection_frequency`` is the fraction of rows whose subset holds the
    feature and ``selected`` whether any row's does (``get_support()``), both
    from ``masks``. ``importance`` is that frequency for a local selector and
    ``feature_importances_`` for a global one; a global selector that only
    ranks (``ranking_``, as mRMR's greedy order) scores the k-th of its n ranked features
    ``(n - k + 1) / n``, the rest 0; else the frequency.
    """
    import numpy as np

    n = len(names)
    frequency = masks.mean(axis=0) if masks is not None else np.full(n, np.nan)
    selected = masks.any(axis=0) if masks is not None else np.zeros(n, dtype=bool)
    mean_relevance = relevance.mean(axis=0) if relevance is not None else np.full(n, np.nan)
    return feature_stats_table(estimator, names, frequency, selected, mean_relevance)


def feature_stats_table(
    estimator: Any,
    names: list[str],
    frequency: Any,
    selected: Any,
    mean_relevance: Any,
) -> pd.DataFrame:
    """:func:`feature_table` from the per-feature statistics of the rows' subsets.

    ``frequency`` (the fraction of rows selecting each feature), ``selected``
    (whether any row does) and ``mean_relevance``: what ``select --cluster``
    reduces on the workers in place of the whole ``masks`` array.
    """
    import numpy as np
    import pandas as pd

    from localselect.base import relevance_scope

    n = len(names)
    scope = relevance_scope(estimator)
    importance = getattr(estimator, "feature_importances_", None)
    source = "feature_importances_"
    ranking = getattr(estimator, "ranking_", None)
    if scope != "local" and importance is None and ranking is not None:
        ranking = np.asarray(ranking, dtype=int)
        importance = np.zeros(n)
        importance[ranking] = (len(ranking) - np.arange(len(ranking))) / len(ranking)
        source = "selection order (ranking_: first = 1)"
    elif scope == "local" or importance is None:
        importance, source = frequency, "selection frequency across rows"
    table = pd.DataFrame(
        {
            "feature": names,
            "importance": np.asarray(importance, dtype=float),
            "selection_frequency": frequency,
            "mean_relevance": mean_relevance,
            "selected": selected,
        }
    )
    table.attrs["importance_source"] = source
    table.attrs["relevance_scope"] = scope
    return table.sort_values("importance", ascending=False, kind="stable")
