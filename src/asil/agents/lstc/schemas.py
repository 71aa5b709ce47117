"""The JSON Schema of LocalLSTC's planner reply, for servers that constrain decoding (``--constrained``).

The schema mirrors the reply format the prompt asks for, shaped by the active mechanisms, so a grammar
keeps a small model inside the format (the other three calls' schemas sit beside their checks in
``control``); the semantic checks (an index in range, a step per channel) stay
in the parsers, which still run on every reply.
"""

from __future__ import annotations

from typing import Any

from asil.agents.lstc.config import LSTCConfig
from asil.agents.prompting import action_json_schema
from asil.gui.vocabulary import ACTIONS
from asil.protocol import ActionSchema

# Prose fields are bounded: a grammar then closes the string instead of letting a small model ramble (SmolLM2-135M
# wrote 300 completion tokens a planner call, most of them one "why" sentence repeated, and generation was half
# of a 15-step episode's 331 s). The bounds are characters, about a sentence each.
SENTENCE = {"type": "string", "maxLength": 160}
GUI_INPUTS = tuple(name for name in ACTIONS if name not in ("done", "infeasible"))


def _step(cfg: LSTCConfig, schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """One alternative per channel, each with what its channel needs: an api step an action, a bash step a
    non-empty command, a gui step a computer-use input (in "action"). One object with every field optional let
    a small model send a bash step without a command or an api step without an action (both recorded from
    SmolLM2-135M), and each such reply cost a repair call."""
    steps = [_channel("api", {"action": action_json_schema(schemas)}),
             _channel("bash", {"command": {"type": "string", "minLength": 1}})]
    if cfg.gui_channel:
        steps.append(_channel("gui", {"action": {"type": "object", "required": ["action"], "properties": {
            "action": {"type": "string", "enum": list(GUI_INPUTS)}}}}))
    return {"anyOf": steps}


def _channel(name: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": ["channel", *fields],
            "properties": {"channel": {"type": "string", "enum": [name]}, **fields}}


def _decision(cfg: LSTCConfig, schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """Keys in the order the prompt's reply format shows them: subgoal, the steps, then control and reason.

    A local server's grammar writes required keys in the order they are listed and optional ones after them.
    With the steps optional, SmolLM2-135M had to choose its control before it could write a step, and chose
    "infeasible" on 8 of 10 first steps; with the steps required (an empty list for a control-only decision)
    the steps come first, as in the prompt. In single-action mode the action stays optional (a control needs none).
    """
    properties: dict[str, Any] = {}
    if cfg.subgoal_labels:
        modes = ["continue", "new"] if cfg.persistent_subgoal else ["new"]
        properties["subgoal"] = {"type": "object", "required": ["mode", "text"],
                                 "properties": {"mode": {"type": "string", "enum": modes}, "text": SENTENCE}}
    if cfg.multi_action:
        properties["actions"] = {"type": "array", "items": _step(cfg, schemas), "maxItems": cfg.max_actions}
    properties.update(control={"enum": [None, "done", "infeasible"]}, reason=SENTENCE)
    required = list(properties)
    if not cfg.multi_action:
        properties["action"] = _step(cfg, schemas)
    return {"type": "object", "required": required, "properties": properties}


def planner_schema(cfg: LSTCConfig, schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """The planner reply: one decision, or 1..max_candidates candidates with the best index and a rationale."""
    decision = _decision(cfg, schemas)
    if not cfg.candidates:
        return decision
    candidate = {**decision, "required": ["why", *decision["required"]],
                 "properties": {"why": SENTENCE, **decision["properties"]}}
    return {"type": "object", "required": ["candidates", "best", "rationale"],
            "properties": {"candidates": {"type": "array", "items": candidate, "minItems": 1,
                                          "maxItems": cfg.max_candidates},
                           # an enum, not minimum/maximum: llama-cpp-python's grammar ignores an integer's bounds
                           # ("best": 10 with two candidates), but keeps a reply to listed values
                           "best": {"type": "integer", "enum": list(range(cfg.max_candidates))},
                           "rationale": SENTENCE}}

