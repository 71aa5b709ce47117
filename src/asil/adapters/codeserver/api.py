"""The requests ``api_call`` may make of code-server, in its own vocabulary.

VS Code's configuration API (``WorkspaceConfiguration.get``/``update`` with a ``ConfigurationTarget``:
``Global`` is the user's settings.json, ``Workspace`` the folder's ``.vscode/settings.json``), the
code-server CLI's extension commands, code-server's ``GET /healthz``, and the VS Code window's
editors in the extension API's terms (``window.tabGroups.all``, ``window.activeTextEditor``,
``window.showTextDocument``, ``WorkspaceEdit.renameFile``; positions 0-based as in the API). Other
workbench commands are not on the list. Writes run through the same checks (and, for files, the same
atomic commit) as the functions that make them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.api import ApiAllowlist, ApiRequest
from asil.adapters.codeserver.actions import ExtensionId, FilePath, Language, SettingKey
from asil.adapters.params import NoParams, Params

CONFIG = "WorkspaceConfiguration"
CLI = "code-server"
Target = Literal["Global", "Workspace"]
SCOPE = {"Global": "user", "Workspace": "workspace"}
Call = tuple[str, dict[str, Any]]  # a code-server function's name and its params


class Get(Params):
    section: SettingKey
    configurationTarget: Target = "Global"
    languageId: Language | None = None


class Update(Params):
    section: SettingKey
    value: Any = Field(None, description="The new value; leave it out to remove the setting (VS Code's undefined).")
    configurationTarget: Target = "Global"
    languageId: Language | None = None


class Vsix(Params):
    vsix: FilePath = Field(description="Workspace path of a .vsix file.")


class Extension(Params):
    id: ExtensionId


class ShowDocument(Params):
    path: FilePath = Field(description="Workspace path of the text file to show.")
    viewColumn: Annotated[int, Field(ge=1, le=4)] | None = None


class RenameFile(Params):
    oldUri: FilePath = Field(description="Workspace path of the file or folder.")
    newUri: FilePath = Field(description="Its new workspace path (refused when it exists: overwrite is false).")


def _update(p: Update) -> list[Call]:
    where: dict[str, Any] = {"key": p.section, "scope": SCOPE[p.configurationTarget]}
    if p.languageId is not None:
        where["language"] = p.languageId
    if "value" not in p.model_fields_set:
        return [("remove_setting", where)]
    return [("set_setting", {**where, "value": p.value})]


CODE_API: ApiAllowlist[Any] = ApiAllowlist("code-server", "requests")
CODE_API.extend([
    ApiRequest(f"{CONFIG}.get", "A setting's value in user (Global) or workspace settings, null when unset.", Get,
               reads=True),
    ApiRequest(f"{CONFIG}.update", "Set a setting (checked against its declared type), or remove it when value is "
               "left out.", Update, handler=_update),
    ApiRequest(f"{CLI} --list-extensions", "The installed extensions with versions (code-server's CLI).", NoParams,
               reads=True),
    ApiRequest(f"{CLI} --install-extension", "Install an extension from a .vsix file in the workspace.", Vsix,
               handler=lambda p: [("install_extension", {"vsix": p.vsix})]),
    ApiRequest(f"{CLI} --uninstall-extension", "Uninstall an installed extension.", Extension, destructive=True,
               handler=lambda p: [("uninstall_extension", {"id": p.id})]),
    ApiRequest("GET /healthz", "code-server's health answer (status and last heartbeat).", NoParams, reads=True),
    ApiRequest("window.tabGroups.all", "The VS Code window's editor groups and their text-editor tabs (path, isActive, "
               "isPreview, isDirty).", NoParams, reads=True),
    ApiRequest("window.activeTextEditor", "The active editor's file and selections (0-based line/character), null "
               "when none.", NoParams, reads=True),
    ApiRequest("window.showTextDocument", "Open a workspace file in an editor (in viewColumn) and focus it.",
               ShowDocument, handler=lambda p: [("open_editor", {"path": p.path, "group": p.viewColumn})]),
    ApiRequest("WorkspaceEdit.renameFile", "Rename or move a file or folder in the workspace (open editors follow).",
               RenameFile, handler=lambda p: [("rename_path", {"path": p.oldUri, "new_path": p.newUri})]),
])
