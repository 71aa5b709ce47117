"""The scripted provider finds each agent's reply shapes by name, without importing the agents."""

from __future__ import annotations

import subprocess
import sys

import pytest

from asil.llm.base import LLMError
from asil.llm.scripted import REPLY_SHAPES, ScriptedProvider
from asil.tasks import get_task


def test_the_reply_shapes_are_declared_lazily_beside_their_agents() -> None:
    code = ("import sys, asil.llm, asil.llm.scripted; "
            "print([m for m in sys.modules if m.startswith(('asil.agents', 'asil.annotate', 'asil.onboard'))])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    from asil.agents import react
    from asil.agents.lstc import scripted
    from asil.annotate import scripted as judge
    from asil.onboard import draft

    assert REPLY_SHAPES["react"] is react.scripted_reply
    for kind in ("planner", "abstraction", "verification", "refinement"):
        assert REPLY_SHAPES[kind] is getattr(scripted, f"{kind}_reply")
    assert REPLY_SHAPES["judge"] is judge.judge_reply
    assert REPLY_SHAPES["onboard_draft"] is draft.scripted_reply
    from asil.agents import drawio_mcp, uno

    assert REPLY_SHAPES["uno"] is uno.scripted_reply
    assert REPLY_SHAPES["drawio-mcp"] is drawio_mcp.scripted_reply
    from asil.agents import gui

    assert REPLY_SHAPES["gui"] is gui.scripted_reply
    assert set(REPLY_SHAPES) == {"react", "planner", "abstraction", "verification", "refinement", "judge", "onboard_draft",
                                 "uno", "drawio-mcp", "gui"}


def test_a_call_kind_without_a_reply_shape_is_an_llm_error() -> None:
    provider = ScriptedProvider()
    provider.bind(get_task("calc-total-column"))
    with pytest.raises(LLMError, match="no replies for 'poetry' calls"):
        provider.complete([], "poetry")
