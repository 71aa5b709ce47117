"""The Adapter base class's execute() template: what it promises every adapter, whatever the app.

A tiny in-test adapter (a counter, no application) drives the template's branches that real
programs reach only by crashing at a particular moment.
"""

from __future__ import annotations

from pathlib import Path

from asil.adapters.base import UNFORESEEN, Adapter
from asil.protocol import Action, ActionFailed, ActionSchema, AppUnavailable, InvalidAction, Observation
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
        if self.crash_in == "observe":
            raise ConnectionResetError("the bridge to the program broke")
        return Observation.model_validate({"metadata": {"app": "counter", "source": "file", "step": self.step}, "app_state": {},
                                           "summary": f"value {self.value}"})

    @classmethod
    def action_schema(cls) -> ActionSchema:
        return ActionSchema(app="counter", action_types=["set_value", "done", "infeasible"])

    def _check(self, action: Action) -> None:
        if self.crash_in == "check":
            raise ActionFailed("The program stopped while checking the action.")
        if self.crash_in == "check-unforeseen":
            raise BrokenPipeError(32, "Broken pipe")
        if self.crash_in == "check-unavailable":
            raise AppUnavailable("The program is not installed.")
        if action.params.get("value", 0) < 0:
            raise InvalidAction("The value must not be negative.")

    def _apply(self, action: Action) -> list[str]:
        if self.crash_in == "apply":
            raise ActionFailed("The program stopped while applying the action.")
        if self.crash_in == "apply-unforeseen":
            raise KeyError("sheet")
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


def test_no_exception_escapes_execute_whatever_the_program_does(tmp_path: Path) -> None:
    unavailable = Counter(Workspace(tmp_path), crash_in="check-unavailable").execute(set_to(3))
    assert unavailable.status == "error" and unavailable.error is not None
    assert unavailable.error.code == "app_unavailable" and unavailable.error.message == "The program is not installed."
    for where, what in (("check-unforeseen", "checking the action (BrokenPipeError"),
                        ("apply-unforeseen", "applying the action (KeyError: 'sheet')")):
        result = Counter(Workspace(tmp_path), crash_in=where).execute(set_to(3))
        assert result.status == "error" and result.error is not None and result.error.code == UNFORESEEN
        assert f"The program failed while {what}" in result.error.message


def test_a_state_that_cannot_be_read_after_the_action_is_an_error_without_observation(tmp_path: Path) -> None:
    counter = Counter(Workspace(tmp_path), crash_in="observe")
    result = counter.execute(set_to(3))
    assert result.status == "error" and result.observation is None and result.error is not None
    assert result.error.message.startswith("The program failed while reading the state after the action "
                                           "(ConnectionResetError: the bridge to the program broke)")
    assert result.changed == ["value"] and counter.value == 3  # it was applied, and the result says what changed
    assert counter.execute(set_to(3), observe=False).ok
