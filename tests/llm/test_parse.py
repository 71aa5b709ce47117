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
    ('{"a": 1,}', "Expecting property name"),
    ("<think>only thinking {\"a\": 1}</think>", "no JSON object found"),
    ("[1, 2, 3]", "no JSON object found"),
])
def test_unusable_replies_say_why(text: str, fragment: str) -> None:
    with pytest.raises(DecisionParseError) as caught:
        extract_json(text)
    assert fragment in caught.value.message
