"""Which text columns the command line reads as categorical features, and which it refuses."""

import numpy as np
import pandas as pd
import pytest

from localselect.cli._errors import CLIError
from localselect.cli._table import prepare_table


def _table(column):
    n = len(column)
    return pd.DataFrame({"code": column, "x": np.arange(n, dtype=float), "y": np.arange(n) % 2})


def test_a_text_column_of_many_repeated_levels_is_categorical():
    zips = [f"z{i % 63}" for i in range(900)]  # 63 levels, about 14 rows each
    prepared = prepare_table(_table(zips), target="y", drop=[], categorical=[], raw=False)
    assert prepared.categorical == ["code"]


def test_an_identifier_column_is_refused_with_the_drop_advice():
    ids = [f"id{i}" for i in range(200)]  # 200 levels, one row each
    with pytest.raises(CLIError, match=r"an identifier.*--drop code"):
        prepare_table(_table(ids), target="y", drop=[], categorical=[], raw=False)


def test_a_text_column_past_the_level_limit_is_refused():
    codes = [f"c{i % 300}" for i in range(3000)]
    with pytest.raises(CLIError, match="300 distinct values, too many"):
        prepare_table(_table(codes), target="y", drop=[], categorical=[], raw=False)
