"""Reports over run folders: text tables, and one self-contained report.html."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from asil.report.html import render_html
from asil.report.runs import ReportError, Run, RunSet, group_runs, load_runs
from asil.report.table2 import has_table2_arms, table2
from asil.report.tables import Table, all_tables, region_table
from asil.report.text import format_report
from asil.workspace import atomic_write

__all__ = ["Report", "ReportError", "Run", "RunSet", "Table", "build_report"]


@dataclass
class Report:
    runs: list[Run]
    sets: list[RunSet]
    tables: list[Table]
    text: str
    html_path: Path
    text_path: Path


# ``asil report --table N``: the paper's tables that can be printed alone
PAPER_TABLES: dict[str, Callable[[list[RunSet]], list[Table]]] = {"1": lambda sets: [region_table(sets)], "2": table2}


def build_report(folders: list[Path], html_path: Path | None = None, embed_images: bool = False,
                 paper_table: str | None = None) -> Report:
    """Read the run folders, write report.html and report.txt (beside the first folder's results by default).

    A folder written by ``asil bench --repeats N`` stands for its repeats, which form one run set. The paper's
    Table 2 joins the tables when a GUI or native participant is among the runs, or when asked for;
    ``paper_table`` ("1", "2") prints only that table (report.html keeps every table).
    """
    runs = load_runs(folders)
    sets = group_runs(runs)
    tables = all_tables(sets)
    if has_table2_arms(sets) or paper_table == "2":
        tables[1:1] = table2(sets)  # right after Table 1, as in the paper
    html_path = html_path or folders[0] / "report.html"
    text = format_report(PAPER_TABLES[paper_table](sets) if paper_table else tables)
    atomic_write(html_path, render_html(sets, tables, html_path, embed_images).encode("utf-8"))
    text_path = html_path.with_suffix(".txt")
    atomic_write(text_path, text.encode("utf-8"))
    return Report(runs, sets, tables, text, html_path, text_path)
