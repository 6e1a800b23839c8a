"""The HTML report and its figures, shared by ``localselect select`` and ``demo``.

Figures are chosen by the estimator's ``relevance_scope`` and duck typing
(per-row subsets, importances, a weight matrix ``weights_``, an LLDS
``results_`` table); the selection figures plot the arrays ``select`` writes
to its files. Figures are embedded as
base64 PNG, so a report is one self-contained file.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["figure_to_html", "render_html_report"]


def figure_to_html(fig: Any, alt: str) -> str:
    """An ``<img>`` tag holding the figure as a base64 PNG."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    data = base64.b64encode(buf.getvalue()).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'


def _target_bins(estimator: Any, labels: Any) -> Any:
    """A continuous target as the bin numbers LLDS fitted on (``target_edges_``), else as is."""
    edges = getattr(estimator, "target_edges_", None)
    if edges is None or getattr(estimator, "task_", None) != "regression":
        return labels
    # bin b holds (low_b, high_b]: the same assignment as the fit's quantile bins
    return np.searchsorted(np.asarray(edges)[:-1, 1], np.asarray(labels, float), side="left")


def _lift_figure(estimator: Any, data: Any, labels: Any) -> list[tuple[str, Any]]:
    """LLDS: the lift table of the best result with at most 3 features, as a heat map.

    On a continuous target the columns are its quantile bins (no classes).
    """
    results = getattr(estimator, "results_", None)
    if data is None or not isinstance(results, pd.DataFrame) or "features" not in results:
        return []
    small = [f for f in results["features"] if isinstance(f, tuple) and 0 < len(f) <= 3]
    if not small or not set(small[0]) <= set(data.columns):
        return []
    from localselect import plotting
    from localselect.lift import lift_table

    features = list(small[0])
    binned = _target_bins(estimator, labels)
    table = lift_table(data[features], binned)
    caption = f"Lift table of {', '.join(features)}"
    fig = plotting.plot_lift_table(table)
    if binned is not labels:
        fig.axes[0].set_xlabel("quantile bin of y (target_edges_)")
    return [(caption, fig)]


def _frequency_figure(what: str, source: Any, names: Any, highlight: Any) -> tuple[str, Any]:
    """``(what, figure)``: :func:`~localselect.plotting.plot_selection_frequency` of ``source``."""
    from localselect import plotting

    top = min(40, len(names))
    fig = plotting.plot_selection_frequency(
        source, feature_names=names, top=top, highlight=highlight, title=what.split(" (")[0]
    )
    return what, fig


def _figures(
    estimator: Any,
    names: list[str],
    labels: Any,
    data: Any = None,
    *,
    importances: pd.DataFrame | None = None,
    masks: np.ndarray | None = None,
    level_names: list[str] | None = None,
) -> list[tuple[str, Any]]:
    """The figures that apply to this estimator.

    ``names`` are the columns of ``importances`` and ``masks`` (the user's
    columns in ``select``); ``level_names`` the features the estimator saw
    (one-hot levels), which name the rows of a weight matrix.

    The bar chart plots the ``importance`` column of ``importances`` (red:
    ``selected``) and the subsets figure rows of ``masks``: the arrays the
    CSV and JSON files hold. Without them they are derived from the
    estimator by the same rule (:mod:`localselect.base`).
    """
    from localselect import plotting
    from localselect.base import is_selector, local_support, relevance_scope

    figures = []
    local = is_selector(estimator) and relevance_scope(estimator) == "local"
    if masks is None and local:
        masks = np.asarray(local_support(estimator, None), dtype=bool)
    if importances is not None:
        by_name = importances.set_index("feature")
        values = by_name.loc[names, "importance"].to_numpy(dtype=float)
        selected = by_name.loc[names, "selected"].to_numpy(dtype=bool)
        source = importances.attrs.get("importance_source", "importance")
        what = "Selection frequency across rows" if local else f"Feature importances ({source})"
        # one colour when every drawn bar is selected (the others are 0 high): a legend of
        # one class says nothing
        drawn = values != 0
        one_class = selected[drawn].all() or not selected.any()
        highlight = None if one_class else selected
        if highlight is not None:
            what += "; red: selected"
        figures.append(_frequency_figure(what, values, names, highlight))
    elif local or hasattr(estimator, "feature_importances_"):
        what = "Selection frequency across rows" if local else "Feature importances"
        highlight = None
        if not local and is_selector(estimator):
            highlight = np.asarray(estimator.get_support(), dtype=bool)
            what += " (red: selected)"
        figures.append(_frequency_figure(what, masks if local else estimator, names, highlight))
    if local and masks is not None and masks.shape[0] > 0:
        rows = np.linspace(0, masks.shape[0] - 1, min(12, masks.shape[0])).astype(int)
        figures.append(
            (
                "Local subsets of a few training samples",
                plotting.plot_local_subspaces(
                    masks,
                    samples=np.unique(rows),
                    sample_labels=labels,
                    feature_names=names,
                ),
            )
        )
    weights = getattr(estimator, "weights_", None)
    if weights is not None and np.ndim(weights) == 2:
        figures.append(
            (
                "Weight matrix W",
                plotting.plot_weight_matrix(
                    weights, feature_names=level_names or names, top=min(30, len(weights))
                ),
            )
        )
    from localselect.cli._evidence import evidence_figures

    return (
        figures + evidence_figures(estimator, importances) + _lift_figure(estimator, data, labels)
    )


def _fmt(value: Any) -> str:
    return f"{value:.4g}" if isinstance(value, float) else str(value)


def _table_html(frame: pd.DataFrame) -> str:
    """The table without its all-NaN columns (evidence columns when evidence was not asked)."""
    frame = frame.loc[:, ~frame.isna().all(axis=0)]
    return frame.to_html(index=False, border=0, classes="table", float_format=lambda v: f"{v:.4g}")


def _column_map(
    regimes: Any, rows: np.ndarray, row_columns: list[str], names: list[str]
) -> tuple[np.ndarray, tuple[str, str]]:
    """The regimes' map of encoded ``rows``, its axes named by the input's columns.

    As :func:`localselect.plotting.plot_regimes` draws it (PCA of the z-scored
    columns, each times the mean relevance of its column, unused columns
    left out), for rows with several encoded features per input column (the
    one-hot levels of a categorical column): ``row_columns`` names the input
    column of each feature, and a PCA axis is labelled by the (at most) two
    input columns with the largest loadings, summed over their levels.
    """
    from sklearn.decomposition import PCA

    where = {name: k for k, name in enumerate(names)}
    owner = np.array([where[c] for c in row_columns], dtype=np.intp)
    weights = ((regimes.sizes / regimes.sizes.sum()) @ regimes.mean_relevance)[owner]
    values = rows - rows.mean(axis=0)
    scale = values.std(axis=0)
    values = np.divide(values, scale, out=np.zeros_like(values), where=scale > 0)
    kept = np.flatnonzero(weights > 0) if weights.max() > 0 else np.arange(len(weights))
    values = values[:, kept] * (weights[kept] if weights.max() > 0 else 1.0)
    if values.shape[1] < 2:
        return np.column_stack([values[:, 0], np.zeros(len(values))]), ("", "")
    pca = PCA(n_components=2, random_state=0).fit(values)
    axis_labels = []
    for axis, loading in enumerate(pca.components_):
        per_column = np.bincount(owner[kept], weights=np.abs(loading), minlength=len(names))
        top = np.argsort(-per_column, kind="stable")[:2]
        shown = [names[j] for j in top if per_column[j] > 0]
        axis_labels.append(f"PC{axis + 1}: mostly {', '.join(shown)}")
    return pca.transform(values), (axis_labels[0], axis_labels[1])


def _regimes_figure(
    regimes: Any, numeric: Any, masks: np.ndarray, names: list[str], row_columns: Any
) -> Any:
    """:func:`localselect.plotting.plot_regimes`, its map's axes named by the input's columns."""
    from localselect import plotting

    if numeric is None:
        return plotting.plot_regimes(
            regimes, None, embedding=_mask_map(masks), feature_names=names
        )
    if row_columns is None or numeric.shape[1] == len(names):
        return plotting.plot_regimes(regimes, numeric, feature_names=names)
    points, axis_labels = _column_map(regimes, numeric, list(row_columns), names)
    fig = plotting.plot_regimes(regimes, None, embedding=points, feature_names=names)
    ax = fig.axes[0]
    ax.set_title("rows by regime\n(PCA, columns by relevance)", fontsize=10)
    ax.set_xlabel(axis_labels[0], fontsize=8)
    ax.set_ylabel(axis_labels[1], fontsize=8)
    return fig


def _answer_html(
    estimator: Any,
    names: list[str],
    masks: np.ndarray | None,
    labels: Any,
    rows: Any,
    summary: dict[str, Any],
    row_columns: list[str] | None = None,
) -> str:
    """The answer first: the regimes in words and the "where" figure (global: the ranking).

    Regimes are :func:`localselect.regimes.find_regimes` of the per-row subsets
    the files hold (``masks``); the map is a PCA of ``rows`` when numeric, its
    axes named by the input's columns (``row_columns``: the input column of
    each column of ``rows``, when a categorical column is several of them).
    """
    from localselect.regimes import find_regimes

    if masks is None:
        return ""
    seed = summary.get("params", {}).get("random_state")
    seed = seed if isinstance(seed, int) else 0
    numeric = None
    if rows is not None:
        try:
            numeric = np.asarray(rows, dtype=np.float64)
        except (TypeError, ValueError):
            numeric = None
        if numeric is not None and not np.isfinite(numeric).all():
            numeric = None
    if summary.get("relevance_scope", "local") != "local":
        regimes = find_regimes(masks[:1].repeat(len(masks), axis=0), n_regimes=1)
        regimes = regimes._replace(scope="global")
    else:
        regimes = find_regimes(masks, numeric, labels, random_state=seed)
    text = regimes.describe(names)
    parts = ["<h2>The answer</h2>", f'<p class="answer">{html.escape(text)}</p>']
    if regimes.scope == "local" and regimes.n_regimes > 1:
        try:
            fig = _regimes_figure(regimes, numeric, masks, names, row_columns)
            parts.append(figure_to_html(fig, "where each feature matters"))
        except ImportError as exc:
            parts.append(f'<p class="warn">No figure: {html.escape(str(exc))}</p>')
    return "\n".join(parts)


def _mask_map(masks: np.ndarray) -> np.ndarray:
    """A 2-D map of the rows from their subsets (PCA), when the input is not numeric."""
    from sklearn.decomposition import PCA

    values = masks.astype(np.float64)
    if values.shape[1] < 2:
        return np.column_stack([values[:, 0], np.zeros(len(values))])
    return PCA(n_components=2, random_state=0).fit_transform(values)


def render_html_report(
    *,
    title: str,
    summary: dict[str, Any],
    estimator: Any,
    feature_names: list[str],
    importances: pd.DataFrame | None = None,
    masks: np.ndarray | None = None,
    labels: Any = None,
    warning_lines: list[str] | None = None,
    extra_html: str = "",
    data: Any = None,
    level_names: list[str] | None = None,
    rows: Any = None,
    row_columns: list[str] | None = None,
) -> str:
    """A self-contained HTML page: run summary, tables and the figures as base64 PNG.

    ``importances`` and ``masks`` are the arrays ``select`` writes to its files,
    by the user's columns ``feature_names``; the figures plot exactly those
    (see :func:`_figures`). ``level_names``: the estimator's own features
    (one-hot levels), for figures of its attributes such as a weight matrix;
    ``rows`` the numeric rows the estimator saw, for the map of the regimes,
    and ``row_columns`` the input column of each of their columns (one-hot
    levels), which name the map's axes. The page leads with the answer
    (:func:`_answer_html`).
    """
    run = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(_fmt(v))}</td></tr>"
        for k, v in summary.items()
        if k not in {"features", "params"}
    )
    params = ", ".join(f"{k}={v}" for k, v in summary.get("params", {}).items())
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{html.escape(title)}</title>",
        "<style>body{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse;margin:1em 0}td,th{padding:2px 8px;text-align:left;"
        "border-bottom:1px solid #ddd}img{max-width:100%;display:block;margin:1em 0}"
        ".warn{color:#a60}.answer{font-size:1.1em;line-height:1.5}</style></head><body>",
        f"<h1>{html.escape(title)}</h1>",
    ]
    parts.append(_answer_html(estimator, feature_names, masks, labels, rows, summary, row_columns))
    for line in warning_lines or []:
        parts.append(f'<p class="warn">warning: {html.escape(line)}</p>')
    if params:
        parts.append(f"<p>Parameters: <code>{html.escape(params)}</code></p>")
    if labels is not None and summary.get("task") == "regression":
        values = np.asarray(labels, dtype=float)
        parts.append(
            f"<p>Continuous target: {values.size} rows, min {values.min():.4g}, median "
            f"{np.median(values):.4g}, max {values.max():.4g}</p>"
        )
    elif labels is not None:
        counts = pd.Series(np.asarray(labels)).value_counts(sort=False)
        parts.append(
            "<p>Classes: "
            + html.escape(", ".join(f"{k} ({v})" for k, v in counts.items()))
            + "</p>"
        )
    if extra_html:
        parts.append(extra_html)
    if importances is not None:
        parts.append("<h2>Top features</h2>")
        parts.append(_table_html(importances.head(20)))
    parts.append(f"<h2>Run</h2><table>{run}</table>")
    results = getattr(estimator, "results_", None)
    if isinstance(results, pd.DataFrame):
        parts.append("<h2>Best results</h2>")
        parts.append(_table_html(results.head(10)))
    try:
        figures = _figures(
            estimator,
            feature_names,
            labels,
            data,
            importances=importances,
            masks=masks,
            level_names=level_names,
        )
    except ImportError as exc:
        figures = []
        parts.append(f'<p class="warn">No figures: {html.escape(str(exc))}</p>')
    for caption, fig in figures:
        parts.append(f"<h2>{html.escape(caption)}</h2>")
        parts.append(figure_to_html(fig, caption))
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
