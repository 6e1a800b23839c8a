"""The instancewise suite: INVASE's metric, the published rows, a tiny run."""

from __future__ import annotations

import numpy as np
import pytest

from localselect_benchmarks import SuiteContext, available_suites, load_published, run_suite
from localselect_benchmarks.compare import suite_instancewise as suite


def _invase_metric(ground_truth, importance_score):
    """``feature_performance_metric`` of jsyoon0823/INVASE ``utils.py``, row by row."""
    n = importance_score.shape[0]
    tpr, fdr = np.zeros(n), np.zeros(n)
    for i in range(n):
        tpr_nom = np.sum(importance_score[i, :] * ground_truth[i, :])
        tpr_den = np.sum(ground_truth[i, :])
        tpr[i] = 100 * float(tpr_nom) / float(tpr_den + 1e-8)
        fdr_nom = np.sum(importance_score[i, :] * (1 - ground_truth[i, :]))
        fdr_den = np.sum(importance_score[i, :])
        fdr[i] = 100 * float(fdr_nom) / float(fdr_den + 1e-8)
    return np.mean(tpr), np.std(tpr), np.mean(fdr), np.std(fdr)


@pytest.mark.parametrize("seed", range(5))
def test_metric_matches_invase_row_by_row(seed):
    rng = np.random.default_rng(seed)
    R = rng.random((200, 11)) < 0.3
    S = rng.random((200, 11)) < 0.4
    S[:5] = False  # empty subsets: FDR 0
    R[5:8] = False  # no relevant feature: TPR 0
    got = suite.feature_performance(S, R)
    want = _invase_metric(R.astype(float), S.astype(float))
    np.testing.assert_allclose(
        [got["TPR"], got["TPR_std"], got["FDR"], got["FDR_std"]], want, rtol=1e-12
    )


def test_metric_by_hand():
    R = np.array([[1, 1, 0, 0], [1, 0, 0, 0]], dtype=bool)
    S = np.array([[1, 0, 1, 1], [0, 0, 0, 0]], dtype=bool)
    got = suite.feature_performance(S, R)
    assert got["TPR"] == pytest.approx(25.0)  # 50 % and 0 %
    assert got["FDR"] == pytest.approx(100 / 3)  # 2/3 and 0 (empty subset)


#: Table 1 of Liu (2021), INVASE+ report (tennisonliu/invase-net-plus, invase-net-plus.pdf p. 4),
#: as printed: TPR FDR for Syn1 ... Syn6. All rows but INVASE+ are lifted there from INVASE.
_TABLE1 = """
INVASE+ 100.0 0.0 100.0 0.0 84.4 0.0 96.6 10.1 89.8 11.3 94.5 32.6
INVASE 100.0 0.0 100.0 0.0 92.0 0.0 99.8 10.3 84.8 1.1 90.1 7.4
L2X 100.0 0.0 100.0 0.0 69.4 30.6 79.5 21.8 74.8 26.3 83.3 16.7
LIME 13.8 86.2 100.0 0.0 98.1 1.9 40.7 49.4 41.1 50.6 50.5 49.5
Shapley 60.4 39.6 93.3 6.7 90.1 9.1 65.2 31.9 62.9 33.7 71.2 28.8
"""


def test_published_rows_load():
    table = load_published("invase_table1")
    assert table["table"] == "Table 1" and "ICLR 2019" in table["paper"]
    assert "tennisonliu/invase-net-plus" in table["transcribed_from"]
    # as the published table (INVASE Table 1) gives
    assert table["rows"]["INVASE"]["syn4"] == {"TPR": 99.8, "FDR": 10.3}
    assert table["rows"]["Shapley"]["syn4"]["FDR"] == 31.9
    want = {}
    for line in _TABLE1.strip().splitlines():
        name, *cells = line.split()
        values = [float(v) for v in cells]
        want[name] = {
            f"syn{i + 1}": {"TPR": values[2 * i], "FDR": values[2 * i + 1]} for i in range(6)
        }
    assert table["rows"] == want
    assert set(table["rows_from_invase_paper"]) | set(table["rows_from_report"]) == set(want)
    recs = suite._published_records()
    assert {r["method"] for r in recs} == {f"{m} (published)" for m in want}
    assert len(recs) == 5 * 6 * 2
    assert {r["dataset"] for r in recs} == set(suite.DESIGNS)


def test_tiny_run(tmp_path, monkeypatch):
    monkeypatch.setattr(
        suite,
        "_settings",
        lambda quick: {
            "n_train": 400,
            "n_test": 200,
            "dims": (11,),
            "slow_rows": 100,
            "filter_designs": ("syn4",),
            "filter_rows": 200,
            "real": (),
        },
    )
    monkeypatch.setattr(suite, "FITTED", ("Saliency", "Fisher"))
    monkeypatch.setattr(suite, "FILTERED", ("GP",))
    assert "instancewise" in available_suites()
    ctx = SuiteContext(quick=True, out=tmp_path, datasets=["syn4"])
    records = run_suite("instancewise", ctx)["records"]
    ours = {
        (r["method"], r["metric"]): r
        for r in records
        if r.get("scope") != "published" and r.get("nominal_fdr") is None
    }
    assert set(ours) == {(m, k) for m in ("Saliency", "Fisher") for k in suite.METRICS}
    calibrated = [r for r in records if r.get("nominal_fdr") is not None and r["metric"] == "FDR"]
    filtered = [r for r in calibrated if "knockoff filter" in r["method"]]
    assert sorted(r["nominal_fdr"] for r in filtered) == list(suite.FDRS)
    assert all(0 <= r["value"] <= 100 for r in calibrated)
    # The saliency selector's own rule, re-thresholded at each nominal level.
    saliency = {r["nominal_fdr"]: r for r in calibrated if r["method"].startswith("Saliency (")}
    assert sorted(saliency) == list(suite.FDRS)
    assert all(r["table"] == "FDR (%), per-row fdr, d = 11" for r in saliency.values())
    assert (tmp_path / "calibration.png").stat().st_size > 1000
    assert ours[("Fisher", "subset_size")]["value"] == 4.0  # k = mean relevant per row
    assert 0 <= ours[("Saliency", "TPR")]["value"] <= 100
    assert any(r["method"] == "INVASE (published)" for r in records)
    report = (tmp_path / "report.md").read_text()
    assert "INVASE (published)" in report and "syn4, d = 11: Saliency TPR" in report
    assert "syn4, d = 11: calibration, realized FDR at most nominal" in report


def test_selection_tokens():
    """``--datasets`` takes d11 / d100 and no-filter besides design names."""
    cfg = {"dims": (11, 100)}

    def pick(*names):
        return suite._selection(SuiteContext(datasets=list(names) or None), cfg)

    assert pick() == (list(suite.DESIGNS), (11, 100), True)
    assert pick("d11", "no-filter") == (list(suite.DESIGNS), (11,), False)
    assert pick("syn4", "D100") == (["syn4"], (100,), True)
    assert pick("wdbc") == ([], (11, 100), True)
