"""The Impress adapter against the real LibreOffice."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from asil.adapters.impress.adapter import ImpressAdapter, create_presentation
from asil.adapters.impress.raw import read_slides
from asil.protocol import ActionResult, parse_action
from asil.workspace import Workspace
from tests.conftest import lo_convert

F = "invoke_function"

DECK = {"slides": [
    {"layout": "title_slide", "title": "Acme", "body": "Update"},
    {"layout": "title_content", "title": "Problem", "body": ["Slow picks", "Few staff"], "notes": "Cite the report."},
    {"layout": "title_content", "title": "Team", "body": ["Ana", "Raj"],
     "shapes": [{"name": "badge", "kind": "rect", "x_mm": 10, "y_mm": 100, "width_mm": 30, "height_mm": 10}]},
]}


@pytest.fixture
def deck(workspace: Workspace) -> Path:
    path = workspace.resolve("deck.odp")
    create_presentation(path, DECK)
    return path


def act(adapter: ImpressAdapter, raw: dict[str, object]) -> ActionResult:
    return adapter.execute(parse_action(raw))


def titles(adapter: ImpressAdapter) -> list[tuple[str, str]]:
    return [(s["id"], s["title"]) for s in adapter.read()]


def test_observation_shows_slides_shapes_notes_and_geometry(workspace: Workspace, deck: Path) -> None:
    with ImpressAdapter(workspace, "deck.odp") as impress:
        obs = impress.observe()
    elements = {e.id: e for e in obs.elements}
    assert elements["slide-2"].type == "slide" and elements["slide-2"].value == "Problem"
    assert elements["slide-2"].meta["notes"] == "Cite the report."
    assert elements["slide-2"].children == ["slide-2/title", "slide-2/body"]
    assert elements["slide-2/body"].value == "Slow picks\nFew staff"
    assert elements["slide-3/badge"].meta == {"x_mm": 10, "y_mm": 100, "width_mm": 30, "height_mm": 10}
    assert [s["title"] for s in obs.navigation.meta["slides"]] == ["Acme", "Problem", "Team"]


def test_slide_ids_survive_reordering_duplicating_deleting_and_reopening(workspace: Workspace, deck: Path) -> None:
    with ImpressAdapter(workspace, "deck.odp") as impress:
        assert act(impress, {"action_type": F, "target": "move_slide",
                             "params": {"slide": "slide-3", "position": 1}}).ok
        result = act(impress, {"action_type": F, "target": "duplicate_slide", "params": {"slide": "slide-2"}})
        assert result.ok and result.changed == ["slide-4"]
        assert act(impress, {"action_type": "set_value", "target": "slide-4/title", "params": {"text": "Problem 2"}}).ok
        assert act(impress, {"action_type": F, "target": "delete_slide", "params": {"slide": "slide-1"}}).ok
        expected = [("slide-3", "Team"), ("slide-2", "Problem"), ("slide-4", "Problem 2")]
        assert titles(impress) == expected
        impress.save()
    with ImpressAdapter(workspace, "deck.odp") as again:
        assert titles(again) == expected
    assert [(s["id"], s["title"]) for s in read_slides(deck)] == expected


def test_text_notes_geometry_transitions_and_new_slides(workspace: Workspace, deck: Path) -> None:
    with ImpressAdapter(workspace, "deck.odp") as impress:
        for action in [
            {"action_type": F, "target": "set_body", "params": {"slide": "slide-2", "text": ["A", "B", "C"]}},
            {"action_type": F, "target": "set_notes", "params": {"slide": "slide-1", "text": "Hello"}},
            {"action_type": F, "target": "set_geometry",
             "params": {"slide": "slide-3", "shape": "badge", "x_mm": 200, "width_mm": 50}},
            {"action_type": F, "target": "set_transition", "params": {"slides": ["slide-1", "slide-2"], "effect": "push"}},
            {"action_type": F, "target": "add_slide", "params": {"position": 2, "title": "Agenda", "body": ["x"]}},
            {"action_type": F, "target": "add_shape", "params": {
                "slide": "slide-4", "name": "stamp", "text": "Confidential",
                "x_mm": 5, "y_mm": 5, "width_mm": 50, "height_mm": 10}},
        ]:
            result = act(impress, action)
            assert result.ok, (action, result.error)
        impress.save()
    slides = read_slides(deck)
    assert [s["title"] for s in slides] == ["Acme", "Agenda", "Problem", "Team"]
    assert slides[2]["shapes"][1]["text"] == "A\nB\nC" and slides[0]["notes"] == "Hello"
    badge = next(s for s in slides[3]["shapes"] if s["id"] == "badge")
    assert (badge["x_mm"], badge["y_mm"], badge["width_mm"]) == (200, 100, 50)
    assert [s["transition"] for s in slides] == ["push", None, "push", None]
    assert any(s["text"] == "Confidential" for s in slides[1]["shapes"])


def test_a_failing_batch_changes_nothing(workspace: Workspace, deck: Path) -> None:
    with ImpressAdapter(workspace, "deck.odp") as impress:
        before = titles(impress)
        result = act(impress, {"action_type": "batch", "params": {"actions": [
            {"action_type": F, "target": "delete_slide", "params": {"slide": "slide-1"}},
            {"action_type": F, "target": "set_title", "params": {"slide": "slide-3", "text": "x"}},
            {"action_type": F, "target": "delete_shape", "params": {"slide": "slide-2", "shape": "title"}},
            {"action_type": F, "target": "set_title", "params": {"slide": "slide-2", "text": "no title any more"}},
        ]}})
        assert result.status == "invalid" and "undone" in result.error.message  # type: ignore[union-attr]
        assert titles(impress) == before


@pytest.mark.parametrize("raw", [
    {"action_type": "set_value", "target": "slide-9/title", "params": {"text": "x"}},
    {"action_type": "set_value", "target": "slide-1/nothing", "params": {"text": "x"}},
    {"action_type": F, "target": "move_slide", "params": {"slide": "slide-1", "position": 9}},
    {"action_type": F, "target": "set_geometry", "params": {"slide": "slide-3", "shape": "badge"}},
    {"action_type": F, "target": "set_transition", "params": {"slides": ["slide-1"], "effect": "explode"}},
    {"action_type": F, "target": "add_shape", "params": {"slide": "slide-3", "name": "badge", "x_mm": 1,
                                                                         "y_mm": 1, "width_mm": 1, "height_mm": 1}},
    {"action_type": "navigate", "target": "slide-42"},
])
def test_malformed_actions_are_invalid_and_leave_the_file_unchanged(workspace: Workspace, deck: Path,
                                                                    raw: dict[str, object]) -> None:
    before = deck.read_bytes()
    with ImpressAdapter(workspace, "deck.odp") as impress:
        result = act(impress, raw)
        assert result.status == "invalid" and result.error is not None and result.error.hint
        impress.save()
    assert deck.read_bytes() == before


@pytest.mark.slow
def test_a_200_slide_deck_is_windowed(workspace: Workspace) -> None:
    slides = [{"title": f"Topic {i}", "body": [f"Point {i}.{k} with a little more text to read" for k in range(5)],
               "notes": f"Notes for slide {i}."} for i in range(1, 201)]
    create_presentation(workspace.resolve("big.odp"), {"slides": slides})
    with ImpressAdapter(workspace, "big.odp") as impress:
        obs = impress.observe()
        assert obs.navigation.paging is not None and obs.navigation.paging.total == 200
        assert len(json.dumps(obs.to_agent_dict())) / 4 <= 8000
        assert act(impress, {"action_type": "navigate", "target": "slide-150"}).ok
        assert impress.observe().elements[0].value == "Topic 150"


def test_a_saved_presentation_opens_in_a_separate_libreoffice(workspace: Workspace, deck: Path, tmp_path: Path) -> None:
    with ImpressAdapter(workspace, "deck.odp") as impress:
        assert act(impress, {"action_type": "set_value", "target": "slide-1/title", "params": {"text": "Converted deck"}}).ok
        impress.save()
    pdf = lo_convert(deck, "pdf", tmp_path)
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    assert re.search(r"Pages:\s+3\n", info)
    assert "Converted deck" in subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
