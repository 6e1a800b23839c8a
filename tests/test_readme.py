"""README.md against the registry: what it lists is what the estimators declare."""

from __future__ import annotations

import re
from pathlib import Path

from localselect._estimators import continuous_target_names, n_jobs_names, registered

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _ticked(text: str) -> set[str]:
    """The names in backticks of ``text`` (``localselect.`` prefixes dropped)."""
    return {m.rsplit(".", 1)[-1] for m in re.findall(r"`~?(?:localselect\.)?(\w+)`", text)}


def _between(start: str, end: str) -> str:
    assert README.count(start) == 1, f"README.md should say {start!r} once"
    return README.split(start, 1)[1].split(end, 1)[0]


def test_every_registered_estimator_is_named():
    assert set(registered()) - _ticked(README) == set()


def test_the_continuous_target_list_is_the_declared_one():
    named = _ticked(_between("continuous targets for", "docs/regression.md"))
    assert named == set(continuous_target_names())
    assert len(named) == 5


def test_the_n_jobs_list_is_the_parameters_one():
    without = _ticked(_between("take `n_jobs` (all but", ")"))
    assert without == set(registered()) - set(n_jobs_names())
    assert without.isdisjoint(n_jobs_names())


def test_the_beside_list_names_every_estimator_outside_the_papers_table():
    papers = {"LocalFeatureSelection", "Immigrate", "BoostedImmigrate", "IM4E"}
    papers |= {"GPLocalFeatureSelection", "LiftFeatureSelector"}
    beside = _ticked(_between("Beside them:", "## "))
    assert set(registered()) - papers <= beside
