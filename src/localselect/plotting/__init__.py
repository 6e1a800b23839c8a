"""Figures of the papers, from fitted estimators or plain arrays (matplotlib, imported lazily).

Every function returns a :class:`matplotlib.figure.Figure` and draws into
``ax`` when one is given. Figures are built without ``pyplot``, so they render
on machines without a display (save them with ``fig.savefig``).

========================================  =============================================
function                                  figure
========================================  =============================================
:func:`plot_selection_frequency`          selection frequency per feature across regions
                                          (LFS Figs. 5 and 9) or feature importances
:func:`plot_weight_matrix`                IMMIGRATE weight matrix W as a heat map (Fig. B1)
:func:`plot_local_subspaces`              per-query feature subsets of a few samples (GP)
:func:`plot_feature_recovery`             known relevant features against found ones
:func:`plot_error_vs_alpha`               error rate against alpha (LFS Fig. 6)
:func:`plot_cardinality_vs_alpha`         selected-set size against alpha (LFS Fig. 7)
:func:`plot_lift_table`                   LLDS lift table as an annotated heat map
:func:`plot_regimes`                      where each feature matters: rows by regime in a
                                          2-D map beside a regime x feature heat map
:func:`plot_regime_rows`                  every row's relevance, rows ordered by regime
========================================  =============================================

Inputs are duck-typed: anything with ``local_support_`` (local selectors),
``weights_`` (IMMIGRATE) or ``feature_importances_`` works, as do arrays.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__all__ = [
    "plot_cardinality_vs_alpha",
    "plot_error_vs_alpha",
    "plot_feature_recovery",
    "plot_lift_table",
    "plot_local_subspaces",
    "plot_regime_rows",
    "plot_regimes",
    "plot_selection_frequency",
    "plot_weight_matrix",
    "subspace_recovery",
]

_LOCATIONS = {
    "plot_selection_frequency": "_selection",
    "plot_weight_matrix": "_weights",
    "plot_local_subspaces": "_subspaces",
    "plot_feature_recovery": "_subspaces",
    "subspace_recovery": "_subspaces",
    "plot_error_vs_alpha": "_curves",
    "plot_cardinality_vs_alpha": "_curves",
    "plot_lift_table": "_lift",
    "plot_regimes": "_regimes",
    "plot_regime_rows": "_regimes",
}


def __getattr__(name: str) -> Any:
    if name not in _LOCATIONS:
        raise AttributeError(f"module 'localselect.plotting' has no attribute {name!r}")
    module_name = f"localselect.plotting.{_LOCATIONS[name]}"
    try:
        module = import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            raise ImportError(
                f"{name} is not available in this version of localselect "
                f"({module_name} has not landed yet)"
            ) from exc
        raise
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
