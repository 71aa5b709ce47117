"""LocalLSTC's GUI channel: one episode that mixes API, GUI and Bash steps on the real LibreOffice.

The planner replies are played back (the ``replay`` provider) so the test is exact; everything else is
real: the header and the grand total go through ASIL actions, the order rows are typed into Calc's real
window (a private Xvfb, xdotool input) and saved by LibreOffice itself, a shell command looks at the file,
and the task's unchanged evaluator judges the result.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.lstc.config import configure
from asil.agents.lstc.planner import parse_commitment
from asil.llm.parse import DecisionParseError
from tests.agents.helpers import run, trace

TASK = "calc-total-column"


def api(target: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"channel": "api", "action": {"action_type": "invoke_function", "target": target, "params": params}}


def gui(**params: Any) -> dict[str, Any]:
    return {"channel": "gui", "action": params}


def planner(steps: list[dict[str, Any]] | None, subgoal: str, control: str | None = None) -> dict[str, Any]:
    decision = {"why": "as planned", "subgoal": {"mode": "new", "text": subgoal}, "control": control,
                "reason": "D1:D6 hold the totals." if control else ""}
    if steps:
        decision["actions"] = steps
    return {"kind": "planner", "text": json.dumps({"candidates": [decision], "best": 0, "rationale": "one plan"})}


def abstraction(state: str) -> dict[str, Any]:
    return {"kind": "abstraction", "text": json.dumps({"evidence": "the step went through", "state": state})}


def replies() -> list[dict[str, Any]]:
    """Header by API and the cursor moved in the window; then rows typed in the window, a look from the shell,
    the total by API; then done, verified."""
    first = [api("set_range", {"range": "Orders!D1", "values": [["Total"]]}),
             gui(action="key", keys="ctrl+Home Down Right Right Right")]
    second = [gui(action="type", text="=B2*C2\n=B3*C3\n=B4*C4\n=B5*C5\n"),
              {"channel": "bash", "command": "test -s sales.ods && echo saved"},
              api("set_range", {"range": "Orders!D6", "values": [["=SUM(D2:D5)"]]})]
    refined = {"kind": "refinement", "text": json.dumps({"summary": "Work so far."})}
    return [planner(first, "Header and cursor"), abstraction("continue"), abstraction("advance"), refined,
            planner(second, "Rows and total"), abstraction("continue"), abstraction("continue"),
            abstraction("advance"), refined, planner(None, "Rows and total", control="done"),
            {"kind": "verification", "text": json.dumps({"verdict": "accept", "reason": "all there"})}]


@pytest.mark.gui
@pytest.mark.slow
def test_one_episode_mixes_api_gui_and_bash_steps_and_the_evaluator_accepts_it(tmp_path: Path) -> None:
    from PIL import Image

    script = tmp_path / "replies.jsonl"
    script.write_text("".join(json.dumps(line) + "\n" for line in replies()), encoding="utf-8")
    agent = LSTCAgent(model=f"replay:{script}", gui_channel=True)
    result = run(TASK, agent, tmp_path / "run")
    assert result.termination == "done" and result.success, (result.error, result.checkpoints)
    steps = trace(tmp_path / "run", TASK)
    assert [s["channel"] for s in steps[:5]] == ["api", "gui", "gui", "bash", "api"]
    assert all(s["status"] == "ok" for s in steps), steps
    typed = steps[2]
    assert "stored sales.ods through LibreOffice" in typed["output"] and typed["changed"] == ["sales.ods"]
    assert steps[3]["output"].strip() == "saved"  # the shell saw the file the window had just saved
    shares = result.metrics["channel_shares"]
    assert shares["api"] > 0 and shares["gui"] > 0 and shares["bash"] > 0
    # the second planner call came right after a gui step: it carried the window's screenshot
    assert result.metrics["screens_sent"] == 1
    for number in (2, 3):
        picture = (tmp_path / "run" / TASK / f"step_{number}.screen.png").read_bytes()
        assert Image.open(io.BytesIO(picture)).size == (1280, 800)


def test_a_gui_step_is_refused_unless_the_channel_is_on() -> None:
    reply = {"candidates": [{"why": "w", "subgoal": {"mode": "new", "text": "s"}, "control": None, "reason": "",
                             "actions": [gui(action="key", keys="ctrl+s")]}], "best": 0, "rationale": "r"}
    with pytest.raises(DecisionParseError, match="Unknown channel 'gui'; use \"api\" or \"bash\""):
        parse_commitment(reply, configure())
    chosen = parse_commitment(reply, configure(gui_channel=True))
    assert chosen.steps[0][0] == "gui" and chosen.steps[0][1].target == "gui"


@pytest.mark.parametrize(("step", "says"), [
    ({"action": "done"}, "'action' is one of left_click"),
    ({"action": "paint", "x": 1}, "'action' is one of left_click"),
    ("ctrl+s", "'action' is one of left_click"),
])
def test_a_malformed_gui_step_is_named_for_the_repair_round(step: Any, says: str) -> None:
    reply = {"candidates": [{"why": "w", "subgoal": {"mode": "new", "text": "s"}, "control": None, "reason": "",
                             "actions": [{"channel": "gui", "action": step}]}], "best": 0, "rationale": "r"}
    with pytest.raises(DecisionParseError, match=says):
        parse_commitment(reply, configure(gui_channel=True))
