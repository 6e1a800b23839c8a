"""The ``synthetic`` suite: every paper's synthetic experiment in one run.

It runs, in order, LFS Fig. 4 (``lfs-fig4``), IMMIGRATE Fig. 3
(``immigrate-fig3``) and the GP paper's Tables 1 and 5 on Algorithm 3 data
(``gp-synthetic``) with the same settings, and tags each record with the suite
it came from. Each part keeps its own cache keys, so an interrupted run
resumes where it stopped.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from localselect_benchmarks._core import SuiteContext, available_suites, register_suite

PARTS: tuple[str, ...] = ("lfs-fig4", "immigrate-fig3", "gp-synthetic")


@register_suite("synthetic", paper="LFS Fig. 4; IMMIGRATE Fig. 3; Pichara and Soto Tables 1 and 5")
def synthetic(ctx: SuiteContext) -> list[dict[str, Any]]:
    """Every paper's synthetic experiment: recovery of the known relevant features."""
    suites = available_suites()
    records: list[dict[str, Any]] = []
    for name in PARTS:
        if name not in suites:
            ctx.note(f"{name}: not available in this version")
            continue
        part = replace(ctx, out=ctx.out / name, notes=[])
        for record in suites[name].func(part):
            records.append({"suite": name, **record})
        for line in part.notes:
            ctx.note(f"{name}: {line}")
    return records
