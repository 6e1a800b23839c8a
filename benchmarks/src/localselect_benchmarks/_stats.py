"""Statistics of the papers' protocols: mean/std over splits and paired t-test win/tie/loss.

The win/tie/loss rule is the IMMIGRATE paper's (Zhao, Hong and Liu 2020,
Sec. 4.2 and Appendix A): over the paired trials (10 times 10-fold
cross-validation, 100 trials) of methods A and B,

1. a two-sided paired Student's t-test of "no difference"; a p-value of at
   least ``alpha`` (0.05) is a **tie**;
2. otherwise a one-sided paired t-test of "B is no worse than A"; a p-value
   below ``alpha`` means A **wins**, and "vice versa" (the one-sided test in the
   other direction) means A **loses**.

When every paired difference is identical the t statistic is undefined: equal
results are a tie, a constant non-zero difference is a win or a loss by its
sign (the difference is certain, its variance is zero).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

__all__ = ["PairedTest", "aggregate_trials", "paired_wtl", "wtl_counts"]

Outcome = Literal["win", "tie", "loss"]


class PairedTest(NamedTuple):
    """Result of :func:`paired_wtl`."""

    outcome: Outcome
    p_two_sided: float
    p_one_sided: float
    mean_difference: float
    n_trials: int


def _as_trials(a: ArrayLike, b: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    a_arr = np.asarray(a, dtype=np.float64).ravel()
    b_arr = np.asarray(b, dtype=np.float64).ravel()
    if a_arr.shape != b_arr.shape:
        raise ValueError(
            f"Paired trials need the same number of results per method; got {a_arr.size} "
            f"and {b_arr.size}. Run both methods on the same splits."
        )
    if a_arr.size < 2:
        raise ValueError(
            f"A paired t-test needs at least 2 trials per method; got {a_arr.size}. "
            "Use more splits (the papers use 10 times 10-fold cross-validation)."
        )
    if not (np.all(np.isfinite(a_arr)) and np.all(np.isfinite(b_arr))):
        raise ValueError("Trial results contain NaN or inf; drop or repair those trials first.")
    return a_arr, b_arr


def paired_wtl(
    a: ArrayLike, b: ArrayLike, *, alpha: float = 0.05, higher_is_better: bool = True
) -> PairedTest:
    """Win, tie or loss of method A against method B by the paired t-test.

    Parameters
    ----------
    a, b : array-like of shape (n_trials,)
        Scores of A and B on the same trials (same split, same order).
    alpha : float, default=0.05
        Significance level of both tests.
    higher_is_better : bool, default=True
        True for accuracies, False for error rates.

    Returns
    -------
    result : PairedTest
        ``outcome`` ("win", "tie" or "loss" for A), the two p-values, the mean of
        ``a - b`` and the number of trials.

    Examples
    --------
    >>> from localselect_benchmarks._stats import paired_wtl
    >>> paired_wtl([0.90, 0.92, 0.91, 0.93], [0.80, 0.83, 0.80, 0.82]).outcome
    'win'
    >>> paired_wtl([0.90, 0.80, 0.91, 0.83], [0.89, 0.81, 0.90, 0.84]).outcome
    'tie'
    """
    a_arr, b_arr = _as_trials(a, b)
    diff = a_arr - b_arr if higher_is_better else b_arr - a_arr
    mean = float(diff.mean())
    if np.ptp(diff) == 0.0:
        # Zero variance: the t statistic is 0/0 (tie) or +-inf (a certain difference).
        outcome: Outcome = "tie" if mean == 0.0 else ("win" if mean > 0 else "loss")
        p_two = 1.0 if mean == 0.0 else 0.0
        p_one = 1.0 if mean <= 0.0 else 0.0
        return PairedTest(outcome, p_two, p_one, _signed(mean, higher_is_better), diff.size)
    p_two = float(stats.ttest_1samp(diff, 0.0).pvalue)
    p_greater = float(stats.ttest_1samp(diff, 0.0, alternative="greater").pvalue)
    if p_two >= alpha:
        outcome = "tie"
    elif p_greater < alpha:
        outcome = "win"
    elif float(stats.ttest_1samp(diff, 0.0, alternative="less").pvalue) < alpha:
        outcome = "loss"
    else:  # pragma: no cover - a two-sided p < alpha implies one one-sided p < alpha/2
        outcome = "tie"
    return PairedTest(outcome, p_two, p_greater, _signed(mean, higher_is_better), diff.size)


def _signed(mean_better: float, higher_is_better: bool) -> float:
    # Report the mean of a - b in the metric's own direction.
    return mean_better if higher_is_better else -mean_better


def wtl_counts(outcomes: Iterable[str]) -> tuple[int, int, int]:
    """Count ``(wins, ties, losses)`` in a sequence of outcomes (the papers' "(W,T,L)" row).

    Parameters
    ----------
    outcomes : iterable of {"win", "tie", "loss"}
        One outcome per data set.

    Returns
    -------
    counts : tuple of int
        Wins, ties and losses.
    """
    counts = {"win": 0, "tie": 0, "loss": 0}
    for outcome in outcomes:
        if outcome not in counts:
            raise ValueError(f"Unknown outcome {outcome!r}; expected 'win', 'tie' or 'loss'.")
        counts[outcome] += 1
    return counts["win"], counts["tie"], counts["loss"]


def aggregate_trials(
    trials: Mapping[str, ArrayLike],
    *,
    reference: str | None = None,
    alpha: float = 0.05,
    higher_is_better: bool = True,
    ddof: int = 1,
    **fields: Any,
) -> list[dict[str, Any]]:
    """Summarise trials: mean and std per method, win/tie/loss against a reference.

    Parameters
    ----------
    trials : mapping of str to array-like of shape (n_trials,)
        Per-trial scores of each method on one data set, paired across methods.
    reference : str, default=None
        The paper's method (IGT, BIM, B4G): every other method gets a ``wtl``
        field saying whether the *reference* wins, ties or loses against it, as
        in the papers' "(W,T,L)" rows. ``None`` skips the tests.
    alpha : float, default=0.05
        Significance level.
    higher_is_better : bool, default=True
        Direction of the metric.
    ddof : int, default=1
        Delta degrees of freedom of the standard deviation (1: sample std).
    **fields
        Added to every record (``table``, ``dataset``, ``metric``,
        ``published`` ...).

    Returns
    -------
    records : list of dict
        One flat record per method: ``method``, ``value`` (mean), ``std``,
        ``n_trials`` and, when tested, ``wtl``, ``wtl_reference`` and ``p_value``.
    """
    if reference is not None and reference not in trials:
        raise ValueError(f"Reference method {reference!r} has no trials; have {sorted(trials)}.")
    records = []
    for method, values in trials.items():
        arr = np.asarray(values, dtype=np.float64).ravel()
        if arr.size == 0:
            raise ValueError(f"Method {method!r} has no trial results.")
        std = float(arr.std(ddof=ddof)) if arr.size > ddof else 0.0
        record: dict[str, Any] = {
            **fields,
            "method": method,
            "value": float(arr.mean()),
            "std": std,
            "n_trials": int(arr.size),
        }
        if reference is not None and method != reference:
            test = paired_wtl(
                trials[reference], arr, alpha=alpha, higher_is_better=higher_is_better
            )
            record.update(wtl=test.outcome, wtl_reference=reference, p_value=test.p_two_sided)
        records.append(record)
    return records
