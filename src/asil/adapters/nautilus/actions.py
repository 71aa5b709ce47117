"""The Nautilus action vocabulary: parameter models, examples and tips (the functions are declared
with their operations, in ``operations``)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, model_validator

from asil.adapters.functions import Vocabulary
from asil.adapters.params import Params

MAX_BATCH = 50
MAX_PATHS = 100
MAX_LIMIT = 200
RelPath = Annotated[str, Field(min_length=1, max_length=1024, pattern=r"^[^\x00]+$",
                               description="A path relative to the workspace root ('.' is the root).")]
Paths = Annotated[list[RelPath], Field(min_length=1, max_length=MAX_PATHS)]
FileName = Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[^/\x00]+$")]
Mode = Annotated[str, Field(pattern=r"^0?[0-7]{3}$", description="Octal permissions, e.g. '0644' or '755'.")]
Label = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\r\n\x00]+$")]
ArchivePath = Annotated[str, Field(min_length=1, max_length=1024, pattern=r"(?i)\.(zip|tar|tar\.gz|tgz)$",
                                   description="Workspace-relative archive path ending .zip, .tar, .tar.gz or .tgz.")]


class CreateFile(Params):
    path: RelPath
    content: Annotated[str, Field(max_length=1_000_000)] = ""
    mode: Mode | None = None


class PathOnly(Params):
    path: RelPath


class Transfer(Params):
    sources: Paths
    destination: RelPath = Field(description="An existing folder ('.' for the workspace root).")


class Rename(Params):
    path: RelPath
    new_name: FileName


class PathList(Params):
    paths: Paths


class Restore(Params):
    path: RelPath | None = Field(None, description="The original path of a trashed item (its newest one).")
    item: FileName | None = Field(None, description="A trash item id without 'trash:' (see the trash elements).")

    @model_validator(mode="after")
    def _one_of(self) -> Restore:
        if (self.path is None) == (self.item is None):
            raise ValueError("give exactly one of path (the original path) or item (the trash item)")
        return self


class Compress(Params):
    paths: Paths
    archive: ArchivePath


class Extract(Params):
    archive: ArchivePath
    destination: RelPath = Field(description="A folder to extract into; created when missing.")


class SetPermissions(Params):
    path: RelPath
    mode: Mode


class BookmarkFolder(Params):
    path: RelPath = Field(description="A folder to bookmark ('.' for the workspace root).")
    label: Label | None = None


class Navigate(Params):
    folder: RelPath | None = Field(None, description="Show the tree under this folder ('.' for all).")
    offset: Annotated[int, Field(ge=0)] | None = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] | None = None


VOCABULARY = Vocabulary(
    app="nautilus",
    action_types=("invoke_function", "navigate", "batch", "done", "infeasible"),
    target_format="invoke_function: a function name (paths go in params); navigate: none",
    navigate_params=Navigate,
    batch_members=("invoke_function",),
    batch_hint="Put only invoke_function actions in a batch.",
    max_batch=MAX_BATCH,
    examples=[
        {"action_type": "invoke_function", "target": "create_folder", "params": {"path": "archive"}},
        {"action_type": "invoke_function", "target": "create_file",
         "params": {"path": "docs/todo.txt", "content": "buy milk\n", "mode": "0644"}},
        {"action_type": "invoke_function", "target": "copy", "params": {"sources": ["notes.txt"], "destination": "archive"}},
        {"action_type": "invoke_function", "target": "rename", "params": {"path": "archive/notes.txt",
                                                                           "new_name": "notes-old.txt"}},
        {"action_type": "invoke_function", "target": "move", "params": {"sources": ["docs/todo.txt"],
                                                                         "destination": "archive"}},
        {"action_type": "invoke_function", "target": "set_permissions", "params": {"path": "archive/todo.txt",
                                                                                    "mode": "0600"}},
        {"action_type": "invoke_function", "target": "trash", "params": {"paths": ["notes.txt"]}},
        {"action_type": "invoke_function", "target": "restore", "params": {"path": "notes.txt"}},
        {"action_type": "invoke_function", "target": "compress", "params": {"paths": ["docs"], "archive": "docs.zip"}},
        {"action_type": "invoke_function", "target": "extract", "params": {"archive": "docs.zip", "destination": "unpacked"}},
        {"action_type": "invoke_function", "target": "delete_permanently", "params": {"paths": ["unpacked"]}},
        {"action_type": "invoke_function", "target": "bookmark", "params": {"path": "archive", "label": "Archive"}},
        {"action_type": "invoke_function", "target": "show_folder", "params": {"path": "archive"}},
        {"action_type": "invoke_function", "target": "show_items", "params": {"paths": ["archive/todo.txt"]}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "create_folder", "params": {"path": "reports"}},
            {"action_type": "invoke_function", "target": "create_file", "params": {"path": "reports/q1.txt",
                                                                                   "content": "Q1\n"}},
            {"action_type": "invoke_function", "target": "trash", "params": {"paths": ["docs.zip"]}}]}},
        {"action_type": "invoke_function", "target": "empty_trash", "params": {}},
        {"action_type": "navigate", "params": {"folder": "archive", "offset": 0, "limit": 50}},
        {"action_type": "invoke_function", "target": "open_window", "params": {"path": "docs"}},
        {"action_type": "invoke_function", "target": "go_to", "params": {"window": 1, "path": "docs"}},
        {"action_type": "invoke_function", "target": "go_back", "params": {"window": 1}},
        {"action_type": "invoke_function", "target": "select_items",
         "params": {"window": 1, "paths": ["archive/todo.txt"]}},
    ],
    tips=[
        "Every path is relative to the workspace root ('.' is the root itself); '..', absolute paths and symlinks "
        "leading out are refused. Elements are the tree's entries (id = path), trash items (id 'trash:<name>', "
        "value = original path) and bookmarks (id 'bookmark:<path>').",
        "copy and move put the sources INTO destination under their own names; to copy under a new name, copy "
        "then rename. Nothing is ever overwritten: a name already taken is refused.",
        "trash is undoable with restore (by original path or trash item); delete_permanently and empty_trash "
        "are destructive and cannot be undone.",
        "Modes are octal strings such as '0644' (rw-r--r--) or '0755'; a folder must keep its owner's rwx bits.",
        "A batch is atomic: if one action fails, every path it touched (and the trash and bookmarks) is put back.",
        "The tree is shown a page at a time, depth first: navigate with params.folder/offset/limit "
        "(limit at most 200).",
        "Nautilus's windows are elements 'window:N': value = the folder shown; meta.can_go_back/can_go_forward as "
        "Nautilus reports them, meta.back (oldest first) and meta.forward (nearest first) as navigated through these "
        "functions, meta.selection (paths). open_window opens one; go_to, go_back, go_forward and go_up move it; "
        "select_items, select_all and clear_selection change what is selected in it. Give params.window (the N) "
        "when several windows are open. Window functions cannot be part of a batch. 'navigate' only pages the "
        "tree shown here; it does not move a Nautilus window.",
    ],
)
