"""The optional accessibility tree of GUI observations, read over each session's own AT-SPI bus from the real
programs: a widget the tree names is really activated by a click at the centre of its box (Inkscape, Nautilus,
JupyterLab in Chromium; the effect is seen in the program's next tree), and an app whose GUI session publishes
no tree gets a one-sentence note instead."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from asil.gui.accessibility import TreeLimits, read_tree
from asil.gui.environment import GuiEnv
from asil.gui.vocabulary import Screen
from asil.tasks import get_task
from tests.chat_server import ChatServer
from tests.conftest import run_cli

pytestmark = [pytest.mark.gui, pytest.mark.slow]

BOX = re.compile(r"@(-?\d+),(-?\d+) (\d+)x(\d+)")


def widget(screen: Screen, role: str, name: str) -> str:
    """The tree's line of the shown widget with this role and name (the first, as the tree lists them)."""
    assert screen.accessibility is not None
    wanted = f'{role} "{name}" @'
    found = [line.strip() for line in screen.accessibility.splitlines() if line.strip().startswith(wanted)]
    assert found, f"no {wanted!r} in the tree:\n{screen.accessibility}"
    return found[0]


def centre(line: str) -> tuple[int, int]:
    match = BOX.search(line)
    assert match is not None, line
    x, y, width, height = (int(part) for part in match.groups())
    return x + width // 2, y + height // 2


def click_on(env: GuiEnv, screen: Screen, role: str, name: str) -> Screen:
    x, y = centre(widget(screen, role, name))
    step = env.step({"action": "left_click", "x": x, "y": y})
    assert step.ok, step.error
    return step.screen


def test_inkscape_tree_names_a_button_that_a_click_at_its_centre_presses() -> None:
    env = GuiEnv(get_task("ink-align-left"), accessibility=True)
    try:
        screen = env.reset()
        assert screen.accessibility is not None and screen.accessibility.startswith("Accessibility tree (")
        assert widget(screen, "push button", "Deselect").endswith("disabled")  # nothing selected yet
        after = click_on(env, screen, "push button", "Select All")
        assert not widget(after, "push button", "Deselect").endswith("disabled")  # Inkscape selected the objects
        assert env.session is not None
        capped = read_tree(env.session.accessibility_address(), TreeLimits(env.size, max_nodes=10))  # type: ignore[attr-defined]
        assert capped.nodes == 10 and "cut (node cap 10)" in capped.text.splitlines()[0]
        assert not env.evaluate().success  # selecting is not the task: the evaluator still judges the file
    finally:
        env.close()


def test_nautilus_tree_names_a_sidebar_place_that_a_click_at_its_centre_opens() -> None:
    env = GuiEnv(get_task("nautilus-rename-draft"), accessibility=True)
    try:
        screen = env.reset()
        assert widget(screen, "window", env.workspace.root.name if env.workspace else "?")
        after = click_on(env, screen, "label", "Trash")
        assert widget(after, "window", "Trash")  # Nautilus now shows the trash (its window is named after it)
    finally:
        env.close()


def test_an_app_without_a_tree_says_so_in_one_sentence() -> None:
    env = GuiEnv(get_task("calc-sort-scores"), accessibility=True)
    try:
        screen = env.reset()
        assert screen.accessibility is not None
        assert screen.accessibility.startswith("No accessibility tree: calc")
        assert screen.accessibility.count(". ") == 0 and screen.accessibility.endswith(".")
    finally:
        env.close()


def test_the_tree_is_off_unless_asked_for() -> None:
    env = GuiEnv(get_task("ink-align-left"))
    try:
        assert env.reset().accessibility is None
    finally:
        env.close()


def test_the_gui_participant_sends_the_tree_after_the_screenshot_and_the_trajectory_keeps_it(tmp_path: Path) -> None:
    server = ChatServer()
    server.behaviours.append({"text": json.dumps({"thought": "look first", "action": "screenshot"})})
    server.behaviours.append({"text": json.dumps({"thought": "give up", "action": "done"})})
    try:
        run_cli("run", "nautilus-rename-draft", "--agent", "gui", "--model", "local", "--base-url", server.url,
                "--no-stream", "--accessibility-tree", "--out", str(tmp_path))
    finally:
        server.close()
    parts = server.requests[0]["body"]["messages"][-1]["content"]
    assert [part["type"] for part in parts] == ["text", "image_url", "text"]
    assert parts[2]["text"].startswith("Accessibility tree (") and 'label "Trash" @' in parts[2]["text"]
    folder = tmp_path / "nautilus-rename-draft"
    kept = sorted(p.name for p in folder.glob("step_*.a11y.txt"))
    assert kept == ["step_0.a11y.txt", "step_1.a11y.txt", "step_2.a11y.txt"], kept
    assert (folder / "step_0.a11y.txt").read_text(encoding="utf-8") == parts[2]["text"]


def test_the_switch_belongs_to_the_gui_agent() -> None:
    ran = run_cli("run", "nautilus-rename-draft", "--agent", "react", "--accessibility-tree")
    assert ran.returncode == 2 and "--accessibility-tree applies to the gui agent only." in ran.stderr


def test_jupyterlab_tree_in_chromium_names_a_toolbar_button_that_a_click_at_its_centre_presses() -> None:
    env = GuiEnv(get_task("jupyter-title-markdown"), accessibility=True)
    try:
        screen = env.reset()
        assert screen.accessibility is not None
        editors = screen.accessibility.count(" entry @")  # one code editor per cell
        after = click_on(env, screen, "push button", "Insert a cell below (B)")
        assert after.accessibility is not None
        assert after.accessibility.count(" entry @") == editors + 1  # JupyterLab inserted a cell
    finally:
        env.close()
