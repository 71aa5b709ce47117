"""Kdenlive 23+ wraps the timeline (a "sequence" tractor) in a one-track tractor. The builder now writes Kdenlive
22.12 documents, so this layout is made here from a built one, to keep the adapter's and the raw validator's
reading of it tested: the tracks are found through the wrapper, edits land inside it and melt plays it."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from asil.adapters.kdenlive.adapter import KdenliveAdapter
from asil.adapters.kdenlive.validator import raw_judge
from asil.apps.melt import check_loads
from asil.evaluate.checkpoints import Checkpoint
from tests.adapters.kdenlive_files import NEEDS_MELT, fn, make_workspace, media_dir, spec

pytestmark = [NEEDS_MELT]


@pytest.fixture(scope="module")
def media(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return media_dir(tmp_path_factory)


def wrap_in_sequence(path: Path) -> None:
    """Rename the timeline tractor ``sequence`` and add the one-track ``main`` tractor around it, as 23+ saves."""
    tree = ET.parse(path)
    root = tree.getroot()
    timeline = [c for c in root if c.tag == "tractor"][-1]
    timeline.set("id", "sequence")
    ET.SubElement(ET.SubElement(root, "tractor", {"id": "main"}), "track", {"producer": "sequence"})
    tree.write(path, encoding="utf-8", xml_declaration=True)


def test_a_wrapped_sequence_is_read_and_edited_through_its_wrapper(tmp_path: Path, media: Path) -> None:
    ws = make_workspace(tmp_path, media, spec(layout="kdenlive"))
    wrap_in_sequence(ws.root / "edit.kdenlive")
    adapter = KdenliveAdapter(ws, "edit.kdenlive")
    tracks = [e.id for e in adapter.observe().elements if e.type == "track"]
    assert tracks == ["black_track", "V1", "V2"]
    assert adapter.execute(fn("move_clip", clip="white", position=110, track="V1")).ok
    adapter.save()
    expected = [["red.mp4", 0, 50], ["blue.mp4", 60, 110], ["color:white", 110, 135]]
    assert raw_judge(Checkpoint(type="kdenlive_track_clips", app="kdenlive", document="edit.kdenlive", target="V1",
                                expected=expected), ws)
    root = ET.parse(ws.root / "edit.kdenlive").getroot()
    assert [c.get("id") for c in root if c.tag == "tractor"][-2:] == ["sequence", "main"]  # the wrapper kept
    check_loads(ws.root / "edit.kdenlive")
