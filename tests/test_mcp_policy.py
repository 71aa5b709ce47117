"""The served-workspace policy and the tool descriptions, checked against the real Calc schema."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from asil.adapters.calc.actions import FUNCTIONS, VOCABULARY
from asil.mcp_server.audit import AuditLog
from asil.mcp_server.describe import act_description, app_guide
from asil.mcp_server.documents import to_action
from asil.mcp_server.http import is_loopback
from asil.mcp_server.policy import Refused, ServePolicy, destructive_functions, enforce
from asil.protocol import Action, InvalidAction

SCHEMA = VOCABULARY.schema(FUNCTIONS)


def action(raw: dict[str, object]) -> Action:
    return Action.model_validate(raw)


def call(name: str, **params: object) -> dict[str, object]:
    return {"action_type": "invoke_function", "target": name, "params": params}


def test_destructive_functions_come_from_the_schema_and_are_found_inside_batches() -> None:
    assert {name for name, spec in SCHEMA.functions.items() if spec.destructive} == {
        "delete_rows", "delete_columns", "delete_sheet"}
    assert destructive_functions(action(call("delete_sheet", sheet="Notes")), SCHEMA) == ["delete_sheet"]
    assert destructive_functions(action(call("insert_rows", row=2)), SCHEMA) == []
    nested = {"action_type": "batch", "params": {"actions": [
        {"action_type": "set_value", "target": "A1", "params": {"value": 1}},
        "not even an object",
        call("delete_columns", column="B"),
        {"action_type": "batch", "params": {"actions": [call("delete_rows", row=3)]}},
    ]}}
    assert destructive_functions(action(nested), SCHEMA) == ["delete_columns", "delete_rows"]
    assert destructive_functions(action({"action_type": "batch", "params": {"actions": "junk"}}), SCHEMA) == []


def test_modify_file_operations_and_api_call_requests_are_gated_like_functions() -> None:
    from asil.plugins import adapter_class

    operations = {"action_type": "modify_file", "params": {"operations": [
        {"op": "insert_rows", "params": {"row": 2}}, "junk", {"op": "delete_sheet", "params": {"sheet": "Notes"}}]}}
    assert destructive_functions(action(operations), SCHEMA) == ["delete_sheet"]
    with pytest.raises(Refused, match="delete_sheet is a destructive function"):
        enforce(ServePolicy(), action(operations), SCHEMA)
    obs = adapter_class("obs").action_schema()
    remove = {"action_type": "api_call", "params": {"request": "RemoveScene", "data": {"sceneName": "Old"},
                                                    "destructive": True}}
    assert destructive_functions(action(remove), obs) == ["RemoveScene"]
    assert destructive_functions(action({"action_type": "api_call", "params": {"request": "GetSceneList"}}), obs) == []


def test_enforce_refuses_with_one_sentence_and_allows_what_the_flags_allow() -> None:
    with pytest.raises(Refused) as caught:
        enforce(ServePolicy(), action(call("delete_sheet", sheet="Notes")), SCHEMA)
    assert caught.value.code == "destructive_refused" and "--allow-destructive" in caught.value.message
    enforce(ServePolicy(allow_destructive=True), action(call("delete_sheet", sheet="Notes")), SCHEMA)
    with pytest.raises(Refused) as caught:
        enforce(ServePolicy(read_only=True), action({"action_type": "set_value", "target": "A1"}), SCHEMA)
    assert caught.value.code == "read_only" and "navigate" in (caught.value.hint or "")
    for kind in ("navigate", "done", "infeasible"):
        enforce(ServePolicy(read_only=True), action({"action_type": kind}), SCHEMA)


def test_actions_arrive_as_objects_strings_or_lists() -> None:
    assert to_action('{"action_type": "done"}').action_type == "done"
    batch = to_action([{"action_type": "set_value", "target": "A1", "params": {"value": 1}}])
    assert batch.action_type == "batch" and len(batch.params["actions"]) == 1
    assert to_action('[{"action_type": "done"}]').action_type == "batch"
    for bad, fragment in [("[]", "empty"), ("{oops", "not valid JSON"), (3.5, "must be a JSON object")]:
        with pytest.raises(InvalidAction) as caught:
            to_action(bad)
        assert fragment in caught.value.message


def test_tool_descriptions_carry_functions_examples_tips_and_the_policy() -> None:
    guide = app_guide(SCHEMA)
    assert "set_range(range, values, as_text?)" in guide and "delete_rows(sheet?, row, count?) [destructive]" in guide
    assert all(tip in guide for tip in SCHEMA.tips)
    assert all(json.dumps(e.model_dump(mode="json", exclude_defaults=True)) in guide for e in SCHEMA.examples)
    assert "READ-ONLY" in act_description({"calc": SCHEMA}, ServePolicy(read_only=True))
    assert "are refused" in act_description({"calc": SCHEMA}, ServePolicy())


def test_audit_log_appends_json_lines_and_never_follows_a_symlink(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / ".asil-audit.jsonl")
    log.record(client="c/1", document="a.ods", app="calc", action={"action_type": "done"}, status="ok")
    log.record(client="c/1", document="a.ods", app="calc", action="{bad", status="refused", error="bad JSON")
    assert [e["status"] for e in log.entries()] == ["ok", "refused"] and log.entries()[1]["error"] == "bad JSON"
    target = tmp_path / "elsewhere.txt"
    target.write_text("precious")
    (tmp_path / "trap").mkdir()
    (tmp_path / "trap" / ".asil-audit.jsonl").symlink_to(target)
    with pytest.raises(OSError):
        AuditLog(tmp_path / "trap" / ".asil-audit.jsonl").record(client="c", document=None, app=None, action=None,
                                                                  status="ok")
    assert target.read_text() == "precious"
    AuditLog(None).record(client="c", document=None, app=None, action=None, status="ok")  # read-only: a no-op


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.0.0.2", True), ("localhost", True), ("::1", True), ("[::1]", True),
    ("0.0.0.0", False), ("::", False), ("", False), ("192.168.1.20", False), ("10.0.0.1", False),
    ("example.com", False), ("localhost.example.com", False), ("127.0.0.1.example.com", False)])
def test_only_loopback_hosts_may_serve_without_a_token(host: str, loopback: bool) -> None:
    """``asil mcp serve --transport http`` refuses any host for which this is False unless given a token."""
    assert is_loopback(host) is loopback
