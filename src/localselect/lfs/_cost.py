"""The fit cost of :class:`~localselect.lfs.LocalFeatureSelection` (its declared ``size``).

The size check of :mod:`localselect._runtime` refuses at once a fit estimated
past its budget, with the message :class:`LFSCost` writes.
"""

from __future__ import annotations

from typing import Any

from localselect._runtime import BUDGET_SECONDS, about

__all__ = ["LFSCost"]

#: LocalFeatureSelection's cost per row and pass pair (``max_iter=2``), one thread,
#: 20 features: ``LFS_ROW_SECONDS + LFS_CANDIDATE_SECONDS * candidates``, times
#: ``(M / 20) ** LFS_FEATURE_EXPONENT``. Fitted to fits on a quiet 2-core machine
#: (load < 1): 3.5 s at 5,000 x 20 and 8.5 s at 5,000 x 200 with 50 candidates per
#: class; 11.4 s at 2,000 x 20 and 24.1 s at 2,000 x 200 with every row a candidate
#: (``n_candidates=None``); checked at 100 x 10,000 exact (0.56 s, model 0.73 s) and
#: 900 x 60 exact with 50 passes (103 s, model 95 s). Past 5,000 rows the cost per
#: row grows as ``(N / 5000) ** LFS_ROW_EXPONENT`` (the search for each row's nearest
#: candidates): 51.3 s at 50,000 x 20 at the defaults.
LFS_ROW_SECONDS = 5.7e-4
LFS_ROW_EXPONENT = 0.17
LFS_CANDIDATE_SECONDS = 2.6e-6
LFS_FEATURE_EXPONENT = 0.35


def _lfs_seconds(n: int, params: dict, m: int) -> float:
    """LocalFeatureSelection's one-thread fit time on ``n`` x ``m`` at ``params``."""
    candidates = params.get("n_candidates")
    if candidates is None:  # the exact method: every row is a candidate, O(N^2) per pass
        candidates = n
    elif isinstance(candidates, str):
        candidates = 50
    iters = max(int(params.get("max_iter", 2)), 1)
    per_row = (LFS_ROW_SECONDS + LFS_CANDIDATE_SECONDS * min(int(candidates), n)) * (iters / 2)
    per_row *= max(n / 5000, 1.0) ** LFS_ROW_EXPONENT
    return per_row * (max(m, 1) / 20) ** LFS_FEATURE_EXPONENT * n


class LFSCost:
    """LocalFeatureSelection: a linear program per representative row and candidate subset."""

    def refusal(self, estimator: Any, n: int, m: int, declared_by: str) -> str | None:
        """The refusal message of a fit on ``n`` x ``m``, or None (:func:`scale_refusal`)."""
        params = estimator.get_params(deep=False)
        seconds = _lfs_seconds(n, params, m)
        if seconds <= BUDGET_SECONDS:
            return None
        # the most rows within budget (bisection: the time grows with the rows, faster
        # than linearly when every row is a candidate)
        fit_rows, over = 1, n
        while over - fit_rows > 1:
            mid = (fit_rows + over) // 2
            within = _lfs_seconds(mid, params, m) <= BUDGET_SECONDS
            fit_rows, over = (mid, over) if within else (fit_rows, mid)
        return (
            f"LocalFeatureSelection solves a linear program per representative row and "
            f"candidate subset ({seconds / n * 1000:.0f} s per 1,000 rows at these settings): "
            f"{about(seconds)} for {n} rows on one thread; set n_candidates lower (now "
            f"{params.get('n_candidates')!r}; 'auto' is 50) or max_iter lower (now "
            f"{params.get('max_iter', 2)}), or fit on a sample of at most {fit_rows} rows."
        )
