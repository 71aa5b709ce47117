"""The GIMP adapter against a real warm gimp-console: observation, actions, atomicity, saving, faults.

One warm adapter serves the module's read-mostly tests (GIMP starts in about two seconds).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.gimp.adapter import GimpAdapter
from asil.adapters.gimp.builders import build_image
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("gimp-console") is None, reason="needs gimp (scripts/install-system.sh)")]

SPEC: dict[str, Any] = {
    "width": 64, "height": 48, "background": [200, 200, 200],
    "layers": [{"name": "Box", "x": 8, "y": 8, "width": 16, "height": 12, "color": [255, 0, 0]},
               {"name": "Ghost", "x": 0, "y": 0, "width": 10, "height": 10, "color": [0, 0, 255], "opacity": 40,
                "visible": False}]}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def image_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("xcf") / "art.xcf"
    build_image(path, SPEC)
    return path


@pytest.fixture(scope="module")
def warm(image_file: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[GimpAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("warm"))
    shutil.copyfile(image_file, ws.root / "art.xcf")
    adapter = GimpAdapter(ws, "art.xcf")
    yield adapter
    adapter.close()


def layers(adapter: GimpAdapter) -> dict[str, Any]:
    return {e.id: e for e in adapter.observe().elements if not e.id.startswith("@")}


def test_the_observation_shows_canvas_layers_selection_and_pixel_statistics(warm: GimpAdapter) -> None:
    obs = warm.observe()
    image, selection = obs.elements[0], obs.elements[1]
    assert obs.metadata.source == "script" and image.value == {"width": 64, "height": 48, "mode": "RGB"}
    assert selection.id == "@selection" and selection.value is None
    shown = layers(warm)
    assert list(shown) == ["Ghost", "Box", "Background"]
    assert shown["Box"].value == {"width": 16, "height": 12, "offset_x": 8, "offset_y": 8, "opacity": 100,
                                  "visible": True}
    assert shown["Ghost"].value["visible"] is False and shown["Ghost"].value["opacity"] == pytest.approx(40, abs=0.5)
    stats = shown["Box"].meta["stats"]
    assert stats["channels"] == "RGBA" and stats["mean"] == [255, 0, 0, 255] and stats["max"][0] == 255
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 3


def test_edits_change_the_real_image_and_a_batch_can_use_its_own_new_layer(warm: GimpAdapter) -> None:
    batch = Action(action_type="batch", params={"actions": [
        fn("add_layer", name="Paint", fill="white").model_dump(),
        fn("select_ellipse", x=0, y=0, width=20, height=20).model_dump(),
        fn("fill", layer="Paint", color=[0, 128, 0]).model_dump(),
        fn("select_none").model_dump()]})
    result = warm.execute(batch)
    assert result.ok, result.error
    paint = layers(warm)["Paint"].meta["stats"]
    assert paint["min"][:3] == [0, 128, 0] and paint["max"][:3] == [255, 255, 255]  # white with a green disc
    assert warm.execute(fn("invert", layer="Box")).ok
    assert layers(warm)["Box"].meta["stats"]["mean"][:3] == [0, 255, 255]
    assert warm.execute(fn("rotate_layer", layer="Box", angle=90.0)).ok
    assert warm.execute(fn("rotate_layer", layer="Box", angle=-90.0)).ok
    assert layers(warm)["Box"].value | {"width": 16, "height": 12} == layers(warm)["Box"].value
    assert warm.execute(fn("move_layer", layer="Paint", position=3)).ok
    assert list(layers(warm)) == ["Ghost", "Box", "Background", "Paint"]
    assert warm.execute(fn("delete_layer", layer="Paint")).ok
    text = warm.execute(fn("add_text_layer", text="Hi", x=2, y=3, size=10.0))
    assert text.ok and text.changed == ["Hi"] and layers(warm)["Hi"].meta["text"] == "Hi"
    assert warm.execute(fn("delete_layer", layer="Hi")).ok


def test_agent_text_reaches_gimp_only_as_data(warm: GimpAdapter) -> None:
    sneaky = 'x") (gimp-image-delete 1) ("\\'
    result = warm.execute(fn("add_text_layer", text=sneaky, name=sneaky, size=8.0))
    assert result.ok, result.error
    shown = layers(warm)
    assert shown[sneaky].meta["text"] == sneaky and "Box" in shown
    assert warm.execute(fn("rename_layer", layer=sneaky, name='quote " and \\ slash')).ok
    assert warm.execute(fn("delete_layer", layer='quote " and \\ slash')).ok


def test_invalid_parameters_get_one_sentence_and_change_nothing(warm: GimpAdapter) -> None:
    before = warm.observe().model_dump()
    bad = [
        (fn("crop_image", x=50, y=0, width=30, height=10), "outside"),
        (fn("blur", layer="Nope", radius=2.0), "no layer 'Nope'"),
        (fn("fill", layer="Box", color=[300, 0, 0]), "color"),
        (fn("scale_image", width=0, height=10), "width"),
        (fn("add_layer", name="Box"), "already exists"),
        (fn("move_layer", layer="Box", position=9), "past the bottom"),
        (fn("levels", layer="Box", low_input=200, high_input=100), "low_input"),
        (fn("add_text_layer", text="a\x00b"), None),
        (fn("export_image", path="../escape.png"), "climbs out"),
        (fn("paint_bucket"), "Unknown GIMP function"),
        (Action(action_type="batch", params={"actions": [fn("invert", layer="Box").model_dump(),
                                                         fn("invert", layer="Missing").model_dump()]}), "Batch action 2"),
    ]
    for action, words in bad:
        result = warm.execute(action, observe=False)
        assert result.status == "invalid", action
        assert result.error is not None and (words is None or words in result.error.message), result.error
    after = warm.observe().model_dump()
    before["metadata"]["step"] = after["metadata"]["step"]
    assert after == before


def test_a_batch_that_fails_part_way_is_rolled_back(warm: GimpAdapter) -> None:
    before = layers(warm)
    gray = fn("add_layer", name="Gray", fill="white").model_dump()
    failing = fn("desaturate", layer="Gray").model_dump()  # runs in GIMP; the next one is refused later
    late = fn("rename_layer", layer="Gray", name="Box").model_dump()
    result = warm.execute(Action(action_type="batch", params={"actions": [gray, failing, late]}))
    assert result.status == "invalid" and result.error is not None and "Batch action 3" in result.error.message
    assert {k: v.value for k, v in layers(warm).items()} == {k: v.value for k, v in before.items()}


def test_navigation_pages_a_large_stack_within_the_token_budget(tmp_path: Path) -> None:
    from asil.llm.base import estimate_tokens

    spec = {"width": 32, "height": 32, "background": [0, 0, 0],
            "layers": [{"name": f"L{i:02d}", "x": i, "y": i, "width": 4, "height": 4, "color": [i * 8, 0, 0]}
                       for i in range(30)]}
    build_image(tmp_path / "many.xcf", spec)
    with GimpAdapter(Workspace(tmp_path), "many.xcf") as adapter:
        first = adapter.observe()
        assert first.navigation.paging is not None and first.navigation.paging.total == 31
        assert [e.id for e in first.elements[2:]] == [f"L{i:02d}" for i in range(29, 4, -1)]  # 25 a page
        assert estimate_tokens(json.dumps(first.to_agent_dict())) < 8000
        assert adapter.execute(Action(action_type="navigate", target="L03")).ok
        assert [e.id for e in adapter.observe().elements[2:]] == ["L03", "L02", "L01", "L00", "Background"]


def test_save_is_atomic_and_keeps_layers_in_xcf_and_flattens_png(image_file: Path, tmp_path: Path) -> None:
    from asil.adapters.gimp.xcf import read_xcf
    from tests.png import pixels

    ws = Workspace(tmp_path)
    shutil.copyfile(image_file, tmp_path / "art.xcf")
    with GimpAdapter(ws, "art.xcf") as adapter:
        assert adapter.execute(fn("set_layer", layer="Box", opacity=50.0, offset_x=20), observe=False).ok
        assert adapter.execute(fn("export_image", path="out/flat.png"), observe=False).ok
        adapter.save()
        adapter.render(tmp_path / "shot.png")
    saved = read_xcf(tmp_path / "art.xcf")
    box = next(layer for layer in saved.layers if layer.name == "Box")
    assert (box.opacity, box.offset_x, box.offset_y) == (pytest.approx(50, abs=0.5), 20, 8)
    assert pixels(tmp_path / "out" / "flat.png")[:2] == (64, 48)
    assert pixels(tmp_path / "shot.png")[:2] == (64, 48)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".asil", "art.xcf", "out", "shot.png"]
    assert list((tmp_path / ".asil").iterdir()) == [] and os.listdir(tmp_path / "out") == ["flat.png"]


def test_hostile_files_are_refused_with_one_sentence_and_left_alone(image_file: Path, tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "fake.png").write_bytes(b"this is not an image")
    (tmp_path / "cut.xcf").write_bytes(image_file.read_bytes()[:200])
    (tmp_path / "notes.txt").write_text("hello")
    before = {name: digest(tmp_path / name) for name in ("fake.png", "cut.xcf", "notes.txt")}
    with pytest.raises(DocumentError, match="not a PNG image"):
        GimpAdapter(ws, "fake.png")
    with pytest.raises(DocumentError, match="could not read 'cut.xcf'"):
        GimpAdapter(ws, "cut.xcf")
    with pytest.raises(DocumentError, match="not an image type"):
        GimpAdapter(ws, "notes.txt")
    assert {name: digest(tmp_path / name) for name in before} == before


def test_a_hung_or_killed_gimp_gives_an_error_result_and_restarts_from_the_last_good_state(
        image_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from asil.adapters.functions import FunctionTable
    from asil.adapters.gimp import adapter as gimp_adapter
    from asil.adapters.gimp import operations

    ws = Workspace(tmp_path)
    shutil.copyfile(image_file, tmp_path / "art.xcf")
    hang = operations.Operation("(let loop () (loop))", ["Box"], "layer")
    with GimpAdapter(ws, "art.xcf") as adapter:
        assert adapter.execute(fn("set_layer", layer="Box", offset_x=30), observe=False).ok
        hanging = [replace(f, handler=lambda p, c: hang) if f.name == "blur" else f for f in operations.FUNCTIONS.values()]
        monkeypatch.setattr(GimpAdapter, "functions", FunctionTable("GIMP", hanging))  # a script that never returns
        monkeypatch.setattr(gimp_adapter, "SLOW_TIMEOUT_S", 2.0)
        started = time.monotonic()
        hung = adapter.execute(fn("blur", layer="Box", radius=1.0))
        assert time.monotonic() - started < 30 and hung.status == "error" and hung.error is not None
        assert hung.error.code == "gimp_crashed" and adapter.restarts == 1
        assert hung.observation is not None  # the observation comes from the restarted GIMP
        box = next(e for e in hung.observation.elements if e.id == "Box")
        assert box.value["offset_x"] == 30  # the last good state came back
        monkeypatch.setattr(gimp_adapter, "SLOW_TIMEOUT_S", 60.0)
        assert adapter.session is not None
        threading.Timer(1.0, adapter.session.program.process.kill).start()
        killed = adapter.execute(fn("blur", layer="Box", radius=1.0), observe=False)
        assert killed.status == "error" and killed.error is not None and killed.error.code == "gimp_crashed"
        monkeypatch.undo()
        assert adapter.execute(fn("invert", layer="Box"), observe=False).ok and adapter.restarts == 2
        pid = adapter.session.program.pid
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_checkpoints_and_the_raw_validator_read_files_and_fail_closed(image_file: Path, tmp_path: Path) -> None:
    from asil.adapters.gimp.validator import raw_judge
    from asil.evaluate.checkpoints import Checkpoint
    from asil.evaluate.evaluator import evaluate_paths

    ws = Workspace(tmp_path)
    shutil.copyfile(image_file, tmp_path / "art.xcf")
    build_image(tmp_path / "flat.png", SPEC)
    (tmp_path / "broken.xcf").write_bytes(image_file.read_bytes()[:100])
    good = Checkpoint(type="gimp_layer_value", app="gimp", document="art.xcf", target="Box.offset_x", expected=8)
    ghost = good.model_copy(update={"target": "Nobody.offset_x"})
    broken = good.model_copy(update={"document": "broken.xcf"})
    red = Checkpoint(type="gimp_pixel_stats", app="gimp", document="flat.png", target="mean@8,8,16,12",
                     expected=[255, 0, 0], tolerance=0.5)
    same = Checkpoint(type="gimp_similarity", app="gimp", document="flat.png", target="flat.png",
                      expected=[0.99, None])
    checks = [good, ghost, broken, red, same]
    verdicts = evaluate_paths([[cp] for cp in checks], ws)
    assert [p.success for p in verdicts.paths] == [True, False, False, True, True]
    assert [raw_judge(cp, ws) for cp in checks] == [True, False, False, True, True]


def test_gimp_runs_with_a_clean_environment(warm: GimpAdapter) -> None:
    """GIMP runs Script-Fu built from model text in-process; it starts with none of ASIL's variables."""
    warm.observe()
    assert warm.session is not None
    environ = (Path("/proc") / str(warm.session.program.pid) / "environ").read_bytes()
    names = {entry.split(b"=", 1)[0].decode() for entry in environ.split(b"\0") if b"=" in entry}
    clean = {"PATH", "HOME", "LANG", "TMPDIR", "TERM", "GIMP2_DIRECTORY", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "LC_ALL",
             "ASIL_REAPER"}
    assert "PATH" in names and names <= clean, names - clean
    assert not names & set(os.environ) - clean  # none of this test process's own variables
