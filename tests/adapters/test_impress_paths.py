"""The Impress adapter's two access paths (issue 15, the paper's path-restriction study): the file-backed path
(the .odp's XML edited with lxml, no LibreOffice) and the script-dispatch path (the engine script in a warm
LibreOffice). Same tasks, action vocabulary and observation builder; the evaluator is LibreOffice.
A representative subset of the core Impress tasks runs here; benchmarks/path_restriction.py runs them all."""

from __future__ import annotations

from typing import Any

import pytest

from asil.adapters.impress.adapter import ImpressAdapter
from asil.env import Env
from asil.evaluate.raw import raw_verdict
from asil.protocol import parse_action
from asil.tasks import load_tasks
from asil.tasks.model import Task

PATHS = ["dispatch", "file"]
TASKS = {task.id: task for task in load_tasks(suite="core", app="impress")}
# New, duplicated, moved and deleted slides; placeholder and shape text; a new text box; geometry; notes;
# transitions; a batch; infeasible.
SUBSET = ["impress-agenda", "impress-split-slide", "impress-swap", "impress-drop-backup", "impress-confidential",
          "impress-move-logo", "impress-remove-stamp", "impress-notes-open-close", "impress-fade-all",
          "impress-embed-video"]


def on_path(task: Task, path: str) -> Task:
    """The task with its Impress adapter on ``path`` (the adapter option the benchmark sets too)."""
    copy = task.model_copy(deep=True)
    copy.setup.options.setdefault("impress", {})["access_path"] = path
    return copy


def act(adapter: ImpressAdapter, raw: dict[str, Any]) -> Any:
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
                assert raw_verdict(checkpoint, env.workspace, outcome, None, "impress") == judged.passed, checkpoint
    finally:
        env.close()


@pytest.mark.parametrize("task_id", ["impress-agenda", "impress-split-slide", "impress-confidential"])
def test_both_paths_observe_alike_and_leave_the_same_presentation(task_id: str) -> None:
    """The agent sees the same elements on both paths, and LibreOffice reads the same saved slides."""
    observed, decks = [], []
    for path in PATHS:
        env = solve(TASKS[task_id], path)
        try:
            observation = env.adapters["impress"].observe()
            observed.append(([e.model_dump() for e in observation.elements], observation.navigation.model_dump(),
                             observation.app_state.details))
            document = env.task.document_for("impress")
            assert document is not None and env.workspace is not None
            env.evaluate()  # saves, then judges
            with ImpressAdapter(env.workspace, document) as libreoffice:
                decks.append(libreoffice.read())
        finally:
            env.close()
    assert observed[0] == observed[1]
    assert decks[0] == decks[1]


# Edits beyond the references: new slides (first, last, another layout), a rectangle and an ellipse, geometry,
# every transition and none, duplicate, delete and move (to the end), two-line notes, shape and body text.
RICHER_EDITS = [
    {"action_type": "invoke_function", "target": "add_slide",
     "params": {"position": 1, "layout": "title_content", "title": "First", "body": ["a", "b  c"]}},
    {"action_type": "invoke_function", "target": "add_slide", "params": {"layout": "title_slide", "title": "End"}},
    {"action_type": "invoke_function", "target": "add_shape", "params": {
        "slide": "slide-2", "name": "box", "kind": "rect", "text": "Boxed", "x_mm": 10, "y_mm": 20, "width_mm": 30,
        "height_mm": 15}},
    {"action_type": "invoke_function", "target": "add_shape", "params": {
        "slide": "slide-2", "name": "oval", "kind": "ellipse", "x_mm": 50, "y_mm": 20, "width_mm": 30, "height_mm": 15}},
    {"action_type": "invoke_function", "target": "set_geometry", "params": {"slide": "slide-2", "shape": "title", "y_mm": 12.34}},
    {"action_type": "invoke_function", "target": "set_transition", "params": {"slides": ["slide-2"], "effect": "push"}},
    {"action_type": "invoke_function", "target": "set_transition", "params": {"slides": ["slide-3"], "effect": "wipe"}},
    {"action_type": "invoke_function", "target": "set_transition", "params": {"slides": ["slide-4"], "effect": "cover"}},
    {"action_type": "invoke_function", "target": "set_transition", "params": {"slides": ["slide-4"], "effect": "none"}},
    {"action_type": "invoke_function", "target": "duplicate_slide", "params": {"slide": "slide-2"}},
    {"action_type": "invoke_function", "target": "delete_slide", "params": {"slide": "slide-3"}},
    {"action_type": "invoke_function", "target": "set_notes", "params": {"slide": "slide-2", "text": "line one\nline two"}},
    {"action_type": "invoke_function", "target": "move_slide", "params": {"slide": "slide-1", "position": 8}},
    {"action_type": "set_value", "target": "slide-2/box", "params": {"text": "Reboxed"}},
    {"action_type": "invoke_function", "target": "set_body", "params": {"slide": "slide-4", "text": ["x", "y", "z"]}},
]


def test_richer_edits_leave_the_same_presentation_on_both_paths() -> None:
    finals = []
    for path in PATHS:
        env = Env(on_path(TASKS["impress-retitle"], path))
        try:
            env.reset()
            impress = env.adapters["impress"]
            assert isinstance(impress, ImpressAdapter) and env.workspace is not None
            for edit in RICHER_EDITS:
                assert act(impress, edit).ok, (path, edit)
            seen = [e.model_dump() for e in impress.observe(limit=20).elements]
            impress.save()
            with ImpressAdapter(env.workspace, "deck.odp") as libreoffice:
                finals.append((seen, libreoffice.read()))
        finally:
            env.close()
    assert finals[0] == finals[1]
    deck = {slide["id"]: slide for slide in finals[1][1]}
    assert deck["slide-2"]["transition"] == "push" and deck["slide-2"]["notes"] == "line one\nline two"
    assert [s["id"] for s in finals[1][1]][-1] == "slide-1"


@pytest.mark.parametrize("path", PATHS)
def test_refused_actions_leave_the_file_byte_for_byte_unchanged(path: str) -> None:
    env = Env(on_path(TASKS["impress-retitle"], path))
    try:
        env.reset()
        impress = env.adapters["impress"]
        assert isinstance(impress, ImpressAdapter)
        assert act(impress, {"action_type": "set_value", "target": "slide-2/title", "params": {"text": "Problem  1"}}).ok
        impress.save()
        saved = impress.path.read_bytes()
        assert act(impress, {"action_type": "set_value", "target": "slide-9/title",
                             "params": {"text": "x"}}).status == "invalid"
        doomed = act(impress, {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "duplicate_slide", "params": {"slide": "slide-2"}},
            {"action_type": "invoke_function", "target": "set_shape_text",
             "params": {"slide": "slide-2", "shape": "title", "text": "written"}},
            {"action_type": "invoke_function", "target": "delete_shape", "params": {"slide": "slide-3", "shape": "title"}},
            {"action_type": "invoke_function", "target": "set_title", "params": {"slide": "slide-3", "text": "again"}}]}})
        assert not doomed.ok and doomed.error.code == "no_placeholder" and "undone" in doomed.error.message
        titles = [e.value for e in impress.observe(limit=20).elements if e.type == "slide"]
        assert titles[1] == "Problem  1" and len(titles) == 6
        assert not impress.dirty
        impress.save()
        assert impress.path.read_bytes() == saved
    finally:
        env.close()


def test_the_file_path_refuses_what_needs_autolayout_and_changes_nothing() -> None:
    env = Env(on_path(TASKS["impress-retitle"], "file"))
    try:
        env.reset()
        impress = env.adapters["impress"]
        assert isinstance(impress, ImpressAdapter)
        before = impress.path.read_bytes()
        for refused in (
            {"action_type": "invoke_function", "target": "set_layout", "params": {"slide": "slide-2", "layout": "blank"}},
            {"action_type": "invoke_function", "target": "add_slide", "params": {"layout": "title_only", "title": "x"}},
            {"action_type": "invoke_function", "target": "export_pdf", "params": {"path": "deck.pdf"}},
        ):
            result = act(impress, refused)
            assert result.status == "error" and result.error.code == "unsupported_on_file_path", refused
            assert "dispatch access path" in result.error.message
        assert env.workspace is not None and not env.workspace.resolve("deck.pdf").exists()
        assert "access path: file" in impress.schema().tips[-1].lower()
        assert not impress.dirty
        impress.save()
        assert impress.path.read_bytes() == before
    finally:
        env.close()
