"""The requests ``api_call`` may make of code-server, in its own vocabulary.

VS Code's configuration API (``WorkspaceConfiguration.get``/``update`` with a ``ConfigurationTarget``:
``Global`` is the user's settings.json, ``Workspace`` the folder's ``.vscode/settings.json``), the
code-server CLI's extension commands, and code-server's ``GET /healthz``. Workbench commands need
a browser session ASIL does not drive, so they are not on the list. Writes run through the same
checks and the same atomic commit as the functions that make them.
"""

from __future__ import annotations

from typing import Any, Literal

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
])
