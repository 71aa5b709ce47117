"""The Writer adapter's two access paths (issue 15, the paper's path-restriction study): the file-backed path
(the .odt's XML edited with lxml, no LibreOffice) and the script-dispatch path (the engine script in a warm
LibreOffice). Same tasks, action vocabulary and observation builder; the evaluator is LibreOffice.
A representative subset of the core Writer tasks runs here; benchmarks/path_restriction.py runs them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from asil.adapters.writer.adapter import WriterAdapter
from asil.env import Env
from asil.evaluate.raw import raw_verdict
from asil.protocol import ActionFailed, InvalidAction, parse_action
from asil.tasks import load_tasks
from asil.tasks.model import Task

PATHS = ["dispatch", "file"]
TASKS = {task.id: task for task in load_tasks(suite="core", app="writer")}
# Paragraph text, lists (numbered, bulleted, split), tables (rows, cells, a new one), styles, header/footer,
# find/replace in a batch, infeasible.
SUBSET = ["writer-retitle", "writer-unlist-step", "writer-make-list", "writer-drop-budget-row",
          "writer-insert-schedule", "writer-heading-levels", "writer-header-footer", "writer-rename-project",
          "writer-add-logo"]


def on_path(task: Task, path: str) -> Task:
    """The task with its Writer adapter on ``path`` (the adapter option the benchmark sets too)."""
    copy = task.model_copy(deep=True)
    copy.setup.options.setdefault("writer", {})["access_path"] = path
    return copy


def act(adapter: WriterAdapter, raw: dict[str, Any]) -> Any:
    return adapter.execute(parse_action(raw))


def solve(task: Task, path: str) -> Env:
    """An environment on ``path`` after the task's reference solution (every step must succeed)."""
    env = Env(on_path(task, path))
    env.reset()
    for step in task.reference_steps():
        outcome = env.step(step)
        assert outcome.result.ok, (path, step, outcome.result.error)
    return env


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("task_id", SUBSET)
def test_reference_succeeds_and_untouched_state_fails_on_both_paths(task_id: str, path: str) -> None:
    task = TASKS[task_id]
    untouched = Env(on_path(task, path))
    try:
        observation = untouched.reset()
        assert observation.environment["access_path"] == path
        assert not untouched.evaluate().success
    finally:
        untouched.close()
    env = solve(task, path)
    try:
        evaluation = env.evaluate()
        assert evaluation.success
        assert env.workspace is not None  # the raw validator agrees on the file this path saved
        outcome = task.reference_steps()[-1].action_type
        for checkpoints, verdict in zip(task.evaluator.paths, evaluation.paths, strict=True):
            for checkpoint, judged in zip(checkpoints, verdict.checkpoints, strict=True):
                assert raw_verdict(checkpoint, env.workspace, outcome, None, "writer") == judged.passed, checkpoint
    finally:
        env.close()


@pytest.mark.parametrize("task_id", ["writer-unlist-step", "writer-insert-schedule", "writer-header-footer"])
def test_both_paths_observe_alike_and_leave_the_same_document(task_id: str) -> None:
    """The agent sees the same elements on both paths, and LibreOffice reads the same saved document."""
    observed, documents = [], []
    for path in PATHS:
        env = solve(TASKS[task_id], path)
        try:
            observation = env.adapters["writer"].observe()
            observed.append(([e.model_dump() for e in observation.elements], observation.navigation.model_dump()))
            document = env.task.document_for("writer")
            assert document is not None and env.workspace is not None
            env.evaluate()  # saves, then judges
            with WriterAdapter(env.workspace, document) as libreoffice:
                documents.append(libreoffice.read())
        finally:
            env.close()
    assert observed[0] == observed[1]
    assert documents[0] == documents[1]


# Edits beyond the references: partial bold/italic and a character style, document-wide find/replace
# (plain and regex) through formatted text, a line break and a double space, a numbered list, un-listing a
# bulleted item, table rows in the middle, a footer on and off, a header, a built-in style the file lacks,
# the page, a UI style name, leading spaces and a tab.
RICHER_EDITS = [
    {"action_type": "invoke_function", "target": "format_text",
     "params": {"paragraph": "p4", "text": "legacy billing", "bold": True}},
    {"action_type": "invoke_function", "target": "format_text",
     "params": {"paragraph": "p4", "text": "billing service", "italic": True}},
    {"action_type": "invoke_function", "target": "format_text",
     "params": {"paragraph": "p6", "text": "Vendor", "char_style": "Emphasis"}},
    {"action_type": "invoke_function", "target": "find_replace", "params": {"find": "Falcon", "replace": "Osprey"}},
    {"action_type": "invoke_function", "target": "find_replace",
     "params": {"find": "b(i)lling", "replace": "inv$1ces", "regex": True}},
    {"action_type": "set_value", "target": "p2", "params": {"text": "First line\nSecond  line"}},
    {"action_type": "invoke_function", "target": "insert_paragraph",
     "params": {"after": "p12", "text": "Numbered one", "list": "number"}},
    {"action_type": "invoke_function", "target": "set_list", "params": {"paragraphs": ["p8"], "kind": "none"}},
    {"action_type": "invoke_function", "target": "add_table_rows", "params": {"table": "Budget", "row": 2, "count": 2}},
    {"action_type": "set_value", "target": "Budget.A2", "params": {"value": 3.5}},
    {"action_type": "invoke_function", "target": "set_footer", "params": {"text": "Footer one"}},
    {"action_type": "invoke_function", "target": "set_footer", "params": {"text": None}},
    {"action_type": "invoke_function", "target": "set_header", "params": {"text": "Head"}},
    {"action_type": "invoke_function", "target": "set_paragraph_style", "params": {"paragraphs": ["p3"], "style": "Heading 3"}},
    {"action_type": "invoke_function", "target": "set_page", "params": {"orientation": "landscape", "margin_left_mm": 12.5}},
    {"action_type": "invoke_function", "target": "insert_paragraph",
     "params": {"before": "Budget", "text": "  lead spaces\tand tab", "style": "Text Body"}},
    {"action_type": "invoke_function", "target": "delete", "params": {"id": "p10"}},
]


def test_richer_edits_leave_the_same_document_on_both_paths() -> None:
    finals = []
    for path in PATHS:
        env = Env(on_path(TASKS["writer-unlist-step"], path))
        try:
            env.reset()
            writer = env.adapters["writer"]
            assert isinstance(writer, WriterAdapter) and env.workspace is not None
            for edit in RICHER_EDITS:
                assert act(writer, edit).ok, (path, edit)
            seen = [e.model_dump() for e in writer.observe(limit=60).elements]
            writer.save()
            with WriterAdapter(env.workspace, "memo.odt") as libreoffice:
                finals.append((seen, libreoffice.read()))
        finally:
            env.close()
    assert finals[0] == finals[1]
    blocks = {b["id"]: b for b in finals[1][1]["blocks"]}
    assert blocks["p2"]["text"] == "First line\nSecond  line" and blocks["p3"]["level"] == 3
    assert {"text": "invices", "bold": True, "italic": True} in blocks["p4"]["spans"]


@pytest.mark.parametrize("path", PATHS)
def test_refused_actions_leave_the_file_byte_for_byte_unchanged(path: str) -> None:
    env = Env(on_path(TASKS["writer-retitle"], path))
    try:
        env.reset()
        writer = env.adapters["writer"]
        assert isinstance(writer, WriterAdapter)
        assert act(writer, {"action_type": "set_value", "target": "p1", "params": {"text": "Falcon  status\tQ3"}}).ok
        writer.save()
        saved = writer.path.read_bytes()
        assert act(writer, {"action_type": "set_value", "target": "p999", "params": {"text": "x"}}).status == "invalid"
        doomed = act(writer, {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "insert_paragraph",
             "params": {"after": "p1", "text": "written first"}},
            {"action_type": "invoke_function", "target": "set_paragraph_style",
             "params": {"paragraphs": ["p2"], "style": "No Such Style"}}]}})
        assert not doomed.ok and doomed.error.code == "no_style" and "undone" in doomed.error.message
        alone = act(writer, {"action_type": "invoke_function", "target": "insert_paragraph",
                             "params": {"after": "p1", "text": "styled wrongly", "style": "No Such Style"}})
        assert not alone.ok and alone.error.code == "no_style"  # refused before a paragraph is inserted
        missing = act(writer, {"action_type": "invoke_function", "target": "format_text",
                               "params": {"paragraph": "p2", "text": "not in it", "bold": True}})
        assert not missing.ok and missing.error.code == "no_match"
        assert writer.observe().elements[0].value == "Falcon  status\tQ3"  # spaces and tab kept exactly
        values = [e.value for e in writer.observe().elements]
        assert "written first" not in values and "styled wrongly" not in values
        assert not writer.dirty
        writer.save()
        assert writer.path.read_bytes() == saved
    finally:
        env.close()


def test_the_file_path_refuses_pdf_export_and_changes_nothing() -> None:
    env = Env(on_path(TASKS["writer-export-pdf"], "file"))
    try:
        env.reset()
        writer = env.adapters["writer"]
        before = writer.path.read_bytes()  # type: ignore[attr-defined]
        refused = env.step(TASKS["writer-export-pdf"].reference_steps()[0]).result
        assert refused.status == "error" and refused.error.code == "unsupported_on_file_path"
        assert "dispatch access path" in refused.error.message
        assert env.workspace is not None and not env.workspace.resolve("memo.pdf").exists()
        with pytest.raises(ActionFailed):
            writer.render(env.workspace.resolve("page.png"))
        observation = writer.observe()
        assert observation.app_state.details["pages"] is None and "page count unknown" in observation.summary
        assert "access path: file" in writer.schema().tips[-1].lower()
        writer.save()
        assert writer.path.read_bytes() == before  # type: ignore[attr-defined]
    finally:
        env.close()


def test_the_file_path_never_starts_libreoffice(tmp_path: Path) -> None:
    from asil.apps.libreoffice import Office
    from asil.workspace import Workspace

    env = Env(on_path(TASKS["writer-make-list"], "file"))
    try:
        env.reset()
        assert env.workspace is not None
        office = Office()  # a LibreOffice of its own that nothing else would start
        with WriterAdapter(Workspace(env.workspace.root), "memo.odt", office=office, access_path="file") as writer:
            assert act(writer, {"action_type": "invoke_function", "target": "set_list",
                                "params": {"paragraphs": ["p3", "p4"], "kind": "number"}}).ok
            labels = [e.meta.get("list", {}).get("label") for e in writer.observe().elements[2:4]]
            assert labels == ["1.", "2."]
            writer.save()
        assert not office.alive
    finally:
        env.close()


def test_an_unknown_access_path_is_refused() -> None:
    env = Env(TASKS["writer-retitle"])
    try:
        env.reset()
        assert env.workspace is not None
        with pytest.raises(InvalidAction, match="access path"):
            WriterAdapter(env.workspace, "memo.odt", access_path="gui")
    finally:
        env.close()
