"""Functions on the VS Code window's editors, and renaming and moving workspace files and folders.

Editor functions are checked here against the file and the window's editors (one clear sentence
when something is wrong) and recorded in the plan as bridge requests; the adapter sends them to
the live window after the plan is committed. Lines and columns are 1-based, as VS Code's status
bar shows them ("Ln 3, Col 5"); the bridge speaks the API's 0-based positions.
A rename or move is done by VS Code itself (``WorkspaceEdit.renameFile``, so open editors follow
the file) when a window is open, and on disk otherwise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from pydantic import Field

from asil.adapters.codeserver.actions import FilePath
from asil.adapters.codeserver.handlers import FUNCTIONS, Context
from asil.adapters.codeserver.plan import EditorOp, Move, Plan
from asil.adapters.params import Params
from asil.protocol import InvalidAction
from asil.workspace import PRIVATE_DIR

MAX_EDITOR_BYTES = 5 * 1024 * 1024
Group = Annotated[int, Field(ge=1, le=4, description="The editor group (VS Code's view column, 1 = leftmost).")]
Line = Annotated[int, Field(ge=1, le=10_000_000)]
Column = Annotated[int, Field(ge=1, le=100_000)]


class EditorTarget(Params):
    path: FilePath
    group: Group | None = None


class Selection(Params):
    path: FilePath
    line: Line = Field(description="The cursor's line (1-based); with end_line, where the selection starts.")
    column: Column = 1
    end_line: Line | None = Field(None, description="Where the selection ends (the cursor goes there).")
    end_column: Column | None = None
    group: Group | None = None


class Rename(Params):
    path: FilePath = Field(description="The file or folder to rename or move.")
    new_path: FilePath = Field(description="Its new workspace path (missing parent folders are created).")


class MoveInto(Params):
    path: FilePath = Field(description="The file or folder to move.")
    folder: Annotated[str, Field(min_length=1, max_length=400, description="An existing workspace folder; '.' is "
                                 "the workspace's top folder.")]


def editor_id(path: str, group: int = 1) -> str:
    return f"editor:{path}" + (f"@{group}" if group != 1 else "")


def _lines(ctx: Context, relative: str) -> list[str]:
    """The lines of a workspace text file an editor can show; InvalidAction naming the problem otherwise."""
    path = ctx.workspace.resolve(relative)
    if path.is_dir():
        raise InvalidAction(f"{relative!r} is a folder; editors show files.", hint="Give a file path from the "
                            "'files' view.", code="not_a_file")
    if not path.is_file():
        raise InvalidAction(f"There is no file {relative!r} to open in an editor.",
                            hint="Give a file path from the 'files' view.", code="no_such_file")
    if path.stat().st_size > MAX_EDITOR_BYTES:
        raise InvalidAction(f"{relative!r} is larger than {MAX_EDITOR_BYTES // 2**20} MB; it is not opened here.")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InvalidAction(f"{relative!r} is not a UTF-8 text file, so VS Code would not open it in a text editor.",
                            code="not_text") from None
    return text.split("\n")


def _open(ctx: Context) -> list[dict[str, Any]]:
    return list(ctx.editors().get("editors", [])) if ctx.editors is not None else []


def _require_open(ctx: Context, p: EditorTarget) -> None:
    relative = ctx.workspace.relative(ctx.workspace.resolve(p.path))
    listed = _open(ctx)
    if not any(e["path"] == relative and p.group in (None, e["group"]) for e in listed):
        where = f" in group {p.group}" if p.group else ""
        shown = ", ".join(sorted({e["path"] for e in listed})) or "none"
        raise InvalidAction(f"{p.path!r} is not open in an editor{where}; open editors: {shown}.",
                            hint="open_editor opens a file.", code="not_open")


@FUNCTIONS.function("open_editor", EditorTarget, "Open a file in an editor of the VS Code window (as a kept tab, "
                    "focused); in another group with group.", acts_on="editors", batch=False)
def open_editor(plan: Plan, ctx: Context, p: EditorTarget) -> list[str]:
    _lines(ctx, p.path)
    relative = ctx.workspace.relative(ctx.workspace.resolve(p.path))
    plan.editor_ops.append(EditorOp("open", {"path": relative, "group": p.group}))
    return [editor_id(relative, p.group or 1)]


@FUNCTIONS.function("close_editor", EditorTarget, "Close the editor of a file (in every group, or in group).",
                    acts_on="editors", batch=False)
def close_editor(plan: Plan, ctx: Context, p: EditorTarget) -> list[str]:
    _require_open(ctx, p)
    relative = ctx.workspace.relative(ctx.workspace.resolve(p.path))
    plan.editor_ops.append(EditorOp("close", {"path": relative, "group": p.group}))
    return [editor_id(relative, p.group or 1)]


@FUNCTIONS.function("focus_editor", EditorTarget, "Make an open editor the active one.", acts_on="editors",
                    batch=False)
def focus_editor(plan: Plan, ctx: Context, p: EditorTarget) -> list[str]:
    _require_open(ctx, p)
    relative = ctx.workspace.relative(ctx.workspace.resolve(p.path))
    plan.editor_ops.append(EditorOp("focus", {"path": relative, "group": p.group}))
    return [editor_id(relative, p.group or 1)]


def _position(lines: list[str], line: int, column: int, what: str, path: str) -> list[int]:
    if line > len(lines):
        raise InvalidAction(f"{path!r} has {len(lines)} lines, so there is no line {line} for the {what}.",
                            hint=f"Lines run from 1 to {len(lines)}.", code="out_of_range")
    width = len(lines[line - 1]) + 1
    if column > width:
        raise InvalidAction(f"Line {line} of {path!r} has {width - 1} characters, so there is no column {column} "
                            f"for the {what}.", hint=f"Columns on that line run from 1 to {width}.",
                            code="out_of_range")
    return [line - 1, column - 1]


@FUNCTIONS.function("set_selection", Selection, "Put the cursor at line/column of a file's editor (opening it if "
                    "needed), or select from there to end_line/end_column.", acts_on="editors", batch=False)
def set_selection(plan: Plan, ctx: Context, p: Selection) -> list[str]:
    lines = _lines(ctx, p.path)
    if (p.end_line is None) != (p.end_column is None):
        raise InvalidAction("A selection needs both end_line and end_column (or neither, for a cursor).",
                            code="bad_selection")
    anchor = _position(lines, p.line, p.column, "cursor", p.path)
    active = anchor if p.end_line is None else _position(lines, p.end_line, p.end_column or 1, "selection end",
                                                         p.path)
    relative = ctx.workspace.relative(ctx.workspace.resolve(p.path))
    plan.editor_ops.append(EditorOp("select", {"path": relative, "group": p.group, "anchor": anchor,
                                               "active": active}))
    return [editor_id(relative, p.group or 1)]


# ---------------------------------------------------------------- renaming and moving
def _source(ctx: Context, relative: str) -> Path:
    path = ctx.workspace.resolve(relative)
    if path == ctx.workspace.root:
        raise InvalidAction("The workspace folder itself cannot be renamed or moved.",
                            hint="Give a file or folder inside it.", code="bad_target")
    if not path.exists():
        raise InvalidAction(f"There is no file or folder {relative!r} to rename or move.",
                            hint="Paths come from the 'files' view.", code="no_such_file")
    return path


def _plan_move(plan: Plan, ctx: Context, source: Path, target: Path, asked: str) -> list[str]:
    if target.exists():
        raise InvalidAction(f"{asked!r} already exists; VS Code does not overwrite it.",
                            hint="Choose a free name, or delete the existing file first.", code="exists")
    if target == source or source in target.parents:
        raise InvalidAction(f"{ctx.workspace.relative(source)!r} cannot be moved into itself.", code="bad_target")
    if any(p.exists() and not p.is_dir() for p in target.parents if ctx.workspace.root in p.parents):
        raise InvalidAction(f"{asked!r} would go inside a file.", hint="Parent folders must be folders.",
                            code="bad_target")
    old = ctx.workspace.relative(source)
    new = str(target.relative_to(ctx.workspace.root))
    if Path(new).parts[0] == PRIVATE_DIR:
        raise InvalidAction(f"The path {asked!r} is reserved for ASIL itself.", code="path_outside_workspace")
    plan.moves.append(Move(old, new))
    return [f"file:{old}", f"file:{new}"]


@FUNCTIONS.function("rename_path", Rename, "Rename or move a file or folder inside the workspace (refused when the new "
                    "path exists); open editors follow it.", acts_on="files", batch=False)
def rename_path(plan: Plan, ctx: Context, p: Rename) -> list[str]:
    source = _source(ctx, p.path)
    target = ctx.workspace.root / p.new_path.rstrip("/")
    ctx.workspace.resolve(p.new_path)  # refuses absolute paths, '..', symlinks out and ASIL's folder
    return _plan_move(plan, ctx, source, target, p.new_path)


@FUNCTIONS.function("move_path", MoveInto, "Move a file or folder into another workspace folder, keeping its name.",
                    acts_on="files", batch=False)
def move_path(plan: Plan, ctx: Context, p: MoveInto) -> list[str]:
    source = _source(ctx, p.path)
    folder = ctx.workspace.root if p.folder in (".", "./") else ctx.workspace.resolve(p.folder)
    if not folder.is_dir():
        raise InvalidAction(f"There is no folder {p.folder!r} to move into.",
                            hint="Create it first, or use rename_path with the full new path.", code="no_such_folder")
    target = folder / source.name
    return _plan_move(plan, ctx, source, target, ctx.workspace.relative(folder) + "/" + source.name
                      if folder != ctx.workspace.root else source.name)
