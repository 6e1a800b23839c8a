"""Evidence in ``localselect select``: ``--n-features auto``, ``--fdr``, ``--stability N``.

Kept apart from the rest of the command so each piece is one call in
:func:`localselect.cli._select.run_select`:

* :func:`add_evidence_arguments` -- the flags;
* :func:`evidence_params` -- ``fdr`` for the estimator, with clear errors;
* :func:`run_stability` -- :class:`~localselect.evidence.StabilitySelection`
  over the fitted method's settings;
* :func:`add_evidence_columns` / :func:`evidence_summary` -- ``p_value``,
  ``q_value`` and ``selection_probability`` in ``importances.csv/json``;
* :func:`evidence_figures` -- the report's "scores against their null" and
  stability plots.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from localselect.cli._errors import CLIError

if TYPE_CHECKING:
    import pandas as pd

# numpy and matplotlib are imported where used: building the parser imports neither.

__all__ = [
    "add_evidence_arguments",
    "add_evidence_columns",
    "evidence_figures",
    "evidence_params",
    "evidence_summary",
    "n_features_arg",
    "run_stability",
]


def n_features_arg(text: str) -> int | str:
    """``--n-features``: a positive integer or ``auto``."""
    if text == "auto":
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer or 'auto'; got {text!r}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer or 'auto'; got {value}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 2:
        raise argparse.ArgumentTypeError(f"expected an integer of at least 2; got {text!r}")
    return value


def add_evidence_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--fdr`` and ``--stability`` (``--n-features auto``: :func:`n_features_arg`)."""
    p.add_argument(
        "--fdr",
        type=float,
        default=None,
        help="target false discovery rate of --n-features auto (default 0.1): keeps the "
        "features whose Benjamini-Hochberg q-value against the method's null is at most this",
    )
    p.add_argument(
        "--stability",
        type=_positive_int,
        default=None,
        metavar="N",
        help="also fit the method on N half-size subsamples: importances gain "
        "selection_probability, importances.json the stability indices and the "
        "Meinshausen-Buhlmann bound",
    )


def evidence_params(cls: type, valid: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """``fdr`` (and the check of ``--n-features auto``) for ``cls``'s parameters."""
    params: dict[str, Any] = {}
    auto = getattr(args, "n_features", None) == "auto"
    if auto and "fdr" not in valid:
        raise CLIError(
            f"--n-features auto does not apply to {cls.__name__} (a local selector or a method "
            "without a null); use --stability N for selection probabilities"
        )
    fdr = getattr(args, "fdr", None)
    if fdr is not None:
        if not 0 < fdr < 1:
            raise CLIError(f"--fdr must be in (0, 1); got {fdr}")
        if not auto:
            raise CLIError("--fdr applies with --n-features auto; add it")
        params["fdr"] = fdr
    return params


def run_stability(estimator: Any, X: Any, y: Any, n_subsamples: int, args: argparse.Namespace):
    """Fit :class:`~localselect.evidence.StabilitySelection` of ``estimator``'s settings."""
    import numpy as np
    from sklearn.base import clone

    from localselect.evidence import StabilitySelection

    stability = StabilitySelection(
        clone(estimator),
        n_subsamples=n_subsamples,
        random_state=getattr(args, "random_state", None),
        n_jobs=getattr(args, "n_jobs", None),
    )
    return stability.fit(np.asarray(X, dtype=np.float64), y)


def add_evidence_columns(
    importances: pd.DataFrame, estimator: Any, names: list[str], stability: Any = None
) -> pd.DataFrame:
    """``p_value``, ``q_value`` (with ``--n-features auto``) and ``selection_probability``
    (with ``--stability``) beside each feature; NaN where not computed."""
    import numpy as np

    position = {name: j for j, name in enumerate(names)}
    index = importances["feature"].map(position).to_numpy()
    for column, values in (
        ("p_value", getattr(estimator, "pvalues_", None)),
        ("q_value", getattr(estimator, "qvalues_", None)),
        (
            "selection_probability",
            None if stability is None else stability.selection_probabilities_,
        ),
    ):
        full = np.full(len(names), np.nan) if values is None else np.asarray(values, dtype=float)
        importances[column] = full[index]
    return importances


def evidence_summary(estimator: Any, stability: Any) -> dict[str, Any]:
    """The evidence entries of ``importances.json``."""
    import numpy as np

    summary: dict[str, Any] = {}
    if getattr(estimator, "qvalues_", None) is not None:
        null = getattr(estimator, "null_", None)
        summary["fdr"] = estimator.fdr
        summary["null"] = getattr(null, "method", None)
        # draws: permutations B or shadow rounds R (the rows of null_.null), not B x p scores
        summary["null_draws"] = None if null is None else int(np.shape(null.null)[0])
    if stability is not None:
        summary["stability"] = {
            "n_subsamples": stability.n_subsamples,
            "sample_fraction": stability.sample_fraction,
            "threshold": stability.threshold,
            "nogueira_index": _finite(stability.stability_),
            "kuncheva_index": _finite(stability.kuncheva_index_),
            "expected_false_selections_bound": _finite(stability.expected_false_selections_),
            "n_stable_features": int(stability.get_support().sum()),
        }
    return summary


def _finite(value: float) -> float | None:

    import numpy as np

    return float(value) if np.isfinite(value) else None


def evidence_figures(estimator: Any, importances: pd.DataFrame | None) -> list[tuple[str, Any]]:
    """Report figures: observed scores against the null's draws; selection probabilities."""
    import matplotlib.pyplot as plt
    import numpy as np

    figures = []
    null = getattr(estimator, "null_", None)
    if null is not None and importances is not None and "q_value" in importances:
        fig, ax = plt.subplots(figsize=(8, 3.5))
        draws = np.asarray(null.null, dtype=float).ravel()
        draws = draws[np.isfinite(draws)]
        ax.hist(draws, bins=40, color="0.7", label=f"null draws ({null.method})")
        scores = np.asarray(null.scores, dtype=float)
        selected = np.asarray(estimator.get_support(), dtype=bool)
        finite = np.isfinite(scores)
        for mask, colour, label in (
            (~selected, "tab:blue", "kept out"),
            (selected, "tab:red", "selected"),
        ):
            values = scores[mask & finite]
            if values.size:
                ax.vlines(values, 0, ax.get_ylim()[1], colors=colour, lw=1, label=label)
        ax.set_xlabel("score")
        ax.set_ylabel("count")
        ax.legend(loc="upper right", fontsize=8)
        fig.tight_layout()
        figures.append(("Scores against their null (red: q-value <= fdr)", fig))
    if importances is not None and importances.get("selection_probability") is not None:
        probs = importances["selection_probability"].to_numpy(dtype=float)
        if np.isfinite(probs).any():
            order = np.argsort(-np.nan_to_num(probs, nan=-1.0), kind="stable")[:40]
            fig, ax = plt.subplots(figsize=(8, 3.5))
            ax.bar(range(len(order)), probs[order], color="tab:green")
            ax.axhline(0.6, color="k", lw=1, ls="--", label="threshold 0.6")
            ax.set_xticks(range(len(order)))
            ax.set_xticklabels(importances["feature"].to_numpy()[order], rotation=90, fontsize=7)
            ax.set_ylim(0, 1)
            ax.set_ylabel("selection probability")
            ax.legend(loc="upper right", fontsize=8)
            fig.tight_layout()
            figures.append(("Stability: selection probability over subsamples", fig))
    return figures
