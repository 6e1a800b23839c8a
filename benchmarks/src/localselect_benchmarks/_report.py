"""report.md of a suite and the README table, from result records (no extra dependencies).

A record is a flat dict. The keys the report understands (all optional):
``table``, ``dataset``, ``method``, ``metric``, ``value``, ``std``,
``published``, ``published_std``, ``wtl`` and ``wtl_reference`` (from
:func:`localselect_benchmarks._stats.aggregate_trials`), ``status`` (for example
"not run: xgboost is not installed"). Records without ``dataset``, ``method``
and ``value`` are listed as a plain table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["format_number", "markdown_table", "render_report", "summary_rows"]


def format_number(value: Any, std: Any = None, *, digits: int = 3) -> str:
    """``0.912 ± 0.031`` or ``79.5 ± 18.9``, or ``-`` when missing; integers and text unchanged.

    Values of at least 10 in magnitude (percentages, seconds) get one decimal,
    smaller ones ``digits`` decimals; tiny or huge ones scientific notation.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    decimals = digits if abs(value) < 10 else min(digits, 1)
    if isinstance(value, int):
        text = str(value)
    elif value != 0 and (abs(value) >= 10 ** (digits + 2) or abs(value) < 10 ** (-digits)):
        text = f"{value:.{digits - 1}e}"
    else:
        text = f"{value:.{decimals}f}"
    if std is not None and isinstance(std, (int, float)) and not math.isnan(std):
        text += f" ± {std:.{decimals}f}"
    return text


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(
    header: Sequence[str], rows: Iterable[Sequence[Any]], *, align: Sequence[str] | None = None
) -> str:
    """A GitHub-flavoured markdown table.

    Parameters
    ----------
    header : sequence of str
        Column titles.
    rows : iterable of sequences
        Cells, converted with ``str`` (pipes escaped).
    align : sequence of {"l", "r"}, default=None
        Alignment per column; default left.

    Returns
    -------
    table : str
        The table, one line per row, without a trailing newline.

    Examples
    --------
    >>> print(markdown_table(["a", "b"], [[1, "x|y"]], align="lr"))
    | a | b |
    |---|--:|
    | 1 | x\\|y |
    """
    header = [_cell(h) for h in header]
    align = list(align) if align is not None else ["l"] * len(header)
    if len(align) != len(header):
        raise ValueError(f"align has {len(align)} entries for {len(header)} columns.")
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("--:" if a == "r" else "---" for a in align) + "|")
    for row in rows:
        row = list(row)
        if len(row) != len(header):
            raise ValueError(f"A row has {len(row)} cells for {len(header)} columns: {row}.")
        lines.append("| " + " | ".join(_cell(c) for c in row) + " |")
    return "\n".join(lines)


def _unique(values: Iterable[Any]) -> list[Any]:
    seen: dict[Any, None] = {}
    for v in values:
        seen.setdefault(v, None)
    return list(seen)


def _is_comparison(records: list[dict[str, Any]]) -> bool:
    return bool(records) and all(
        "dataset" in r and "method" in r and ("value" in r or "status" in r) for r in records
    )


def _ours_published(record: dict[str, Any] | None) -> str:
    if record is None:
        return ""
    if "value" not in record or record.get("value") is None:
        return str(record.get("status", "not run"))
    ours = format_number(record["value"], record.get("std"))
    if record.get("published") is None:
        return ours
    return f"{ours} ({format_number(record['published'], record.get('published_std'))})"


def _comparison_section(records: list[dict[str, Any]]) -> list[str]:
    """One pivot per metric: data sets as rows, methods as columns, 'ours (published)'."""
    lines: list[str] = []
    for metric in _unique(r.get("metric", "value") for r in records):
        subset = [r for r in records if r.get("metric", "value") == metric]
        methods = _unique(r["method"] for r in subset)
        datasets = _unique(r["dataset"] for r in subset)
        cell = {(r["dataset"], r["method"]): r for r in subset}
        rows = [[d] + [_ours_published(cell.get((d, m))) for m in methods] for d in datasets]
        wtl = _wtl_row(subset, methods)
        if wtl is not None:
            rows.append(wtl)
        if any(r.get("published") is not None for r in subset):
            lines += [f"**{metric}**: ours, with the published value in parentheses.", ""]
        else:
            lines += [f"**{metric}**", ""]
        lines += [markdown_table(["dataset", *methods], rows, align="l" + "r" * len(methods))]
        lines.append("")
    return lines


def _wtl_row(records: list[dict[str, Any]], methods: list[Any]) -> list[str] | None:
    tested = [r for r in records if r.get("wtl")]
    if not tested:
        return None
    references = _unique(r.get("wtl_reference", "") for r in tested)
    label = f"(W,T,L) of {', '.join(map(str, references))}"
    row = [label]
    for method in methods:
        outcomes = [r["wtl"] for r in tested if r["method"] == method]
        if outcomes:
            w, t, loss = (outcomes.count(k) for k in ("win", "tie", "loss"))
            row.append(f"({w},{t},{loss})")
        else:
            row.append("")
    return row


def _plain_section(records: list[dict[str, Any]]) -> list[str]:
    columns = _unique(k for r in records for k in r)
    rows = [[format_number(r.get(c)) if c in r else "" for c in columns] for r in records]
    return [markdown_table(columns, rows), ""]


def summary_rows(records: list[dict[str, Any]]) -> tuple[int, int, int]:
    """How many of our numbers have a published counterpart, and how many lie within
    one combined standard deviation of it (``sqrt(std^2 + published_std^2)``, or
    0.02 absolute when neither side reports a spread).

    Returns
    -------
    counts : tuple of int
        ``(n_with_published, n_within, n_records)``.
    """
    compared = within = 0
    for r in records:
        if r.get("published") is None or r.get("value") is None:
            continue
        compared += 1
        spread = math.hypot(float(r.get("std") or 0.0), float(r.get("published_std") or 0.0))
        if abs(float(r["value"]) - float(r["published"])) <= (spread or 0.02):
            within += 1
    return compared, within, len(records)


def render_report(
    *,
    name: str,
    description: str,
    paper: str,
    records: list[dict[str, Any]],
    seconds: float,
    settings: dict[str, Any] | None = None,
    notes: Sequence[str] = (),
    warning_lines: Sequence[str] = (),
) -> str:
    """The markdown of ``report.md``: one section per published table.

    Parameters
    ----------
    name, description, paper : str
        Suite name, what it measures and the paper it reproduces.
    records : list of dict
        The suite's records.
    seconds : float
        Wall time of the run.
    settings : dict, default=None
        Run settings to print (quick, n_jobs, data sets, seed).
    notes : sequence of str
        Extra lines (baselines not run and why).
    warning_lines : sequence of str
        Warnings raised during the run, once per message with a count.

    Returns
    -------
    markdown : str
    """
    lines = [f"# {name}", "", description, "", f"Paper: {paper}", ""]
    if settings:
        text = ", ".join(f"{k}={v}" for k, v in settings.items())
        lines += [f"Settings: {text}.", ""]
    if not records:
        lines += ["No results (nothing selected or nothing available).", ""]
    for table in _unique(r.get("table", "Results") for r in records):
        subset = [r for r in records if r.get("table", "Results") == table]
        lines += [f"## {table}", ""]
        if _is_comparison(subset):
            lines += _comparison_section(subset)
        else:
            lines += _plain_section(subset)
    compared, within, total = summary_rows(records)
    if compared:
        lines += [
            f"{within} of {compared} numbers with a published counterpart lie within one "
            "combined standard deviation of it (0.02 when no spread is known).",
            "",
        ]
    not_run = sorted({str(r["status"]) for r in records if r.get("status")})
    if not_run or notes:
        lines += ["## Notes", ""]
        lines += [f"- {text}" for text in [*not_run, *notes]]
        lines.append("")
    if warning_lines:
        lines += ["## Warnings during the run", ""]
        lines += [f"- {text}" for text in warning_lines]
        lines.append("")
    lines += [f"Wall time: {seconds:.1f} s ({total} records)."]
    return "\n".join(lines) + "\n"


#: Markers around the generated table in README.md (or any markdown file).
TABLE_START = "<!-- bench-table:start (generated by `localselect bench readme-table`) -->"
TABLE_END = "<!-- bench-table:end -->"


def _settings_label(settings: dict[str, Any]) -> str:
    """ "quick" or "full", with the repeats when a run changed them (``--repeats``) and
    the names a run was restricted to (``--datasets``)."""
    label = "quick" if settings.get("quick") else "full"
    repeats = settings.get("repeats")
    if repeats is not None:
        label += f", {repeats} repeat" + ("s" if repeats != 1 else "")
    names = settings.get("datasets") or []
    if 0 < len(names) <= 3:
        label += ", only " + " ".join(names)
    elif names:
        label += f", {len(names)} named data sets"
    return label


def readme_table(results: Sequence[dict[str, Any]]) -> str:
    """Reproduced against published numbers, one row per suite, table, method and metric.

    Parameters
    ----------
    results : sequence of dict
        Contents of ``results.json`` files (see :func:`localselect_benchmarks.run_suite`).

    Returns
    -------
    markdown : str
        A table averaging, over the data sets that have a published value, our
        numbers and the published ones, with the mean absolute difference and
        how many lie within one combined standard deviation; then the settings
        and wall time of each run.
    """
    groups: dict[tuple[str, str, str, str], list[dict[str, Any]]] = {}
    runs = []
    for result in sorted(results, key=lambda r: str(r.get("suite"))):
        suite = str(result.get("suite"))
        settings = result.get("settings", {})
        runs.append(
            [
                suite,
                _settings_label(settings),
                format_number(float(result.get("seconds", float("nan"))), digits=1),
                len(result.get("records", [])),
            ]
        )
        for r in result.get("records", []):
            if r.get("published") is None or r.get("value") is None or "method" not in r:
                continue
            key = (suite, str(r.get("table", "")), str(r["method"]), str(r.get("metric", "")))
            groups.setdefault(key, []).append(r)
    rows = []
    for (suite, table, method, metric), recs in groups.items():
        ours = [float(r["value"]) for r in recs]
        published = [float(r["published"]) for r in recs]
        _, within, _ = summary_rows(recs)
        diff = sum(abs(a - b) for a, b in zip(ours, published)) / len(recs)
        rows.append(
            [
                suite,
                table,
                method,
                metric,
                len(recs),
                format_number(sum(ours) / len(ours)),
                format_number(sum(published) / len(published)),
                format_number(diff),
                f"{within}/{len(recs)}",
            ]
        )
    header = ["suite", "table", "method", "metric", "data sets", "ours (mean)"]
    header += ["published (mean)", "mean abs. difference", "within 1 std"]
    parts = []
    if rows:
        parts.append(markdown_table(header, rows, align="llll" + "r" * 5))
    else:
        parts.append("No results with published counterparts yet.")
    parts.append("")
    parts.append(
        markdown_table(["suite", "settings", "wall time (s)", "records"], runs, align="llrr")
    )
    return "\n".join(parts)


def replace_marked_block(text: str, block: str) -> str:
    """Replace what lies between :data:`TABLE_START` and :data:`TABLE_END` in ``text``.

    Parameters
    ----------
    text : str
        A file's text holding both marker lines.
    block : str
        The new content between the markers.

    Returns
    -------
    text : str
        ``text`` with the block replaced, markers kept.

    Raises
    ------
    ValueError
        When the markers are missing or out of order.
    """
    start = text.find(TABLE_START)
    end = text.find(TABLE_END)
    if start < 0 or end < 0 or end < start:
        raise ValueError(
            "the file has no generated-table markers; add the two lines "
            f"'{TABLE_START}' and '{TABLE_END}' where the table should go"
        )
    return text[: start + len(TABLE_START)] + "\n\n" + block.strip() + "\n\n" + text[end:]
