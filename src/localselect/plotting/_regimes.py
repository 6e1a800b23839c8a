"""The "where" figure: rows in a map coloured by regime, beside what each regime uses."""

from __future__ import annotations

from typing import Any

import numpy as np

from localselect.plotting._axes import feature_names_for
from localselect.regimes import Regimes, find_regimes

__all__ = ["plot_regime_rows", "plot_regimes"]

#: Most feature labels on an axis: beyond it every n-th is labelled, so none overlap.
MAX_FEATURE_LABELS = 40

#: Most regimes named in the map's legend (beyond it the heat map's row labels name them).
MAX_LEGEND = 12


#: Least contrast of a regime colour with white (WCAG 2.1's 3:1 for graphics and large text).
MIN_CONTRAST = 3.0


def _luminance(rgb: np.ndarray) -> float:
    """WCAG 2.1 relative luminance of an sRGB colour."""
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def _colours(n: int) -> list[Any]:
    """``n`` regime colours readable as text and points on white.

    Up to 10: ``tab10``; more: hues spread evenly around the colour wheel
    with the lightness cycling 0.30 / 0.50 / 0.40 so that neighbours differ.
    Each is darkened (by 10 % steps) until its contrast with white,
    :math:`1.05 / (L + 0.05)` for relative luminance :math:`L`, is at least
    :data:`MIN_CONTRAST`: no pale yellow or cyan label on a white page.
    """
    import colorsys

    from matplotlib import colormaps

    if n <= 10:
        colours = [np.array(colormaps["tab10"](i)[:3]) for i in range(n)]
    else:
        hues = np.linspace(0.0, 1.0, n, endpoint=False)
        colours = [
            np.array(colorsys.hls_to_rgb(h, (0.30, 0.50, 0.40)[i % 3], 0.8))
            for i, h in enumerate(hues)
        ]
    readable = []
    for rgb in colours:
        while 1.05 / (_luminance(rgb) + 0.05) < MIN_CONTRAST:
            rgb = rgb * 0.9
        readable.append((*rgb.tolist(), 1.0))
    return readable


def _regimes_of(source: Any, X: Any, y: Any, random_state: Any) -> Regimes:
    return source if isinstance(source, Regimes) else find_regimes(
        source, X, y, random_state=random_state
    )  # fmt: skip


def _names_of(source: Any, regimes: Regimes, n_features: int, feature_names: Any, X: Any):
    """The names of :func:`localselect.regimes.column_names`, the regimes' own first."""
    if feature_names is None and isinstance(source, Regimes):
        feature_names = regimes.feature_names
    return feature_names_for(source, n_features, feature_names, X)


def _feature_order(regimes: Regimes) -> np.ndarray:
    """Features by their size-weighted mean relevance over the regimes, largest first."""
    weight = regimes.sizes / regimes.sizes.sum()
    return np.argsort(-(weight @ regimes.mean_relevance), kind="stable")


def _thin_labels(ax: Any, names: list[str], axis: str = "x") -> None:
    """Label every n-th position so that at most :data:`MAX_FEATURE_LABELS` show."""
    step = max(1, int(np.ceil(len(names) / MAX_FEATURE_LABELS)))
    ticks = np.arange(0, len(names), step)
    size = 8 if len(names) <= 20 else 6.5
    if axis == "x":
        ax.set_xticks(ticks, [names[t] for t in ticks], rotation=90, fontsize=size)
    else:
        ax.set_yticks(ticks, [names[t] for t in ticks], fontsize=size)


def _regime_label(regimes: Regimes, r: int) -> str:
    label = f"R{r + 1} (n={regimes.sizes[r]}"
    if regimes.class_counts is not None:
        counts = regimes.class_counts[r]
        top = int(np.argmax(counts))
        label += f", {100 * counts[top] / counts.sum():.0f}% {regimes.classes[top]}"
    elif regimes.target_mean is not None:
        label += f", y={regimes.target_mean[r]:.3g}"
    return label + ")"


def _embed(X: Any, embedding: Any, weights: Any, names: list[str]):
    """``(points, axis labels)``: ``embedding``, or PCA of the z-scored columns times ``weights``.

    A PCA axis is labelled by the (at most) two columns with the largest
    loadings, so a reader sees which input columns the map spreads; by its
    number alone when ``X`` has not one column per feature (an encoding).
    """
    if embedding is not None:
        points = np.asarray(embedding, dtype=np.float64)
        if points.ndim != 2 or points.shape[1] != 2:
            raise ValueError(f"embedding must have shape (n_rows, 2); got {points.shape}.")
        return points, ("", "")
    from sklearn.decomposition import PCA

    values, columns = _numeric_columns(X)
    width = X.shape[1] if hasattr(X, "shape") and len(X.shape) == 2 else values.shape[1]
    values = values - values.mean(axis=0)
    scale = values.std(axis=0)
    values = np.divide(values, scale, out=np.zeros_like(values), where=scale > 0)
    column = names if len(names) == width else None  # columns that are not the features
    kept = columns
    if weights is not None and len(weights) == width and weights[columns].max(initial=0) > 0:
        chosen = np.flatnonzero(weights[columns] > 0)
        kept = columns[chosen]
        values = values[:, chosen] * weights[kept]
    if values.shape[1] < 2:
        return np.column_stack([values[:, 0], np.zeros(len(values))]), ("", "")
    pca = PCA(n_components=2, random_state=0).fit(values)
    labels = []
    for axis, loading in enumerate(pca.components_):
        top = np.argsort(-np.abs(loading), kind="stable")[:2]
        parts = [column[kept[j]] for j in top] if column else []
        labels.append(f"PC{axis + 1}: mostly {', '.join(parts)}" if parts else f"PC{axis + 1}")
    return pca.transform(values), tuple(labels)


def _numeric_columns(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(values, indices)``: the numeric columns of ``X`` as float64 and their positions.

    An array is all numeric; of a frame with category, string or boolean
    columns the numeric ones are kept (a PCA of level codes would draw an
    order the levels do not have). Missing values are replaced by the
    column's mean (they then add nothing to the PCA).
    """
    if hasattr(X, "to_pandas") and not hasattr(X, "select_dtypes"):
        X = X.to_pandas()  # a polars frame
    if hasattr(X, "select_dtypes"):
        numeric = [
            j for j, dtype in enumerate(X.dtypes)
            if dtype.kind in "iuf" and not hasattr(dtype, "categories")
        ]  # fmt: skip
        if not numeric:
            raise ValueError(
                "The map needs numeric columns in X (a PCA of them); X has none. Pass an "
                "embedding of the rows instead."
            )
        values = X.iloc[:, numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        columns = np.asarray(numeric, dtype=np.intp)
    else:
        values = np.asarray(X, dtype=np.float64)
        columns = np.arange(values.shape[1])
    known = np.isfinite(values)
    counts = known.sum(axis=0)
    sums = np.where(known, values, 0.0).sum(axis=0)
    means = np.divide(sums, counts, out=np.zeros(values.shape[1]), where=counts > 0)
    return np.where(known, values, means[None, :]), columns


def _draw_map(ax, points, regimes, colours, title, axis_labels=("", "")):
    n = regimes.n_regimes
    size = 12 if len(points) <= 2000 else 4
    for r in range(n):
        rows = regimes.labels == r
        ax.scatter(*points[rows].T, s=size, color=colours[r], label=f"R{r + 1}", linewidths=0)
    ax.set_title(title, fontsize=10)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_xlabel(axis_labels[0], fontsize=8)
    ax.set_ylabel(axis_labels[1], fontsize=8)
    if n <= MAX_LEGEND:
        ax.legend(fontsize=7, markerscale=1.5, loc="best", ncols=1 if n <= 6 else 2)


def _draw_heatmap(ax, regimes, names, order, colours):
    values = regimes.mean_relevance[:, order]
    image = ax.imshow(values, aspect="auto", cmap="Reds", vmin=0, vmax=1, interpolation="nearest")
    _thin_labels(ax, [names[j] for j in order])
    labels = [_regime_label(regimes, r) for r in range(regimes.n_regimes)]
    step = max(1, int(np.ceil(regimes.n_regimes / MAX_FEATURE_LABELS)))
    rows = np.arange(0, regimes.n_regimes, step)
    ax.set_yticks(rows, [labels[r] for r in rows], fontsize=8 if regimes.n_regimes <= 12 else 6)
    for tick, r in zip(ax.get_yticklabels(), rows, strict=True):
        tick.set_color(colours[r])
    ax.set_xlabel("feature (most relevant first)", fontsize=9)
    ax.set_title("mean relevance per regime", fontsize=10)
    return image


def plot_regimes(
    source: Any,
    X: Any = None,
    y: Any = None,
    *,
    embedding: Any = None,
    scale: str = "relevance",
    feature_names: Any = None,
    random_state: Any = None,
    title: str | None = None,
    fig: Any = None,
):
    """Where each feature matters: rows in a 2-D map by regime, beside each regime's features.

    Left: the rows in a 2-D map of the input (PCA of the z-scored columns,
    each weighted by its mean relevance, or ``embedding``), coloured by
    regime. Right: a regimes x features heat map
    of the mean ``local_relevance``, features ordered by their size-weighted
    mean relevance (labels thinned to at most :data:`MAX_FEATURE_LABELS`), each
    row labelled with the regime's size and its largest class (or mean
    target).

    Parameters
    ----------
    source : Regimes, fitted selector or array-like
        Regimes from :func:`localselect.regimes.find_regimes`, or anything it
        takes (then grouped with ``random_state``).
    X : array-like of shape (n_rows, n_features)
        The rows (the map is drawn from them unless ``embedding`` is given).
    y : array-like of shape (n_rows,), default=None
        Labels for the class mix (when ``source`` is not already regimes).
    embedding : array-like of shape (n_rows, 2), default=None
        Coordinates of the rows for the map (t-SNE, UMAP, two columns ...).
    scale : {"relevance", "standard"}, default="relevance"
        The map's PCA (without ``embedding``) is of the z-scored columns of
        ``X``; ``"relevance"`` multiplies column :math:`j` by
        :math:`\\bar r_j`, the mean ``local_relevance`` of feature :math:`j`
        over the rows (the size-weighted mean of the regimes' rows), and drops
        the columns no row uses. When most columns are noise, a plain PCA
        (``"standard"``) spends its two axes on them and the regimes overlap
        on the map; weighted, the axes follow the columns the answer uses.
        Used when ``X`` has one column per feature of the regimes.
    feature_names : sequence of str, default=None
        Feature names; default those of the regimes (the selector's
        ``feature_names_in_`` or the columns of a frame ``X``), else ``x0``,
        ``x1``, ... (:func:`localselect.regimes.column_names`).
    random_state : int, RandomState instance or None, default=None
        For :func:`~localselect.regimes.find_regimes`.
    title : str, default=None
        Figure title; default the number of regimes.
    fig : matplotlib Figure, default=None
        An empty figure to draw into (e.g. ``plt.figure()``, so that pyplot
        shows it; its size is set here); default a new display-free figure.

    Returns
    -------
    fig : matplotlib.figure.Figure
        Two panels (map, heat map) and a colour bar.
    """
    from matplotlib.figure import Figure

    regimes = _regimes_of(source, X, y, random_state)
    if X is None and embedding is None:
        raise ValueError("Pass X (the rows) or an embedding for the map.")
    if scale not in ("relevance", "standard"):
        raise ValueError(f"scale must be 'relevance' or 'standard'; got {scale!r}.")
    weights = None
    if scale == "relevance":
        weights = (regimes.sizes / regimes.sizes.sum()) @ regimes.mean_relevance
    n_features = regimes.mean_relevance.shape[1]
    names = _names_of(source, regimes, n_features, feature_names, X)
    points, axis_labels = _embed(X, embedding, weights, names)
    if len(points) != len(regimes.labels):
        raise ValueError(f"{len(points)} rows to draw; the regimes have {len(regimes.labels)}.")
    colours = _colours(regimes.n_regimes)
    width = 12.0 if n_features > 30 else 10.0
    height = max(4.2, min(9.0, 2.2 + 0.18 * regimes.n_regimes))
    if fig is None:
        fig = Figure(figsize=(width, height), layout="constrained")
    else:
        fig.set_size_inches(width, height)
        fig.set_layout_engine("constrained")
    left, right = fig.subplots(1, 2, width_ratios=[1, 1.6])
    where = "the given embedding"
    if embedding is None:
        where = "PCA, columns by relevance" if scale == "relevance" else "PCA of the input"
    _draw_map(left, points, regimes, colours, f"rows by regime\n({where})", axis_labels)
    image = _draw_heatmap(right, regimes, names, _feature_order(regimes), colours)
    fig.colorbar(image, ax=right, shrink=0.8, label="mean relevance")
    fig.suptitle(title or f"{regimes.n_regimes} regime(s) of rows that use the same features")
    return fig


def plot_regime_rows(
    source: Any,
    X: Any = None,
    y: Any = None,
    *,
    relevance: Any = None,
    feature_names: Any = None,
    random_state: Any = None,
    ax: Any = None,
):
    """Every row's relevance, rows ordered by regime (SHAP's heat map, for subsets).

    Parameters
    ----------
    source : fitted selector, array-like or Regimes
        A fitted selector or an answer array (its relevance is drawn), or
        regimes (then pass ``relevance``).
    X, y : array-like, default=None
        Rows and labels, as for :func:`plot_regimes`.
    relevance : array-like of shape (n_rows, n_features), default=None
        The per-row values to draw; default the selector's
        ``local_relevance(X)`` (or the array itself).
    feature_names : sequence of str, default=None
        Feature names; default as in :func:`plot_regimes`.
    random_state : int, RandomState instance or None, default=None
        For :func:`~localselect.regimes.find_regimes`.
    ax : matplotlib Axes, default=None
        Axes to draw into; default a new figure.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure: one heatmap of every row's relevance, rows ordered by regime.
    """
    from localselect.base import is_selector, local_relevance
    from localselect.plotting._axes import new_axes

    regimes = _regimes_of(source, X, y, random_state)
    if relevance is None:
        if isinstance(source, Regimes):
            raise ValueError("Pass relevance= with precomputed regimes.")
        relevance = local_relevance(source, X) if is_selector(source) else source
    values = np.asarray(relevance, dtype=np.float64)
    order = np.argsort(regimes.labels, kind="stable")
    columns = _feature_order(regimes)
    names = _names_of(source, regimes, values.shape[1], feature_names, X)
    fig, ax = new_axes(ax, figsize=(10.0, 5.0))
    image = ax.imshow(values[np.ix_(order, columns)], aspect="auto", cmap="Reds", vmin=0,
                      vmax=1, interpolation="nearest")  # fmt: skip
    _thin_labels(ax, [names[j] for j in columns])
    bounds = np.cumsum(regimes.sizes)[:-1] - 0.5
    for b in bounds:
        ax.axhline(b, color="black", linewidth=0.8)
    centres = np.cumsum(regimes.sizes) - regimes.sizes / 2
    step = max(1, int(np.ceil(regimes.n_regimes / MAX_FEATURE_LABELS)))
    shown = np.arange(0, regimes.n_regimes, step)
    ax.set_yticks(centres[shown], [f"R{r + 1}" for r in shown], fontsize=7)
    ax.set_ylabel("rows, ordered by regime")
    ax.set_title("relevance of every row", fontsize=10)
    fig.colorbar(image, ax=ax, shrink=0.8, label="local relevance")
    return fig
