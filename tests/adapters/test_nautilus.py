"""The Nautilus adapter against a real Nautilus on a private Xvfb and D-Bus session.

One warm adapter serves the module; each test works in its own folder of the shared workspace.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.nautilus.adapter import NautilusAdapter
from asil.adapters.nautilus.builders import build_tree
from asil.adapters.nautilus.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.llm.base import estimate_tokens
from asil.protocol import Action, DocumentError
from asil.tasks import load_tasks
from asil.tasks.setup import SetupError
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("nautilus") is None or shutil.which("dbus-run-session") is None,
                                 reason="needs nautilus and dbus (scripts/install-system.sh)")]


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def batch(*actions: Action) -> Action:
    return Action(action_type="batch", params={"actions": [a.model_dump(exclude_none=True) for a in actions]})


def disk_state(root: Path) -> str:
    """Everything on disk (tree, trash, bookmarks) as one comparable string."""
    found = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in ("runtime", "cache", "nautilus-undo")]
        for name in sorted(files) + sorted(dirs):
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if rel.startswith(".asil/nautilus/") and not rel.startswith((".asil/nautilus/data/Trash",
                                                                          ".asil/nautilus/config/gtk-3.0")):
                continue
            info = os.lstat(path)
            content = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(info.st_mode) else ""
            found[rel] = (oct(info.st_mode), content)
    return json.dumps(found, sort_keys=True)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NautilusAdapter]:
    ws = Workspace(tmp_path_factory.mktemp("nautilus-ws"))
    adapter = NautilusAdapter(ws, op_timeout_s=20)
    yield adapter
    adapter.close()


@pytest.fixture
def area(warm: NautilusAdapter, request: pytest.FixtureRequest) -> Path:
    """A fresh folder of the shared workspace for one test, holding a.txt and sub/b.txt."""
    folder = warm.workspace.root / request.node.name.replace("[", "_").replace("]", "")
    (folder / "sub").mkdir(parents=True)
    (folder / "a.txt").write_text("alpha\n")
    (folder / "sub" / "b.txt").write_text("beta\n")
    return folder


def ok(adapter: NautilusAdapter, action: Action) -> list[str]:
    result = adapter.execute(action, observe=False)
    assert result.ok, result.error
    return result.changed


def test_observation_lists_the_tree_with_metadata_and_hides_the_private_area(warm: NautilusAdapter, area: Path) -> None:
    (area / "a.txt").chmod(0o640)
    warm.execute(Action(action_type="navigate", params={"folder": area.name}), observe=False)
    obs = warm.observe()
    by_id = {e.id: e for e in obs.elements}
    entry = by_id[f"{area.name}/a.txt"]
    assert (entry.type, entry.value, entry.meta["mode"]) == ("file", 6, "0640")
    assert entry.meta["mtime"].endswith("Z")
    assert by_id[f"{area.name}/sub"].type == "folder"
    assert obs.navigation.paging is not None and obs.navigation.paging.total == 3
    assert obs.metadata.source == "service" and obs.app_state.details["folder"] == area.name
    warm.execute(Action(action_type="navigate", params={"folder": "."}), observe=False)
    assert not any(e.id.startswith(".asil") for e in warm.observe().elements)


def test_copy_move_and_rename_go_through_nautilus(warm: NautilusAdapter, area: Path) -> None:
    name = area.name
    ok(warm, fn("create_folder", path=f"{name}/out"))
    ok(warm, fn("copy", sources=[f"{name}/a.txt", f"{name}/sub"], destination=f"{name}/out"))
    assert (area / "out" / "a.txt").read_text() == "alpha\n" and (area / "out" / "sub" / "b.txt").is_file()
    assert (area / "a.txt").is_file()
    ok(warm, fn("move", sources=[f"{name}/a.txt"], destination=f"{name}/sub"))
    assert not (area / "a.txt").exists() and (area / "sub" / "a.txt").read_text() == "alpha\n"
    changed = ok(warm, fn("rename", path=f"{name}/sub/a.txt", new_name="c.txt"))
    assert changed == [f"{name}/sub/a.txt", f"{name}/sub/c.txt"] and (area / "sub" / "c.txt").is_file()
    assert warm.session is not None and warm.session.alive


def test_trash_records_the_original_path_and_restore_brings_it_back(warm: NautilusAdapter, area: Path) -> None:
    target = f"{area.name}/sub/b.txt"
    changed = ok(warm, fn("trash", paths=[target]))
    assert not (area / "sub" / "b.txt").exists()
    items = [e for e in warm.observe().elements if e.type == "trash_item" and e.value == target]
    assert len(items) == 1 and items[0].id in changed
    in_trash = Checkpoint(type="nautilus_in_trash", target=target, expected=True)
    assert raw_judge(in_trash, warm.workspace)
    ok(warm, fn("restore", path=target))
    assert (area / "sub" / "b.txt").read_text() == "beta\n"
    assert not raw_judge(in_trash, warm.workspace)


def test_restore_refuses_to_overwrite_and_empty_trash_removes_everything(warm: NautilusAdapter, area: Path) -> None:
    target = f"{area.name}/a.txt"
    ok(warm, fn("trash", paths=[target]))
    (area / "a.txt").write_text("new\n")
    before = disk_state(warm.workspace.root)
    result = warm.execute(fn("restore", path=target), observe=False)
    assert result.status == "invalid" and result.error is not None and "exists again" in result.error.message
    assert disk_state(warm.workspace.root) == before
    ok(warm, fn("empty_trash"))
    assert not [e for e in warm.observe().elements if e.type == "trash_item"]
    assert (area / "a.txt").read_text() == "new\n"


@pytest.mark.parametrize("archive", ["pack.zip", "pack.tar.gz"])
def test_compress_and_extract_round_trip(warm: NautilusAdapter, area: Path, archive: str) -> None:
    name = area.name
    ok(warm, fn("compress", paths=[f"{name}/a.txt", f"{name}/sub"], archive=f"{name}/{archive}"))
    ok(warm, fn("extract", archive=f"{name}/{archive}", destination=f"{name}/unpacked"))
    assert (area / "unpacked" / "a.txt").read_text() == "alpha\n"
    assert (area / "unpacked" / "sub" / "b.txt").read_text() == "beta\n"
    members = Checkpoint(type="nautilus_archive_members", target=f"{name}/{archive}",
                         expected=["a.txt", "sub", "sub/b.txt"])
    assert raw_judge(members, warm.workspace)


def test_compress_never_packs_through_a_symlink(warm: NautilusAdapter, area: Path) -> None:
    os.symlink("/etc", area / "sub" / "outside")
    ok(warm, fn("compress", paths=[f"{area.name}/sub"], archive=f"{area.name}/sub.zip"))
    with zipfile.ZipFile(area / "sub.zip") as zf:
        assert sorted(zf.namelist()) == ["sub/", "sub/b.txt"]


def test_permissions_and_bookmarks(warm: NautilusAdapter, area: Path) -> None:
    name = area.name
    ok(warm, fn("set_permissions", path=f"{name}/a.txt", mode="0600"))
    assert stat.S_IMODE((area / "a.txt").stat().st_mode) == 0o600
    locked = warm.execute(fn("set_permissions", path=f"{name}/sub", mode="0055"), observe=False)
    assert locked.status == "invalid" and stat.S_IMODE((area / "sub").stat().st_mode) != 0o055
    ok(warm, fn("bookmark", path=f"{name}/sub", label="Sub folder"))
    marks = {e.id: e for e in warm.observe().elements if e.type == "bookmark"}
    assert marks[f"bookmark:{name}/sub"].label == "Sub folder"
    assert raw_judge(Checkpoint(type="nautilus_bookmark_label", target=f"{name}/sub", expected="Sub folder"),
                     warm.workspace)
    ok(warm, fn("remove_bookmark", path=f"{name}/sub"))
    assert f"bookmark:{name}/sub" not in {e.id for e in warm.observe().elements}


def test_show_folder_opens_a_window_nautilus_reports(warm: NautilusAdapter, area: Path) -> None:
    ok(warm, fn("show_folder", path=f"{area.name}/sub"))
    assert f"{area.name}/sub" in warm.observe().environment["nautilus"]["windows"]


def test_a_failing_batch_changes_nothing(warm: NautilusAdapter, area: Path) -> None:
    name = area.name
    ok(warm, fn("trash", paths=[f"{name}/sub/b.txt"]))  # so the batch's empty_trash has work to undo
    before = disk_state(warm.workspace.root)
    result = warm.execute(batch(fn("create_folder", path=f"{name}/new"),
                                fn("copy", sources=[f"{name}/a.txt"], destination=f"{name}/new"),
                                fn("trash", paths=[f"{name}/a.txt"]),
                                fn("empty_trash"),
                                fn("bookmark", path=f"{name}/new"),
                                fn("rename", path=f"{name}/missing.txt", new_name="x.txt")), observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.startswith("Batch action 6 (rename)")
    assert disk_state(warm.workspace.root) == before


def test_an_operation_that_times_out_is_undone(warm: NautilusAdapter, area: Path) -> None:
    for number in range(300):
        (area / "sub" / f"f{number}.txt").write_text("x" * 2000)
    before = disk_state(warm.workspace.root)
    warm.op_timeout_s = 0.0  # the copy cannot finish in no time: the adapter gives up and restores
    try:
        result = warm.execute(fn("copy", sources=[f"{area.name}/sub"], destination="."), observe=False)
    finally:
        warm.op_timeout_s = 20
    assert result.status == "error" and result.error is not None and result.error.code == "operation_timeout"
    assert disk_state(warm.workspace.root) == before
    ok(warm, fn("create_folder", path=f"{area.name}/after"))  # a fresh Nautilus takes over


HOSTILE = [
    fn("trash", paths=["../outside.txt"]),
    fn("trash", paths=["/etc/passwd"]),
    fn("create_file", path=".asil/nautilus/config/gtk-3.0/bookmarks", content="x"),
    fn("delete_permanently", paths=["escape/passwd"]),
    fn("delete_permanently", paths=["private-link/nautilus"]),
    fn("delete_permanently", paths=["."]),
    fn("copy", sources=["hostile/a.txt"], destination="hostile/sub/../../.."),
    fn("rename", path="hostile/a.txt", new_name="../a.txt"),
    fn("move", sources=["hostile"], destination="hostile/sub"),
    fn("create_file", path="hostile/a.txt", content="overwrite?"),
    fn("extract", archive="hostile/evil.zip", destination="hostile/x"),
    fn("extract", archive="hostile/fake.zip", destination="hostile/y"),
    fn("extract", archive="hostile/through-link.zip", destination="hostile/dest"),
    fn("set_permissions", path="hostile/a.txt", mode="999"),
    fn("restore", path="hostile/never-trashed.txt"),
    fn("no_such_function"),
    Action(action_type="navigate", params={"limit": 100000}),
    Action(action_type="set_value", target="hostile/a.txt", params={"value": 1}),
]


@pytest.mark.parametrize("action", HOSTILE, ids=lambda a: f"{a.target}-{json.dumps(a.params)[:40]}")
def test_hostile_input_is_refused_clearly_and_changes_nothing(warm: NautilusAdapter, action: Action) -> None:
    root = warm.workspace.root
    if not (root / "hostile").exists():
        (root / "hostile" / "sub").mkdir(parents=True)
        (root / "hostile" / "a.txt").write_text("keep\n")
        (root / "hostile" / "fake.zip").write_text("not a zip")
        with zipfile.ZipFile(root / "hostile" / "evil.zip", "w") as zf:
            zf.writestr("../../evil.txt", "pwned")
        with zipfile.ZipFile(root / "hostile" / "through-link.zip", "w") as zf:
            zf.writestr("link/evil.txt", "pwned")
        (root / "hostile" / "dest").mkdir()
        os.symlink(root.parent, root / "hostile" / "dest" / "link")
        os.symlink("/etc", root / "escape")
        os.symlink(".asil", root / "private-link")
    before = disk_state(root)
    result = warm.execute(action, observe=False)
    assert result.status == "invalid" and result.error is not None
    assert result.error.message.endswith(".") and result.error.hint
    assert disk_state(root) == before
    assert not (root.parent / "evil.txt").exists()


def test_a_10000_file_tree_is_paged_within_8k_tokens(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    for folder in range(100):
        (tmp_path / f"dir{folder:03d}").mkdir()
        for number in range(100):
            (tmp_path / f"dir{folder:03d}" / f"file{number:03d}.txt").write_text("x")
    adapter = NautilusAdapter(ws)  # observing needs no running Nautilus
    try:
        obs = adapter.observe()
        assert obs.navigation.paging is not None and obs.navigation.paging.total == 10_100
        assert estimate_tokens(json.dumps(obs.to_agent_dict())) <= 8000
        result = adapter.execute(Action(action_type="navigate", params={"folder": "dir099", "offset": 90}))
        assert result.observation is not None and result.observation.elements[0].id == "dir099/file090.txt"
        assert adapter.session is None
    finally:
        adapter.close()


def test_state_outlives_close_and_render_makes_a_png(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "old.txt").write_text("old")
    adapter = NautilusAdapter(ws)
    try:
        ok(adapter, fn("trash", paths=["docs/old.txt"]))
        ok(adapter, fn("bookmark", path="docs", label="Docs"))
        png = adapter.render(tmp_path / "shot.png")
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        adapter.save()
    finally:
        adapter.close()
    assert adapter.session is None
    assert raw_judge(Checkpoint(type="nautilus_in_trash", target="docs/old.txt", expected=True), ws)
    assert raw_judge(Checkpoint(type="nautilus_bookmarked", target="docs", expected=True), ws)
    from PIL import Image

    with Image.open(tmp_path / "shot.png") as shot:  # a drawn window, not a blank screen
        assert len(shot.convert("RGB").getcolors(maxcolors=1 << 20) or []) > 20
    with tarfile.open(fileobj=None, mode="w:gz", name=tmp_path / "t.tgz"):
        pass  # an empty archive: checkpoints read it as no members
    assert raw_judge(Checkpoint(type="nautilus_archive_members", target="t.tgz", expected=[]), ws)


def test_a_document_must_be_a_workspace_folder(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "file.txt").write_text("x")
    with NautilusAdapter(ws, "docs") as adapter:
        assert adapter.observe().app_state.details["folder"] == "docs"
    for bad in ("file.txt", "missing", "../etc"):
        with pytest.raises(DocumentError):
            NautilusAdapter(ws, bad)


def test_the_file_tree_builder_refuses_paths_that_leave_the_tree(tmp_path: Path) -> None:
    task = load_tasks(app="nautilus")[0]
    for spec in ({"entries": [{"path": "../escape.txt", "content": "x"}]},
                 {"entries": [{"path": ".asil/x", "content": "x"}]}):
        with pytest.raises(SetupError):
            build_tree(spec, tmp_path, task)
    with pytest.raises(SetupError):
        build_tree({"entries": [], "trash": [{"path": "a.txt"}]}, tmp_path / "sub", task, at_workspace_root=False)
    assert not (tmp_path.parent / "escape.txt").exists()


def test_names_that_need_escaping_in_uris_work_end_to_end(warm: NautilusAdapter, area: Path) -> None:
    odd = f"{area.name}/Ünïcode (1) + 50% #a"
    ok(warm, fn("create_folder", path=odd))
    ok(warm, fn("copy", sources=[f"{area.name}/a.txt"], destination=odd))
    ok(warm, fn("trash", paths=[f"{odd}/a.txt"]))
    assert raw_judge(Checkpoint(type="nautilus_in_trash", target=f"{odd}/a.txt", expected=True), warm.workspace)
    ok(warm, fn("restore", path=f"{odd}/a.txt"))
    ok(warm, fn("bookmark", path=odd, label="Odd one"))
    assert raw_judge(Checkpoint(type="nautilus_bookmark_label", target=odd, expected="Odd one"), warm.workspace)
    ok(warm, fn("remove_bookmark", path=odd))
    assert (area / "Ünïcode (1) + 50% #a" / "a.txt").read_text() == "alpha\n"
