"""The local-relevance suite: its scores on hand-checked cases and a tiny run."""

from __future__ import annotations

import json

import numpy as np
import pytest

from localselect_benchmarks import SuiteContext, available_suites, run_suite
from localselect_benchmarks.compare import suite_local_relevance as suite


def test_registered():
    assert "local-relevance" in available_suites()


def test_per_sample_prf_by_hand():
    relevant = np.array([[1, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0]], dtype=bool)
    support = np.array([[1, 0, 1, 0], [0, 0, 0, 0], [1, 1, 1, 1]], dtype=bool)
    # Row 0: precision 1/2, recall 1/2, F1 1/2. Row 1: empty subset, all 0.
    # Row 2 has no relevant feature and is left out.
    got = suite.per_sample_prf(support, relevant)
    assert got == pytest.approx({"precision": 0.25, "recall": 0.25, "f1": 0.25})


def test_kuncheva_rows_by_hand():
    n = 10
    A = np.zeros((4, n), dtype=bool)
    B = np.zeros((4, n), dtype=bool)
    A[0, :3] = B[0, :3] = True  # identical, k = 3: index 1
    A[1, :3], B[1, 3:6] = True, True  # disjoint, k = 3: (0 * 10 - 9) / (3 * 7)
    A[2, :2], B[2, :4] = True, True  # sizes 2, 4, overlap 2: (2 - 0.8) / (2 - 0.8) = 1
    A[3] = B[3] = True  # full subsets: undefined
    got = suite.kuncheva_rows(A, B)
    np.testing.assert_allclose(got[:3], [1.0, -9 / 21, 1.0])
    assert np.isnan(got[3])
    # Equal sizes: Kuncheva's (r n - k^2) / (k (n - k)).
    A2 = np.zeros((1, n), dtype=bool)
    B2 = np.zeros((1, n), dtype=bool)
    A2[0, [0, 1, 2, 3]], B2[0, [2, 3, 4, 5]] = True, True
    np.testing.assert_allclose(suite.kuncheva_rows(A2, B2), [(2 * 10 - 16) / (4 * 6)])


def test_tiny_run_writes_table_figure_and_margins(tmp_path, monkeypatch):
    tiny = {"sizes": (40,), "levels": ("low",), "n_boot": 2, "boot_size": 40, "target_seeds": 1}
    monkeypatch.setattr(suite, "_settings", lambda quick: tiny)
    monkeypatch.setattr(suite, "FITTED", ("LFS", "ReliefF", "Fisher"))
    monkeypatch.setattr(
        suite, "_lfs_target", lambda seed: {
            "region_size": 2.0, **{f"{r} {m}": 0.9 for r in ("decisive", "nearest")
                                   for m in ("precision", "recall", "f1", "size")}
        }
    )  # fmt: skip
    monkeypatch.setattr(suite, "_lfs_picture", lambda seed: None)
    monkeypatch.setattr(suite, "_picture", lambda data, ctx: None)
    ctx = SuiteContext(quick=True, out=tmp_path, datasets=["lfs"])
    result = run_suite("local-relevance", ctx)
    records = result["records"]
    grid = [r for r in records if r.get("metric") == "f1" and "scope" in r]
    f1 = {r["method"]: r["value"] for r in grid}
    assert set(f1) == {"LFS", "LFS (nearest region)", "ReliefF", "Fisher"}
    assert all(0 <= v <= 1 for v in f1.values())
    scopes = {r["method"]: r["scope"] for r in grid}
    assert scopes["LFS"] == "local" and scopes["Fisher"] == "global"
    margin = [r for r in records if r.get("metric") == "F1 margin"]
    assert len(margin) == 1
    best_local = max(f1["LFS"], f1["LFS (nearest region)"])
    assert margin[0]["value"] == pytest.approx(best_local - max(f1["ReliefF"], f1["Fisher"]))
    assert any(r.get("metric") == "stability" for r in records)
    assert (tmp_path / "f1_by_noise.png").stat().st_size > 0
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["suite"] == "local-relevance"
    assert "Best local minus best global" in (tmp_path / "report.md").read_text()
