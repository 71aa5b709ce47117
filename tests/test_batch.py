"""The batch pieces every adapter shares: which members a batch holds, and how a member's failure reads."""

from __future__ import annotations

import pytest

from asil.adapters.batch import batch_member, in_batch
from asil.apps.obs import ObsRefused
from asil.protocol import InvalidAction


def test_a_members_failure_keeps_its_class_code_hint_and_extra_fields() -> None:
    refused = ObsRefused("OBS refused the request.", 601, hint="Pick another name.")
    numbered = in_batch(refused, 3, "Nothing was changed.")
    assert type(numbered) is ObsRefused and numbered.status == 601 and numbered.code == refused.code
    assert numbered.message == str(numbered) == "Batch action 3: OBS refused the request. Nothing was changed."
    assert numbered.hint == "Pick another name." and refused.message == "OBS refused the request."


@pytest.mark.parametrize(("raw", "what"), [
    ({"action_type": "invoke_function", "target": "save", "params": {}}, "save"),
    ({"action_type": "navigate", "target": "save"}, "navigate"),
    ({"action_type": "done"}, "done"),
    ({"action_type": "batch", "params": {"actions": []}}, "batch"),
    ({"action_type": "set_value", "target": "A1", "params": {"value": 1}}, "set_value"),
])
def test_a_batch_refuses_what_it_cannot_undo_naming_it(raw: dict[str, object], what: str) -> None:
    with pytest.raises(InvalidAction) as refused:
        batch_member(raw, hint="Only functions.", excluded=("save",), allowed=("invoke_function",))
    assert refused.value.message == f"A batch cannot contain {what}." and refused.value.hint == "Only functions."


def test_edits_pass() -> None:
    member = batch_member({"action_type": "set_value", "target": "A1", "params": {"value": 1}}, hint="")
    assert member.action_type == "set_value" and member.target == "A1"
