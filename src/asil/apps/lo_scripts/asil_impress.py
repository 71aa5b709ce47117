"""ASIL's Impress engine: runs *inside* LibreOffice's Python (via the script provider).

Slides are addressed by name and shapes by name within their slide; ASIL names unnamed
slides ``slide-N`` and unnamed shapes by role (``title``, ``body``, ``shape-N``) once, and
LibreOffice keeps the names in the file, so ids survive reordering and edits elsewhere.
Standard library and UNO only.
"""

import os
import re
import tempfile
import zipfile

import uno  # noqa: F401  (present inside LibreOffice)
from asil_engine import Engine, EngineError, load_hidden, props
from com.sun.star.awt import Point, Size


def _desktop():
    return XSCRIPTCONTEXT.getDesktop()  # noqa: F821  (injected by the script provider)


ENGINE = Engine("com.sun.star.presentation.PresentationDocument", "presentation", "impress8", _desktop)
LAYOUTS = {"title_slide": 0, "title_content": 1, "title_two_content": 3, "title_only": 19, "blank": 20,
           "centered_text": 32}
TRANSITIONS = {"fade": ("FADE", "CROSSFADE"), "push": ("PUSHWIPE", "FROMLEFT"), "wipe": ("BARWIPE", "LEFTTORIGHT"),
               "cover": ("SLIDEWIPE", "FROMRIGHT")}
ROLES = {"TitleTextShape": "title", "OutlinerShape": "body", "SubtitleShape": "subtitle", "NotesShape": "notes"}
MAX_TEXT = 300
TITLE_LIMIT = 100
AUTO_NAME = re.compile(r"^(page\d+)?$")


def dispatch(payload):
    """Entry point called over the bridge: ``{"op": ..., ...}`` -> ``{"ok": ..., ...}``."""
    return ENGINE.dispatch(payload, after=_after_op)


def _after_op(op, request):
    if op not in READ_ONLY and request.get("doc") in ENGINE.docs:
        ENGINE.docs[request["doc"]].setModified(True)  # some edits (shape text, notes) leave the flag alone


def _load(url):
    return load_hidden(_desktop(), url)


# ---------------------------------------------------------------- documents


def op_open(url):
    key, doc = ENGINE.open(url)
    _name_all(doc)
    return key


def _doc(doc):
    return ENGINE.doc(doc)


def op_dirty(doc):
    return bool(_doc(doc).isModified())


def op_create(url, spec):
    """Build a presentation from ``{"slides": [{"name", "layout", "title", "body", "notes", "shapes"}]}``."""
    doc = _desktop().loadComponentFromURL("private:factory/simpress", "_blank", 0, props(Hidden=True))
    try:
        pages = doc.getDrawPages()
        for index, slide in enumerate(spec.get("slides", [])):
            page = pages.getByIndex(0) if index == 0 else pages.insertNewByIndex(index - 1)
            _fill_slide(doc, page, slide)
        _name_all(doc)
        doc.storeToURL(url, props(FilterName="impress8"))
    finally:
        doc.close(True)
    return True


def _fill_slide(doc, page, slide):
    page.Layout = LAYOUTS[slide.get("layout", "title_content")]
    if slide.get("name"):
        page.setName(slide["name"])
    if slide.get("title") is not None:
        _placeholder(page, "title").setString(slide["title"])
    if slide.get("body") is not None:
        _placeholder(page, "body", "subtitle").setString(_lines(slide["body"]))
    if slide.get("notes"):
        _notes_shape(page).setString(slide["notes"])
    for spec in slide.get("shapes", []):
        _add_shape(doc, page, spec)
    if slide.get("transition"):
        _transition(page, slide["transition"])


def _lines(body):
    return "\n".join(body) if isinstance(body, list) else body


# ---------------------------------------------------------------- names and reading


def _role(shape):
    kind = shape.getShapeType().rsplit(".", 1)[-1]
    return ROLES.get(kind, {"RectangleShape": "rect", "EllipseShape": "ellipse", "TextShape": "text",
                            "GraphicObjectShape": "image", "CustomShape": "shape"}.get(kind, "shape"))


def _name_all(doc):
    """Give unnamed slides and shapes stable names, without marking the document modified."""
    was_modified = doc.isModified()
    pages = doc.getDrawPages()
    names = [pages.getByIndex(i).getName() for i in range(pages.getCount())]
    taken = {n for n in names if not AUTO_NAME.match(n)}
    top = max([int(m.group(1)) for m in (re.fullmatch(r"slide-(\d+)", n) for n in taken) if m] or [0])
    for index in range(pages.getCount()):
        page = pages.getByIndex(index)
        name = page.getName()
        if AUTO_NAME.match(name) or names.count(name) > 1 and names.index(name) != index:
            top += 1
            page.setName(f"slide-{top}")
        _name_shapes(page)
    if not was_modified:
        doc.setModified(False)


def _name_shapes(page):
    shapes = [page.getByIndex(i) for i in range(page.getCount())]
    taken = {s.getName() for s in shapes if s.getName()}
    counter = 0
    for shape in shapes:
        if shape.getName():
            continue
        base = _role(shape)
        name = base if base in ("title", "body", "subtitle") and base not in taken else None
        while name is None or name in taken:
            counter += 1
            name = f"shape-{counter}"
        shape.setName(name)
        taken.add(name)


def _pages(document):
    pages = document.getDrawPages()
    return [pages.getByIndex(i) for i in range(pages.getCount())]


def _slide(document, name):
    for index, page in enumerate(_pages(document)):
        if page.getName() == name:
            return index, page
    raise EngineError("no_slide", f"There is no slide with id {name!r}.", "Use a slide id from the observation.")


def _shape(page, name):
    for i in range(page.getCount()):
        shape = page.getByIndex(i)
        if shape.getName() == name:
            return shape
    raise EngineError("no_shape", f"Slide {page.getName()} has no shape named {name!r}.",
                      "Use a shape id from the observation.")


def _placeholder(page, *roles):
    for i in range(page.getCount()):
        shape = page.getByIndex(i)
        if _role(shape) in roles:
            return shape
    raise EngineError("no_placeholder", f"Slide {page.getName()} has no {roles[0]} placeholder.",
                      "Change its layout with set_layout, or add a text shape.")


def _notes_shape(page):
    notes = page.getNotesPage()
    for i in range(notes.getCount()):
        shape = notes.getByIndex(i)
        if shape.getShapeType().endswith("NotesShape"):
            return shape
    raise EngineError("no_notes", f"Slide {page.getName()} has no notes area.", "")


def _text_of(shape):
    try:
        return shape.getString()
    except Exception:
        return None


def _title_of(page):
    for i in range(page.getCount()):
        shape = page.getByIndex(i)
        if _role(shape) == "title":
            return shape.getString()
    return ""


def _shape_info(shape, full):
    pos, size = shape.getPosition(), shape.getSize()
    info = {"id": shape.getName(), "kind": _role(shape), "x_mm": round(pos.X / 100, 1), "y_mm": round(pos.Y / 100, 1),
            "width_mm": round(size.Width / 100, 1), "height_mm": round(size.Height / 100, 1)}
    text = _text_of(shape)
    if text is not None:
        info["text"] = text if full else text[:MAX_TEXT]
    return info


def _transition_of(page):
    kind = page.TransitionType
    for name, (type_name, _) in TRANSITIONS.items():
        if kind == uno.getConstantByName(f"com.sun.star.animations.TransitionType.{type_name}"):
            return name
    return None if kind == 0 else f"other:{kind}"


def _slide_info(index, page, full=False):
    layout = next((n for n, v in LAYOUTS.items() if v == page.Layout), f"layout-{page.Layout}")
    try:
        notes = _notes_shape(page).getString()
    except EngineError:
        notes = ""
    return {"id": page.getName(), "index": index, "layout": layout, "title": _title_of(page),
            "shapes": [_shape_info(page.getByIndex(i), full) for i in range(page.getCount())],
            "notes": notes if full else notes[:MAX_TEXT], "transition": _transition_of(page)}


def op_observe(doc, offset, limit):
    document = _doc(doc)
    pages = _pages(document)
    start = max(0, min(offset, len(pages) - TITLE_LIMIT // 2)) if len(pages) > TITLE_LIMIT else 0
    titles = [{"id": p.getName(), "index": start + i, "title": _title_of(p)[:60]}
              for i, p in enumerate(pages[start:start + TITLE_LIMIT])]
    window = [_slide_info(i, pages[i]) for i in range(offset, min(offset + limit, len(pages)))]
    size = document.getDrawPages().getByIndex(0)
    return {"total": len(pages), "slides": window, "titles": titles, "dirty": bool(document.isModified()),
            "slide_size_mm": [round(size.Width / 100, 1), round(size.Height / 100, 1)]}


def op_ids(doc):
    return [[p.getName(), [p.getByIndex(i).getName() for i in range(p.getCount())]] for p in _pages(_doc(doc))]


def op_read(doc):
    return [_slide_info(i, p, full=True) for i, p in enumerate(_pages(_doc(doc)))]


# ---------------------------------------------------------------- writing


def _next_name(document):
    names = [p.getName() for p in _pages(document)]
    top = max([int(m.group(1)) for m in (re.fullmatch(r"slide-(\d+)", n) for n in names) if m] or [0])
    return f"slide-{top + 1}"


def op_add_slide(doc, position, layout, title=None, body=None, name=None):
    document = _doc(doc)
    fresh = name or _next_name(document)
    page = document.getDrawPages().insertNewByIndex(position - 1) if position > 0 else None
    if page is None:  # insertNewByIndex inserts *after* an index; a first slide needs a move
        page = document.getDrawPages().insertNewByIndex(0)
        page.setName(fresh)
        _move(doc, fresh, 0)
        document = _doc(doc)
        _, page = _slide(document, fresh)
    page.setName(fresh)
    _fill_slide(document, page, {"layout": layout, "title": title, "body": body})
    _name_shapes(page)
    return fresh


def op_delete_slide(doc, slide):
    document = _doc(doc)
    _, page = _slide(document, slide)
    if document.getDrawPages().getCount() == 1:
        raise EngineError("last_slide", "The last slide of a presentation cannot be deleted.", "Add another slide first.")
    document.getDrawPages().remove(page)
    return True


def op_duplicate_slide(doc, slide):
    document = _doc(doc)
    _, page = _slide(document, slide)
    fresh = _next_name(document)
    copy = document.duplicate(page)
    copy.setName(fresh)
    # LibreOffice makes copied shape names unique across the document ('title 1'); ids only need
    # to be unique within a slide, so the copy keeps the original's shape names.
    for index in range(min(page.getCount(), copy.getCount())):
        copy.getByIndex(index).setName(page.getByIndex(index).getName())
    _name_shapes(copy)
    return fresh


def op_move_slide(doc, slide, position):
    _slide(_doc(doc), slide)
    _move(doc, slide, position)
    return True


def _move(doc, slide, position):
    """Reorder slides through the file: LibreOffice's API has no 'move slide', but slide order
    is the order of draw:page elements in content.xml, so ASIL stores, reorders and reloads."""
    document = _doc(doc)
    with tempfile.TemporaryDirectory(prefix="asil-move-") as scratch:
        before, after = os.path.join(scratch, "a.odp"), os.path.join(scratch, "b.odp")
        document.storeToURL(uno.systemPathToFileUrl(before), props(FilterName="impress8"))
        _reorder_package(before, after, slide, position)
        ENGINE.restore(doc, uno.systemPathToFileUrl(after), True)


def _reorder_package(source, target, slide, position):
    with zipfile.ZipFile(source) as archive:
        members = [(info, archive.read(info.filename)) for info in archive.infolist()]
    with zipfile.ZipFile(target, "w") as out:
        for info, data in members:
            if info.filename == "content.xml":
                data = _reorder_pages(data.decode("utf-8"), slide, position).encode("utf-8")
            compress = zipfile.ZIP_STORED if info.filename == "mimetype" else zipfile.ZIP_DEFLATED
            out.writestr(info.filename, data, compress_type=compress)


def _reorder_pages(xml, slide, position):
    pages = list(re.finditer(r"<draw:page\b.*?</draw:page>", xml, re.DOTALL))
    texts = [m.group(0) for m in pages]
    names = [re.search(r'draw:name="([^"]*)"', t).group(1) for t in texts]
    moving = texts.pop(names.index(_escape(slide)))
    texts.insert(min(position, len(texts)), moving)
    return xml[:pages[0].start()] + "".join(texts) + xml[pages[-1].end():]


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")


def op_set_text(doc, slide, role, text):
    _, page = _slide(_doc(doc), slide)
    roles = ("title",) if role == "title" else ("body", "subtitle")
    _placeholder(page, *roles).setString(_lines(text))
    return True


def op_set_shape_text(doc, slide, shape, text):
    _, page = _slide(_doc(doc), slide)
    found = _shape(page, shape)
    if _text_of(found) is None:
        raise EngineError("no_text", f"Shape {shape} cannot hold text.", "Pick a text box or placeholder.")
    found.setString(_lines(text))
    return True


def _geometry(shape, spec):
    pos, size = shape.getPosition(), shape.getSize()
    x = spec.get("x_mm", pos.X / 100)
    y = spec.get("y_mm", pos.Y / 100)
    width = spec.get("width_mm", size.Width / 100)
    height = spec.get("height_mm", size.Height / 100)
    shape.setSize(Size(int(round(width * 100)), int(round(height * 100))))
    shape.setPosition(Point(int(round(x * 100)), int(round(y * 100))))


def op_set_geometry(doc, slide, shape, geometry):
    _, page = _slide(_doc(doc), slide)
    _geometry(_shape(page, shape), geometry)
    return True


def op_add_shape(doc, slide, spec):
    document = _doc(doc)
    _, page = _slide(document, slide)
    if any(page.getByIndex(i).getName() == spec["name"] for i in range(page.getCount())):
        raise EngineError("shape_exists", f"Slide {slide} already has a shape named {spec['name']!r}.", "Pick another name.")
    _add_shape(document, page, spec)
    return True


def _add_shape(document, page, spec):
    """A named rectangle, ellipse or text box (``spec``: kind, name, geometry, text) on ``page``."""
    kind = {"rect": "RectangleShape", "ellipse": "EllipseShape", "text": "TextShape"}[spec.get("kind", "rect")]
    shape = document.createInstance(f"com.sun.star.drawing.{kind}")
    page.add(shape)
    _geometry(shape, spec)
    shape.setName(spec["name"])
    if spec.get("text"):
        shape.setString(spec["text"])


def op_delete_shape(doc, slide, shape):
    _, page = _slide(_doc(doc), slide)
    page.remove(_shape(page, shape))
    return True


def op_set_notes(doc, slide, text):
    _, page = _slide(_doc(doc), slide)
    _notes_shape(page).setString(text)
    return True


def _transition(page, effect):
    if effect == "none":
        page.TransitionType, page.TransitionSubtype = 0, 0
        return
    type_name, subtype = TRANSITIONS[effect]
    page.TransitionType = uno.getConstantByName(f"com.sun.star.animations.TransitionType.{type_name}")
    page.TransitionSubtype = uno.getConstantByName(f"com.sun.star.animations.TransitionSubType.{subtype}")


def op_set_transition(doc, slides, effect):
    document = _doc(doc)
    for slide in slides:
        _transition(_slide(document, slide)[1], effect)
    return True


def op_set_layout(doc, slide, layout):
    _, page = _slide(_doc(doc), slide)
    page.Layout = LAYOUTS[layout]
    _name_shapes(page)
    return True


def op_batch(doc, steps, snapshot_url):
    """Apply steps atomically: on any failure the document returns to the snapshot."""
    return ENGINE.batch(doc, steps, snapshot_url, ENGINE.restore)


READ_ONLY = {"open", "close", "dirty", "save", "export", "restore", "create", "observe", "ids", "read"}
OPS = ENGINE.use_ops(globals())
