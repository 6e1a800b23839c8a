"""The report leads with the answer: regimes in words, the where figure, no noise."""

import re

import numpy as np
import pandas as pd
import pytest

from localselect.cli import main
from localselect.datasets import make_lfs_synthetic


@pytest.fixture
def lfs_table(tmp_path):
    X, y, _ = make_lfs_synthetic(200, 6, random_state=0)
    frame = pd.DataFrame(X, columns=[f"x{j + 1}" for j in range(X.shape[1])])
    frame["label"] = y
    path = tmp_path / "lfs.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("method", ["lfs", "relieff"])
def test_the_report_leads_with_the_answer(lfs_table, tmp_path, method):
    out = tmp_path / method
    argv = ["select", "--method", method, "--input", str(lfs_table), "--target", "label",
            "--out", str(out), "--report", "--random-state", "0"]  # fmt: skip
    assert main(argv) == 0
    page = (out / "report.html").read_text()
    answer = re.search(r'<p class="answer">([^<]*)</p>', page).group(1)
    assert page.index("The answer") < page.index("Top features") < page.index("<h2>Run")
    if method == "lfs":
        assert re.match(r"The 200 rows fall into \d+ regimes", answer)
        assert 'alt="where each feature matters"' in page
    else:
        assert answer.startswith("The answer is global")
    assert "deprecated" not in page and "highlighted" not in page
    table = page[page.index("Top features") :]
    table = table[: table.index("</table>")]
    header = re.findall(r"<th>([^<]*)</th>", table)
    cells = np.array(re.findall(r"<td>([^<]*)</td>", table)).reshape(-1, len(header))
    assert "importance" in header
    assert not (cells == "NaN").all(axis=0).any()  # no all-NaN (evidence) columns


def test_no_two_class_legend_when_the_unselected_bars_are_zero():
    # a local selection frequency: the features never selected have frequency 0, so every
    # drawn bar is selected and a "highlighted / other" legend would name a colour not shown
    from localselect.cli._report import _figures

    names = ["a", "b", "c", "d"]
    importances = pd.DataFrame(
        {"feature": names, "importance": [0.8, 0.4, 0.0, 0.0], "selected": [1, 1, 0, 0]}
    )
    masks = np.array([[1, 1, 0, 0], [1, 0, 0, 0]], dtype=bool)
    figures = _figures(masks, names, None, importances=importances, masks=masks)
    caption, fig = figures[0]
    assert "red" not in caption and fig.axes[0].get_legend() is None
    importances.loc[2, "importance"] = 0.1  # a drawn bar not selected: the legend is useful
    caption, fig = _figures(masks, names, None, importances=importances, masks=masks)[0]
    assert "red: selected" in caption and fig.axes[0].get_legend() is not None


def test_the_map_axes_name_the_input_columns():
    """A categorical column is several encoded columns; the map's axes name input columns."""
    from localselect.cli._report import _regimes_figure
    from localselect.regimes import find_regimes

    rng = np.random.default_rng(0)
    n = 90
    names = ["age", "site", "noise"]
    site = rng.integers(0, 3, n)
    # two regimes of rows: one uses age and site, the other noise
    masks = np.zeros((n, 3), dtype=bool)
    masks[: n // 2, :2] = True
    masks[n // 2 :, 2] = True
    rows = np.column_stack([rng.normal(size=n), np.eye(3)[site], rng.normal(size=n)])
    row_columns = ["age", "site", "site", "site", "noise"]
    regimes = find_regimes(masks, rows, random_state=0)
    assert regimes.n_regimes == 2
    fig = _regimes_figure(regimes, rows, masks, names, row_columns)
    labels = [fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()]
    for label in labels:
        assert label.startswith("PC") and "column" not in label
        shown = label.split("mostly ")[1].split(", ")
        assert shown and set(shown) <= set(names)
    assert "PCA" in fig.axes[0].get_title()


def test_select_report_map_names_input_columns(tmp_path, monkeypatch):
    """Through ``select --report`` on a table with a categorical column."""
    from test_select import TINY

    from localselect.cli import _report

    drawn = []
    original = _report._regimes_figure

    def spy(*args):
        fig = original(*args)
        drawn.append((fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()))
        return fig

    monkeypatch.setattr(_report, "_regimes_figure", spy)
    rng = np.random.default_rng(1)
    n = 120
    frame = pd.DataFrame(
        {
            "age": rng.normal(50, 10, n),
            "marker": rng.normal(0, 1, n),
            "site": rng.choice(["north", "south", "east"], n),
            "label": rng.choice(["a", "b"], n),
        }
    )
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "o"
    assert main(["select", "--method", TINY, "--input", str(path), "--target", "label",
                 "--out", str(out), "--report", "--random-state", "0"]) == 0  # fmt: skip
    assert len(drawn) == 1
    for label in drawn[0]:
        assert "column" not in label
        assert set(label.split("mostly ")[1].split(", ")) <= {"age", "marker", "site"}
