"""OBS video settings as part of the document, against a real OBS Studio under a private Xvfb.

Canvas size, output size and frame rate live in OBS's profile; the adapter saves them to
``scenes.video.json`` beside the collection, seeds them into every OBS it (re)starts, and rolls
them back with a failed batch.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.obs.adapter import ObsAdapter
from asil.adapters.obs.builders import build_collection
from asil.adapters.obs.validator import raw_judge
from asil.adapters.obs.video import video_document
from asil.evaluate.checkpoints import CHECKPOINT_TYPES, Checkpoint, CheckpointUnreadable, EvalContext
from asil.evaluate.compare import compare
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("obs") is None or shutil.which("Xvfb") is None,
                                 reason="needs obs-studio and xvfb (scripts/install-system.sh)")]

SPEC: dict[str, Any] = {
    "name": "Video",
    "scenes": [{"name": "Main", "items": [{"source": "Backdrop"}]}, {"name": "Outer"}, {"name": "Inner"}],
    "inputs": [{"name": "Backdrop", "kind": "color", "settings": {"color": "#336699", "width": 640, "height": 360}}],
    "current_scene": "Main",
}
DEFAULT = {"base": [640, 360], "output": [640, 360], "fps": 30}


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def make_workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    (ws.root / "scenes.json").write_bytes(build_collection(SPEC))
    return ws


def program_video(adapter: ObsAdapter) -> dict[str, Any]:
    """The video settings the running OBS reports (the '@program' element)."""
    video: dict[str, Any] = adapter.observe().elements[0].value["video"]
    return video


def files(ws: Workspace) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(ws.root.glob("*.json"))}


def verdicts(ws: Workspace, expected: dict[str, Any]) -> list[tuple[bool, bool]]:
    """(evaluator, raw validator) verdicts of obs_video checkpoints for each expected field."""
    kind, ctx, found = CHECKPOINT_TYPES["obs_video"], EvalContext(ws), []
    for field, value in expected.items():
        cp = Checkpoint(type="obs_video", target=field, expected=value, tolerance=0.001)
        found.append((compare(kind.default_compare, kind.read(ctx, cp), value, 0.001), raw_judge(cp, ws)))
    return found


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ObsAdapter]:
    adapter = ObsAdapter(make_workspace(tmp_path_factory.mktemp("obsvideo")), "scenes.json")
    yield adapter
    adapter.close()


def test_video_is_saved_beside_the_collection_and_seeded_into_a_restarted_obs(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    wanted = {"base": [1280, 720], "output": [960, 540], "fps": 60}
    assert verdicts(ws, DEFAULT) == [(True, True)] * 3  # no file yet: OBS's defaults, and both readers say so
    with ObsAdapter(ws, "scenes.json") as adapter:
        result = adapter.execute(fn("set_video", base_width=1280, base_height=720, output_width=960,
                                    output_height=540, fps=60), observe=False)
        assert result.ok, result.error
        assert not (ws.root / "scenes.video.json").exists()  # written only by save
        adapter.save()
        # OBS killed: the restarted OBS keeps the new settings (they are the checkpoint now).
        assert adapter.session is not None and adapter.session.process is not None
        os.killpg(adapter.session.process.pid, signal.SIGKILL)
        assert program_video(adapter) == wanted and adapter.restarts == 1
    saved = json.loads((ws.root / "scenes.video.json").read_text())
    assert saved == {"baseWidth": 1280, "baseHeight": 720, "outputWidth": 960, "outputHeight": 540,
                     "fpsNumerator": 60, "fpsDenominator": 1}
    assert verdicts(ws, wanted) == [(True, True)] * 3
    assert verdicts(ws, DEFAULT) == [(False, False)] * 3
    with ObsAdapter(ws, "scenes.json") as fresh:  # a new OBS for this workspace starts with them
        assert program_video(fresh) == wanted
        assert fresh.saved_state()["video"] == wanted


def test_a_failed_batch_rolls_the_video_back(warm: ObsAdapter) -> None:
    assert warm.execute(fn("add_to_scene", scene="Outer", input="Inner"), observe=False).ok
    assert warm.execute(fn("set_video", base_width=960, base_height=540, fps=25), observe=False).ok
    before = program_video(warm)
    assert before == {"base": [960, 540], "output": [640, 360], "fps": 25}  # not OBS's defaults
    result = warm.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "set_video",
         "params": {"base_width": 1280, "base_height": 720, "fps": 50}},
        {"action_type": "invoke_function", "target": "add_to_scene", "params": {"scene": "Inner", "input": "Outer"}},
    ]}), observe=False)  # a scene inside itself: the checks pass, OBS refuses the second step
    assert result.status == "error" and result.error is not None
    assert result.error.message.startswith("Batch action 2: OBS refused"), result.error.message
    assert program_video(warm) == before
    warm.save()
    assert verdicts(warm.workspace, before) == [(True, True)] * 3


BAD_VIDEO = [
    ({"output_width": 642, "output_height": 360}, "output_width 642 is not a multiple of 4"),
    ({"output_width": 640, "output_height": 361}, "output_height 361 is not a multiple of 2"),
    ({"fps": 0}, "fps"),
    ({"base_width": 4, "base_height": 4}, "base_width"),
    ({"base_width": 8192, "base_height": 4320}, "base_width"),
]


@pytest.mark.parametrize(("params", "named"), BAD_VIDEO, ids=["width-642", "height-odd", "fps-0", "tiny", "huge"])
def test_invalid_video_is_refused_with_a_sentence_and_changes_nothing(warm: ObsAdapter, params: dict[str, Any],
                                                                      named: str) -> None:
    warm.save()
    before, saved = program_video(warm), files(warm.workspace)
    result = warm.execute(fn("set_video", **params), observe=False)
    assert result.status == "invalid" and result.error is not None and result.error.code == "bad_params"
    assert named in result.error.message and result.error.message.endswith(".") and result.error.hint
    assert program_video(warm) == before
    warm.save()
    assert files(warm.workspace) == saved


@pytest.mark.parametrize("content", [b"{not json", b"[]", b'{"baseWidth": 1280}',
                                     json.dumps({"baseWidth": 1280, "baseHeight": 720, "outputWidth": 642,
                                                 "outputHeight": 360, "fpsNumerator": 30,
                                                 "fpsDenominator": 1}).encode()])
def test_a_bad_video_file_is_refused_and_left_unchanged(tmp_path: Path, content: bytes) -> None:
    ws = make_workspace(tmp_path)
    (ws.root / "scenes.video.json").write_bytes(content)
    with pytest.raises(DocumentError) as caught:
        ObsAdapter(ws, "scenes.json")
    assert "'scenes.video.json'" in caught.value.message and caught.value.hint
    assert (ws.root / "scenes.video.json").read_bytes() == content


@pytest.mark.parametrize("document", ["scenes.json", "show/live.json", "show/live.obs"])
def test_evaluator_and_raw_validator_find_the_same_video_file(tmp_path: Path, document: str) -> None:
    ws = Workspace(tmp_path)
    target = ws.resolve(video_document(document))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps({"baseWidth": 1920, "baseHeight": 1080, "outputWidth": 1280,
                                  "outputHeight": 720, "fpsNumerator": 30000, "fpsDenominator": 1001}))
    kind, ctx = CHECKPOINT_TYPES["obs_video"], EvalContext(ws)
    for field, value, right in (("base", [1920, 1080], True), ("output", [1280, 720], True),
                                ("fps", 29.97, True), ("fps", 30, False), ("output", [640, 360], False),
                                ("size", [1, 1], False)):
        cp = Checkpoint(type="obs_video", document=document, target=field, expected=value, tolerance=0.01)
        try:
            verdict = compare(kind.default_compare, kind.read(ctx, cp), value, 0.01)
        except CheckpointUnreadable:
            verdict = False
        assert verdict is right and raw_judge(cp, ws) is right, cp
