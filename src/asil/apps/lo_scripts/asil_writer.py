"""ASIL's Writer engine: runs *inside* LibreOffice's Python (via the script provider).

Blocks (paragraphs and tables) are read in body order. Every body paragraph carries an
ODF ``xml:id`` (``p1``, ``p2``, ...) that ASIL assigns once and LibreOffice keeps in the
file, so ids do not shift when paragraphs are inserted or deleted elsewhere. Tables are
addressed by their unique names. Standard library and UNO only.
"""

import re

import uno  # noqa: F401  (present inside LibreOffice)
from asil_engine import Engine, EngineError, props
from com.sun.star.beans import StringPair


def _desktop():
    return XSCRIPTCONTEXT.getDesktop()  # noqa: F821  (injected by the script provider)


ENGINE = Engine("com.sun.star.text.TextDocument", "text document", "writer8", _desktop)
# Per-document reading cache: blocks in body order with their outline levels and paragraph styles,
# and the page count. Every change goes through this engine, so the cache follows each op (see
# KEEPS_BLOCKS below): most edits update what they touched, the others drop it.
_CACHE = {}
PARAGRAPH_BREAK = 0
MAX_TEXT = 400  # characters of a paragraph shown in an observation
# Characters that may make LibreOffice split a paragraph when they are written into it ("\r" does).
BREAKS = ("\r", "\n", "\u2028", "\u2029")
MARKS = ("CharWeight", "CharPosture", "CharUnderline")
HEADING_LIMIT = 60
LISTS = {"bullet": "List 1", "number": "Numbering 123"}
LIST_KINDS = {"List 1": "bullet", "Numbering 123": "number"}


def dispatch(payload):
    """Entry point called over the bridge: ``{"op": ..., ...}`` -> ``{"ok": ..., ...}``."""
    return ENGINE.dispatch(payload, before=_drop_cache, after=_after_op)


def _drop_cache(op):
    """Before an op (``None`` after a failed one): the cache still matches the documents unless
    the op opens, closes or replaces one (a reused id() of a closed document must not hit it)."""
    if op not in CACHE_SAFE and op not in KEEPS_BLOCKS and op not in CHANGES_BLOCKS:
        _CACHE.clear()


def _after_op(op, request):
    if op not in CACHE_SAFE and op not in KEEPS_BLOCKS:
        _CACHE.clear()
    if op in KEEPS_BLOCKS:
        state = _CACHE.get(id(ENGINE.docs.get(request.get("doc"))))
        if state is not None:
            state.pop("pages", None)  # the text moved: the layout may have more or fewer pages
    if op not in READ_ONLY and request.get("doc") in ENGINE.docs:
        ENGINE.docs[request["doc"]].setModified(True)  # some edits leave the flag alone


# ---------------------------------------------------------------- documents


def op_open(url):
    key, doc = ENGINE.open(url)
    _blocks(doc)  # assigns ids without marking the document modified
    return key


def _doc(doc):
    return ENGINE.doc(doc)


def op_create(url, spec):
    """Build a text document from ``{"blocks": [...], "page": {...}, "header", "footer"}``."""
    doc = _desktop().loadComponentFromURL("private:factory/swriter", "_blank", 0, props(Hidden=True))
    try:
        text = doc.getText()
        cursor = text.createTextCursor()
        reuse = True  # the cursor sits in an empty paragraph that the next block can fill
        for block in spec.get("blocks", []):
            if not reuse:
                text.insertControlCharacter(cursor, PARAGRAPH_BREAK, False)
            reuse = False
            if "table" in block:
                _create_table(doc, text, cursor, block)
                reuse = True
                continue
            _reset_paragraph(cursor)
            text.insertString(cursor, block.get("text", ""), False)
            cursor.ParaStyleName = _para_style(doc, block.get("style", "Standard"))
            if block.get("list"):
                cursor.NumberingStyleName = LISTS[block["list"]]
            for span in block.get("spans", []):
                paragraph = _current_paragraph(cursor)
                _apply_marks(doc, _span(paragraph, span["text"]), span)
        _blocks(doc)
        if spec.get("page"):
            _set_page(doc, spec["page"])
        for part in ("header", "footer"):
            if spec.get(part):
                _set_margin_text(doc, part, spec[part])
        doc.storeToURL(url, props(FilterName="writer8"))
    finally:
        doc.close(True)
    return True


def _reset_paragraph(cursor):
    cursor.NumberingStyleName = ""
    cursor.CharWeight = 100.0
    cursor.CharPosture = uno.Enum("com.sun.star.awt.FontSlant", "NONE")


def _create_table(doc, text, cursor, block):
    rows = block["table"]
    table = doc.createInstance("com.sun.star.text.TextTable")
    table.initialize(len(rows), max(len(r) for r in rows))
    if block.get("name"):
        table.setName(block["name"])
    text.insertTextContent(cursor, table, False)
    _fill(table, 0, 0, rows)


def _current_paragraph(cursor):
    return cursor.getText().createTextCursorByRange(cursor).createEnumeration().nextElement()


# ---------------------------------------------------------------- reading


def _blocks(doc):
    """Body blocks in order; paragraphs without an id get the next free ``pN``."""
    was_modified = doc.isModified()
    found, missing, top = [], [], 0
    enum = doc.getText().createEnumeration()
    while enum.hasMoreElements():
        block = enum.nextElement()
        if block.supportsService("com.sun.star.text.TextTable"):
            found.append(("table", block.getName(), block))
            continue
        ident = block.MetadataReference.Second
        if not ident:
            missing.append(len(found))
        else:
            match = re.fullmatch(r"p(\d+)", ident)
            if match:
                top = max(top, int(match.group(1)))
        found.append(("paragraph", ident, block))
    for index in missing:
        top += 1
        kind, _, block = found[index]
        block.MetadataReference = StringPair("content.xml", f"p{top}")
        found[index] = (kind, f"p{top}", block)
    if missing and not was_modified:
        doc.setModified(False)
    return found


def _cached(document):
    """Blocks with their outline levels and paragraph styles (None for tables), read once per
    state of the document and kept up to date by the edits that leave the block list alone."""
    key = id(document)
    if key not in _CACHE:
        blocks = _blocks(document)
        levels, styles = [], []
        for kind, _, block in blocks:
            level, style = block.getPropertyValues(("OutlineLevel", "ParaStyleName")) if kind == "paragraph" else (0, None)
            levels.append(int(level))
            styles.append(style)
        _CACHE[key] = {"blocks": blocks, "levels": levels, "styles": styles}
    return _CACHE[key]


def _refresh(document, index, block):
    """After an edit inside paragraph ``index``: store its (possibly new) object, re-read level and style."""
    state = _CACHE.get(id(document))
    if state is None:
        return
    kind, ident, _ = state["blocks"][index]
    level, style = block.getPropertyValues(("OutlineLevel", "ParaStyleName"))
    state["blocks"][index] = (kind, ident, block)
    state["levels"][index], state["styles"][index] = int(level), style


def _forget_blocks(document):
    """The edit may have split a paragraph: read the block list afresh next time."""
    _CACHE.pop(id(document), None)


def _styles_in_use(styles):
    seen = []
    for style in styles:
        if style and style not in seen:
            seen.append(style)
    return seen


def _find(doc, ident, kind=None):
    for index, (found_kind, found_id, block) in enumerate(_cached(doc)["blocks"]):
        if found_id == ident and (kind is None or kind == found_kind):
            return index, block
    raise EngineError("no_element", f"There is no {kind or 'paragraph or table'} with id {ident!r}.",
                      "Use an id from the observation, e.g. p3 or Table1.")


def _paragraph(block, full=False):
    # Properties are read several at a time: each UNO call costs about as much as reading one value.
    text = block.getString()
    style, level, numbering = block.getPropertyValues(("ParaStyleName", "OutlineLevel", "NumberingStyleName"))
    out = {"text": text if full else text[:MAX_TEXT], "length": len(text), "style": style, "level": int(level)}
    kind = LIST_KINDS.get(numbering, "other") if numbering not in ("", "Outline") else None
    if kind:
        label, list_level = block.getPropertyValues(("ListLabelString", "NumberingLevel"))
        out["list"] = {"kind": kind, "label": label, "level": int(list_level) + 1}
    spans = _spans(block)
    if spans:
        out["spans"] = spans
    return out


def _spans(block):
    """Formatted runs (bold, italic, underline, character style) of a paragraph, if any."""
    spans = []
    # Only direct formatting counts (a Heading's bold comes from its style); formatting a whole
    # paragraph is stored on the paragraph, not on its text portions.
    on_paragraph = [state.value == "DIRECT_VALUE" for state in block.getPropertyStates(MARKS)]
    portions = block.createEnumeration()
    while portions.hasMoreElements():
        portion = portions.nextElement()
        if portion.TextPortionType != "Text":
            continue
        text = portion.getString()
        marks = {}
        states = portion.getPropertyStates(MARKS)
        direct = [here or state.value == "DIRECT_VALUE" for here, state in zip(on_paragraph, states, strict=True)]
        weight, posture, underline, char_style = portion.getPropertyValues(MARKS + ("CharStyleName",))
        if direct[0] and weight >= 150:
            marks["bold"] = True
        if direct[1] and posture.value in ("ITALIC", "OBLIQUE"):
            marks["italic"] = True
        if direct[2] and underline:
            marks["underline"] = True
        if char_style:
            marks["char_style"] = char_style
        if marks and text:
            spans.append({"text": text[:MAX_TEXT], **marks})
    return spans


def _table(block, limit_rows=None):
    names = block.getCellNames()
    rows, cols = block.getRows().getCount(), block.getColumns().getCount()
    data = block.getDataArray() if _simple(names, rows, cols) else None
    if data is None:
        cells = [[block.getCellByName(n).getString() for n in names if _row_of(n) == r + 1] for r in range(rows)]
    else:
        cells = [[block.getCellByName(_cell_name(c, r)).getString() for c in range(cols)] for r in range(rows)]
    shown = cells if limit_rows is None else cells[:limit_rows]
    return {"name": block.getName(), "rows": rows, "cols": cols, "cells": shown}


def _simple(names, rows, cols):
    return len(names) == rows * cols


def _row_of(name):
    return int(re.sub(r"^[A-Za-z]+", "", name))


def _cell_name(col, row):
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(65 + rest) + letters
    return f"{letters}{row + 1}"


def _page_style(doc):
    first = _cached(doc)["blocks"][0][2]
    name = first.PageStyleName or "Standard"
    return doc.getStyleFamilies().getByName("PageStyles").getByName(name)


def _page_info(doc):
    style = _page_style(doc)
    info = {"style": style.getName(), "width_mm": round(style.Width / 100, 1), "height_mm": round(style.Height / 100, 1),
            "orientation": "landscape" if style.IsLandscape else "portrait",
            "margin_top_mm": round(style.TopMargin / 100, 1), "margin_bottom_mm": round(style.BottomMargin / 100, 1),
            "margin_left_mm": round(style.LeftMargin / 100, 1), "margin_right_mm": round(style.RightMargin / 100, 1),
            "header": style.HeaderText.getString() if style.HeaderIsOn else None,
            "footer": style.FooterText.getString() if style.FooterIsOn else None}
    return info


def op_observe(doc, offset, limit, table_rows=20):
    document = _doc(doc)
    state = _cached(document)
    blocks, levels = state["blocks"], state["levels"]
    window = []
    for index in range(offset, min(offset + limit, len(blocks))):
        kind, ident, block = blocks[index]
        item = {"id": ident, "kind": kind, "index": index}
        item.update(_paragraph(block) if kind == "paragraph" else _table(block, table_rows))
        window.append(item)
    headings = [i for i, level in enumerate(levels) if level]
    outline = [{"id": blocks[i][1], "index": i, "level": levels[i], "text": blocks[i][2].getString()[:80]}
               for i in headings[:HEADING_LIMIT]]
    if "pages" not in state:
        state["pages"] = int(document.getCurrentController().PageCount)
    return {"total": len(blocks), "blocks": window, "outline": outline, "headings": len(headings),
            "page": _page_info(document), "dirty": bool(document.isModified()),
            "pages": state["pages"], "paragraph_styles": _styles_in_use(state["styles"])}


def op_dirty(doc):
    return bool(_doc(doc).isModified())


def op_ids(doc):
    return [[kind, ident] for kind, ident, _ in _cached(_doc(doc))["blocks"]]


def op_read(doc):
    """The whole document for checkpoints: every block in full, page info and page count."""
    document = _doc(doc)
    out = []
    for kind, ident, block in _cached(document)["blocks"]:
        item = {"id": ident, "kind": kind}
        item.update(_paragraph(block, full=True) if kind == "paragraph" else _table(block))
        out.append(item)
    return {"blocks": out, "page": _page_info(document)}


# ---------------------------------------------------------------- writing


def _style(document, family_name, kind, name, examples):
    """The internal name of a style given by its internal or (case-insensitive) display name."""
    family = document.getStyleFamilies().getByName(family_name)
    if family.hasByName(name):
        return name
    for internal in family.getElementNames():
        if family.getByName(internal).DisplayName.casefold() == name.casefold():
            return internal
    raise EngineError("no_style", f"There is no {kind} style named {name!r}.", examples)


def _para_style(document, name):
    return _style(document, "ParagraphStyles", "paragraph", name,
                  "Styles include Standard, Text body, Heading 1, Heading 2, Title, Quotations.")


def _char_style(document, name):
    return _style(document, "CharacterStyles", "character", name,
                  "Character styles include Emphasis, Strong Emphasis, Source Text, Quotation.")


def op_set_text(doc, paragraph, text):
    document = _doc(doc)
    index, block = _find(document, paragraph, "paragraph")
    _set_paragraph_text(document, index, block, text)
    return True


def _set_paragraph_text(document, index, block, text):
    """Replace paragraph ``index``'s text and keep the reading cache in step."""
    paragraph = _replace_text(block, text)
    if any(mark in text for mark in BREAKS):
        _forget_blocks(document)
    else:
        _refresh(document, index, paragraph)


def _replace_text(block, text):
    """Replace a paragraph's text in place (SwXParagraph.setString would drop its xml:id); returns it."""
    ident = block.MetadataReference
    cursor = block.getText().createTextCursorByRange(block)
    cursor.setString(text)
    paragraph = _current_paragraph(cursor)
    if ident.Second and not paragraph.MetadataReference.Second:
        paragraph.MetadataReference = ident
    return paragraph


def op_insert_paragraph(doc, anchor, position, text, style=None, list_kind=None):
    document = _doc(doc)
    index, block = _find(document, anchor)
    named = _para_style(document, style) if style else None  # an unknown style refuses before anything changes
    before = _cached(document)  # still the state before the insert
    body = document.getText()
    if _is_para(block):
        cursor = body.createTextCursorByRange(block.getStart() if position == "before" else block.getEnd())
        body.insertControlCharacter(cursor, PARAGRAPH_BREAK, False)
    elif position == "before":
        body.insertTextContentBefore(document.createInstance("com.sun.star.text.Paragraph"), block)
    else:
        body.insertTextContentAfter(document.createInstance("com.sun.star.text.Paragraph"), block)
    found = _blocks(document)
    at = index if position == "before" else index + 1
    _, ident, new = found[at]
    new = _replace_text(new, text)
    new.CharWeight, new.CharPosture = 100.0, uno.Enum("com.sun.star.awt.FontSlant", "NONE")
    new.ParaStyleName = named or (block.ParaStyleName if _is_para(block) else "Standard")
    new.NumberingStyleName = LISTS[list_kind] if list_kind else ""
    _cache_insert(document, before, found, at, new, text)
    return ident


def _cache_insert(document, before, found, at, paragraph, text):
    """Keep the reading cache after an insert: the old blocks with one new paragraph at ``at``, checked
    against the block list the insert re-read (anything else, or a break in the text, drops it)."""
    ids = [ident for _, ident, _ in found]
    expected = [ident for _, ident, _ in before["blocks"]]
    expected.insert(at, ids[at])
    if ids != expected or any(mark in text for mark in BREAKS):
        _forget_blocks(document)
        return
    level, style = paragraph.getPropertyValues(("OutlineLevel", "ParaStyleName"))
    found[at] = (found[at][0], ids[at], paragraph)
    _CACHE[id(document)] = {"blocks": found, "levels": before["levels"][:at] + [int(level)] + before["levels"][at:],
                            "styles": before["styles"][:at] + [style] + before["styles"][at:]}


def _is_para(block):
    return not block.supportsService("com.sun.star.text.TextTable")


def op_delete_block(doc, block):
    document = _doc(doc)
    index, found = _find(document, block)
    if len(_cached(document)["blocks"]) == 1:
        raise EngineError("last_block", "The last paragraph of a document cannot be deleted.",
                          "Replace its text with set_value instead.")
    found.dispose()
    return True


def op_set_style(doc, paragraphs, style):
    document = _doc(doc)
    name = _para_style(document, style)
    for ident in paragraphs:
        index, block = _find(document, ident, "paragraph")
        block.ParaStyleName = name
        _refresh(document, index, block)
    return True


def op_set_list(doc, paragraphs, kind):
    document = _doc(doc)
    for ident in paragraphs:
        index, block = _find(document, ident, "paragraph")
        block.NumberingStyleName = LISTS.get(kind, "")
        _refresh(document, index, block)
    return True


def op_format_text(doc, paragraph, text, marks):
    document = _doc(doc)
    index, block = _find(document, paragraph, "paragraph")
    _apply_marks(document, _span(block, text, paragraph), marks)
    _refresh(document, index, block)
    return True


def _span(block, text, ident="the paragraph"):
    """A cursor selecting ``text`` inside a paragraph (the whole paragraph when text is None)."""
    content = block.getString()
    start = 0 if text is None else content.find(text)
    if start < 0 or text == "":
        raise EngineError("no_match", f"Paragraph {ident} does not contain the text {text!r}.",
                          "Give a piece of text copied exactly from the paragraph, or omit text to format all of it.")
    cursor = block.getText().createTextCursorByRange(block.getStart())
    cursor.goRight(start, False)
    cursor.goRight(len(content) if text is None else len(text), True)
    return cursor


def _apply_marks(document, target, marks):
    if marks.get("bold") is not None:
        target.CharWeight = 150.0 if marks["bold"] else 100.0
    if marks.get("italic") is not None:
        target.CharPosture = uno.Enum("com.sun.star.awt.FontSlant", "ITALIC" if marks["italic"] else "NONE")
    if marks.get("underline") is not None:
        target.CharUnderline = 1 if marks["underline"] else 0
    if "char_style" in marks:
        target.CharStyleName = _char_style(document, marks["char_style"]) if marks["char_style"] else ""


def op_find_replace(doc, find, replace, regex=False, match_case=False, paragraph=None):
    document = _doc(doc)
    if paragraph is not None:
        index, block = _find(document, paragraph, "paragraph")
        content = block.getString()
        flags = 0 if match_case else re.IGNORECASE
        pattern = find if regex else re.escape(find)
        try:
            new, count = re.subn(pattern, replace.replace("\\", "\\\\") if not regex else replace, content, flags=flags)
        except re.error as exc:
            raise EngineError("bad_regex", f"The regular expression {find!r} is not valid ({exc}).",
                              "Use Python regular expression syntax, or set regex to false.") from None
        if count:
            _set_paragraph_text(document, index, block, new)
        return count
    _forget_blocks(document)  # a replacement may hold a paragraph break
    descriptor = document.createReplaceDescriptor()
    descriptor.SearchString, descriptor.ReplaceString = find, replace
    descriptor.SearchRegularExpression, descriptor.SearchCaseSensitive = bool(regex), bool(match_case)
    return int(document.replaceAll(descriptor))


def op_insert_table(doc, anchor, rows, name=None):
    document = _doc(doc)
    index, block = _find(document, anchor)
    if not _is_para(block):
        raise EngineError("bad_anchor", "A table can only be inserted after a paragraph.", "Give a paragraph id as 'after'.")
    if name and document.getTextTables().hasByName(name):
        raise EngineError("table_exists", f"A table named {name!r} already exists.", "Pick another name.")
    table = document.createInstance("com.sun.star.text.TextTable")
    table.initialize(len(rows), max(len(r) for r in rows))
    if name:
        table.setName(name)
    body = document.getText()
    body.insertTextContent(body.createTextCursorByRange(block.getEnd()), table, False)
    blocks = _blocks(document)
    after = blocks[index + 2] if index + 2 < len(blocks) else None
    if after and after[0] == "paragraph" and after[2].getString() == "" and index + 3 < len(blocks):
        after[2].dispose()  # the split leaves an empty paragraph behind the table
    _fill(table, 0, 0, rows)
    return table.getName()


def _fill(table, col, row, rows):
    for r, line in enumerate(rows):
        for c, value in enumerate(line):
            table.getCellByName(_cell_name(col + c, row + r)).setString("" if value is None else str(value))


def op_set_cells(doc, table, col, row, rows):
    document = _doc(doc)
    _, found = _find(document, table, "table")
    need_rows = row + len(rows) - found.getRows().getCount()
    if need_rows > 0:
        found.getRows().insertByIndex(found.getRows().getCount(), need_rows)
    width = max(len(r) for r in rows)
    if col + width > found.getColumns().getCount():
        raise EngineError("out_of_table", f"The values run past the last column of {table}.",
                          f"{table} has {found.getColumns().getCount()} columns; add columns with add_table_columns.")
    _fill(found, col, row, rows)
    return True


def op_add_table_rows(doc, table, count, position=None):
    _, found = _find(_doc(doc), table, "table")
    rows = found.getRows()
    rows.insertByIndex(rows.getCount() if position is None else position, count)
    return True


def op_delete_table_rows(doc, table, position, count):
    _, found = _find(_doc(doc), table, "table")
    rows = found.getRows()
    if position + count > rows.getCount() or count >= rows.getCount():
        raise EngineError("out_of_table", f"{table} has {rows.getCount()} rows; cannot delete rows "
                          f"{position + 1}..{position + count}.", "Delete fewer rows; a table keeps at least one.")
    rows.removeByIndex(position, count)
    return True


def _set_page(document, page):
    style = _page_style(document)
    if "orientation" in page:
        landscape = page["orientation"] == "landscape"
        width, height = style.Width, style.Height
        if landscape != (width > height):
            style.Width, style.Height = height, width
        style.IsLandscape = landscape
    for key, prop in (("width_mm", "Width"), ("height_mm", "Height"), ("margin_top_mm", "TopMargin"),
                      ("margin_bottom_mm", "BottomMargin"), ("margin_left_mm", "LeftMargin"),
                      ("margin_right_mm", "RightMargin")):
        if key in page:
            setattr(style, prop, int(round(page[key] * 100)))


def op_set_page(doc, page):
    _set_page(_doc(doc), page)
    return True


def _set_margin_text(document, part, text):
    style = _page_style(document)
    flag = "HeaderIsOn" if part == "header" else "FooterIsOn"
    if text is None:
        setattr(style, flag, False)
        return
    setattr(style, flag, True)
    (style.HeaderText if part == "header" else style.FooterText).setString(text)


def op_set_margin_text(doc, part, text):
    _set_margin_text(_doc(doc), part, text)
    return True


def op_batch(doc, steps, snapshot_url):
    """Apply steps atomically: on any failure the document returns to the snapshot."""
    return ENGINE.batch(doc, steps, snapshot_url, ENGINE.restore, after_step=_CACHE.clear)


CACHE_SAFE = {"observe", "ids", "read", "dirty", "save", "export"}
# Edits that keep the cache in step with the document themselves: the ones inside a paragraph refresh
# its entry and drop the whole cache when the new text may split it; table cells and page styles are
# not blocks; insert_paragraph adds its paragraph to the block list it re-read.
KEEPS_BLOCKS = {"set_text", "set_style", "set_list", "format_text", "find_replace", "set_cells", "add_table_rows",
                "delete_table_rows", "set_page", "set_margin_text", "insert_paragraph"}
# Other edits that add or remove blocks: they find their target in the cache, then drop it.
CHANGES_BLOCKS = {"delete_block", "insert_table", "batch"}
READ_ONLY = {"open", "close", "dirty", "save", "export", "restore", "create", "observe", "ids", "read"}
OPS = ENGINE.use_ops(globals())
