"""The D-Bus methods ``api_call`` may call on Nautilus, with their arguments as the interfaces name them.

``org.gnome.Nautilus.FileOperations2`` (copy, move, rename, trash, create a folder, empty the trash),
``org.freedesktop.FileManager1`` (show folders and items, the open windows' locations), and the GTK
interfaces Nautilus exports for its application and windows: ``org.gtk.Application.Open`` (a new window at a
folder) and ``org.gtk.Actions.Activate`` of a window's ``back``, ``forward``, ``up`` and ``open-location``. URIs are
``file://`` URIs inside the workspace (a workspace-relative path is taken too). Each call runs through
the same check and the same Nautilus job as the function that makes that call, so it is confined to the
workspace, waits until the job is done, and is undone if it fails.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.api import ApiAllowlist, ApiRequest
from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.actions import FileName
from asil.adapters.params import NoParams, Params
from asil.protocol import InvalidAction

FILE_OPS = "org.gnome.Nautilus.FileOperations2"
FILE_MANAGER = "org.freedesktop.FileManager1"
GTK_APPLICATION = "org.gtk.Application"
GTK_ACTIONS = "org.gtk.Actions"
Uri = Annotated[str, Field(min_length=1, max_length=4096, description="A file:// URI inside the workspace.")]
Uris = Annotated[list[Uri], Field(min_length=1, max_length=200)]
Call = tuple[str, dict[str, Any]]  # a Nautilus function's name and its params


class Transfer(Params):
    sources: Uris
    destination: Uri


class RenameUri(Params):
    uri: Uri
    new_name: FileName


class UriList(Params):
    uris: Uris


class NewFolder(Params):
    parent_uri: Uri
    new_folder_name: FileName


class OpenUris(Params):
    uris: Uris
    hint: Literal["new-window"] = Field("new-window", description="Nautilus opens each URI in a new window.")


class WindowAction(Params):
    window: int = Field(ge=1, description="The window's number: /org/gnome/Nautilus/window/N (element 'window:N').")
    action_name: Literal["back", "forward", "up", "open-location"]
    parameter: list[Uri] = Field(default_factory=list, max_length=1,
                                 description="open-location takes one folder URI; the others take none.")


def _window_action(root: Path, p: WindowAction) -> list[Call]:
    if (p.action_name == "open-location") != bool(p.parameter):
        raise InvalidAction(f"The window action {p.action_name!r} takes "
                            f"{'one folder URI' if p.action_name == 'open-location' else 'no parameter'}.",
                            hint='e.g. {"window": 1, "action_name": "open-location", "parameter": ["docs"]}')
    if p.action_name == "open-location":
        return [("go_to", {"window": p.window, "path": local(root, p.parameter[0])})]
    function = {"back": "go_back", "forward": "go_forward", "up": "go_up"}[p.action_name]
    return [(function, {"window": p.window})]


def local(root: Path, uri: str) -> str:
    """The workspace-relative path a URI (or a relative path) names; InvalidAction outside the workspace."""
    path = st.uri_path(uri) if "://" in uri else root / uri
    if path is None:
        raise InvalidAction(f"{uri!r} is not a file:// URI.", hint="Nautilus's api_call reaches workspace files only.")
    relative = os.path.relpath(os.path.normpath(path), root)
    if relative == ".." or relative.startswith("../") or os.path.isabs(relative):
        raise InvalidAction(f"{uri!r} is outside the workspace.", hint=f"Use URIs under {st.file_uri(root)}.")
    return relative


def _transfer(function: str) -> Any:
    return lambda root, p: [(function, {"sources": [local(root, u) for u in p.sources],
                                        "destination": local(root, p.destination)})]


def _inside(folder: str, name: str) -> str:
    return name if folder == "." else f"{folder}/{name}"


NAUTILUS_API: ApiAllowlist[Any] = ApiAllowlist("Nautilus", "D-Bus methods")
NAUTILUS_API.extend([
    ApiRequest(f"{FILE_MANAGER}.OpenWindowsWithLocations", "The locations Nautilus's windows show (a property).",
               NoParams, reads=True),
    ApiRequest(f"{FILE_OPS}.CopyURIs", "Copy files/folders into a folder.", Transfer, handler=_transfer("copy")),
    ApiRequest(f"{FILE_OPS}.MoveURIs", "Move files/folders into a folder.", Transfer, handler=_transfer("move")),
    ApiRequest(f"{FILE_OPS}.RenameURI", "Rename a file or folder in place.", RenameUri,
               handler=lambda root, p: [("rename", {"path": local(root, p.uri), "new_name": p.new_name})]),
    ApiRequest(f"{FILE_OPS}.TrashURIs", "Move files/folders to the trash.", UriList,
               handler=lambda root, p: [("trash", {"paths": [local(root, u) for u in p.uris]})]),
    ApiRequest(f"{FILE_OPS}.CreateFolder", "Create a folder in a folder.", NewFolder,
               handler=lambda root, p: [("create_folder", {"path": _inside(local(root, p.parent_uri),
                                                                               p.new_folder_name)})]),
    ApiRequest(f"{FILE_OPS}.EmptyTrash", "Delete everything in the trash for good (without asking).", NoParams,
               destructive=True, handler=lambda root, p: [("empty_trash", {})]),
    ApiRequest(f"{FILE_MANAGER}.ShowFolders", "Open each folder in a Nautilus window.", UriList,
               handler=lambda root, p: [("show_folder", {"path": local(root, u)}) for u in p.uris]),
    ApiRequest(f"{FILE_MANAGER}.ShowItems", "Open windows showing these items selected in their folders.", UriList,
               handler=lambda root, p: [("show_items", {"paths": [local(root, u) for u in p.uris]})]),
    ApiRequest(f"{GTK_APPLICATION}.Open", "Open each folder in a new Nautilus window.", OpenUris,
               handler=lambda root, p: [("open_window", {"path": local(root, u)}) for u in p.uris]),
    ApiRequest(f"{GTK_ACTIONS}.Activate", "Activate a window's back, forward, up or open-location action.",
               WindowAction, handler=_window_action),
])
