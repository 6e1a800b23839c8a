"""The report leads with the answer (issue 39): regimes in words, the where figure, no noise."""

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
