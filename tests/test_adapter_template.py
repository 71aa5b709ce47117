"""The Adapter base class's execute() template: what it promises every adapter, whatever the app.

A tiny in-test adapter (a counter, no application) drives the template's branches that real
programs reach only by crashing at a particular moment.
"""

from __future__ import annotations

from pathlib import Path

from asil.adapters.base import Adapter
from asil.protocol import Action, ActionFailed, ActionSchema, InvalidAction, Observation
from asil.workspace import Workspace


class Counter(Adapter):
    """State: one integer. ``set_value`` sets it; a negative value is invalid; a program "crash" is
    simulated where a real adapter would lose its program while checking or applying."""

    name = "counter"
    pattern = "file"

    def __init__(self, workspace: Workspace, crash_in: str = ""):
        super().__init__(workspace)
        self.value, self.crash_in = 0, crash_in

    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        return Observation.model_validate({"metadata": {"app": "counter", "source": "file", "step": self.step}, "app_state": {},
                                           "summary": f"value {self.value}"})

    @classmethod
    def action_schema(cls) -> ActionSchema:
        return ActionSchema(app="counter", action_types=["set_value", "done", "infeasible"])

    def _check(self, action: Action) -> None:
        if self.crash_in == "check":
            raise ActionFailed("The program stopped while checking the action.")
        if action.params.get("value", 0) < 0:
            raise InvalidAction("The value must not be negative.")

    def _apply(self, action: Action) -> list[str]:
        if self.crash_in == "apply":
            raise ActionFailed("The program stopped while applying the action.")
        self.value = action.params["value"]
        return ["value"]


def set_to(value: int) -> Action:
    return Action(action_type="set_value", target="value", params={"value": value})


def test_a_valid_action_applies_and_reports_what_changed(tmp_path: Path) -> None:
    counter = Counter(Workspace(tmp_path))
    result = counter.execute(set_to(3))
    assert result.ok and result.changed == ["value"] and counter.value == 3
    assert result.observation is not None and result.observation.summary == "value 3"


def test_an_invalid_action_is_reported_and_changes_nothing(tmp_path: Path) -> None:
    counter = Counter(Workspace(tmp_path))
    result = counter.execute(set_to(-1))
    assert result.status == "invalid" and result.error is not None and "negative" in result.error.message
    assert counter.value == 0


def test_a_program_failure_while_checking_is_an_error_step_not_an_exception(tmp_path: Path) -> None:
    counter = Counter(Workspace(tmp_path), crash_in="check")
    result = counter.execute(set_to(3))
    assert result.status == "error" and not result.ok and counter.value == 0
    assert result.error is not None and "while checking" in result.error.message


def test_a_program_failure_while_applying_is_an_error_step(tmp_path: Path) -> None:
    counter = Counter(Workspace(tmp_path), crash_in="apply")
    result = counter.execute(set_to(3))
    assert result.status == "error" and result.error is not None and "while applying" in result.error.message
