"""Real-data loaders: every registered data set decodes to its manifest shape.

Expected counts come from the data directory's MANIFEST.md / manifest.json.
No test touches the network: the download functions are replaced by stubs
that raise ``OSError`` unless a test installs a fake.
"""

from __future__ import annotations

import gzip
import json
import shutil

import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_breast_cancer
from sklearn.utils import Bunch

from localselect.datasets import _loaders
from localselect.datasets._loaders import (
    DatasetNotFoundError,
    get_data_home,
    list_datasets,
    load_dataset,
    load_lfs_sample,
)

REGISTRY = _loaders._registry()


def _offline(*args, **kwargs):
    raise OSError("network disabled in tests")


@pytest.fixture(autouse=True)
def _no_network(monkeypatch, tmp_path):
    """Keep the download cache in a temporary directory and refuse all downloads."""
    monkeypatch.setenv("LOCALSELECT_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(_loaders, "_urlread", _offline)
    monkeypatch.setattr(_loaders, "fetch_openml", _offline)


@pytest.fixture
def empty_home(tmp_path):
    home = tmp_path / "empty"
    home.mkdir()
    return home


# --------------------------------------------------------------------------- every data set


@pytest.mark.data
@pytest.mark.parametrize("name", list(REGISTRY))
def test_dataset_matches_registry(name, data_home):
    entry = REGISTRY[name]
    X, y = load_dataset(name)
    assert X.dtype == np.float64
    assert X.shape == (entry["n_samples"], entry["n_features"])
    assert y.shape == (entry["n_samples"],)
    assert len(np.unique(y)) == entry["n_classes"]
    Xf, yf = load_dataset(name, as_frame=True)
    assert isinstance(Xf, pd.DataFrame)
    assert isinstance(yf, pd.Series)
    assert Xf.shape == X.shape
    assert yf.name not in Xf.columns
    np.testing.assert_array_equal(yf.to_numpy(), y)


@pytest.mark.data
def test_registry_agrees_with_manifest(data_home):
    manifest = json.loads((data_home / "manifest.json").read_text())["datasets"]
    assert [d["name"] for d in manifest] == list(REGISTRY)
    for d in manifest:
        entry = REGISTRY[d["name"]]
        files = d["path"] if isinstance(d["path"], list) else [d["path"]] if d["path"] else []
        assert entry["files"] == files
        for key in ("n_samples", "n_features", "n_classes"):
            assert entry[key] == d[key], (d["name"], key)
        assert entry["sha256"] == (d.get("sha256") or {})


# --------------------------------------------------------------------------- decoding details


@pytest.mark.data
def test_house_votes_as_frame_is_categorical(data_home):
    X, y = load_dataset("HouseVotes84", as_frame=True)
    assert y.name == "Class"  # the FIRST column of the file
    assert list(X.columns) == [f"V{i}" for i in range(1, 17)]
    assert all(isinstance(dtype, pd.CategoricalDtype) for dtype in X.dtypes)
    assert set(X["V1"].cat.categories) == {"n", "y"}
    assert int(X.isna().sum().sum()) == 392  # UCI house-votes-84: 392 '?' votes
    assert y.value_counts().to_dict() == {"democrat": 267, "republican": 168}
    Xa, ya = load_dataset("HouseVotes84")
    assert int(np.isnan(Xa).sum()) == 392
    assert set(np.unique(Xa[~np.isnan(Xa)])) == {0.0, 1.0}  # 'n' < 'y'
    assert isinstance(ya[0], str)


@pytest.mark.data
def test_arrhythmia_question_marks_are_nan(data_home):
    X, y = load_dataset("arrhythmia")
    assert int(np.isnan(X).sum()) == 408  # MANIFEST.md
    assert np.sum(y == 1) == 245


@pytest.mark.data
def test_breast_cancer_copies_agree(data_home):
    # wdbc.data drops its ID column and keeps column order; scikit-learn bundles the same data
    reference = load_breast_cancer()
    X, y = load_dataset("wdbc")
    np.testing.assert_allclose(X, reference.data)
    np.testing.assert_array_equal(y == "B", reference.target == 1)
    Xp, _ = load_dataset("pmlb_breast_cancer_wisconsin")
    np.testing.assert_allclose(Xp, reference.data)
    Xp, _ = load_dataset("pmlb_wdbc")  # PMLB's wdbc copy is rounded to 3 decimals
    np.testing.assert_allclose(Xp, reference.data, rtol=0, atol=5e-4 + 1e-12)
    Xw, yw = load_dataset("wpbc", as_frame=True)
    assert yw.name == "Outcome"
    assert "ID" not in Xw.columns
    assert int(Xw["lymph_node_status"].isna().sum()) == 4


@pytest.mark.data
def test_dropped_columns_and_label_cleaning(data_home):
    X, y = load_dataset("electrical_grid_stability", as_frame=True)
    assert "stab" not in X.columns
    assert y.name == "stabf"
    X, _ = load_dataset("parkinsons", as_frame=True)
    assert "name" not in X.columns
    X, _ = load_dataset("ecoli", as_frame=True)
    assert "Sequence Name" not in X.columns
    X, _ = load_dataset("BreastCancer_original", as_frame=True)
    assert "Id" not in X.columns
    _, y = load_dataset("urban_land_cover")
    assert "car" in set(y)
    assert all(label == label.strip() for label in y)
    _, y = load_dataset("user_knowledge", as_frame=True)
    assert y.name == "UNS"
    assert y.value_counts()["very_low"] == 24 + 26  # training + test sheet spellings
    _, y = load_dataset("Glass")
    assert y.dtype == np.int64


@pytest.mark.data
def test_lfs_sample_split(data_home):
    X_train, y_train, X_test, y_test = load_lfs_sample()
    assert X_train.shape == (100, 160)
    assert X_test.shape == (108, 160)
    assert np.bincount(y_train).tolist() == [57, 43]
    assert np.bincount(y_test).tolist() == [54, 54]
    X, y = load_dataset("lfs_sample")
    np.testing.assert_array_equal(X, np.vstack([X_train, X_test]))
    np.testing.assert_array_equal(y, np.concatenate([y_train, y_test]))


@pytest.mark.data
def test_a1a_has_123_binary_features(data_home):
    X, y = load_dataset("a1a")
    assert X.shape[1] == 123
    assert set(np.unique(X)) == {0.0, 1.0}
    assert set(np.unique(y)) == {-1, 1}


def test_sklearn_sets_need_no_files(empty_home):
    X, _ = load_dataset("SKLEARN_WINE", data_home=empty_home)
    assert X.shape == (178, 13)
    Xf, yf = load_dataset("sklearn_breast_cancer", data_home=empty_home, as_frame=True)
    assert Xf.shape == (569, 30)
    assert yf.name == "target"


# --------------------------------------------------------------------------- names and listing


def test_unknown_name_suggests_close_matches():
    with pytest.raises(DatasetNotFoundError, match="list_datasets") as info:
        load_dataset("sonr")
    assert "'Sonar'" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_names_are_unique_ignoring_case():
    assert len({name.lower() for name in REGISTRY}) == len(REGISTRY) == 52


def test_list_datasets_columns(empty_home):
    table = list_datasets(data_home=empty_home)
    assert len(table) == 52
    for column in ("name", "n_samples", "n_features", "n_classes", "papers", "path"):
        assert column in table
    assert {"available", "download", "notes"} <= set(table.columns)
    builtin = table["name"].str.startswith("sklearn_")
    assert table.loc[builtin, "available"].all()
    assert not table.loc[~builtin, "available"].any()
    assert table.set_index("name").loc["Sonar", "download"] == "openml:40"
    assert table.set_index("name").loc["colon", "papers"] == "LFS T2, IMM T4"


@pytest.mark.data
def test_list_datasets_all_available(data_home):
    assert list_datasets()["available"].all()


# --------------------------------------------------------------------------- locations


@pytest.mark.data
def test_env_var_is_honoured(monkeypatch, tmp_path, data_home):
    home = tmp_path / "env_home"
    (home / "mlbench").mkdir(parents=True)
    shutil.copy(data_home / "mlbench" / "Sonar.csv", home / "mlbench")
    monkeypatch.setenv("LOCALSELECT_DATA", str(home))
    assert get_data_home() == home
    X, _ = load_dataset("Sonar")
    assert X.shape == (208, 60)
    with pytest.raises(DatasetNotFoundError, match="LOCALSELECT_DATA"):
        load_dataset("Ionosphere")
    assert get_data_home(data_home) == data_home  # the argument wins over the variable


def test_repo_root_found_from_working_directory(monkeypatch, tmp_path):
    (tmp_path / "repo" / "sub").mkdir(parents=True)
    (tmp_path / "repo" / "pyproject.toml").write_text('[project]\nname = "localselect"\n')
    (tmp_path / "shared" / "data").mkdir(parents=True)
    monkeypatch.delenv("LOCALSELECT_DATA", raising=False)
    monkeypatch.setattr(_loaders, "__file__", str(tmp_path / "a" / "b" / "c" / "d" / "m.py"))
    monkeypatch.chdir(tmp_path / "repo" / "sub")
    assert get_data_home() == (tmp_path / "shared" / "data").resolve()
    monkeypatch.chdir(tmp_path)
    assert get_data_home() is None


# --------------------------------------------------------------------------- downloads


def test_offline_missing_file_message(empty_home):
    with pytest.raises(DatasetNotFoundError) as info:
        load_dataset("Sonar", data_home=empty_home)
    message = str(info.value)
    for part in ("LOCALSELECT_DATA", str(empty_home), "mlbench/Sonar.csv", "openml:40", "OSError"):
        assert part in message
    with pytest.raises(DatasetNotFoundError, match="github:jundongl/scikit-feature"):
        load_dataset("colon", data_home=empty_home)
    with pytest.raises(DatasetNotFoundError, match="No public download route"):
        load_dataset("dm_alon", data_home=empty_home)
    with pytest.raises(DatasetNotFoundError, match="download_if_missing=False"):
        load_dataset("colon", data_home=empty_home, download_if_missing=False)
    with pytest.raises(DatasetNotFoundError, match="LOCALSELECT_DATA"):
        load_lfs_sample(data_home=empty_home)


@pytest.mark.data
def test_github_download_is_cached_and_checked(monkeypatch, empty_home, data_home):
    urls = []

    def fake_urlread(url):
        urls.append(url)
        entry = next(
            e
            for e in REGISTRY.values()
            if e["github"] and url.endswith(e["github"]["paths"][0].replace(" ", "%20"))
        )
        data = (data_home / entry["files"][0]).read_bytes()
        return gzip.decompress(data) if entry["github"]["gzip"][0] else data

    monkeypatch.setattr(_loaders, "_urlread", fake_urlread)
    X, _ = load_dataset("colon", data_home=empty_home)
    assert X.shape == (62, 2000)
    assert urls == [
        "https://raw.githubusercontent.com/jundongl/scikit-feature/"
        "28e1f6a46fb2ad59d81269596b0d4c55b9335602/skfeature/data/colon.mat"
    ]
    load_dataset("colon", data_home=empty_home)
    assert len(urls) == 1  # served from the cache
    assert list_datasets(data_home=empty_home).set_index("name").loc["colon", "available"]
    X, _ = load_dataset("electrical_grid_stability", data_home=empty_home)  # re-gzipped
    assert X.shape == (10000, 12)
    X, _ = load_dataset("wholesale_customers", data_home=empty_home)  # space in the URL
    assert X.shape == (440, 7)

    monkeypatch.setattr(_loaders, "_urlread", lambda url: b"corrupted")
    with pytest.raises(DatasetNotFoundError, match="sha256"):
        load_dataset("leukemia", data_home=empty_home)


def test_openml_fallback(monkeypatch, empty_home):
    calls = []

    def fake_fetch_openml(*, data_id, data_home, as_frame):
        calls.append((data_id, data_home))
        X = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": ["u", "v", None]})
        return Bunch(data=X, target=pd.Series(["Rock", "Mine", "Rock"], name="Class"))

    monkeypatch.setattr(_loaders, "fetch_openml", fake_fetch_openml)
    X, y = load_dataset("Sonar", data_home=empty_home)
    assert calls[0][0] == 40
    assert calls[0][1].endswith("openml")
    np.testing.assert_array_equal(X, [[1.0, 0.0], [2.0, 1.0], [3.0, np.nan]])
    assert y.tolist() == ["Rock", "Mine", "Rock"]


@pytest.mark.data
def test_verify_checksums(tmp_path, data_home):
    load_dataset("Glass", verify=True)
    home = tmp_path / "bad"
    (home / "mlbench").mkdir(parents=True)
    text = (data_home / "mlbench" / "Glass.csv").read_text()
    (home / "mlbench" / "Glass.csv").write_text(text.replace("1.52101", "1.52102"))
    assert load_dataset("Glass", data_home=home)[0].shape == (214, 9)
    with pytest.raises(ValueError, match="sha256"):
        load_dataset("Glass", data_home=home, verify=True)
