"""Checkpoint types that read a diagram through the draw.io adapter.

Targets name a page and an item: ``"Page name!Item"``; without a known page prefix the item is
on the first page. Items are a label (``"Review"``), an edge between labels (``"A -> B"``
directed, ``"A -- B"`` either way), a cell id, or a kind (``vertex``, ``edge``, ``layer``).
Labels compare case- and whitespace-insensitively.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.drawio.codec import norm_label, shape_of, style_dict
from asil.adapters.drawio.model import Cell, Page
from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type, require


def _pages(ctx: EvalContext, cp: Checkpoint) -> list[Page]:
    from asil.adapters.drawio.adapter import DrawioAdapter

    adapter = ctx.adapter("drawio", require(cp.document, "document (.drawio path)"))
    assert isinstance(adapter, DrawioAdapter)
    return adapter.pages()


def _split(ctx: EvalContext, cp: Checkpoint) -> tuple[Page, str]:
    pages, text = _pages(ctx, cp), require(cp.target, "target")
    head, bang, rest = text.partition("!")
    page = next((p for p in pages if p.name == head), None) if bang else None
    return (page, rest) if page is not None else (pages[0], text)


def _page(ctx: EvalContext, cp: Checkpoint) -> Page:
    pages = _pages(ctx, cp)
    if cp.target is None:
        return pages[0]
    page = next((p for p in pages if p.name == cp.target), None)
    if page is None:
        raise CheckpointUnreadable(f"there is no page named {cp.target!r}")
    return page


def _labelled(page: Page, label: str) -> list[Cell]:
    wanted = norm_label(label)
    return [c for c in page.vertices() if norm_label(c.label) == wanted]


def _edges(page: Page, spec: str) -> list[Cell]:
    directed = " -> " in spec
    left, sep, right = spec.partition(" -> " if directed else " -- ")
    if not sep:
        raise CheckpointUnreadable(f"an edge target looks like 'A -> B' or 'A -- B', not {spec!r}")
    ends = (norm_label(left), norm_label(right))

    def label(ref: str | None) -> str | None:
        cell = page.cells.get(ref or "")
        return norm_label(cell.label) if cell is not None else None

    found = []
    for edge in page.edges():
        pair = (label(edge.cell.get("source")), label(edge.cell.get("target")))
        if pair == ends or (not directed and pair[::-1] == ends):
            found.append(edge)
    return found


def _one(cells: list[Cell], what: str) -> Cell:
    if len(cells) != 1:
        raise CheckpointUnreadable(f"{len(cells)} cells match {what!r}; the checkpoint needs exactly one")
    return cells[0]


def _item(page: Page, item: str) -> Cell:
    if " -> " in item or " -- " in item:
        return _one(_edges(page, item), item)
    return _one(_labelled(page, item), item)


def edge_label(page: Page, edge: Cell) -> str:
    """An edge's text: its own label, or the labels of its child label cells."""
    parts = [edge.label] + [c.label for c in page.children(edge.id) if c.is_vertex]
    return " ".join(p for p in parts if p)


@checkpoint_type("drawio_vertex_count")
def vertex_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many vertices on the page carry the label."""
    page, label = _split(ctx, cp)
    return len(_labelled(page, label))


@checkpoint_type("drawio_edge_count")
def edge_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many edges join vertices with these labels ('A -> B' directed, 'A -- B' either way)."""
    page, spec = _split(ctx, cp)
    return len(_edges(page, spec))


@checkpoint_type("drawio_style")
def style(ctx: EvalContext, cp: Checkpoint) -> dict[str, Any]:
    """The style keys named in ``expected`` of one labelled vertex or edge (absent keys are null)."""
    if not isinstance(cp.expected, dict) or not cp.expected:
        raise CheckpointUnreadable("drawio_style expects a dict of style keys")
    page, item = _split(ctx, cp)
    values = style_dict(_item(page, item).style)
    return {key: (True if values[key] is None else values[key]) if key in values else None for key in cp.expected}


@checkpoint_type("drawio_shape")
def shape(ctx: EvalContext, cp: Checkpoint) -> str:
    """The shape one labelled vertex draws: 'ellipse' whether styled 'ellipse;' or 'shape=ellipse;'."""
    page, label = _split(ctx, cp)
    return shape_of(style_dict(_one(_labelled(page, label), label).style))


@checkpoint_type("drawio_edge_label", default_compare="normalized")
def edge_text(ctx: EvalContext, cp: Checkpoint) -> str:
    page, spec = _split(ctx, cp)
    return edge_label(page, _one(_edges(page, spec), spec))


@checkpoint_type("drawio_label", default_compare="normalized")
def label_of_id(ctx: EvalContext, cp: Checkpoint) -> str:
    """The plain label of the cell with this id (checks an edit kept the cell)."""
    page, cell_id = _split(ctx, cp)
    if cell_id not in page.cells:
        raise CheckpointUnreadable(f"there is no cell with id {cell_id!r}")
    return page.cells[cell_id].label


@checkpoint_type("drawio_geometry", default_compare="approx")
def geometry(ctx: EvalContext, cp: Checkpoint) -> list[float]:
    """[x, y, width, height] of one labelled vertex (compare 'approx' with a tolerance)."""
    page, label = _split(ctx, cp)
    cell = _one(_labelled(page, label), label)
    return [cell.number(k) for k in ("x", "y", "width", "height")]


@checkpoint_type("drawio_cell_layer", default_compare="normalized")
def cell_layer(ctx: EvalContext, cp: Checkpoint) -> str:
    """The name of the layer holding one labelled vertex or edge."""
    page, item = _split(ctx, cp)
    layer = page.layer_of(_item(page, item))
    if layer is None:
        raise CheckpointUnreadable(f"{item!r} is in no layer")
    return layer.label


@checkpoint_type("drawio_cell_count")
def cell_count(ctx: EvalContext, cp: Checkpoint) -> int:
    """How many cells of a kind (vertex, edge, layer) a page has."""
    page, kind = _split(ctx, cp)
    if kind not in ("vertex", "edge", "layer"):
        raise CheckpointUnreadable(f"cell kind is vertex, edge or layer, not {kind!r}")
    return sum(1 for c in page.cells.values() if page.kind(c) == kind)


@checkpoint_type("drawio_page_names")
def page_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    return [p.name for p in _pages(ctx, cp)]


@checkpoint_type("drawio_page_count")
def page_count(ctx: EvalContext, cp: Checkpoint) -> int:
    return len(_pages(ctx, cp))


@checkpoint_type("drawio_layer_names")
def layer_names(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """Layer names of a page (target: page name; the first page when omitted), bottom to top."""
    return [layer.label for layer in _page(ctx, cp).layers()]


@checkpoint_type("drawio_vertex_labels")
def vertex_labels(ctx: EvalContext, cp: Checkpoint) -> list[str]:
    """Non-empty vertex labels of a page, whitespace collapsed (compare 'set' or 'contains')."""
    return [" ".join(c.label.split()) for c in _page(ctx, cp).vertices() if c.label]


@checkpoint_type("drawio_compressed")
def compressed(ctx: EvalContext, cp: Checkpoint) -> bool:
    """Whether a page is stored in draw.io's compressed form."""
    return _page(ctx, cp).compressed
