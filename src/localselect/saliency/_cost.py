"""The fit cost of :class:`~localselect.saliency.ConditionalSaliencySelection` (its ``size``).

The size check of :mod:`localselect._runtime` refuses at once a fit estimated
past its budget, with the message :data:`FIT_COST` writes.
"""

from __future__ import annotations

from localselect._runtime import MeasuredCost

__all__ = ["FIT_COST"]

#: The fit time measured at the defaults (one thread, 20 features) and its growth in N.
FIT_COST = MeasuredCost(
    194.3,
    20_000,
    1.6,
    "fits its model and compares each row's saliency profile with its held-out "
    "neighbours' ({n} rows; about N^{p:.1f} measured at 5,000 and 20,000 rows of 20 "
    "features, 22.0 s and 194.3 s, quiet machine)",
    instead="use ReliefF with max_samples, whose cost is linear in N",
)
