"""Tables as aligned plain text (what ``asil report`` prints and writes to report.txt)."""

from __future__ import annotations

from asil.report.tables import Table


def format_text(table: Table) -> str:
    widths = [len(c) for c in table.columns]
    for row in table.rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]
    def line(cells: list[str]) -> str:
        return "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths,
                                                                                                     strict=True)))
    out = [table.title, "=" * len(table.title), line(table.columns), line(["-" * w for w in widths])]
    out += [line(row) for row in table.rows] or ["(no rows)"]
    out += [f"  note: {note}" for note in table.notes]
    return "\n".join(out)


def format_report(tables: list[Table]) -> str:
    return "\n\n".join(format_text(t) for t in tables) + "\n"
