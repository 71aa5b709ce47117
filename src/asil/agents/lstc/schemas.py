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
# of a 15-step episode's 331 s). The bounds are characters, a short sentence each: at 160 a three-candidate reply
# still ran to 400-575 tokens of repeated prose (2026-12-04), 20-30 ms each at a 2,000-token context.
SENTENCE = {"type": "string", "maxLength": 100}
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
    """Either steps and no control, or a control with its reason and no steps: the two decisions the parser
    accepts. Keys in the order the prompt's reply format shows them: subgoal, the steps, then control.

    A local server's grammar writes required keys in the order they are listed, so the steps come before the
    control (with the control first, SmolLM2-135M chose "infeasible" on 8 of 10 first steps). One object with an
    optional control let the model write no step and no control ("The reply commits to no action and no
    control.": 5 of 7 repair calls in a 10-task run, each a whole extra call).
    """
    head: dict[str, Any] = {}
    if cfg.subgoal_labels:
        modes = ["continue", "new"] if cfg.persistent_subgoal else ["new"]
        head["subgoal"] = {"type": "object", "required": ["mode", "text"],
                           "properties": {"mode": {"type": "string", "enum": modes}, "text": SENTENCE}}
    step = _step(cfg, schemas)
    if cfg.multi_action:
        acts = {"actions": {"type": "array", "items": step, "minItems": 1, "maxItems": cfg.max_actions}}
        # const, not maxItems 0: llama-cpp-python's grammar reads a zero maximum as none and let steps through
        stops: dict[str, Any] = {"actions": {"const": []}}
    else:
        acts, stops = {"action": step}, {}
    act = {**head, **acts, "control": {"type": "null"}}
    stop = {**head, **stops, "control": {"type": "string", "enum": ["done", "infeasible"]}, "reason": SENTENCE}
    return {"anyOf": [{"type": "object", "required": list(act), "properties": act},
                      {"type": "object", "required": list(stop), "properties": stop}]}


def planner_schema(cfg: LSTCConfig, schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """The planner reply: one decision, or 1..max_candidates candidates with the best index and a rationale.

    One alternative per number of candidates, so "best" can only name one that was written: an enum of every
    index let SmolLM2-135M write '"best": 2' after two candidates, and the reply cost a repair call.
    """
    decision = _decision(cfg, schemas)
    if not cfg.candidates:
        return decision
    candidate = {"anyOf": [{**option, "required": ["why", *option["required"]],
                            "properties": {"why": SENTENCE, **option["properties"]}} for option in decision["anyOf"]]}
    return {"anyOf": [{"type": "object", "required": ["candidates", "best", "rationale"],
                       "properties": {"candidates": {"type": "array", "items": candidate, "minItems": count,
                                                     "maxItems": count},
                                      # an enum, not minimum/maximum: llama-cpp-python's grammar ignores an
                                      # integer's bounds ("best": 10 with two candidates)
                                      "best": {"type": "integer", "enum": list(range(count))},
                                      "rationale": SENTENCE}}
                      for count in range(1, cfg.max_candidates + 1)]}
