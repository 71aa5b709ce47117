"""The notebook as an agent sees it: a bounded window of cells, their outputs summarized.

A window holds at most ``limit`` cells and at most ``BUDGET_CHARS`` characters of cell
content, so even a 500-cell notebook with long cells stays within a few thousand tokens.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from asil.adapters.jupyter.notebook import Cell, Notebook, join_source
from asil.adapters.jupyter.outputs import clip, error_line, summarize
from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 30
BUDGET_CHARS = 20_000  # about 5k tokens of cell content per observation
MAX_SHOWN_SOURCE = 2_500
MAX_SHOWN_OUTPUTS = 4
OUTPUT_CHARS = 400


def cell_element(cell: Cell, index: int) -> Element:
    source = join_source(cell.get("source", ""))
    meta: dict[str, Any] = {"index": index}
    if len(source) > MAX_SHOWN_SOURCE:
        meta["source_chars"] = len(source)
    if cell["cell_type"] == "code":
        meta["execution_count"] = cell.get("execution_count")
        outputs = cell.get("outputs", [])
        if outputs:
            meta["outputs"] = [summarize(o, OUTPUT_CHARS) for o in outputs[:MAX_SHOWN_OUTPUTS]]
            if len(outputs) > MAX_SHOWN_OUTPUTS:
                meta["outputs"].append(f"… {len(outputs) - MAX_SHOWN_OUTPUTS} more outputs")
    return Element(id=cell["id"], type=cell["cell_type"], value=clip(source, MAX_SHOWN_SOURCE), meta=meta)


def window(cells: list[Cell], offset: int, limit: int) -> list[Element]:
    """Elements from ``offset``: up to ``limit`` cells, fewer when their text passes the budget."""
    elements: list[Element] = []
    spent = 0
    for index in range(offset, min(offset + limit, len(cells))):
        element = cell_element(cells[index], index)
        size = len(element.value or "") + sum(len(o) for o in element.meta.get("outputs", [])) + 80
        if elements and spent + size > BUDGET_CHARS:
            break
        elements.append(element)
        spent += size
    return elements


def errors_of(cells: list[Cell]) -> list[str]:
    found = []
    for cell in cells:
        for output in cell.get("outputs", []) if cell["cell_type"] == "code" else []:
            if output.get("output_type") == "error":
                found.append(f"{cell['id']} ({error_line(output)[:80]})")
                break
    return found


def build_observation(nb: Notebook, *, step: int, name: str, document: str | None, dirty: bool, offset: int,
                      limit: int, kernel: dict[str, Any], environment: dict[str, Any]) -> Observation:
    cells = nb["cells"]
    offset = min(offset, max(0, len(cells) - 1))
    elements = window(cells, offset, limit)
    spec = nb.get("metadata", {}).get("kernelspec", {})
    details = {"cells": len(cells), "nbformat": f"{nb.get('nbformat')}.{nb.get('nbformat_minor')}",
               "kernelspec": {k: spec[k] for k in ("name", "display_name", "language") if k in spec},
               "kernel": kernel}
    language = nb.get("metadata", {}).get("language_info", {}).get("name")
    if language:
        details["language"] = language
    return Observation(
        metadata=Metadata(app="jupyter", source="file", step=step),
        app_state=AppState(view="notebook", active_document=name, document_path=document, dirty=dirty,
                           details=details),
        elements=elements,
        environment=environment,
        navigation=Navigation(views=["notebook", "lab"], paging=Paging(offset=offset, limit=len(elements), total=len(cells))),
        summary=_summary(name, cells, offset, elements, kernel, dirty),
    )


def _summary(name: str, cells: list[Cell], offset: int, elements: list[Element], kernel: dict[str, Any],
             dirty: bool) -> str:
    kinds = Counter(c["cell_type"] for c in cells)
    counts = ", ".join(f"{n} {kind}" for kind, n in kinds.items()) or "empty"
    text = f"Notebook {name}: {len(cells)} cells ({counts})."
    if elements:
        text += f" Showing cells {offset + 1}-{offset + len(elements)}."
    shown_to = offset + len(elements)
    if shown_to < len(cells):
        text += f" {len(cells) - shown_to} more below: navigate with params.offset={shown_to}."
    if offset > 0:
        text += f" {offset} above."
    text += f" Kernel: {kernel['state']}."
    errors = errors_of(cells)
    if errors:
        text += f" Cells with errors: {', '.join(errors[:3])}{' …' if len(errors) > 3 else ''}."
    if dirty:
        text += " Unsaved changes."
    return text
