"""The Calc adapter: an .ods file, opened in a warm headless LibreOffice, seen as cells."""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.calc import actions as act
from asil.adapters.calc.refs import (
    MAX_COLS,
    MAX_ROWS,
    CellRange,
    cell_id,
    parse_range,
    quote_sheet,
    split_sheet,
)
from asil.adapters.lo_document import OfficeAdapter, Plan, Step, create_with_engine
from asil.adapters.odf.access import AccessPaths
from asil.adapters.odf.safety import check_package
from asil.apps.libreoffice import Office
from asil.protocol import (
    Action,
    ActionFailed,
    AppState,
    Element,
    InvalidAction,
    Metadata,
    Navigation,
    Observation,
    Paging,
)
from asil.workspace import Workspace, commit_file

ENGINE = "asil_calc"
ODS_MIMETYPE = b"application/vnd.oasis.opendocument.spreadsheet"
NULL_DATE = dt.datetime(1899, 12, 30)
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_RENDER_PIXELS = 20_000
# The two access paths of the path-restriction study (docs/path_restriction.md): "dispatch" routes engine
# requests to the script in a warm LibreOffice (computes formulas); "file" edits the ODF XML directly.
ACCESS_PATHS = {
    "dispatch": "LibreOffice (headless), engine script dispatch",
    "file": "none: the ODF package's XML is read and written directly (lxml); formulas are stored, not computed",
}


class CalcAdapter(AccessPaths, OfficeAdapter):
    """A spreadsheet: sheets are views, cells are elements with ids like ``Sheet1!B3``."""

    ENGINE = ENGINE
    KIND = "spreadsheet"
    MIMETYPE = ODS_MIMETYPE
    vocabulary = act.VOCABULARY
    functions = act.FUNCTIONS
    doomed_operation = {"op": "set_value", "target": "Sheet1!F1", "params": {"formula": "=NOSUCHFUNC(1)"}}
    FILE_ENGINE = "asil.adapters.calc.file_engine:OdfFileEngine"
    ENGINE_NAMES = ACCESS_PATHS
    FILE_PATH_TIP = "a formula's value is null ('uncomputed') until LibreOffice opens the saved file."

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 rows: int = 20, cols: int = 10, access_path: str = "dispatch", **options: Any):
        self.choose_path(access_path)
        self._cached_info: dict[str, Any] | None = None
        super().__init__(workspace, document, office=office)
        self.rows, self.cols = rows, cols
        self.row0 = self.col0 = 0
        self.view = self._info()["sheets"][0]["name"]

    def _forget(self) -> None:
        self._cached_info = None

    def _info(self) -> dict[str, Any]:
        if self._cached_info is None:
            self._cached_info = self._call("info")
        return self._cached_info

    def sheet_names(self) -> list[str]:
        return [s["name"] for s in self._info()["sheets"]]

    @property
    def dirty(self) -> bool:
        return bool(self._info()["dirty"])

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        names = self.sheet_names()
        if view is not None:
            if view not in names:
                raise InvalidAction(f"There is no sheet named {view!r}.", hint=f"Sheets: {', '.join(names)}.")
            self.view, self.row0, self.col0 = view, 0, 0
        if self.view not in names:
            self.view, self.row0, self.col0 = names[0], 0, 0
        if offset is not None:
            self.row0 = max(0, min(offset, MAX_ROWS - 1))
        rows = max(1, min(limit or self.rows, 100))
        data = self._call("observe", sheet=self.view, row=self.row0, col=self.col0, rows=rows, cols=self.cols)
        self._cached_info = {"sheets": data["sheets"], "dirty": data["dirty"]}
        return self._observation(data, rows)

    def _observation(self, data: dict[str, Any], rows: int) -> Observation:
        sheet = next(s for s in data["sheets"] if s["name"] == self.view)
        elements = [cell_element(self.view, cell) for cell in data["cells"]]
        window = str(CellRange(self.view, self.col0, self.row0,
                               min(self.col0 + self.cols, MAX_COLS) - 1, min(self.row0 + rows, MAX_ROWS) - 1))
        used = str(CellRange(self.view, 0, 0, sheet["cols"] - 1, sheet["rows"] - 1)) if sheet["rows"] else "empty"
        return Observation(
            metadata=Metadata(app="calc", source="file", step=self.step),
            app_state=AppState(view=self.view, active_document=self.path.name, document_path=self.document,
                               dirty=data["dirty"], details={"used_range": used, "window": window}),
            elements=elements,
            environment={**self.path_environment(), "formula_syntax": "Excel A1, English names"},
            navigation=Navigation(
                views=[s["name"] for s in data["sheets"]],
                paging=Paging(offset=self.row0, limit=rows, total=sheet["rows"]),
                meta={"columns": {"offset": self.col0, "limit": self.cols, "total": sheet["cols"]}},
            ),
            summary=_summary(self.view, data["sheets"], used, window, elements, sheet, self.row0 + rows),
        )

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self._plan(action, list(self.sheet_names()))

    def _apply(self, action: Action) -> list[str]:
        steps, changed = self._plan(action, list(self.sheet_names()))
        if action.action_type == "navigate":
            self._navigate(action)
            return []
        if steps == [{"op": "save"}]:
            self.save()
            return []
        self._forget()
        self._run(steps, atomic=action.action_type == "batch")
        self._follow_renames(steps)
        return changed

    def _follow_renames(self, steps: list[Step]) -> None:
        for step in steps:
            if step["op"] == "rename_sheet" and step["sheet"] == self.view:
                self.view = step["new_name"]

    def _navigate(self, action: Action) -> None:
        params = self.vocabulary.parse_navigate(action)
        target = action.target or self.view
        if target in self.sheet_names():
            self.view, self.row0, self.col0 = target, 0, 0
        else:
            where = parse_range(target, self.view)
            self.view, self.row0, self.col0 = where.sheet, where.row, where.col
        self.rows = params.rows or self.rows
        self.cols = params.cols or self.cols

    def _plan(self, action: Action, sheets: list[str]) -> Plan:
        """Check an action against the state and turn it into engine steps and changed ids."""
        self.vocabulary.require_type(action)
        kind = action.action_type
        if kind == "set_value":
            return self._plan_set_value(action, sheets)
        if kind == "invoke_function":
            function, params = self.functions.parse(action.target, action.params)
            plan: Plan = function.require_handler()(self, params, sheets)
            return plan
        if kind == "navigate":
            self._check_navigate(action, sheets)
            return [], []
        return self._plan_batch(action, lambda member: self._plan(member, sheets))

    def _plan_set_value(self, action: Action, sheets: list[str]) -> Plan:
        where = self.cell_range(action.target, sheets)
        if not where.is_cell:
            raise InvalidAction(f"set_value targets one cell, but {action.target!r} is a range.",
                                hint="Use invoke_function set_range to fill a range.")
        params = self.vocabulary.parse_set_value(action)
        given = params.model_fields_set - {"as_text"}
        if len(given) != 1:
            raise InvalidAction("set_value needs exactly one of 'value' or 'formula'.",
                                hint='e.g. {"value": 12.5} or {"formula": "=SUM(B2:B9)"}.', code="bad_params")
        value = params.value if "value" in given else params.formula
        if "formula" in given and not (isinstance(value, str) and value.startswith("=") and len(value) > 1):
            raise InvalidAction(f"The formula {value!r} must start with '='.", hint="e.g. =SUM(B2:B9).",
                                code="bad_params")
        if params.as_text and "formula" in given:
            raise InvalidAction("as_text applies to 'value', not to 'formula'.",
                                hint='e.g. {"value": "00123", "as_text": true}.', code="bad_params")
        step = {"op": "set_range", "sheet": where.sheet, "col": where.col, "row": where.row, "values": [[value]],
                "as_text": params.as_text}
        return [step], [str(where)]

    def _check_navigate(self, action: Action, sheets: list[str]) -> None:
        self.vocabulary.parse_navigate(action)
        if action.target and action.target not in sheets:
            self.cell_range(action.target, sheets)

    def cell_range(self, text: str | None, sheets: list[str]) -> CellRange:
        """The range ``text`` names (the sheet in view when it names none), on one of ``sheets``."""
        where = parse_range(text or "", self.view)
        if where.sheet not in sheets:
            raise InvalidAction(f"There is no sheet named {where.sheet!r}.", hint=f"Sheets: {', '.join(sheets)}.",
                                code="no_sheet")
        if where.size > act.MAX_RANGE_CELLS:
            raise InvalidAction(f"The range {text!r} has {where.size} cells; at most {act.MAX_RANGE_CELLS} at once.",
                                hint="Split the work into smaller ranges.")
        return where

    def sheet(self, name: str | None, sheets: list[str]) -> str:
        """``name`` (the sheet in view when None) if it is one of ``sheets``; InvalidAction (no_sheet) otherwise."""
        name = name or self.view
        if name not in sheets:
            raise InvalidAction(f"There is no sheet named {name!r}.", hint=f"Sheets: {', '.join(sheets)}.",
                                code="no_sheet")
        return name

    # ------------------------------------------------------------ persistence and life
    def export(self, relative: str, filter_name: str, sheet: str | None = None) -> Path:
        """Export a copy (e.g. filter 'Text - txt - csv (StarCalc)' for CSV) into the workspace."""
        return self._write("export", self.workspace.resolve(relative), "export", filter_name=filter_name, sheet=sheet)

    def render(self, path: Path) -> Path:
        """Write a PNG of the current sheet window (the cells ``observe`` shows), drawn by LibreOffice.

        Grid lines and row/column headers are included so the picture can be matched to cell ids.
        The printed cells are opaque on white; the thin margin is transparent, and an empty window
        renders as a blank (transparent) image.
        """
        window = self._window()
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.asil-render")
        with tempfile.TemporaryDirectory(prefix="asil-render-") as scratch:
            try:
                self._call("render", url=tmp.as_uri(), pdf_url=(Path(scratch) / "window.pdf").as_uri(),
                           sheet=window.sheet, col=window.col, row=window.row, col2=window.col2, row2=window.row2)
                check_png(tmp)
                commit_file(tmp, target)
            finally:
                tmp.unlink(missing_ok=True)
        return target

    def _window(self) -> CellRange:
        if self.view not in self.sheet_names():
            self.view, self.row0, self.col0 = self.sheet_names()[0], 0, 0
        return CellRange(self.view, self.col0, self.row0, min(self.col0 + self.cols, MAX_COLS) - 1,
                         min(self.row0 + self.rows, MAX_ROWS) - 1)

    def cells(self, sheet: str, positions: list[tuple[int, int]]) -> list[dict[str, Any]]:
        """Raw engine details for cells (value, type, formula, style), for checkpoints."""
        if sheet not in self.sheet_names():
            return []
        result: list[dict[str, Any]] = self._call("cells", sheet=sheet, positions=[list(p) for p in positions])
        return result

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str:
        create_spreadsheet(workspace.resolve("sample.ods"), [
            {"name": "Sheet1", "rows": [["Item", "Qty"], ["Pens", 3], ["Paper", 5]]},
        ])
        return "sample.ods"


# ---------------------------------------------------------------- helpers


def create_spreadsheet(path: Path, sheets: list[dict[str, Any]], office: Office | None = None) -> None:
    """Build an .ods with LibreOffice from ``[{"name", "rows", "bold_rows"}]`` (atomic)."""
    create_with_engine(ENGINE, path, office, sheets=sheets)


def check_ods(path: Path, shown: str) -> None:
    """Refuse missing, corrupted, non-spreadsheet and hostile files before LibreOffice sees them."""
    check_package(path, shown, ODS_MIMETYPE, ".ods", "spreadsheet")


def check_png(path: Path) -> None:
    """Refuse a render that is not a PNG of a plausible size (LibreOffice wrote nothing useful)."""
    head = path.read_bytes()[:24] if path.is_file() else b""
    if len(head) < 24 or head[:8] != PNG_SIGNATURE or head[12:16] != b"IHDR":
        raise ActionFailed("LibreOffice did not produce a PNG image of the sheet.", code="render_failed")
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    if not (16 <= width <= MAX_RENDER_PIXELS and 16 <= height <= MAX_RENDER_PIXELS):
        raise ActionFailed(f"LibreOffice produced a {width}x{height} image, which is not a usable size.",
                           code="render_failed")


def cell_element(sheet: str, cell: dict[str, Any]) -> Element:
    value = _agent_value(cell)
    meta: dict[str, Any] = {}
    if "formula" in cell:
        meta["formula"] = cell["formula"]
    if cell["display"] != _plain(value):
        meta["display"] = cell["display"]
    for key in ("bold", "number_format", "background"):
        if key in cell:
            meta[key] = cell[key]
    return Element(id=cell_id(sheet, cell["col"], cell["row"]), type="cell", value=value,
                   data_type=cell["type"], meta=meta)


def _agent_value(cell: dict[str, Any]) -> Any:
    value = cell["value"]
    if not isinstance(value, float):
        return value
    kind = cell["type"]
    if kind in ("date", "datetime"):
        try:
            moment = NULL_DATE + dt.timedelta(days=value)
        except (OverflowError, ValueError):  # a serial beyond Python's calendar (year 1..9999): show the number
            return value
        return moment.date().isoformat() if kind == "date" else moment.isoformat(timespec="seconds")
    if kind == "boolean":
        return bool(value)
    return int(value) if value.is_integer() and abs(value) < 2**53 else value


def _plain(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    return str(value)


def _summary(view: str, sheets: list[dict[str, Any]], used: str, window: str, elements: list[Element],
             sheet: dict[str, Any], shown_to: int) -> str:
    formulas = sum(1 for e in elements if "formula" in e.meta)
    names = ", ".join(quote_sheet(s["name"]) for s in sheets)
    text = (f"Sheet {quote_sheet(view)} ({len(sheets)} sheet{'s' if len(sheets) > 1 else ''}: {names}); used range {used}. "
            f"Window {window}: {len(elements)} non-empty cells, {formulas} formulas.")
    if sheet["rows"] > shown_to:
        text += f" {sheet['rows'] - shown_to} more rows below: navigate to {quote_sheet(view)}!A{shown_to + 1}."
    return text


def copy_document(source: Path, workspace: Workspace, relative: str) -> Path:
    target = workspace.resolve(relative)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


__all__ = ["ACCESS_PATHS", "CalcAdapter", "check_ods", "create_spreadsheet", "split_sheet"]
