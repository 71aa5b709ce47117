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
from asil.protocol import ActionSchema

STRING = {"type": "string"}


def _step(schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """An api step carries an action, a bash step a command; the parser tells them apart by channel."""
    return {"type": "object", "required": ["channel"],
            "properties": {"channel": {"type": "string", "enum": ["api", "bash"]},
                           "action": action_json_schema(schemas), "command": STRING}}


def _decision(cfg: LSTCConfig, schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    # The steps may be left out when the decision is a control ("done"/"infeasible"); the rest is always there.
    properties: dict[str, Any] = {"control": {"enum": [None, "done", "infeasible"]}, "reason": STRING}
    required = ["control", "reason"]
    if cfg.subgoal_labels:
        modes = ["continue", "new"] if cfg.persistent_subgoal else ["new"]
        properties["subgoal"] = {"type": "object", "required": ["mode", "text"],
                                 "properties": {"mode": {"type": "string", "enum": modes}, "text": STRING}}
        required.insert(0, "subgoal")
    if cfg.multi_action:
        properties["actions"] = {"type": "array", "items": _step(schemas), "maxItems": cfg.max_actions}
    else:
        properties["action"] = _step(schemas)
    return {"type": "object", "required": required, "properties": properties}


def planner_schema(cfg: LSTCConfig, schemas: dict[str, ActionSchema]) -> dict[str, Any]:
    """The planner reply: one decision, or 1..max_candidates candidates with the best index and a rationale."""
    decision = _decision(cfg, schemas)
    if not cfg.candidates:
        return decision
    candidate = {**decision, "required": ["why", *decision["required"]],
                 "properties": {"why": STRING, **decision["properties"]}}
    return {"type": "object", "required": ["candidates", "best", "rationale"],
            "properties": {"candidates": {"type": "array", "items": candidate, "minItems": 1,
                                          "maxItems": cfg.max_candidates},
                           "best": {"type": "integer", "minimum": 0, "maximum": cfg.max_candidates - 1},
                           "rationale": STRING}}

