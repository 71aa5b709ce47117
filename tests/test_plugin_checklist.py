"""ARCHITECTURE.md's "How to add an app", followed literally: a throwaway ``notes`` app is built in a
temporary package step by step, registered, checked for conformance and run through a task.

If a step of the checklist stops being true (a name moves, a record field is not read, a registry does
not find the app's parts), this test fails. The step numbers below are the checklist's.
"""

from __future__ import annotations

import json
import re
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from asil import plugins
from asil.registry import load_target

ROOT = Path(__file__).resolve().parents[1]
PKG = "asil_checklist_notes"

# ---- step 1: the package; steps 2-7: its files, exactly as the checklist describes them
FILES = {
    # step 2 (functions, vocabulary) and step 3 (the adapter)
    "adapter.py": '''
        from __future__ import annotations

        from typing import Annotated, Any

        from pydantic import Field

        from asil.adapters.base import Adapter
        from asil.adapters.functions import AppFunction, FunctionTable, Vocabulary
        from asil.adapters.params import Params
        from asil.protocol import Action, AppState, DocumentError, Element, InvalidAction, Metadata, Observation
        from asil.workspace import Workspace, atomic_write


        class AppendLine(Params):
            text: Annotated[str, Field(min_length=1)]


        class DeleteLine(Params):
            line: Annotated[int, Field(ge=1)]


        def append_line(lines: list[str], p: AppendLine) -> list[str]:
            lines.append(p.text)
            return [f"line{len(lines)}"]


        def delete_line(lines: list[str], p: DeleteLine) -> list[str]:
            if p.line > len(lines):
                raise InvalidAction(f"There is no line {p.line}.", hint=f"Lines 1 to {len(lines)}.")
            del lines[p.line - 1]
            return [f"line{i}" for i in range(p.line, len(lines) + 2)]


        FUNCTIONS: FunctionTable[Any] = FunctionTable("notes", [
            AppFunction("append_line", AppendLine, "Add a line at the end.", acts_on="lines", handler=append_line,
                        examples=({"action_type": "invoke_function", "target": "append_line",
                                   "params": {"text": "buy milk"}},),
                        tips=("Lines are numbered from 1; element line3 is the third line.",)),
            AppFunction("delete_line", DeleteLine, "Delete one line; the lines after it move up.",
                        destructive=True, acts_on="lines", handler=delete_line),
        ])
        VOCABULARY = Vocabulary(
            app="notes", action_types=("invoke_function", "batch", "done", "infeasible"),
            target_format="invoke_function: a function name", batch_members=("invoke_function",),
            batch_hint="A batch holds invoke_function actions.")


        class NotesAdapter(Adapter):
            """A plain text file, one element per line."""

            vocabulary = VOCABULARY
            functions = FUNCTIONS

            def __init__(self, workspace: Workspace, document: str | None = None, **options: Any):
                super().__init__(workspace, document, **options)
                if document is None:
                    raise DocumentError("The notes adapter needs a .notes file.")
                self.path = workspace.resolve(document)
                self.lines = self.path.read_text(encoding="utf-8").splitlines() if self.path.is_file() else []
                self.dirty = False

            @classmethod
            def create_sample(cls, workspace: Workspace) -> str:
                workspace.write_bytes("sample.notes", b"first\\nsecond\\n")
                return "sample.notes"

            def observe(self, view: str | None = None, offset: int | None = None,
                        limit: int | None = None) -> Observation:
                elements = [Element(id=f"line{i}", type="line", value=text, actions=["delete_line"])
                            for i, text in enumerate(self.lines, start=1)]
                return Observation(
                    metadata=Metadata(app=self.name, source=self.pattern, step=self.step),  # type: ignore[arg-type]
                    app_state=AppState(active_document=self.document, dirty=self.dirty),
                    elements=elements, summary=f"{len(self.lines)} lines in {self.document}")

            def _check(self, action: Action) -> None:
                self.vocabulary.require_type(action)
                if action.action_type == "batch":
                    for member in self.vocabulary.batch(action, self.functions):
                        self.functions.parse(member.target, member.params)
                    return
                function, params = self.functions.parse(action.target, action.params)
                if function.name == "delete_line" and params.line > len(self.lines):
                    raise InvalidAction(f"There is no line {params.line}.", hint=f"Lines 1 to {len(self.lines)}.")

            def _apply(self, action: Action) -> list[str]:
                if action.action_type == "batch":
                    before, changed = list(self.lines), []
                    try:
                        for member in self.vocabulary.batch(action, self.functions):
                            changed += self._apply(member)
                    except InvalidAction:
                        self.lines = before  # all or nothing
                        raise
                    return changed
                function, params = self.functions.parse(action.target, action.params)
                changed = function.handler(self.lines, params)
                self.dirty = True
                return changed

            def save(self) -> None:
                if self.dirty:
                    atomic_write(self.path, "".join(f"{line}\\n" for line in self.lines).encode("utf-8"))
                    self.dirty = False
    ''',
    # step 4: checkpoint types
    "checkpoints.py": '''
        from asil.evaluate.checkpoints import Checkpoint, CheckpointUnreadable, EvalContext, checkpoint_type


        @checkpoint_type("notes_lines")
        def notes_lines(ctx: EvalContext, cp: Checkpoint) -> list[str]:
            """Every line of the notes file ``document``, in order."""
            if not cp.document:
                raise CheckpointUnreadable("the checkpoint needs a document")
            return [str(e.value) for e in ctx.adapter("notes", cp.document).observe().elements]
    ''',
    # step 5: the raw validator
    "validator.py": '''
        from asil.evaluate.checkpoints import Checkpoint, default_compare
        from asil.evaluate.compare import compare
        from asil.protocol import AsilError
        from asil.workspace import Workspace


        def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None, answer: str | None) -> bool:
            if cp.type != "notes_lines" or not cp.document:
                return False
            try:
                lines = workspace.resolve(cp.document).read_text(encoding="utf-8").splitlines()
            except (OSError, AsilError):
                return False
            return compare(default_compare(cp), lines, cp.expected, cp.tolerance)
    ''',
    # step 6: setup builders
    "builders.py": '''
        from pathlib import Path

        from asil.tasks.model import SetupFile, Task
        from asil.tasks.setup import SetupError
        from asil.workspace import atomic_write


        def build_notes(item: SetupFile, task: Task, target: Path) -> None:
            if not isinstance(item.content, list):
                raise SetupError(f"Task {task.id}: notes {item.path!r} needs content: a list of lines.")
            atomic_write(target, "".join(f"{line}\\n" for line in item.content).encode("utf-8"))
    ''',
    # step 7: the record (imports nothing heavy)
    "__init__.py": f'''
        from asil.plugins import AppPlugin

        PLUGIN = AppPlugin(
            name="notes",
            adapter="{PKG}.adapter:NotesAdapter",
            pattern="file",
            extensions=(".notes",),
            checkpoints=("{PKG}.checkpoints",),
            validator="{PKG}.validator:raw_judge",
            builders={{"notes": "{PKG}.builders:build_notes"}},
            suite="tasks/notes",
        )
    ''',
}

# step 10: a task of the app
TASK = {
    "id": "notes-append-and-delete", "suite": "checklist", "apps": ["notes"], "domain": "notes",
    "instruction": "In todo.notes, add the line 'call Bob' and delete the line 'old item'.",
    "setup": {"files": [{"path": "todo.notes", "kind": "notes", "content": ["buy milk", "old item"]}]},
    "evaluator": {"paths": [[{"type": "notes_lines", "app": "notes", "document": "todo.notes",
                              "expected": ["buy milk", "call Bob"]}]]},
    "reference": [
        {"action_type": "invoke_function", "target": "append_line", "params": {"text": "call Bob"}},
        {"action_type": "invoke_function", "target": "delete_line", "params": {"line": 2}},
        {"action_type": "done"},
    ],
}


@pytest.fixture
def notes_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Steps 1-7 on disk, importable; everything the app registered is forgotten afterwards."""
    from asil.evaluate.checkpoints import CHECKPOINT_TYPES
    from asil.tasks import setup

    package = tmp_path / PKG
    package.mkdir()
    for name, source in FILES.items():
        (package / name).write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    (package / "tasks" / "notes").mkdir(parents=True)
    (package / "tasks" / "notes" / f"{TASK['id']}.json").write_text(json.dumps(TASK), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield package
    plugins.unregister_app("notes")  # no other test sees the throwaway app
    CHECKPOINT_TYPES.remove("notes_lines")
    setup.FILE_BUILDERS.remove("notes")
    for module in [m for m in sys.modules if m == PKG or m.startswith(PKG + ".")]:
        del sys.modules[module]


def test_the_checklist_builds_a_working_app(notes_package: Path) -> None:
    from asil.adapters.check import check_adapter
    from asil.evaluate.evaluator import evaluate_paths
    from asil.evaluate.raw import raw_verdict
    from asil.protocol import parse_action
    from asil.runner.check import check_task
    from asil.tasks.loader import load_tasks
    from asil.tasks.setup import prepare_workspace
    from asil.workspace import Workspace

    # step 7: the record is read without importing the adapter
    record = load_target(f"{PKG}:PLUGIN")
    assert isinstance(record, plugins.AppPlugin)
    assert f"{PKG}.adapter" not in sys.modules, "reading the plugin record imported the adapter"

    # step 8: register it; everything is found through the record
    plugins.register_app(record)
    assert "notes" in plugins.app_names()
    assert plugins.plugin("notes") is record
    assert plugins.app_for_path("todo.NOTES") == "notes"
    assert plugins.app_builders()["notes"] == f"{PKG}.builders:build_notes"
    cls = plugins.adapter_class("notes")
    assert (cls.name, cls.pattern, cls.extensions) == ("notes", "file", (".notes",))

    # step 2: the schema is derived from the function table and the vocabulary
    schema = cls.action_schema()
    assert list(schema.functions) == ["append_line", "delete_line"]
    assert schema.functions["delete_line"].destructive and not schema.functions["append_line"].destructive
    assert [e.action_type for e in schema.examples] == ["invoke_function", "done"]  # the function's, then done
    assert schema.tips[0].startswith("Lines are numbered") and schema.tips[-1].startswith("Finish with")

    # step 9: the conformance check
    check_adapter("notes", Workspace(notes_package.parent / "conformance"))

    # step 10: a task of the app, loaded from its suite folder, is sound ...
    [task] = load_tasks(root=notes_package / "tasks")
    verdict = check_task(task)
    assert verdict.ok, verdict.detail

    # ... and, by hand: set-up by the app's builder, an action, the evaluator and the raw validator agree
    workspace = prepare_workspace(task, Workspace(notes_package.parent / "episode"))
    assert workspace.resolve("todo.notes").read_text(encoding="utf-8") == "buy milk\nold item\n"
    paths = task.evaluator.paths
    checkpoint = paths[0][0]
    before = evaluate_paths(paths, workspace)
    assert not before.success and raw_verdict(checkpoint, workspace, None, None, "notes") is False
    with cls(workspace, "todo.notes") as notes:
        unknown = notes.execute(parse_action({"action_type": "invoke_function", "target": "append_lin",
                                              "params": {"text": "x"}}))
        assert unknown.status == "invalid" and unknown.error is not None
        assert unknown.error.code == "unknown_function" and "append_line" in (unknown.error.hint or "")
        result = notes.execute(parse_action({"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "append_line", "params": {"text": "call Bob"}},
            {"action_type": "invoke_function", "target": "delete_line", "params": {"line": 2}},
        ]}}))
        assert result.ok, result.error
        notes.save()
    after = evaluate_paths(paths, workspace, outcome="done")
    assert after.success, after.checkpoints
    assert raw_verdict(checkpoint, workspace, "done", None, "notes") is True


def test_an_app_registered_late_gets_its_builders() -> None:
    from asil.tasks.setup import FILE_BUILDERS

    FILE_BUILDERS.names()  # as after the first task of a process was prepared
    record = plugins.AppPlugin(name="notes", adapter="nowhere:Nothing", pattern="file", extensions=(".notes",),
                               builders={"notes_late": "nowhere:build"})
    plugins.register_app(record)
    try:
        assert "notes_late" in FILE_BUILDERS
    finally:
        plugins.unregister_app("notes")
        FILE_BUILDERS.remove("notes_late")


def _checklist() -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    return text.split("## How to add an app", 1)[1]


def test_the_checklist_has_the_steps_this_test_follows() -> None:
    steps = [int(n) for n in re.findall(r"^(\d+)\. \*\*", _checklist(), flags=re.M)]
    assert steps == list(range(1, 12)), "the checklist's steps changed: update this test to follow them"


def test_every_name_the_checklist_gives_exists() -> None:
    names = sorted(set(re.findall(r"`(asil(?:\.\w+)+)", _checklist())))
    assert len(names) >= 10
    for name in names:
        module, attr = name, ""
        while True:  # the longest importable prefix, then attributes
            try:
                load_target(f"{module}:{attr}")
                break
            except ModuleNotFoundError:
                module, _, last = module.rpartition(".")
                attr = f"{last}.{attr}".rstrip(".")
                assert module, f"ARCHITECTURE.md names {name}, which does not exist"
            except AttributeError:
                pytest.fail(f"ARCHITECTURE.md names {name}, which does not exist")
    for path in re.findall(r"`((?:src|tests)/[\w/.]+\.py)`", _checklist()):
        assert (ROOT / path).is_file(), f"ARCHITECTURE.md names {path}, which does not exist"
