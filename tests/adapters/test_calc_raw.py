"""The standard-library .ods reader, checked against files that a real LibreOffice wrote."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.calc.raw import RawReadError, RawWorkbook, convert_formula

DEBIAN_UNO_PATH = "/usr/lib/python3/dist-packages"


def _uno() -> Any:
    if DEBIAN_UNO_PATH not in sys.path:
        sys.path.append(DEBIAN_UNO_PATH)
    return pytest.importorskip("uno", reason="pyuno is needed to build .ods fixtures")


def _connect(uno: Any, pipe: str, proc: subprocess.Popen[bytes]) -> Any:
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.monotonic() + 90
    while True:
        try:
            ctx = resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            return ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
        except Exception:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise
            time.sleep(0.3)


def _props(uno: Any, **values: Any) -> tuple[Any, ...]:
    result = []
    for name, value in values.items():
        prop = uno.createUnoStruct("com.sun.star.beans.PropertyValue")
        prop.Name, prop.Value = name, value
        result.append(prop)
    return tuple(result)


def _format_key(doc: Any, uno: Any, code: str) -> int:
    locale = uno.createUnoStruct("com.sun.star.lang.Locale", "en", "US", "")
    key = doc.NumberFormats.queryKey(code, locale, False)
    return int(key if key != -1 else doc.NumberFormats.addNew(code, locale))


def _fill_main(doc: Any, uno: Any) -> None:
    sheets = doc.Sheets
    sheets.getByIndex(0).Name = "Main"
    sheets.insertNewByName("Data Two", 1)
    main, data = sheets.getByName("Main"), sheets.getByName("Data Two")
    cell = main.getCellByPosition
    for row, value in enumerate((1.5, 2.0, 3.0)):
        cell(0, row).Value = value
    cell(1, 0).String = "hello  world"
    cell(1, 1).String = "line1\nline2"
    cell(2, 0).Formula = "=SUM(A1:A3)"
    cell(2, 1).Formula = '=IF(A1>0;"a;b";2)'
    cell(2, 2).Formula = "='Data Two'.B2*2"
    cell(2, 3).Formula = "=$A$1+A$2"
    cell(2, 4).Formula = "=SUM('Data Two'.A1:B3)"
    cell(2, 5).Formula = "=1/0"
    cell(2, 6).Formula = '="#not an error"'
    for row, (value, code) in enumerate([(1234.5, "0.00"), (1234.5, "#,##0"), (0.25, "0%"),
                                         (45306, "YYYY-MM-DD"), (1234.5, "#,##0.00"),
                                         (-1.5, "#,##0.00;[RED]-#,##0.00")]):
        cell(3, row).Value = value
        cell(3, row).NumberFormat = _format_key(doc, uno, code)
    cell(4, 0).String, cell(4, 0).CharWeight = "bold", 150.0
    cell(4, 1).String, cell(4, 1).CellBackColor = "yellow", 0xFFFF00
    cell(4, 2).String, cell(4, 2).CharWeight, cell(4, 2).CellBackColor = "both", 150.0, 0x00FF00
    main.getCellRangeByName("F5:H5").setDataArray((("r", "r", "r"),))
    main.getCellRangeByName("A30:A32").setDataArray((("same",), ("same",), ("same",)))
    main.Columns.getByIndex(9).CharWeight = 150.0  # column J: bold through its default cell style
    cell(9, 40).String = "in bold column"
    cell(0, 99).Value = 42
    main.group(main.getCellRangeByName("A29:A33").RangeAddress, 1)  # a table:table-row-group
    main.PrintTitleRows, main.TitleRows = True, main.getCellRangeByName("A1:A2").RangeAddress
    data.getCellByPosition(0, 0).String = "x"
    data.getCellByPosition(1, 1).Value = 10
    data.getCellRangeByName("C1:C2").setArrayFormula("=A1:A2")


@pytest.fixture(scope="session")
def ods_files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Build .ods files with a private headless LibreOffice, then stop exactly that LibreOffice."""
    soffice = shutil.which("soffice") or shutil.which("libreoffice")
    if soffice is None:
        pytest.skip("LibreOffice is needed to build .ods fixtures")
    uno = _uno()
    root = tmp_path_factory.mktemp("calc_raw")
    pipe = f"asil_calc_raw_{os.getpid()}"
    proc = subprocess.Popen(
        [soffice, "--headless", "--invisible", "--norestore", "--nologo", "--nodefault",
         f"-env:UserInstallation={(root / 'profile').as_uri()}", f"--accept=pipe,name={pipe};urp;"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        desktop = _connect(uno, pipe, proc)
        doc = desktop.loadComponentFromURL("private:factory/scalc", "_blank", 0, _props(uno, Hidden=True))
        try:
            _fill_main(doc, uno)
            doc.storeToURL((root / "main.ods").as_uri(), _props(uno, FilterName="calc8"))
        finally:
            doc.close(True)
        try:
            desktop.terminate()
        except Exception:  # the bridge drops as LibreOffice exits
            pass
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)  # our own session only
            proc.wait(timeout=10)
    (root / "notes.txt").write_text("not a zip at all\n")
    with zipfile.ZipFile(root / "text.odt", "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.text")
        with zipfile.ZipFile(root / "main.ods") as source:
            archive.writestr("content.xml", source.read("content.xml"))
    with zipfile.ZipFile(root / "no_content.ods", "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
    yield {name: root / name for name in ("main.ods", "notes.txt", "text.odt", "no_content.ods")}


@pytest.fixture(scope="session")
def book(ods_files: dict[str, Path]) -> RawWorkbook:
    return RawWorkbook.load(ods_files["main.ods"])


def test_sheet_names_in_document_order(book: RawWorkbook) -> None:
    assert book.sheet_names() == ["Main", "Data Two"]


def test_numbers_and_text(book: RawWorkbook) -> None:
    assert [book.cell("Main", 0, row)["value"] for row in range(3)] == [1.5, 2.0, 3.0]
    assert book.cell("Main", 0, 0)["type"] == "number"
    assert book.cell("Main", 1, 0)["value"] == "hello  world"  # the second space is a text:s
    assert book.cell("Main", 1, 1) == {"value": "line1\nline2", "type": "text", "formula": None,
                                       "bold": False, "background": None, "number_format": None}
    assert book.cell("Data Two", 1, 1)["value"] == 10.0


def test_repeated_rows_and_columns(book: RawWorkbook) -> None:
    assert [book.cell("Main", col, 4)["value"] for col in (4, 5, 6, 7, 8)] == [None, "r", "r", "r", None]
    assert [book.cell("Main", 0, row)["value"] for row in (28, 29, 30, 31, 32)] == [
        None, "same", "same", "same", None]
    assert book.cell("Main", 0, 99)["value"] == 42.0
    assert book.cell("Main", 0, 98)["type"] == "empty"
    assert book.used_size("Main") == (100, 10)
    assert book.used_size("Data Two") == (2, 3)


def test_far_away_cells_are_empty(book: RawWorkbook) -> None:
    far = book.cell("Main", 16000, 1_000_000)
    assert far == {"value": None, "type": "empty", "formula": None, "bold": False, "background": None,
                   "number_format": None}
    assert book.cell("Main", 1_000_000_000, 5)["type"] == "empty"


def test_formulas_convert_to_a1_syntax(book: RawWorkbook) -> None:
    formulas = [book.cell("Main", 2, row)["formula"] for row in range(5)]
    assert formulas == ["=SUM(A1:A3)", '=IF(A1>0,"a;b",2)', "='Data Two'!B2*2", "=$A$1+A$2",
                        "=SUM('Data Two'!A1:B3)"]
    assert [book.cell("Main", 2, row)["value"] for row in range(5)] == [6.5, "a;b", 20.0, 3.5, 10.0]
    assert book.cell("Main", 0, 0)["formula"] is None


def test_error_results(book: RawWorkbook) -> None:
    error = book.cell("Main", 2, 5)
    assert (error["type"], error["value"], error["formula"]) == ("error", "#DIV/0!", "=1/0")
    hashed = book.cell("Main", 2, 6)  # LibreOffice's calcext:value-type says text, not error
    assert (hashed["type"], hashed["value"]) == ("text", "#not an error")


def test_bold_and_background(book: RawWorkbook) -> None:
    assert [book.cell("Main", 4, row)["bold"] for row in range(3)] == [True, False, True]
    assert [book.cell("Main", 4, row)["background"] for row in range(3)] == [None, "#FFFF00", "#00FF00"]
    assert book.cell("Main", 1, 0)["bold"] is False
    assert book.cell("Main", 9, 40)["bold"] is True  # from the column's default cell style
    assert book.cell("Main", 9, 500)["bold"] is True
    assert book.cell("Main", 8, 40)["bold"] is False


def test_number_formats(book: RawWorkbook) -> None:
    formats = [book.cell("Main", 3, row)["number_format"] for row in range(5)]
    assert formats == ["0.00", "#,##0", "0%", "YYYY-MM-DD", "#,##0.00"]
    percent, date = book.cell("Main", 3, 2), book.cell("Main", 3, 3)
    assert (percent["type"], percent["value"]) == ("percent", 0.25)
    assert (date["type"], date["value"]) == ("date", "2024-01-15")
    assert book.cell("Main", 0, 0)["number_format"] is None


def test_unreconstructable_format_fails_closed(book: RawWorkbook) -> None:
    with pytest.raises(RawReadError, match="conditions or colours"):
        book.cell("Main", 3, 5)  # "#,##0.00;[RED]-#,##0.00" is stored as a style:map


def test_array_formulas_fail_closed(book: RawWorkbook) -> None:
    assert book.cell("Data Two", 1, 1)["value"] == 10.0
    for row in (0, 1):  # the origin holds the formula, the rest of the block only values
        with pytest.raises(RawReadError, match="array formula"):
            book.cell("Data Two", 2, row)


def test_unknown_sheet(book: RawWorkbook) -> None:
    with pytest.raises(RawReadError, match="Nope"):
        book.cell("Nope", 0, 0)
    with pytest.raises(RawReadError):
        book.used_size("main")


@pytest.mark.parametrize(("name", "message"), [("notes.txt", "zip"), ("text.odt", "mimetype"),
                                               ("no_content.ods", "content.xml")])
def test_non_ods_files_are_refused(ods_files: dict[str, Path], name: str, message: str) -> None:
    with pytest.raises(RawReadError, match=message):
        RawWorkbook.load(ods_files[name])


def test_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(RawReadError):
        RawWorkbook.load(tmp_path / "absent.ods")


@pytest.mark.parametrize(("source", "expected"), [
    ("of:=[$Sheet2.B2]", "=Sheet2!B2"),
    ("of:=SUM([Sheet2.A1:.A3])", "=SUM(Sheet2!A1:A3)"),
    ("of:=[$'Data Two'.B2]*2", "='Data Two'!B2*2"),
    ("of:=[.$A$1]", "=$A$1"),
    ("of:=SUM([.A:.A])", "=SUM(A:A)"),
    ("of:=SUM([.$1:.$2])", "=SUM($1:$2)"),
    ("of:=[$'It''s'.C3]", "='It''s'!C3"),
    ('of:=IF([.A1]="x;""y";1;2)', '=IF(A1="x;""y",1,2)'),
    ("of:=SUM({1;2|3;4})", "=SUM({1,2;3,4})"),
])
def test_convert_formula(source: str, expected: str) -> None:
    assert convert_formula(source) == expected


@pytest.mark.parametrize("source", [
    "=SUM(A1:A3)",  # no of: namespace
    "msoxl:=A1",
    "of:=SUM([.A1:.A2]~[.B1:.B2])",  # union
    "of:=[.A1:.B2]![.B1:.C2]",  # intersection
    "of:=SUM([Sheet1.A1:Sheet2.A1])",  # 3-D range
    "of:=[.#REF!]",
    "of:=['file:///x.ods'#$Sheet1.A1]",
    "of:=[.A]",
    "of:=[.A1",
    'of:="open',
])
def test_unconvertible_formulas_fail_closed(source: str) -> None:
    with pytest.raises(RawReadError):
        convert_formula(source)


def _handmade(path: Path, table: str, styles: str = "", automatic: str = "") -> Path:
    """A minimal .ods with the given table:table body, for layouts LibreOffice itself never writes."""
    ns = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
          'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
          'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
          'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
          'xmlns:number="urn:oasis:names:tc:opendocument:xmlns:datastyle:1.0" '
          'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0"')
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        archive.writestr("content.xml", f'<office:document-content {ns}><office:automatic-styles>{automatic}'
                         f'</office:automatic-styles><office:body><office:spreadsheet>'
                         f'<table:table table:name="S">{table}</table:table>'
                         f'</office:spreadsheet></office:body></office:document-content>')
        archive.writestr("styles.xml", f"<office:document-styles {ns}><office:styles>{styles}"
                         "</office:styles></office:document-styles>")
    return path


def test_repeated_filled_rows_spans_and_style_chains(tmp_path: Path) -> None:
    styles = ('<style:style style:name="Base" style:family="table-cell">'
              '<style:text-properties fo:font-weight="700"/>'
              '<style:table-cell-properties fo:background-color="#abcdef"/></style:style>'
              '<style:style style:name="Child" style:family="table-cell" style:parent-style-name="Base"/>'
              '<number:number-style style:name="N1"><number:number number:decimal-places="3" '
              'number:min-decimal-places="1" number:min-integer-digits="1" number:grouping="true"/>'
              '</number:number-style>')
    automatic = ('<style:style style:name="ce1" style:family="table-cell" style:parent-style-name="Child" '
                 'style:data-style-name="N1"><style:table-cell-properties fo:background-color="transparent"/>'
                 '</style:style>')
    table = ('<table:table-row-group><table:table-row table:number-rows-repeated="3">'
             '<table:table-cell table:number-columns-repeated="2" office:value-type="float" office:value="7">'
             '<text:p>7</text:p></table:table-cell><table:covered-table-cell/>'
             '<table:table-cell table:style-name="ce1" office:value-type="string">'
             '<text:p>a<text:s text:c="3"/>'
             '<text:span>b<text:line-break/>c</text:span></text:p></table:table-cell>'
             '</table:table-row></table:table-row-group>'
             '<table:table-row table:number-rows-repeated="1048573"><table:table-cell '
             'table:number-columns-repeated="16384"/></table:table-row>')
    book = RawWorkbook.load(_handmade(tmp_path / "hand.ods", table, styles, automatic))
    assert book.used_size("S") == (3, 4)
    assert [book.cell("S", col, 2)["value"] for col in range(4)] == [7.0, 7.0, None, "a   b\nc"]
    styled = book.cell("S", 3, 1)
    assert (styled["bold"], styled["background"], styled["number_format"]) == (True, None, "#,##0.0##")
    assert book.cell("S", 3, 3)["type"] == "empty"


@pytest.mark.parametrize("table", [
    '<table:table-row><table:table-cell office:value-type="complex"><text:p>1</text:p>'
    '</table:table-cell></table:table-row>',
    '<table:table-row><table:table-cell office:value-type="float"/></table:table-row>',
    '<table:table-row><table:table-cell office:value-type="string"><text:p><text:date>x</text:date>'
    '</text:p></table:table-cell></table:table-row>',
    '<table:table-row><table:table-cell table:style-name="missing"/></table:table-row>',
])
def test_unknown_cell_content_fails_closed(tmp_path: Path, table: str) -> None:
    book = RawWorkbook.load(_handmade(tmp_path / "odd.ods", table))
    with pytest.raises(RawReadError):
        book.cell("S", 0, 0)
