"""LocalLSTC's reply schemas (sent with ``--constrained``) admit every reply its parsers accept, per ablation."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.lstc.config import ABLATIONS, configure
from asil.agents.lstc.planner import parse_commitment
from asil.agents.lstc.schemas import planner_schema
from asil.llm.base import LLMReply, Message
from asil.llm.parse import DecisionParseError, extract_json
from asil.plugins import adapter_class
from tests.agents.helpers import run


class SchemaCheckingProvider:
    """Wraps the scripted provider: every reply must validate against the schema the agent sent with it."""

    def __init__(self, inner: Any):
        self.inner = inner
        self.checked: dict[str, int] = {}

    def bind(self, task: Any) -> None:
        self.inner.bind(task)

    def complete(self, messages: list[Message], kind: str, context: dict[str, Any] | None = None,
                 until: Any = None, schema: dict[str, Any] | None = None) -> LLMReply:
        reply = self.inner.complete(messages, kind, context, until=until, schema=schema)
        assert schema is not None, f"the {kind} call was sent without a reply schema"
        jsonschema.validate(extract_json(reply.text), schema)
        self.checked[kind] = self.checked.get(kind, 0) + 1
        return reply


@pytest.mark.parametrize("ablate", [None, *ABLATIONS])
def test_every_scripted_reply_fits_the_schema_sent_with_its_call(tmp_path: Path, ablate: str | None) -> None:
    agent = LSTCAgent(model="scripted", ablate=ablate)
    checking = SchemaCheckingProvider(agent.client.provider)
    agent.client.provider = checking
    result = run("calc-sheet-management", agent, tmp_path)
    assert result.success
    assert checking.checked.get("planner", 0) >= 1
    cfg = configure(ablate)
    if cfg.step_abstraction:
        assert checking.checked.get("abstraction", 0) >= 1
    if cfg.verifies:
        assert checking.checked.get("verification", 0) >= 1


def test_the_planner_schema_refuses_an_action_type_the_app_does_not_have() -> None:
    schema = planner_schema(configure(), {"calc": adapter_class("calc").action_schema()})
    good = {"candidates": [{"why": "w", "subgoal": {"mode": "new", "text": "t"},
                            "actions": [{"channel": "api", "action": {"action_type": "set_value", "target": "A1",
                                                                      "params": {"value": 1}}}],
                            "control": None, "reason": ""}], "best": 0, "rationale": "r"}
    jsonschema.validate(good, schema)
    bad = {**good, "candidates": [{**good["candidates"][0],
                                   "actions": [{"channel": "api", "action": {"action_type": "paint"}}]}]}
    with pytest.raises(jsonschema.ValidationError, match="paint"):
        jsonschema.validate(bad, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**good, "best": 3}, schema)  # at most three candidates: index 0..2


def test_the_grammar_a_local_server_builds_keeps_best_to_a_written_candidate() -> None:
    # recorded from SmolLM2-135M on llama-cpp-python 0.3.36: with "best" as an integer with minimum/maximum the
    # grammar let through '"best":10' for two candidates (2026-12-03), and with one enum of every index
    # '"best": 2' after two candidates (2026-12-04); each such reply cost a repair call
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar")
    schema = planner_schema(configure(), {"calc": adapter_class("calc").action_schema()})
    rules = dict(line.split(" ::= ", 1) for line in llama_grammar.json_schema_to_gbnf(json.dumps(schema)).splitlines()
                 if " ::= " in line)
    assert [rules[f"alternative-{k}-best"] for k in range(3)] == ['"0"', '"0" | "1"', '"0" | "1" | "2"']
    # a control-only decision's steps are the literal empty list (a zero maxItems is read as no maximum)
    assert rules["alternative-0-candidates-item-1-actions"] == '"[]"'


def _reply(*candidates: dict[str, Any], best: int = 0) -> dict[str, Any]:
    return {"candidates": [{"why": "w", "subgoal": {"mode": "new", "text": "t"}, **c} for c in candidates],
            "best": best, "rationale": "r"}


ACT = {"actions": [{"channel": "bash", "command": "ls"}], "control": None}
STOP = {"actions": [], "control": "done", "reason": "the total is in B7"}


@pytest.mark.parametrize("ablate", [None, "no-candidates", "no-multi-action"])
def test_the_planner_schema_refuses_a_decision_with_no_step_and_no_control(ablate: str | None) -> None:
    # recorded from SmolLM2-135M (2026-12-04): '"actions":[],"control":null' -- "The reply commits to no action
    # and no control." -- was 5 of 7 repair calls in a 10-task run
    cfg = configure(ablate)
    schema = planner_schema(cfg, {"calc": adapter_class("calc").action_schema()})
    if cfg.multi_action:
        act, stop, empty = ACT, STOP, {"actions": [], "control": None}
        both = {**ACT, "control": "done", "reason": "r"}
    else:
        act = {"action": ACT["actions"][0], "control": None}  # type: ignore[index]
        stop, empty = {"control": "done", "reason": "r"}, {"control": None}
        both = {**act, "control": "done", "reason": "r"}

    def wrap(decision: dict[str, Any]) -> dict[str, Any]:
        return _reply(decision) if cfg.candidates else {"subgoal": {"mode": "new", "text": "t"}, **decision}

    for good in (act, stop):
        jsonschema.validate(wrap(good), schema)
        parse_commitment(wrap(good), cfg)
    for bad in (empty, {**stop, "reason": None}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrap(bad), schema)
    if cfg.multi_action:  # steps and a stop together: the schema keeps them apart, as the parser does (it
        # used to drop the steps silently)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrap(both), schema)
        with pytest.raises(DecisionParseError, match="has no steps; this one has 1"):
            parse_commitment(wrap(both), cfg)


def test_the_planner_schema_keeps_best_to_the_candidates_written() -> None:
    schema = planner_schema(configure(), {"calc": adapter_class("calc").action_schema()})
    jsonschema.validate(_reply(ACT, STOP, best=1), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_reply(ACT, STOP, best=2), schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(_reply(ACT, ACT, ACT, ACT), schema)  # at most three candidates


@pytest.mark.parametrize("step", [{"channel": "bash"}, {"channel": "bash", "command": ""}, {"channel": "api"},
                                  {"channel": "api", "command": "ls"}])
def test_the_planner_schema_refuses_a_step_without_what_its_channel_needs(step: dict[str, Any]) -> None:
    # recorded from SmolLM2-135M under the old one-object step schema: "A bash step needs a non-empty 'command'",
    # "An api step's action is malformed at 'action'", each a parse error and a repair call
    schema = planner_schema(configure(), {"calc": adapter_class("calc").action_schema()})
    reply = {"candidates": [{"why": "w", "subgoal": {"mode": "new", "text": "t"}, "actions": [step],
                             "control": None, "reason": ""}], "best": 0, "rationale": "r"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(reply, schema)
    jsonschema.validate({**reply, "candidates": [{**reply["candidates"][0], "actions": [
        {"channel": "bash", "command": "ls"}, {"channel": "api", "action": {"action_type": "done"}}]}]}, schema)
