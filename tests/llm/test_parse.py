import pytest

from asil.llm.parse import DecisionParseError, extract_json


@pytest.mark.parametrize(("text", "expected"), [
    ('{"a": 1}', {"a": 1}),
    ('<think>I should try {"a": 0} first</think>\n{"a": 1}', {"a": 1}),
    ('Let me think...\n</think>\n```json\n{"a": {"b": "}"}}\n```\nThat is my answer.', {"a": {"b": "}"}}),
    ('Here is the plan:\n{"a": 1, "s": "quote \\" and brace {"}\nHope this helps!', {"a": 1, "s": 'quote " and brace {'}),
    ('First draft {"a": 1} then final {"a": 2}', {"a": 2}),
    ('```\n{"a": [1, 2]}\n```', {"a": [1, 2]}),
    ('<reasoning>{"x": 1}</reasoning>{"y": 2} trailing prose', {"y": 2}),
])
def test_the_decision_is_found(text: str, expected: dict) -> None:
    assert extract_json(text) == expected


@pytest.mark.parametrize(("text", "fragment"), [
    ("no json here", "no JSON object found"),
    ('{"thought": "x"\n "action": {}}', "Expecting ',' delimiter at line 2 column 2"),
    ("<think>only thinking {\"a\": 1}</think>", "no JSON object found"),
    ("[1, 2, 3]", "no JSON object found"),
])
def test_unusable_replies_say_why(text: str, fragment: str) -> None:
    with pytest.raises(DecisionParseError) as caught:
        extract_json(text)
    assert fragment in caught.value.message


# Hand-written reply texts (not recorded from a model): the shapes small models are known to produce.
@pytest.mark.parametrize(("text", "expected"), [
    ('Sure! Here is my answer: {"action": {"action_type": "done"}} Let me know if you need more.',
     {"action": {"action_type": "done"}}),
    ('I will set the cell.\n```json\n{"thought": "set it", "action": {"action_type": "set_value"}}\n```\nDone.',
     {"thought": "set it", "action": {"action_type": "set_value"}}),
    ('{"action": {"action_type": "navigate", "target": "A1",},}', {"action": {"action_type": "navigate", "target": "A1"}}),
    ('{"steps": [1, 2, 3,]}', {"steps": [1, 2, 3]}),
    ("{'thought': 'it\\'s row 2', 'action': {'action_type': 'done'}}",
     {"thought": "it's row 2", "action": {"action_type": "done"}}),
    ('{"thought": "say \'hi\'", \'action\': {"action_type": "done"}}',
     {"thought": "say 'hi'", "action": {"action_type": "done"}}),
    ('{"evidence": "first line\nsecond line", "state": "advance"}',  # a raw newline inside a string
     {"evidence": "first line\nsecond line", "state": "advance"}),
    ('Option A: {"a": 1}\nOption B: {"b": 2}\nFinal: {"c": 3}', {"c": 3}),
    ('{"c": 3} and a broken afterthought {"d": ', {"c": 3}),
])
def test_hand_written_prose_fences_commas_and_quotes_are_read(text: str, expected: dict) -> None:
    assert extract_json(text) == expected

