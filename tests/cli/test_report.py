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
