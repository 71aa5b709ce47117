"""`schema_detail="compact"`: the apps' actions in about a third of the prompt, for small local models."""

from __future__ import annotations

from pathlib import Path

import pytest

from asil.agents.lstc.agent import LSTCAgent
from asil.agents.prompting import schema_text
from asil.agents.react import ReActAgent
from asil.cli import main
from asil.plugins import adapter_class
from tests.agents.helpers import run, system_prompt


@pytest.mark.parametrize("app", ["calc", "kdenlive", "drawio"])
def test_compact_text_names_every_function_and_its_parameters_in_under_half_the_characters(app: str) -> None:
    schema = adapter_class(app).action_schema()
    full, compact = schema_text({app: schema}), schema_text({app: schema}, "compact")
    assert len(compact) < len(full) / 2
    for name, spec in schema.functions.items():
        assert f"- {name} {{" in compact and spec.description in compact
        for param in spec.params.get("properties", {}):
            assert param in compact.split(f"- {name} ", 1)[1].split("\n", 1)[0]
    assert "Tips:" in full and "Tips:" not in compact
    assert compact.count('{"action_type"') == min(2, len(schema.examples))


def test_both_agents_send_the_compact_text_and_still_solve_with_scripted_replies(tmp_path: Path) -> None:
    react = ReActAgent(model="scripted", schema_detail="compact")
    assert run("calc-total-column", react, tmp_path / "react").success
    assert "invoke_function targets (name {params}" in react.system and "Tips:" not in react.system
    lstc = LSTCAgent(model="scripted", schema_detail="compact")
    assert run("calc-total-column", lstc, tmp_path / "lstc").success
    sent = system_prompt(lstc)
    assert "invoke_function targets (name {params}" in sent and "Tips:" not in sent


def test_an_unknown_detail_and_the_flag_on_another_agent_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="schema detail must be one of full, compact, not 'tiny'"):
        ReActAgent(model="scripted", schema_detail="tiny")
    with pytest.raises(ValueError, match="schema detail must be one of full, compact"):
        LSTCAgent(model="scripted", schema_detail="tiny")
    assert main(["run", "calc-total-column", "--agent", "oracle", "--schema-detail", "compact"]) == 2
    assert "--schema-detail applies to the react and lstc agents only" in capsys.readouterr().err
