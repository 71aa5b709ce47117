"""ASIL's Calc engine: runs *inside* LibreOffice's own Python (via the script provider).

One bridge call per request keeps actions fast: the many fine-grained UNO calls an
observation needs happen in-process. Requests and replies are JSON strings. This file
uses only the standard library and UNO, because it runs under LibreOffice's Python,
not ASIL's. Formulas cross the boundary in Excel A1 syntax (commas, 'Sheet'!A1), which
small models know best; LibreOffice compiles and computes them.
"""


import uno  # noqa: F401  (present inside LibreOffice)
from asil_engine import Engine, EngineError, props
from com.sun.star.lang import Locale
from com.sun.star.table import CellAddress, TableSortField
from com.sun.star.util import NotNumericException


def _desktop():
    return XSCRIPTCONTEXT.getDesktop()  # noqa: F821  (injected by the script provider)


def _service(name):
    context = XSCRIPTCONTEXT.getComponentContext()  # noqa: F821  (injected by the script provider)
    return context.ServiceManager.createInstanceWithContext(name, context)


ENGINE = Engine("com.sun.star.sheet.SpreadsheetDocument", "spreadsheet", "calc8", _desktop)
_PARSERS = {}
XL_A1 = 3  # com.sun.star.sheet.AddressConvention.XL_A1
XL_ENGLISH = 4  # com.sun.star.sheet.FormulaLanguage.XL_ENGLISH
# LibreOffice error codes meaning "this formula does not compile" (not a computed error
# such as #DIV/0!): syntax errors 501-518/520/521, circular reference 522, unknown name 525.
REJECTED = set(range(501, 519)) | {520, 521, 522, 525}
CONTENT_FLAGS = 1 | 2 | 4 | 8 | 16  # VALUE DATETIME STRING ANNOTATION FORMULA
FORMAT_FLAGS = 32 | 64  # HARDATTR STYLES
# com.sun.star.util.NumberFormat types whose *standard* format typed input may replace (as Calc's input does)
REPLACEABLE_TYPES = (16, 2, 4, 1024)  # NUMBER, DATE, TIME, LOGICAL
LOGICAL, TEXT_FORMAT, DEFINED = 1024, 256, 1
NUMBER_TYPES = [(1024, "boolean"), (128, "percent"), (8, "currency"), (6, "datetime"), (2, "date"), (4, "time")]


def dispatch(payload):
    """Entry point called over the bridge: ``{"op": ..., ...}`` -> ``{"ok": ..., ...}``."""
    return ENGINE.dispatch(payload)


# ---------------------------------------------------------------- documents


def op_open(url):
    return ENGINE.open(url)[0]


def _doc(doc):
    return ENGINE.doc(doc)


def op_close(doc):
    _PARSERS.pop(doc, None)
    return ENGINE.close(doc)


def op_export(doc, url, filter_name, sheet=None):
    document = _doc(doc)
    if sheet is not None:
        document.getCurrentController().setActiveSheet(_sheet(document, sheet))
    document.storeToURL(url, props(FilterName=filter_name))
    return True


# The window is printed to PDF on a page sized to it (grid and row/column headers on, no page
# header/footer, white background), then LibreOffice's own graphic import and PNG export rasterize
# that page. (This LibreOffice build has no calc_png_Export filter.) The printed cells are opaque;
# the thin page margin stays transparent, and an empty window prints nothing. The page style is
# changed only for the export and restored exactly (defaults stay defaults), so saving is unaffected.
RENDER_PAGE_MARGIN = 300  # 1/100 mm
RENDER_HEADERS = (1200, 600)  # room for the row numbers (width) and column letters (height), 1/100 mm


def op_render(doc, url, pdf_url, sheet, col, row, col2, row2):
    """Write a PNG of a cell window of ``sheet``; returns the image size in pixels."""
    document = _doc(doc)
    table = _sheet(document, sheet)
    area = table.getCellRangeByPosition(col, row, col2, row2)
    size = area.Size
    page = {"HeaderIsOn": False, "FooterIsOn": False, "PrintGrid": True, "PrintHeaders": True,
            "LeftMargin": RENDER_PAGE_MARGIN, "RightMargin": RENDER_PAGE_MARGIN,
            "TopMargin": RENDER_PAGE_MARGIN, "BottomMargin": RENDER_PAGE_MARGIN,
            "Width": size.Width + RENDER_HEADERS[0] + 2 * RENDER_PAGE_MARGIN,
            "Height": size.Height + RENDER_HEADERS[1] + 2 * RENDER_PAGE_MARGIN,
            "ScaleToPagesX": 1, "ScaleToPagesY": 1, "BackColor": 0xFFFFFF, "BackTransparent": False}
    style = document.getStyleFamilies().getByName("PageStyles").getByName(table.PageStyle)
    saved = {name: (style.getPropertyState(name).value, style.getPropertyValue(name)) for name in page}
    dirty = document.isModified()
    try:
        for name, value in page.items():
            style.setPropertyValue(name, value)
        selection = uno.Any("[]com.sun.star.beans.PropertyValue", props(Selection=area))
        document.storeToURL(pdf_url, props(FilterName="calc_pdf_Export", FilterData=selection))
    finally:
        for name, (state, value) in saved.items():
            if state == "DEFAULT_VALUE":
                style.setPropertyToDefault(name)
            else:
                style.setPropertyValue(name, value)
        document.setModified(dirty)
    context = XSCRIPTCONTEXT.getComponentContext()  # noqa: F821  (injected by the script provider)
    provider = context.ServiceManager.createInstanceWithContext("com.sun.star.graphic.GraphicProvider", context)
    graphic = provider.queryGraphic(props(URL=pdf_url))
    if graphic is None:
        raise EngineError("render_failed", "LibreOffice could not rasterize the exported page.")
    provider.storeGraphic(graphic, props(URL=url, MimeType="image/png"))
    return {"width": graphic.SizePixel.Width, "height": graphic.SizePixel.Height}


def op_create(url, sheets):
    """Build a new spreadsheet from ``[{"name", "rows", "bold_rows"}]`` and store it."""
    doc = _desktop().loadComponentFromURL("private:factory/scalc", "_blank", 0, props(Hidden=True))
    key = ENGINE.register(doc)
    try:
        book = doc.getSheets()
        while book.getCount() > 1:
            book.removeByName(book.getByIndex(1).getName())
        book.getByIndex(0).setName(sheets[0]["name"])
        for index, spec in enumerate(sheets[1:], start=1):
            book.insertNewByName(spec["name"], index)
        for spec in sheets:
            if spec.get("rows") and _plain_block(spec["rows"]):
                rows = spec["rows"]
                _sheet(doc, spec["name"]).getCellRangeByPosition(0, 0, len(rows[0]) - 1, len(rows) - 1).setDataArray(
                    tuple(tuple(float(v) if isinstance(v, int) else v for v in row) for row in rows))
            elif spec.get("rows"):
                _set_range(key, spec["name"], 0, 0, spec["rows"])
            for row in spec.get("bold_rows", []):
                width = max(len(spec["rows"][row]), 1)
                _sheet(doc, spec["name"]).getCellRangeByPosition(0, row, width - 1, row).CharWeight = 150.0
        doc.storeToURL(url, props(FilterName="calc8"))
    finally:
        op_close(key)
    return True


def _plain_block(rows):
    """Rectangular numbers and non-formula text: can be written in one setDataArray call."""
    width = len(rows[0])
    for row in rows:
        if len(row) != width:
            return False
        for value in row:
            if isinstance(value, bool) or value is None:
                return False
            if isinstance(value, str) and (value == "" or value.startswith("=")):
                return False
            if not isinstance(value, (int, float, str)):
                return False
    return True


def op_snapshot(doc, url):
    _doc(doc).storeToURL(url, props(FilterName="calc8"))
    return True


def op_restore(doc, url, dirty):
    """Replace the open document by a snapshot (used to undo a failed batch)."""
    _PARSERS.pop(doc, None)
    return ENGINE.restore(doc, url, dirty)


# ---------------------------------------------------------------- reading


def _sheet(document, name):
    sheets = document.getSheets()
    if not sheets.hasByName(name):
        raise EngineError("no_sheet", f"There is no sheet named {name!r}.",
                          "Existing sheets: {}.".format(", ".join(sheets.getElementNames())))
    return sheets.getByName(name)


def _used(sheet):
    cursor = sheet.createCursor()
    cursor.gotoEndOfUsedArea(False)
    end = cursor.getRangeAddress()
    rows, cols = end.EndRow + 1, end.EndColumn + 1
    if rows == 1 and cols == 1 and sheet.getCellByPosition(0, 0).getType().value == "EMPTY":
        return 0, 0
    return rows, cols


def op_info(doc):
    document = _doc(doc)
    sheets = []
    for name in document.getSheets().getElementNames():
        rows, cols = _used(document.getSheets().getByName(name))
        sheets.append({"name": name, "rows": rows, "cols": cols})
    return {"sheets": sheets, "dirty": bool(document.isModified())}


def op_observe(doc, sheet, row, col, rows, cols):
    info = op_info(doc)
    document = _doc(doc)
    table = _sheet(document, sheet)
    cells = []
    window = table.getCellRangeByPosition(col, row, col + cols - 1, row + rows - 1)
    formulas = window.getFormulaArray()
    for r, line in enumerate(formulas):
        for c, text in enumerate(line):
            if text != "":
                cells.append(_cell(doc, document, table, col + c, row + r))
    info["cells"] = cells
    return info


def op_cells(doc, sheet, positions):
    """Full details of the given cells (used by the evaluator)."""
    document = _doc(doc)
    table = _sheet(document, sheet)
    return [_cell(doc, document, table, c, r) for c, r in positions]


def _cell(doc, document, table, col, row):
    cell = table.getCellByPosition(col, row)
    kind = cell.getType().value
    out = {"col": col, "row": row, "display": cell.getString()}
    fmt = document.getNumberFormats().getByKey(cell.NumberFormat)
    if kind == "FORMULA":
        out["formula"] = _formula_text(doc, document, table, cell, col, row)
        result = cell.FormulaResultType2
        if cell.getError():
            out["type"], out["value"] = "error", cell.getString()
        elif result == 2:
            out["type"], out["value"] = "text", cell.getString()
        else:
            out["type"], out["value"] = _number_type(fmt.Type), cell.getValue()
    elif kind == "VALUE":
        out["type"], out["value"] = _number_type(fmt.Type), cell.getValue()
    elif kind == "TEXT":
        out["type"], out["value"] = "text", cell.getString()
    else:
        out["type"], out["value"] = "empty", None
    if cell.CharWeight >= 150:
        out["bold"] = True
    if fmt.FormatString != "General":
        out["number_format"] = fmt.FormatString
    if not cell.IsCellBackgroundTransparent and cell.CellBackColor != -1:
        out["background"] = "#%06X" % (cell.CellBackColor & 0xFFFFFF)
    return out


def _formula_text(doc, document, table, cell, col, row):
    """The formula in Excel A1 syntax. The Excel printer drops deleted references, so a formula
    holding #REF! is shown in LibreOffice's own syntax with commas, keeping the #REF! visible."""
    text = "=" + _parser(doc, document).printFormula(cell.getTokens(), _address(table, col, row))
    native = cell.getFormula()
    if "#REF!" in native and "#REF!" not in text:
        return _commas(native)
    return text


def _commas(formula):
    out, quoted = [], False
    for ch in formula:
        if ch == '"':
            quoted = not quoted
        out.append("," if ch == ";" and not quoted else ch)
    return "".join(out)


def _number_type(bits):
    for flag, name in NUMBER_TYPES:
        if bits & flag == flag:
            return name
    return "number"


def _address(table, col, row):
    addr = CellAddress()
    addr.Sheet = table.getRangeAddress().Sheet
    addr.Column, addr.Row = col, row
    return addr


def _parser(doc, document):
    """A formula parser for Excel A1 syntax with English function names, cached per document."""
    parser = _PARSERS.get(doc)
    if parser is None:
        mapper = document.createInstance("com.sun.star.sheet.FormulaOpCodeMapper")
        parser = document.createInstance("com.sun.star.sheet.FormulaParser")
        parser.FormulaConvention = XL_A1
        parser.OpCodeMap = tuple(mapper.getAvailableMappings(XL_ENGLISH, 0)) + tuple(
            mapper.getAvailableMappings(XL_ENGLISH, 0x7FFFFFFF))
        parser.CompileEnglish = True
        _PARSERS[doc] = parser
    return parser


# ---------------------------------------------------------------- writing


def _capture(cell):
    """The cell's content and number format (typed input may change the format too)."""
    kind = cell.getType().value
    if kind == "TEXT":
        return ("text", cell.getString(), cell.NumberFormat)
    if kind == "VALUE":
        return ("value", cell.getValue(), cell.NumberFormat)
    if kind == "FORMULA":
        return ("tokens", cell.getTokens(), cell.NumberFormat)
    return ("empty", None, cell.NumberFormat)


def _restore(cell, saved):
    kind, data, number_format = saved
    if cell.NumberFormat != number_format:
        cell.NumberFormat = number_format
    if kind == "text":
        cell.setString(data)
    elif kind == "value":
        cell.setValue(data)
    elif kind == "tokens":
        cell.setTokens(data)
    else:
        cell.setString("")


def _write(doc, document, table, col, row, value, reader=None):
    """Write one value; with ``reader`` (typed input) a string is read as LibreOffice reads what is typed."""
    cell = table.getCellByPosition(col, row)
    if isinstance(value, str) and value.startswith("=") and len(value) > 1:
        _write_formula(doc, document, table, cell, col, row, value)
    elif isinstance(value, bool):
        cell.setValue(1.0 if value else 0.0)
        cell.NumberFormat = document.getNumberFormats().getStandardFormat(1024, Locale())
    elif isinstance(value, (int, float)):
        cell.setValue(float(value))
    elif value is None or value == "":
        cell.setString("")
    elif reader is not None:
        _type_in(document, reader, cell, value)
    else:
        cell.setString(str(value))


def _input_reader(document):
    """A number formatter on the document's formats: it reads strings with Calc's own input scanner."""
    reader = _service("com.sun.star.util.NumberFormatter")
    reader.attachNumberFormatsSupplier(document)
    return reader


def _type_in(document, reader, cell, text):
    """Enter ``text`` as Calc's input line does (ScColumn::ParseString): a number, date, time, percentage,
    currency or boolean in the cell format's locale becomes a value, and the format Calc detected replaces
    the cell's format when that was a standard one ("12%" -> 0.12 as 0.00%, "2026-12-01" -> a date as
    YYYY-MM-DD); a cell formatted as Text keeps the text; a leading apostrophe keeps a number as text.
    (Calc's input line would also turn "+A1"/"-A1" into a formula; here formulas must start with '='.)"""
    formats = document.getNumberFormats()
    old_key = cell.NumberFormat
    old = formats.getByKey(old_key)
    old_type = old.Type & ~DEFINED
    if old_type & TEXT_FORMAT:
        cell.setString(text)
        return
    if text.startswith("'") and _number(reader, old_key, text[1:]) is not None:
        cell.setString(text[1:])
        return
    found = _number(reader, old_key, text)
    if found is None:
        cell.setString(text)
        return
    key, number = found
    cell.setValue(number)
    standard = old_type in REPLACEABLE_TYPES and old_key == formats.getStandardFormat(old_type, old.Locale)
    if key != old_key and (standard or formats.getByKey(key).Type & ~DEFINED == LOGICAL):
        cell.NumberFormat = key


def _number(reader, key, text):
    """(detected format key, value) of ``text`` read in format ``key``'s context, or None if it is no number."""
    try:
        return reader.detectNumberFormat(key, text), reader.convertStringToNumber(key, text)
    except NotNumericException:
        return None


def _write_formula(doc, document, table, cell, col, row, text):
    problem = _syntax_problem(text)
    if problem:
        raise EngineError("invalid_formula", f"The formula {text} is not valid: {problem}.",
                          "Write formulas in Excel style, e.g. =SUM(B2:B9) or ='Other Sheet'!A1*2.")
    saved = _capture(cell)
    cell.setTokens(_parser(doc, document).parseFormula(text[1:], _address(table, col, row)))
    error = cell.getError()
    if error in REJECTED:
        _restore(cell, saved)
        reason = {525: "it uses an unknown function or name", 522: "it creates a circular reference"}
        why = reason.get(error, "syntax error")
        raise EngineError("invalid_formula", f"LibreOffice rejected the formula {text}: {why} (Err:{error}).",
            "Use Excel-style syntax with commas, e.g. =IF(A1>0,\"yes\",\"no\"); quote sheet names with spaces.")


def _syntax_problem(text):
    depth, quoted = 0, None
    for ch in text:
        if quoted:
            if ch == quoted:
                quoted = None
        elif ch in "\"'":
            quoted = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return "a ')' has no matching '('"
    if quoted:
        return "a quote is not closed"
    if depth:
        return "a '(' is not closed"
    return None


def _set_range(doc, sheet, col, row, values, typed=False):
    document = _doc(doc)
    reader = _input_reader(document) if typed else None
    table = _sheet(document, sheet)
    width = max(len(line) for line in values)
    area = table.getCellRangeByPosition(col, row, col + width - 1, row + len(values) - 1)
    saved = [[_capture(area.getCellByPosition(c, r)) for c in range(width)] for r in range(len(values))]
    was_modified = document.isModified()
    try:
        for r, line in enumerate(values):
            for c, value in enumerate(line):
                _write(doc, document, table, col + c, row + r, value, reader)
    except Exception:
        for r in range(len(values)):
            for c in range(width):
                _restore(area.getCellByPosition(c, r), saved[r][c])
        document.setModified(was_modified)
        raise
    return True


def op_set_range(doc, sheet, col, row, values, as_text=True):
    """Write values; strings are typed input (see _type_in) unless ``as_text``. Task set-up files keep
    strings as text (op_create), so a set-up can hold numbers stored as text on purpose."""
    return _set_range(doc, sheet, col, row, values, typed=not as_text)


def op_clear_range(doc, sheet, col, row, col2, row2, formats=False):
    area = _sheet(_doc(doc), sheet).getCellRangeByPosition(col, row, col2, row2)
    area.clearContents(CONTENT_FLAGS | (FORMAT_FLAGS if formats else 0))
    return True


def _lines_op(lines, change):
    """An op that inserts or removes ``count`` whole rows or columns of a sheet at ``index``.

    ``lines`` names the sheet's accessor (getRows, getColumns), ``change`` the UNO call on it.
    """

    def op(doc, sheet, index, count):
        getattr(getattr(_sheet(_doc(doc), sheet), lines)(), change)(index, count)
        return True

    return op


op_insert_rows = _lines_op("getRows", "insertByIndex")
op_delete_rows = _lines_op("getRows", "removeByIndex")
op_insert_columns = _lines_op("getColumns", "insertByIndex")
op_delete_columns = _lines_op("getColumns", "removeByIndex")


def op_add_sheet(doc, name, position=None):
    sheets = _doc(doc).getSheets()
    if sheets.hasByName(name):
        raise EngineError("sheet_exists", f"A sheet named {name!r} already exists.", "Pick a new name.")
    sheets.insertNewByName(name, sheets.getCount() if position is None else min(position, sheets.getCount()))
    return True


def op_rename_sheet(doc, sheet, new_name):
    document = _doc(doc)
    table = _sheet(document, sheet)
    if document.getSheets().hasByName(new_name):
        raise EngineError("sheet_exists", f"A sheet named {new_name!r} already exists.", "Pick a new name.")
    table.setName(new_name)
    return True


def op_delete_sheet(doc, sheet):
    document = _doc(doc)
    _sheet(document, sheet)
    if document.getSheets().getCount() == 1:
        raise EngineError("last_sheet", "The last sheet of a spreadsheet cannot be deleted.",
                          "Add another sheet first, or clear this one.")
    document.getSheets().removeByName(sheet)
    return True


def op_sort_range(doc, sheet, col, row, col2, row2, keys, has_header):
    area = _sheet(_doc(doc), sheet).getCellRangeByPosition(col, row, col2, row2)
    fields = []
    for key in keys:
        field = TableSortField()
        field.Field = key["column"] - col
        field.IsAscending = not key.get("descending", False)
        field.IsCaseSensitive = False
        fields.append(field)
    descriptor = []
    for prop in area.createSortDescriptor():
        if prop.Name == "SortFields":
            prop.Value = uno.Any("[]com.sun.star.table.TableSortField", tuple(fields))
        elif prop.Name == "ContainsHeader":
            prop.Value = bool(has_header)
        descriptor.append(prop)
    area.sort(tuple(descriptor))
    return True


def op_format_range(doc, sheet, col, row, col2, row2, style):
    document = _doc(doc)
    area = _sheet(document, sheet).getCellRangeByPosition(col, row, col2, row2)
    if "number_format" in style:
        area.NumberFormat = _format_key(document, style["number_format"])
    if "bold" in style:
        area.CharWeight = 150.0 if style["bold"] else 100.0
    if "background" in style:
        color = style["background"]
        if color is None:
            area.IsCellBackgroundTransparent = True
            area.CellBackColor = -1
        else:
            area.CellBackColor = int(color.lstrip("#"), 16)
    return True


def _format_key(document, code):
    formats = document.getNumberFormats()
    locale = Locale("en", "US", "")
    key = formats.queryKey(code, locale, False)
    if key == -1:
        try:
            key = formats.addNew(code, locale)
        except Exception:
            raise EngineError("invalid_number_format", f"LibreOffice does not accept the number format {code!r}.",
                              "Use codes such as 0.00, #,##0, 0%, YYYY-MM-DD or \"$\"#,##0.00.") from None
    return key


def op_batch(doc, steps, snapshot_url):
    """Apply steps atomically: on any failure the document returns to the snapshot."""
    return ENGINE.batch(doc, steps, snapshot_url, op_restore)


OPS = ENGINE.use_ops(globals())
