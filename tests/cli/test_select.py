"""`localselect select` / `predict` as a new user runs them: files, report, clear errors."""

from __future__ import annotations

import io
import json
import re
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import validate_data

from localselect._portable import PortableStateMixin
from localselect.base import LocalSelectorMixin
from localselect.cli import _methods, _options, _select, main
from localselect.cli._model_io import load_model


class TinyLocalClassifier(LocalSelectorMixin, ClassifierMixin, BaseEstimator):
    """Test-only local selector: feature j is selected for a sample when |x_j| > 0.5."""

    def __init__(self, threshold=0.5):
        self.threshold = threshold

    def fit(self, X, y):
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, codes = np.unique(y, return_inverse=True)
        self.centroids_ = np.stack([X[codes == k].mean(axis=0) for k in range(len(self.classes_))])
        self.local_support_ = self._local_support_mask(X)
        self.feature_importances_ = self.local_support_.mean(axis=0)
        self.weights_ = np.abs(np.cov(X.T))
        return self

    def _local_support_mask(self, X):
        return np.abs(X) > self.threshold

    def predict(self, X):
        X = validate_data(self, X, reset=False, dtype=np.float64)
        dist = ((X[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return self.classes_[dist.argmin(axis=1)]


class TinyTableSelector(SelectorMixin, PortableStateMixin, BaseEstimator):
    """Test-only stand-in for LLDS: takes the raw table with missing values and text.

    Like LLDS it keeps a ``results_`` frame, saved through :class:`PortableStateMixin`.
    """

    def fit(self, X, y):
        self.n_features_in_ = X.shape[1]
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_rows_ = len(X)
        complete = X.notna().mean(axis=0).to_numpy()
        self.support_ = complete == complete.max()
        best = tuple(X.columns[self.support_])
        self.results_ = pd.DataFrame({"features": [best, ("site",)], "score": [1.0, 0.5]})
        return self

    def _get_support_mask(self):
        return self.support_


TINY = f"{__name__}:TinyLocalClassifier"


@pytest.fixture(autouse=True)
def _trust_the_test_estimators(monkeypatch):
    """``predict`` loads only trusted types: add this module's stand-in estimators."""
    from localselect.cli import _model_io

    ours = {f"{__name__}.{name}" for name in ("TinyLocalClassifier", "TinyTableSelector")}
    trusted = _model_io.trusted_types() | ours | {f"{__name__}.TinyWarningClassifier"}
    monkeypatch.setattr(_model_io, "trusted_types", lambda: trusted)


@pytest.fixture
def table(tmp_path):
    """A CSV a user might have: string labels, a text column, a missing value, an id."""
    rng = np.random.default_rng(0)
    n = 80
    y = np.where(rng.random(n) < 0.5, "sick", "healthy")
    frame = pd.DataFrame(
        {
            "patient": [f"P{i:03d}" for i in range(n)],
            "age": rng.normal(50, 10, n).round(),
            "marker": rng.normal(0, 1, n) + 2.0 * (y == "sick"),
            "noise": rng.normal(0, 1, n),
            "site": rng.choice(["north", "south"], n),
            "diagnosis": y,
        }
    )
    frame.loc[5, "noise"] = np.nan
    path = tmp_path / "patients.csv"
    frame.to_csv(path, index=False)
    return path, frame


def _one_line_error(capsys, argv, *fragments):
    capsys.readouterr()  # forget earlier output
    code = main(argv)
    err = capsys.readouterr().err
    assert code != 0
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("localselect: error:"), err
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def test_select_with_report_writes_every_file(table, tmp_path, capsys):
    path, frame = table
    out = tmp_path / "out"
    argv = ["select", "--method", TINY, "--input", str(path), "--target", "diagnosis",
            "--drop", "patient", "--out", str(out), "--report", "--missing", "drop"]  # fmt: skip
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "dropping 1 row(s) with missing values (noise 1)" in captured.err
    expected = {"selected_features.csv", "importances.csv", "importances.json", "model.skops",
                "report.html"}  # fmt: skip
    assert expected <= {p.name for p in out.iterdir()}

    selected = pd.read_csv(out / "selected_features.csv", index_col="row")
    features = ["age", "marker", "noise", "site"]  # the input's columns, not site_north/south
    assert list(selected.columns) == [*features, "n_selected", "selected"]
    assert len(selected) == len(frame) - 1 and 5 not in selected.index
    assert (selected[features].sum(axis=1) == selected["n_selected"]).all()
    # The model saw z-scored numbers: a sample's mask is |z| > 0.5.
    used = frame.drop(index=5)
    z_marker = (used["marker"] - used["marker"].mean()) / used["marker"].std(ddof=0)
    np.testing.assert_array_equal(selected["marker"].to_numpy(), (z_marker.abs() > 0.5).to_numpy())

    summary = json.loads((out / "importances.json").read_text())
    assert summary["n_rows_used"] == 79 and summary["missing_values"] == {"noise": 1}
    assert {f["feature"] for f in summary["features"]} == set(features)
    importances = pd.read_csv(out / "importances.csv")
    assert importances["importance"].is_monotonic_decreasing

    page = (out / "report.html").read_text()
    # frequency, local subsets, weight matrix, and the where figure when there are regimes:
    # this selector's subsets (|z| > 0.5 per column) vary independently per column, and
    # regimes that use the same features are merged, so its 79 rows form one regime
    answer = re.search(r'<p class="answer">([^<]*)</p>', page).group(1)
    one = answer.startswith("The 79 rows form one regime")
    assert one or re.match(r"The 79 rows fall into \d+ regimes", answer)
    assert page.count("data:image/png;base64,") == 3 + (not one)
    assert "sick" in page and "dropping 1 row(s)" in page


def test_predict_reuses_the_preparation(table, tmp_path, capsys):
    path, frame = table
    out = tmp_path / "out"
    main(["select", "--method", TINY, "--input", str(path), "--target", "diagnosis",
          "--drop", "patient", "--out", str(out)])  # fmt: skip
    new = frame.drop(columns=["diagnosis"]).iloc[10:20].copy()
    new.loc[12, "site"] = "west"  # unseen category: named, imputed as a missing value
    new_path = tmp_path / "new.csv"
    new.to_csv(new_path, index=False)
    pred_path = tmp_path / "pred.csv"
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new_path),
                 "--out", str(pred_path)]) == 0  # fmt: skip
    assert "column 'site': 'west' (1 row(s))" in capsys.readouterr().err
    pred = pd.read_csv(pred_path, index_col="row")
    assert len(pred) == 10 and set(pred["prediction"]) <= {"sick", "healthy"}
    bundle = load_model(out / "model.skops")
    as_missing = new.assign(site=new["site"].where(new["site"] != "west"))
    expected = bundle["pipeline"].predict(as_missing[bundle["columns"]])
    np.testing.assert_array_equal(pred["prediction"].to_numpy(), expected)
    # Without --out the CSV goes to stdout, warnings to stderr; the row with a
    # missing value is imputed by the model, not skipped.
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(path)]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("row,prediction") and "imputing 1 row(s)" in captured.err
    assert len(pd.read_csv(io.StringIO(captured.out))) == len(frame)
    bad = tmp_path / "bad.csv"
    new.drop(columns=["marker"]).to_csv(bad, index=False)
    _one_line_error(capsys, ["predict", "--model", str(out / "model.skops"), "--input",
                             str(bad)], "feature column 'marker' not found")  # fmt: skip


def test_fisher_selects_the_informative_column(table, tmp_path):
    path, _ = table
    out = tmp_path / "fisher"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "diagnosis",
                 "--drop", "patient", "--n-features", "1", "--out", str(out)]) == 0  # fmt: skip
    importances = pd.read_csv(out / "importances.csv")
    assert importances.iloc[0]["feature"] == "marker" and importances.iloc[0]["selected"]
    assert importances["selected"].sum() == 1
    selected = pd.read_csv(out / "selected_features.csv")
    assert (selected["selected"] == "marker").all()  # a global subset on every row


def test_parquet_input(table, tmp_path):
    pytest.importorskip("pyarrow", reason="Parquet input needs the optional pyarrow")
    _, frame = table
    pq = tmp_path / "patients.parquet"
    frame.to_parquet(pq)
    out = tmp_path / "pq"
    assert main(["select", "--method", "fisher", "--input", str(pq), "--target", "diagnosis",
                 "--drop", "patient", "--n-features", "1", "--out", str(out)]) == 0  # fmt: skip
    assert pd.read_csv(out / "importances.csv").iloc[0]["feature"] == "marker"


def test_parquet_without_pyarrow_is_one_clear_line(tmp_path, capsys, monkeypatch):
    pq = tmp_path / "data.parquet"
    pq.write_bytes(b"PAR1 not really parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if it were not installed
    _one_line_error(capsys, ["select", "--method", "fisher", "--input", str(pq), "--target",
                             "y"], "pip install pyarrow")  # fmt: skip


def test_raw_input_methods_keep_missing_values_and_text(table, tmp_path, monkeypatch, capsys):
    path, frame = table
    declared = _methods.methods()
    monkeypatch.setattr(_methods, "methods", lambda: {**declared, "llds": TinyTableSelector})
    out = tmp_path / "llds"
    assert main(["select", "--method", "llds", "--input", str(path), "--target", "diagnosis",
                 "--out", str(out), "--report"]) == 0  # fmt: skip
    summary = json.loads((out / "importances.json").read_text())
    assert summary["n_rows_used"] == len(frame) and summary["n_rows_dropped"] == 0
    assert (out / "results.csv").exists()
    model = load_model(out / "model.skops")["pipeline"].named_steps["estimator"]
    assert list(model.feature_names_in_) == ["patient", "age", "marker", "noise", "site"]
    page = (out / "report.html").read_text()
    assert "Best results" in page
    # The first result with at most 3 features gets its lift table drawn (LLDS modules).
    assert "Lift table of site" in page and "data:image/png;base64," in page


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--method", "fisher", "--input", "missing.csv", "--target", "y"], ["does not exist"]),
        (["--method", "fishr", "--target", "diagnosis"], ["unknown method", "'fisher'"]),
        (["--method", "localselect.nothing:Estimator", "--target", "diagnosis"],
         ["not available in this version"]),
        (["--method", "fisher", "--target", "diagnosys"], ["'diagnosis'", "not found"]),
        (["--method", "fisher", "--target", "diagnosis", "--params", "alpha=3"],
         ["no parameter(s) alpha", "n_features_to_select"]),
        (["--method", "fisher", "--target", "diagnosis", "--params", "oops"], ["key=value"]),
        (["--method", "fisher", "--target", "diagnosis"], ["'patient'", "--drop patient"]),
    ],
)  # fmt: skip
def test_user_errors_are_one_clear_line(table, capsys, argv, fragments):
    path, _ = table
    if "--input" not in argv:
        argv = [*argv, "--input", str(path)]
    _one_line_error(capsys, ["select", *argv], *fragments)


def test_non_numeric_values_in_a_numeric_column(table, tmp_path, capsys):
    _, frame = table
    frame = frame.drop(columns=["patient"]).astype({"age": object})
    frame.loc[7, "age"] = "unknown"
    bad = tmp_path / "bad.csv"
    frame.to_csv(bad, index=False)
    line = _one_line_error(
        capsys, ["select", "--method", "fisher", "--input", str(bad), "--target", "diagnosis"]
    )
    assert "'age' is numeric except 1 value(s) such as 'unknown' (row 7)" in line
    assert "--na-values unknown" in line
    out = tmp_path / "fixed"
    assert main(["select", "--method", "fisher", "--input", str(bad), "--target", "diagnosis",
                 "--na-values", "unknown", "--out", str(out)]) == 0  # fmt: skip


def test_unreadable_inputs(tmp_path, capsys):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    _one_line_error(capsys, ["select", "--method", "fisher", "--input", str(empty), "--target",
                             "y"], "is empty")  # fmt: skip
    excel = tmp_path / "data.xlsx"
    excel.write_text("x")
    _one_line_error(capsys, ["select", "--method", "fisher", "--input", str(excel), "--target",
                             "y"], ".csv, .tsv, .txt or .parquet", ".gz, .bz2")  # fmt: skip
    one_class = tmp_path / "one.csv"
    pd.DataFrame({"a": [1.0, 2.0, 3.0], "y": ["x", "x", "x"]}).to_csv(one_class, index=False)
    code = main(["select", "--method", "fisher", "--input", str(one_class), "--target", "y",
                 "--out", str(tmp_path / "o")])  # fmt: skip
    assert code != 0 and capsys.readouterr().err.count("\n") == 1


def test_every_named_method_resolves_to_its_class():
    for name, cls in _methods.methods().items():
        assert _methods.resolve_method(name) is cls
        assert _methods.resolve_method(name.upper()) is cls
        assert hasattr(cls, "fit") and hasattr(cls, "get_params")


def test_every_public_selector_has_a_cli_name():
    from localselect.utils import all_estimators

    named = set(_methods.methods().values())
    for name, cls in all_estimators():
        if name.endswith("Discretizer"):
            continue  # a preprocessing step of LLDS, not a selector
        assert cls in named, name


def test_method_help_lists_the_declared_names(capsys):
    with pytest.raises(SystemExit):
        main(["select", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert f"one of {', '.join(sorted(_methods.methods()))}, or module:Class" in help_text


def test_ranking_only_selector_importance_follows_its_order(table, tmp_path):
    path, _ = table
    out = tmp_path / "mrmr"
    assert main(["select", "--method", "mrmr", "--input", str(path), "--target", "diagnosis",
                 "--drop", "patient", "--params", "n_features_to_select=2",
                 "--out", str(out)]) == 0  # fmt: skip
    model = load_model(out / "model.skops")["pipeline"].named_steps["estimator"]
    table = pd.read_csv(out / "importances.csv")
    ranked = [model.feature_names_in_[j] for j in model.ranking_]  # encoded: site_south
    assert list(table["feature"][:2]) == [name.partition("_")[0] for name in ranked]
    assert list(table["importance"]) == sorted(table["importance"], reverse=True)
    assert table["importance"].iloc[0] == 1.0 and (table["importance"].iloc[2:] == 0).all()
    summary = json.loads((out / "importances.json").read_text())
    assert summary["importance_source"].startswith("selection order")


class TinyWarningClassifier(TinyLocalClassifier):
    """Test-only: warns like an iterative solver that hit max_iter."""

    def fit(self, X, y):
        import warnings

        from sklearn.exceptions import ConvergenceWarning

        warnings.warn(
            "did not converge in max_iter=3 iterations", ConvergenceWarning, stacklevel=2
        )
        return super().fit(X, y)


def test_library_warnings_become_one_line_each(table, tmp_path, capsys):
    path, _ = table
    out = tmp_path / "warned"
    assert main(["select", "--method", f"{__name__}:TinyWarningClassifier", "--input", str(path),
                 "--target", "diagnosis", "--drop", "patient", "--out", str(out),
                 "--report"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "warning: did not converge in max_iter=3 iterations" in err
    assert "Traceback" not in err and "ConvergenceWarning" not in err
    assert "did not converge" in (out / "report.html").read_text()


# -- a user's own table ---------------------------------------------------------------------


def _classes_table(tmp_path, *, vanish=False):
    """Six classes of 20 rows; class 'f' misses f3 entirely when ``vanish``."""
    rng = np.random.default_rng(1)
    n = 120
    codes = np.arange(n) % 6
    X = rng.normal(size=(n, 4))
    X[:, 0] += codes
    frame = pd.DataFrame(X, columns=["f0", "f1", "f2", "f3"])
    frame["cls"] = np.array(list("abcdef"))[codes]
    frame.loc[::9, "f1"] = np.nan
    if vanish:
        frame.loc[frame["cls"] == "f", "f3"] = np.nan
    path = tmp_path / ("vanish.csv" if vanish else "holes.csv")
    frame.to_csv(path, index=False)
    return path, frame


def test_dropping_rows_reports_the_classes_that_lose_rows(tmp_path, capsys):
    path, frame = _classes_table(tmp_path)
    out = tmp_path / "out"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "cls",
                 "--missing", "drop", "--out", str(out)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    lost = frame[frame["f1"].isna()]["cls"].value_counts()
    assert f"dropping {len(frame) - len(frame.dropna())} row(s) with missing values (f1 " in err
    for label, n_lost in lost.items():
        assert f"'{label}' 20->{20 - n_lost}" in err
    assert json.loads((out / "importances.json").read_text())["missing"] == "drop"


def test_dropping_rows_refuses_to_lose_a_class(tmp_path, capsys):
    path, _ = _classes_table(tmp_path, vanish=True)
    line = _one_line_error(capsys, ["select", "--method", "fisher", "--input", str(path),
                                    "--target", "cls", "--missing", "drop",
                                    "--out", str(tmp_path / "o")],
                           "class(es) 'f' with 0 of its 20", "--missing impute")  # fmt: skip
    assert "FisherScore needs at least 2 per class" in line
    assert not (tmp_path / "o").exists()


def test_auto_imputes_for_a_method_that_needs_complete_rows(tmp_path, capsys):
    path, frame = _classes_table(tmp_path, vanish=True)
    out = tmp_path / "o"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "cls",
                 "--out", str(out)]) == 0  # fmt: skip
    err = capsys.readouterr().err
    n_rows = int(frame.drop(columns="cls").isna().any(axis=1).sum())
    assert f"imputing {n_rows} row(s) with missing values (f1 14, f3 20) inside the model" in err
    assert "FisherScore needs complete rows; --missing auto" in err and "dropping" not in err
    summary = json.loads((out / "importances.json").read_text())
    assert summary["missing"] == "impute" and summary["n_rows_used"] == len(frame)


def test_missing_impute_keeps_rows_and_predict_imputes(tmp_path, capsys):
    from sklearn.impute import SimpleImputer

    path, frame = _classes_table(tmp_path, vanish=True)
    out = tmp_path / "imputed"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "cls",
                 "--missing", "impute", "--out", str(out)]) == 0  # fmt: skip
    summary = json.loads((out / "importances.json").read_text())
    assert summary["n_rows_used"] == len(frame) and summary["missing"] == "impute"
    bundle = load_model(out / "model.skops")
    imputers = [
        step
        for _, transformer, _ in bundle["pipeline"].named_steps["prepare"].transformers_
        for step in getattr(transformer, "steps", [(None, transformer)])
        if isinstance(step[1], SimpleImputer)
    ]
    assert imputers and imputers[0][1].strategy == "median"
    new = tmp_path / "new.csv"
    frame.drop(columns="cls").iloc[:12].to_csv(new, index=False)  # rows 0 and 9 miss f1
    predicted = tmp_path / "pred.csv"
    capsys.readouterr()
    assert main(["predict", "--model", str(out / "model.skops"), "--input", str(new),
                 "--out", str(predicted)]) == 0  # fmt: skip
    assert "skipping" not in capsys.readouterr().err
    assert len(pd.read_csv(predicted)) == 12


def test_missing_keep_and_error(tmp_path, capsys):
    path, frame = _classes_table(tmp_path, vanish=True)
    out = tmp_path / "relieff"
    # auto: ReliefF takes missing values itself, every row is used.
    assert main(["select", "--method", "relieff", "--input", str(path), "--target", "cls",
                 "--out", str(out)]) == 0  # fmt: skip
    summary = json.loads((out / "importances.json").read_text())
    assert summary["n_rows_used"] == len(frame) and summary["missing"] == "keep"
    assert summary["features"][0]["feature"] == "f0"
    _one_line_error(capsys, ["select", "--method", "relieff", "--input", str(path), "--target",
                             "cls", "--missing", "error"], "row(s) have missing values",
                    "--missing impute")  # fmt: skip
    _one_line_error(capsys, ["select", "--method", "fisher", "--input", str(path), "--target",
                             "cls", "--missing", "keep"],
                    "FisherScore does not take missing values")  # fmt: skip


@pytest.mark.parametrize(
    ("name", "kwargs"),
    [
        ("data.csv.gz", {}),
        ("data.csv.bz2", {}),
        ("data.csv.zip", {}),
        ("data.csv.xz", {}),
        ("data.tsv", {"sep": "\t"}),
        ("data.tsv.gz", {"sep": "\t"}),
        ("data.txt", {"sep": ";"}),
    ],
)
def test_compressed_and_tsv_inputs(table, tmp_path, name, kwargs):
    _, frame = table
    path = tmp_path / name
    frame.to_csv(path, index=False, **kwargs)
    out = tmp_path / "out"
    assert main(["select", "--method", "fisher", "--input", str(path), "--target", "diagnosis",
                 "--drop", "patient", "--out", str(out)]) == 0  # fmt: skip
    # every row used: the one with a missing value is imputed inside the model
    assert json.loads((out / "importances.json").read_text())["n_rows_used"] == len(frame)


def test_duplicate_column_names_are_refused(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("a,b,a,y\n1,2,3,0\n2,3,4,1\n3,4,5,0\n4,5,6,1\n")
    _one_line_error(capsys, ["select", "--method", "fisher", "--input", str(path), "--target",
                             "y"], "column name 'a' appears 2 times (columns 1, 3)")  # fmt: skip


def test_reused_out_has_no_stale_files(table, tmp_path, capsys):
    path, _ = table
    out = tmp_path / "out"
    base = ["select", "--input", str(path), "--target", "diagnosis", "--drop", "patient",
            "--out", str(out)]  # fmt: skip
    assert main([*base, "--method", TINY, "--report"]) == 0
    assert (out / "report.html").exists()
    capsys.readouterr()
    assert main([*base, "--method", "fisher"]) == 0
    assert not (out / "report.html").exists()
    assert "removed report.html" in capsys.readouterr().err


def test_predict_with_a_table_as_model_says_so(table, tmp_path, capsys):
    path, _ = table
    line = _one_line_error(capsys, ["predict", "--model", str(path), "--input", str(path)],
                           "is not a localselect model", "pass it as --input")  # fmt: skip
    # no zip-parser detail (an offset such as 119) beside the path, which may hold any digits
    assert "119" not in line.replace(str(path), "")
    junk = tmp_path / "model.joblib"
    junk.write_bytes(b"\x00\x01 not a pickle")
    _one_line_error(capsys, ["predict", "--model", str(junk), "--input", str(path)],
                    "is not a skops model file", "never loads a pickle")  # fmt: skip


def test_random_state_for_a_method_without_randomness_is_noted(table, tmp_path, capsys):
    path, _ = table
    assert (
        main(
            [
                "select",
                "--method",
                "fisher",
                "--input",
                str(path),
                "--target",
                "diagnosis",
                "--drop",
                "patient",
                "--random-state",
                "1",
                "--out",
                str(tmp_path / "o"),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "note: --random-state is unused: FisherScore has no randomness" in err


def test_n_features_beyond_the_features_warns_and_stays_an_int(table, tmp_path, capsys):
    path, _ = table
    out = tmp_path / "o"
    assert (
        main(
            [
                "select",
                "--method",
                "fisher",
                "--input",
                str(path),
                "--target",
                "diagnosis",
                "--drop",
                "patient",
                "--n-features",
                "500",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    assert "--n-features 500 is more than the 5 features; all 5 are kept" in (
        capsys.readouterr().err
    )
    params = json.loads((out / "importances.json").read_text())["params"]
    assert params["n_features_to_select"] == 500


def test_discretizer_params_from_the_command_line(capsys):
    from sklearn.preprocessing import KBinsDiscretizer

    from localselect.lift import MahalanobisQuantileDiscretizer

    parsed = _methods.parse_params(["discretizer=mahalanobis:3"])["discretizer"]
    assert isinstance(parsed, MahalanobisQuantileDiscretizer) and parsed.n_bins == 3
    parsed = _methods.parse_params(['discretizer={"name": "kbins", "n_bins": 4}'])["discretizer"]
    assert isinstance(parsed, KBinsDiscretizer) and parsed.n_bins == 4
    assert parsed.encode == "ordinal"
    assert _methods.parse_params(["discretizer=auto"])["discretizer"] == "auto"
    with pytest.raises(Exception, match="unknown discretizer 'zzz'"):
        _methods.parse_params(["discretizer=zzz:3"])


def test_llds_error_advice_works_on_the_command_line(tmp_path):
    # The LLDS error names --params discretizer=mahalanobis:3; that form must run.
    rng = np.random.default_rng(0)
    y = np.repeat(["a", "b"], 30)
    frame = pd.DataFrame({"x1": rng.normal(size=60) + (y == "b"), "x2": rng.normal(size=60)})
    frame["y"] = y
    path = tmp_path / "cont.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", "llds", "--input", str(path), "--target", "y",
                 "--params", "discretizer=mahalanobis:3", "max_features=1",
                 "--out", str(out)]) == 0  # fmt: skip
    params = json.loads((out / "importances.json").read_text())["params"]
    assert params["discretizer"] == "MahalanobisQuantileDiscretizer()"  # n_bins=3 is its default


def test_every_slow_stage_of_select_shows_a_status_line(table, tmp_path):
    """Reading, fitting, the per-row subsets and the report each run under a status line.

    On a loaded machine the imports and the report alone took 10-25 s in which a
    terminal showed nothing; each stage now names itself while it runs.
    """
    from rich.console import Console

    shown = []

    class SpyConsole(Console):
        def status(self, status, *args, **kwargs):
            shown.append(str(status))
            return super().status(status, *args, **kwargs)

    path, _ = table
    argv = ["--method", TINY, "--input", str(path), "--target", "diagnosis", "--drop", "patient",
            "--out", str(tmp_path / "out"), "--report"]  # fmt: skip
    args = _options.add_select_parser(_subparsers()).parse_args(argv)
    assert _select.run_select(args, SpyConsole(file=io.StringIO())) == 0
    assert [s.split()[0] for s in shown] == ["reading", "fitting", "computing", "drawing"], shown
    # every row of the table answered (the one with a missing value imputed)
    assert "patients.csv" in shown[0] and "80 rows" in shown[2]


def _subparsers():
    import argparse

    return argparse.ArgumentParser().add_subparsers()


def test_suggested_options_can_be_pasted_into_a_shell(tmp_path, capsys):
    """A column name with a space (UCI ecoli's 'Sequence Name') or '?' is quoted in the advice."""
    import shlex

    rng = np.random.default_rng(1)
    n = 80
    frame = pd.DataFrame(
        {
            "Sequence Name": [f"S{i}" for i in range(n)],
            "width": rng.normal(size=n).round(2).astype(object),
            "label": rng.choice(["a b", "c"], n),
        }
    )
    frame.loc[3, "width"] = "?"
    path = tmp_path / "spaced.csv"
    frame.to_csv(path, index=False)
    argv = ["select", "--method", "fisher", "--input", str(path), "--target", "label"]
    line = _one_line_error(capsys, argv)
    assert "--drop 'Sequence Name'" in line
    argv += shlex.split(line.split("drop it with ")[1].split(" (run with")[0])
    line = _one_line_error(capsys, argv)
    assert "--na-values '?'" in line
    argv += shlex.split(line.split("mark them missing with ")[1].split(" (run with")[0])
    assert main([*argv, "--out", str(tmp_path / "out")]) == 0
