"""ReAct with observations="changes": the first observation once, then what each action changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from asil.agents.prompting import observation_changes
from asil.agents.react import ReActAgent
from asil.cli import main
from tests.agents.helpers import run

CLOSING = "\n\nReply with one JSON object"


def _observation(step: int, elements: list[dict[str, object]], view: str = "Sheet1") -> dict[str, object]:
    return {"metadata": {"app": "calc", "source": "uno", "step": step}, "app_state": {"view": view},
            "elements": elements, "summary": ""}


def test_changes_name_changed_added_and_removed_elements_and_ignore_the_step_counter() -> None:
    before = _observation(1, [{"id": "A1", "value": 1}, {"id": "A2", "value": 2}, {"id": "A3", "value": 3}])
    after = _observation(2, [{"id": "A1", "value": 1}, {"id": "A2", "value": 5}, {"id": "A4", "value": 4}])
    assert observation_changes(before, after) == {"elements": [{"id": "A2", "value": 5}, {"id": "A4", "value": 4}],
                                                  "removed_elements": ["A3"]}
    assert observation_changes(before, {**before, "metadata": {**before["metadata"], "step": 9}}) == {}  # type: ignore[dict-item]
    moved = _observation(1, before["elements"], view="Sheet2")  # type: ignore[arg-type]
    assert observation_changes(before, moved) == {"app_state": {"view": "Sheet2"}}


def _user_prompts(agent: ReActAgent) -> list[str]:
    return [m[-1]["content"] for kind, m in agent.client.provider.calls if kind == "react"]  # type: ignore[attr-defined]


def _new_text(prompts: list[str]) -> int:
    """Characters a prefix-caching server reads anew over the episode (each prompt past its common prefix)."""
    pairs = zip(prompts, prompts[1:], strict=False)
    return len(prompts[0]) + sum(len(b) - len(os.path.commonprefix([a, b])) for a, b in pairs)


def test_each_prompt_only_appends_to_the_last_one_and_has_less_new_text_than_the_full_layout(tmp_path: Path) -> None:
    changes = ReActAgent(model="scripted", faults=["wrong_action"], observations="changes")
    result = run("calc-sheet-management", changes, tmp_path / "changes")
    assert result.success
    prompts = _user_prompts(changes)
    assert len(prompts) == result.steps >= 3
    for earlier, later in zip(prompts, prompts[1:], strict=False):
        head = earlier.split(CLOSING)[0].replace("(none yet)", "")
        assert later.startswith(head)  # the server's prompt cache covers everything but the newest step
    assert "-> invalid" in prompts[-1] and "nothing visible changed" in prompts[-1]  # the refused action
    assert "; changed: " in prompts[-1] or "; now: " in prompts[-1]
    full = ReActAgent(model="scripted", faults=["wrong_action"])
    assert run("calc-sheet-management", full, tmp_path / "full").success
    assert _new_text(prompts) < _new_text(_user_prompts(full))


def test_an_unknown_observation_mode_and_the_flag_on_another_agent_are_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="observations must be one of full, changes"):
        ReActAgent(model="scripted", observations="diff")
    assert main(["run", "calc-total-column", "--agent", "lstc", "--observations", "changes"]) == 2
    assert "--observations applies to the react agent only" in capsys.readouterr().err
