import json
from pathlib import Path

import pytest

from asil.contracts import render
from asil.protocol import Action, AppState, Element, InvalidAction, Metadata, Observation, parse_action

SCHEMAS = Path(__file__).resolve().parent.parent / "schemas"


def test_committed_schemas_match_the_models() -> None:
    for name, text in render().items():
        committed = SCHEMAS / name
        assert committed.is_file(), f"{name} is missing; run: python -m asil.contracts"
        assert committed.read_text(encoding="utf-8") == text, f"{name} drifted; run: python -m asil.contracts"
    assert sorted(p.name for p in SCHEMAS.glob("*.json")) == sorted(render())


def test_parse_action_accepts_json_text_and_dicts() -> None:
    action = parse_action('{"action_type": "set_value", "target": "Sheet1!A1", "params": {"value": 3}}')
    assert action == Action(action_type="set_value", target="Sheet1!A1", params={"value": 3})
    assert parse_action({"action_type": "done"}).is_control


@pytest.mark.parametrize(("raw", "fragment"), [
    ('{"action_type": "set_value",', "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"action_type": "explode"}', "Unknown action_type 'explode'"),
    ('{"action_type": "set_value", "colour": 1}', "Unknown field 'colour'"),
    ('{"action_type": "set_value", "params": 5}', "Bad field 'params'"),
])
def test_bad_actions_get_one_clear_sentence(raw: str, fragment: str) -> None:
    with pytest.raises(InvalidAction) as caught:
        parse_action(raw)
    assert fragment in caught.value.message
    assert caught.value.message.count(". ") == 0  # one sentence
    assert caught.value.hint


def test_agent_form_drops_element_defaults_but_keeps_six_fields() -> None:
    obs = Observation(metadata=Metadata(app="calc", source="file"), app_state=AppState(view="Sheet1"),
                      elements=[Element(id="Sheet1!A1", type="cell", value=1)], summary="one cell")
    data = obs.to_agent_dict()
    assert set(data) == {"metadata", "app_state", "elements", "environment", "navigation", "summary"}
    assert data["elements"] == [{"id": "Sheet1!A1", "type": "cell", "value": 1}]
    assert json.loads(json.dumps(data)) == data
