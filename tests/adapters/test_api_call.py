"""api_call of the service apps: the allowlist the schema publishes and the refusals (one sentence each).

Running allowed requests against the real programs is covered by the conformance check (every published
api_call example runs there, and a request the program refuses leaves its state as it was) and by the
api tasks in the core suites.
"""

from __future__ import annotations

from typing import Any

import pytest

from asil.adapters.codeserver.api import CODE_API
from asil.adapters.nautilus.api import NAUTILUS_API, local
from asil.adapters.obs.api import OBS_API
from asil.adapters.thunderbird.api import MAIL_API
from asil.plugins import adapter_class
from asil.protocol import Action, InvalidAction

SERVICES = {"obs": OBS_API, "thunderbird": MAIL_API, "nautilus": NAUTILUS_API, "codeserver": CODE_API}


def call(request: str, data: dict[str, Any] | None = None, **extra: Any) -> Action:
    return Action(action_type="api_call", target=request, params={"request": request, "data": data or {}, **extra})


@pytest.mark.parametrize("app", [*SERVICES, "gitea"])
def test_the_schema_publishes_the_allowlist_with_destructive_requests_marked(app: str) -> None:
    schema = adapter_class(app).action_schema()
    assert "api_call" in schema.action_types and schema.api_call_params
    assert any(spec.destructive for spec in schema.api_calls.values())
    assert any(e.action_type == "api_call" for e in schema.examples)
    if app in SERVICES:
        assert list(schema.api_calls) == list(SERVICES[app].requests)


@pytest.mark.parametrize("app", SERVICES)
def test_a_request_outside_the_allowlist_gets_one_sentence_saying_what_is_allowed(app: str) -> None:
    allowlist = SERVICES[app]
    with pytest.raises(InvalidAction) as caught:
        allowlist.check(call("Shutdown"))
    message = caught.value.message
    assert message.startswith("'Shutdown' is not allowed: ") and message.count(". ") == 0
    assert all(name in message for name in allowlist.requests)


@pytest.mark.parametrize(("allowlist", "action", "fragment"), [
    (OBS_API, call("RemoveScene", {"sceneName": "Old"}), 'RemoveScene is destructive (it cannot be undone), so api_call'),
    (OBS_API, call("SetInputMute", {"inputName": "Mic"}), "SetInputMute needs the parameter 'inputMuted'."),
    (OBS_API, call("SetInputMute", {"inputName": "Mic", "inputMuted": True, "extra": 1}), "does not take the parameter 'extra'"),
    (MAIL_API, call("delete", {"ids": ["INBOX#1"]}), "delete is destructive"),
    (MAIL_API, call("flags", {"ids": ["INBOX#1"]}), "give read and/or flagged"),
    (NAUTILUS_API, call("org.gnome.Nautilus.FileOperations2.EmptyTrash"), "EmptyTrash is destructive"),
    (CODE_API, call("code-server --uninstall-extension", {"id": "a.b"}), "--uninstall-extension is destructive"),
    (CODE_API, call("WorkspaceConfiguration.update", {"section": "editor.tabSize", "configurationTarget": "Folder"}),
     "configurationTarget"),
    (OBS_API, Action(action_type="api_call", target="GetVersion", params={"request": "GetSceneList"}),
     "differs from its request"),
])
def test_refusals_name_what_was_wrong(allowlist: Any, action: Action, fragment: str) -> None:
    with pytest.raises(InvalidAction) as caught:
        allowlist.check(action)
    assert fragment in caught.value.message, caught.value.message


def test_destructive_requests_run_with_consent() -> None:
    request, data = OBS_API.check(call("RemoveScene", {"sceneName": "Old"}, destructive=True))
    assert request.destructive and data.sceneName == "Old"


def test_nautilus_uris_stay_inside_the_workspace(tmp_path: Any) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    assert local(root, (root / "a b" / "c.txt").as_uri()) == "a b/c.txt"
    assert local(root, "notes/x.txt") == "notes/x.txt"
    for outside in ("file:///etc/passwd", "../x", (tmp_path / "other").as_uri()):
        with pytest.raises(InvalidAction, match="is outside the workspace"):
            local(root, outside)
    with pytest.raises(InvalidAction, match="is not a file:// URI"):
        local(root, "smb://server/share")


def test_nautilus_requests_become_the_functions_that_make_the_same_calls(tmp_path: Any) -> None:
    request, data = NAUTILUS_API.check(call("org.gnome.Nautilus.FileOperations2.CreateFolder",
                                            {"parent_uri": "docs", "new_folder_name": "2026"}))
    assert request.require_handler()(tmp_path, data) == [("create_folder", {"path": "docs/2026"})]


def test_vs_code_configuration_update_without_a_value_removes_the_setting() -> None:
    request, data = CODE_API.check(call("WorkspaceConfiguration.update", {"section": "editor.tabSize"}))
    assert request.require_handler()(data) == [("remove_setting", {"key": "editor.tabSize", "scope": "user"})]
    request, data = CODE_API.check(call("WorkspaceConfiguration.update", {"section": "editor.tabSize", "value": 2,
                                                                         "configurationTarget": "Workspace"}))
    assert request.require_handler()(data) == [("set_setting", {"key": "editor.tabSize", "scope": "workspace",
                                                                 "value": 2})]
