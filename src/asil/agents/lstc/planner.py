"""Long-to-Short planning: one call compares candidates and commits to an ordered action list."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from asil.agents.lstc.config import LSTCConfig
from asil.agents.lstc.state import ControlState
from asil.agents.prompting import image_part, render
from asil.gui.vocabulary import ACTIONS as GUI_ACTIONS
from asil.gui.vocabulary import gui_action
from asil.llm.base import Message
from asil.llm.parse import DecisionParseError
from asil.protocol import Action, bash_action

PROMPTS = "asil.agents.lstc"
CONTROLS = (None, "done", "infeasible")


@dataclass
class Commitment:
    """The planner's decision for this step: the chosen proposal, and every proposal it was chosen from."""

    subgoal_mode: str
    subgoal_text: str
    steps: list[tuple[str, Action]] = field(default_factory=list)  # (channel, action), in order
    control: str | None = None
    reason: str = ""
    why: str = ""
    candidates: list[Commitment | str] = field(default_factory=list)  # empty when candidate proposals are ablated;
    # a candidate that was not chosen and does not parse stays in the list as its error message
    best: int | None = None
    rationale: str = ""

    def record(self) -> dict[str, Any]:
        """The trace's view of this decision: each candidate as data, the best index and the rationale."""
        record: dict[str, Any] = {"chosen": self._proposal()}
        if self.best is not None:
            record.update(candidates=[c._proposal() if isinstance(c, Commitment) else {"invalid": c}
                                      for c in self.candidates], best=self.best,
                          rationale=self.rationale)
        return record

    def _proposal(self) -> dict[str, Any]:
        proposal: dict[str, Any] = {"subgoal": {"mode": self.subgoal_mode, "text": self.subgoal_text},
                                    "steps": [{"channel": channel, "action": action.model_dump(mode="json",
                                                                                                exclude_defaults=True)}
                                              for channel, action in self.steps],
                                    "control": self.control, "reason": self.reason}
        if self.why:
            proposal["why"] = self.why
        return proposal


def _decision_example(cfg: LSTCConfig) -> tuple[dict[str, Any], list[str]]:
    """One decision's JSON (a candidate's, when candidates are on) and the notes that explain it."""
    example: dict[str, Any] = {}
    notes = []
    if cfg.subgoal_labels:
        modes = '"continue" | "new"' if cfg.persistent_subgoal else '"new"'
        example["subgoal"] = {"mode": modes, "text": "<the subgoal you commit to>"}
        if cfg.persistent_subgoal:
            notes.append('Use "mode": "continue" to keep the current subgoal, "new" to start the next one.')
    step = {"channel": "api", "action": {"action_type": "...", "target": "...", "params": {}}}
    if cfg.multi_action:
        example["actions"] = [step, {"channel": "bash", "command": "..."}]
        notes.append(f'"actions" is an ordered list of at most {cfg.max_actions} steps; it stops early if one fails. '
                     'With "control" "done" or "infeasible" it is the empty list [].')
    else:
        example["action"] = step
        notes.append('Give exactly one step in "action".')
    example["control"] = 'null | "done" | "infeasible"'
    example["reason"] = "<required with control>"
    return example, notes


def reply_format(cfg: LSTCConfig) -> str:
    """The JSON the planner must return, shaped by the active mechanisms."""
    decision, notes = _decision_example(cfg)
    if not cfg.candidates:
        return "Reply format:\n" + json.dumps(decision, indent=2) + "\n" + "\n".join(notes)
    candidate = {"why": "<what this option would achieve>", **decision}
    example = {"candidates": [candidate], "best": "<index of the best candidate, from 0>",
               "rationale": "<one sentence: why the best one wins>"}
    notes.insert(0, f"Propose 1 to {cfg.max_candidates} candidates, each a complete decision, compare them, and "
                    'name the one to execute in "best"; only that one is executed.')
    return "Reply format:\n" + json.dumps(example, indent=2) + "\n" + "\n".join(notes)


GUI_CHANNEL = ('- "gui": one computer-use input on the application\'s real window, as {"channel": "gui", "action": '
               '{"action": "key", "keys": "ctrl+Home Down"}}; actions: left_click, right_click, double_click, '
               'triple_click, mouse_move (x, y in pixels of a 1280x800 screen), drag (x, y, to_x, to_y), scroll (x, y, '
               'direction, amount), type (text), key (keys: combos such as ctrl+s, Return, Tab), wait (seconds). '
               'The window is saved after each input, so the next state shows what it did.\n')


def system_prompt(cfg: LSTCConfig, schema: str) -> str:
    channels = "three" if cfg.gui_channel else "two"
    return render(PROMPTS, "planner_system.md", format=reply_format(cfg), schema=schema, channels=channels,
                  gui=GUI_CHANNEL if cfg.gui_channel else "")


def user_prompt(state: ControlState, cfg: LSTCConfig, observation: str) -> str:
    subgoal_block = ""
    if cfg.persistent_subgoal and state.subgoal is not None:
        history = [f"  {s.id}. [{s.status}] {s.text}" for s in state.subgoals[-6:]]
        subgoal_block = (f"Current subgoal ({state.subgoal.status}, since step {state.subgoal.started_step}): "
                         f"{state.subgoal.text}\nSubgoal history:\n" + "\n".join(history) + "\n")
    key = state.evidence_key(cfg.subgoal_evidence)
    evidence = state.evidence.get(key, [])[-cfg.evidence_window :]
    return render(PROMPTS, "planner_user.md", task=state.task, subgoal_block=subgoal_block,
                  evidence_scope=" for the current subgoal" if key else " for the task",
                  evidence="\n".join(f"- {e}" for e in evidence) or "(none yet)",
                  refined=state.refined_history or "(nothing yet)",
                  recent="\n".join(f"- {r}" for r in state.recent) or "(none yet)",
                  feedback=state.feedback or "(none)", observation=observation)


def planner_messages(state: ControlState, cfg: LSTCConfig, system: str, observation: str,
                     screen: bytes | None = None) -> list[Message]:
    """The planner call; after a gui step the window's screenshot goes beside the text as an image part."""
    user: Any = user_prompt(state, cfg, observation)
    if screen is not None:
        user = [{"type": "text", "text": user}, image_part(screen)]
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def parse_commitment(data: dict[str, Any], cfg: LSTCConfig) -> Commitment:
    """Validate a planner reply; DecisionParseError names the first problem (for the repair round).

    With candidate proposals on, the reply must carry 1..max_candidates complete decisions and a ``best``
    index into them; the best one must be a valid decision and is executed, the others are logged as data
    (or, when they do not parse, as their error). A lone candidate is the best one whatever index it is given.
    """
    if not cfg.candidates:
        return _decision(data, cfg)
    raw = data.get("candidates")
    if not isinstance(raw, list) or not 1 <= len(raw) <= cfg.max_candidates:
        found = f"{len(raw)} candidates" if isinstance(raw, list) else f"'candidates' = {raw!r}"
        raise DecisionParseError(f"'candidates' must be a list of 1 to {cfg.max_candidates} decisions, not {found}.")
    best = data.get("best")
    if len(raw) == 1 and best is not None:
        # One candidate leaves nothing to choose: small models often write 1 or 2 here (a local server's
        # schema grammar does not enforce an integer's maximum), and a repair round for it costs a whole call.
        best = 0
    if isinstance(best, bool) or not isinstance(best, int) or not 0 <= best < len(raw):
        raise DecisionParseError(f"'best' must be the index (0 to {len(raw) - 1}) of a candidate, not {best!r}.")
    # Only the best candidate runs, so only it must parse: a small model often leaves an option it did not
    # choose half-written (recorded with SmolLM2-135M: "Candidate 1: The reply commits to no action and no
    # control." with best 0), and failing the whole reply for it cost a repair call. The others are logged.
    candidates: list[Commitment | str] = []
    for index, candidate in enumerate(raw):
        try:
            candidates.append(_candidate(candidate, index, cfg))
        except DecisionParseError as exc:
            if index == best:
                raise
            candidates.append(exc.message)
    chosen = candidates[best]
    assert isinstance(chosen, Commitment)
    chosen.candidates, chosen.best, chosen.rationale = candidates, best, str(data.get("rationale") or "")
    return chosen


def _candidate(candidate: Any, index: int, cfg: LSTCConfig) -> Commitment:
    if not isinstance(candidate, dict):
        raise DecisionParseError(f"Candidate {index} must be a JSON object.")
    try:
        return _decision(candidate, cfg)
    except DecisionParseError as exc:
        raise DecisionParseError(f"Candidate {index}: {exc.message}", hint=exc.hint) from None


def _decision(data: dict[str, Any], cfg: LSTCConfig) -> Commitment:
    """One decision: subgoal (when labels are on), ordered steps or a control, reason."""
    control = data.get("control")
    if control not in CONTROLS:
        raise DecisionParseError(f"'control' must be null, \"done\" or \"infeasible\", not {control!r}.")
    raw_subgoal = data.get("subgoal") if cfg.subgoal_labels else None
    subgoal: dict[str, Any] = raw_subgoal if isinstance(raw_subgoal, dict) else {}
    mode = subgoal.get("mode", "new") if cfg.persistent_subgoal else "new"
    raw_steps = data.get("actions") if cfg.multi_action else None
    if raw_steps is None:
        raw_steps = [data["action"]] if isinstance(data.get("action"), dict) else data.get("actions") or []
    if not isinstance(raw_steps, list):
        raise DecisionParseError("'actions' must be a list of steps.")
    limit = cfg.max_actions if cfg.multi_action else 1
    steps = [_step(raw, cfg) for raw in raw_steps[:limit]]
    if control is None and not steps:
        raise DecisionParseError("The reply commits to no action and no control.",
                                 hint='Give "actions", or "control": "done" / "infeasible".')
    if control is not None and steps:  # would run no step, or end the episode before its steps: neither is meant
        raise DecisionParseError(f'A decision with "control": "{control}" has no steps; this one has {len(steps)}.',
                                 hint='Give the steps with "control": null, or [] with the control.')
    text = str(subgoal.get("text") or "Work on the task") if cfg.subgoal_labels else ""
    return Commitment(subgoal_mode="continue" if mode == "continue" else "new", subgoal_text=text, steps=steps,
                      control=control, reason=str(data.get("reason") or ""), why=str(data.get("why") or ""))


def _step(raw: Any, cfg: LSTCConfig) -> tuple[str, Action]:
    if not isinstance(raw, dict):
        raise DecisionParseError("Each step must be an object with a 'channel'.")
    channel = raw.get("channel", "api")
    if channel == "bash":
        command = raw.get("command")
        if not isinstance(command, str) or not command.strip():
            raise DecisionParseError("A bash step needs a non-empty 'command'.")
        return "bash", bash_action(command, cfg.bash_timeout_s)
    if channel == "gui" and cfg.gui_channel:
        return "gui", _gui_step(raw.get("action"))
    if channel != "api":
        names = '"api", "bash" or "gui"' if cfg.gui_channel else '"api" or "bash"'
        raise DecisionParseError(f"Unknown channel {channel!r}; use {names}.")
    try:
        return "api", Action.model_validate(raw.get("action"))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "action"
        raise DecisionParseError(f"An api step's action is malformed at {where!r}: {first['msg']}.") from None


def _gui_step(raw: Any) -> Action:
    """A gui step's computer-use input; the environment checks its coordinates and keys against the screen."""
    inputs = [name for name in GUI_ACTIONS if name not in ("done", "infeasible")]
    if not isinstance(raw, dict) or raw.get("action") not in inputs:
        raise DecisionParseError(f"A gui step's action is an object whose 'action' is one of {', '.join(inputs)}.",
                                 hint='{"channel": "gui", "action": {"action": "key", "keys": "ctrl+s"}}')
    return gui_action(raw)
