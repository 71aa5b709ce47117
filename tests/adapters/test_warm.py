"""The warm-program skeleton's own logic (restart counting, all-or-nothing edits, batch members, paging).

The Blender, GIMP and Audacity tests drive their real programs through this skeleton; these cover
what they do not reach (a program lost in the middle of a batch, members a batch refuses) on a
list of numbers kept by a tiny in-process stand-in for a program, so they need no program at all.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.warm import CheckpointedAdapter
from asil.apps.process import ProgramFailed
from asil.protocol import Action, ActionFailed, ActionSchema, InvalidAction, Observation
from asil.workspace import Workspace


class Numbers:
    """The stand-in program: a list of numbers that can die."""

    def __init__(self, numbers: list[int]):
        self.numbers = numbers
        self.alive = True
        self.closed = False

    def kill(self) -> None:
        self.alive = False

    def close(self) -> None:
        self.alive, self.closed = False, True


class NumbersAdapter(CheckpointedAdapter[Numbers]):
    state_name = "list"
    max_limit = 10
    batch_excluded = ("save", "export")
    batch_hint = "Put only append, fail and die in a batch."
    crashed = ProgramFailed

    def __init__(self, workspace: Workspace, document: str):
        super().__init__(workspace, document, limit=5)
        self.path = workspace.resolve(document)
        self.work = workspace.private() / "numbers.work.json"

    def _start_session(self) -> Numbers:
        return Numbers(json.loads((self.work if self.work.is_file() else self.path).read_text()))

    def _checkpoint(self) -> None:
        self.work.write_text(json.dumps(self._program().numbers))

    def _roll_back(self) -> None:
        if self.session is not None and self.session.alive:
            self.session.numbers = json.loads(self.work.read_text())

    def numbers(self) -> list[int]:
        return self._program().numbers

    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        raise NotImplementedError("not needed here")

    @classmethod
    def action_schema(cls) -> ActionSchema:
        raise NotImplementedError("not needed here")

    def _parse(self, action: Action) -> str:
        if action.action_type != "invoke_function" or action.target not in ("append", "fail", "die", "save"):
            raise InvalidAction(f"No such action {action.target!r}.", hint="Use append, fail or die.")
        return action.target

    def _check(self, action: Action) -> None:
        if action.action_type == "batch":
            self._check_batch(action.params["actions"], self._parse)
        else:
            self._parse(action)

    def _apply(self, action: Action) -> list[str]:
        batch = action.action_type == "batch"
        members = [self._batch_member(raw) for raw in action.params["actions"]] if batch else [action]
        return self._edit(members, lambda _index, member: self._run(member), is_batch=batch)

    def _run(self, member: Action) -> list[str]:
        program = self._program()
        if member.target == "fail":
            raise ActionFailed("The program refused.", hint="Do something else.", code="refused")
        if member.target == "die":
            program.kill()
            raise ProgramFailed("The program died.")
        program.numbers.append(member.params["n"])
        return ["@list"]


def call(name: str, **params: Any) -> dict[str, Any]:
    return {"action_type": "invoke_function", "target": name, "params": params}


def batch(*members: dict[str, Any]) -> Action:
    return Action(action_type="batch", params={"actions": list(members)})


@pytest.fixture
def adapter(tmp_path: Path) -> NumbersAdapter:
    (tmp_path / "numbers.json").write_text("[1, 2]")
    return NumbersAdapter(Workspace(tmp_path), "numbers.json")


def test_a_dead_program_is_replaced_from_the_last_good_state_and_counted(adapter: NumbersAdapter) -> None:
    assert adapter.execute(Action.model_validate(call("append", n=3)), observe=False).ok
    assert adapter.restarts == 0 and adapter.dirty  # the first start is not a restart
    first = adapter.session
    assert first is not None
    first.kill()
    assert adapter.numbers() == [1, 2, 3] and adapter.session is not first and adapter.restarts == 1


def test_a_failed_batch_member_is_named_and_the_batch_undone(adapter: NumbersAdapter) -> None:
    result = adapter.execute(batch(call("append", n=3), call("fail")), observe=False)
    assert result.status == "error" and result.error is not None and result.error.code == "refused"
    assert result.error.message == "Batch action 2: The program refused. Nothing in the list was changed."
    assert adapter.numbers() == [1, 2] and not adapter.dirty and adapter.restarts == 0


@pytest.mark.parametrize("numbered", [True, False])
def test_a_program_lost_in_a_batch_restarts_from_before_the_batch(adapter: NumbersAdapter, numbered: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(NumbersAdapter, "number_crashes", numbered)
    result = adapter.execute(batch(call("append", n=3), call("die")), observe=False)
    assert result.status == "error" and result.error is not None and result.error.code == "program_failed"
    expected = "Batch action 2: The program died. Nothing in the list was changed." if numbered else "The program died."
    assert result.error.message == expected
    assert adapter.numbers() == [1, 2] and adapter.restarts == 1


@pytest.mark.parametrize(("member", "what"), [(call("save"), "save"), (call("export", path="x"), "export"),
                                              ({"action_type": "navigate", "target": "save"}, "save"),
                                              ({"action_type": "done"}, "done")])
def test_a_batch_refuses_members_that_cannot_be_undone_with_it(adapter: NumbersAdapter, member: dict[str, Any],
                                                               what: str) -> None:
    result = adapter.execute(batch(call("append", n=3), member), observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message == f"Batch action 2: A batch cannot contain {what}."
    assert result.error.hint == "Put only append, fail and die in a batch."
    assert adapter.session is None  # refused before the program started


def test_pages_are_kept_within_bounds_and_other_views_refused(adapter: NumbersAdapter) -> None:
    adapter._turn_page("list", 3, 500)
    assert (adapter.offset, adapter.limit) == (3, 10)
    adapter._turn_page(None, -4, 0)
    assert (adapter.offset, adapter.limit) == (0, 1)
    with pytest.raises(InvalidAction, match="There is no view 'grid'") as refused:
        adapter._turn_page("grid", None, None)
    assert refused.value.hint == "The only view is 'list'."


def test_close_stops_the_program_and_removes_the_work_file(adapter: NumbersAdapter) -> None:
    assert adapter.execute(Action.model_validate(call("append", n=3)), observe=False).ok
    session = adapter.session
    assert session is not None and adapter.work.is_file()
    adapter.close()
    assert session.closed and adapter.session is None and not adapter.work.exists()
    assert json.loads(adapter.path.read_text()) == [1, 2]  # the document is written only by save()
