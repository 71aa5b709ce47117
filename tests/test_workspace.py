import os
from pathlib import Path

import pytest

from asil import workspace as ws_module
from asil.workspace import PathOutsideWorkspace, Workspace, atomic_write


@pytest.mark.parametrize("bad", ["../x.ods", "/etc/passwd", "a/../../x", "", ".asil/snap.ods"])
def test_paths_outside_the_workspace_are_refused(workspace: Workspace, bad: str) -> None:
    with pytest.raises(PathOutsideWorkspace) as caught:
        workspace.resolve(bad)
    assert caught.value.hint and "relative" in caught.value.hint


def test_symlinks_pointing_out_are_refused(workspace: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("secret")
    (workspace.root / "link.txt").symlink_to(outside)
    (workspace.root / "dir").symlink_to(tmp_path)
    with pytest.raises(PathOutsideWorkspace, match="symlink"):
        workspace.resolve("link.txt")
    with pytest.raises(PathOutsideWorkspace, match="symlink"):
        workspace.resolve("dir/secret.txt")
    assert workspace.resolve("sub/new.ods") == workspace.root / "sub" / "new.ods"


def test_atomic_write_replaces_whole_files(workspace: Workspace) -> None:
    target = workspace.write_bytes("doc.txt", b"first")
    workspace.write_bytes("doc.txt", b"second")
    assert target.read_bytes() == b"second"
    assert workspace.files() == ["doc.txt"]


def test_a_failed_write_leaves_the_old_file_and_no_debris(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    target = workspace.write_bytes("doc.txt", b"original")

    def broken_fsync(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        atomic_write(target, b"half")
    monkeypatch.undo()
    assert target.read_bytes() == b"original"
    assert sorted(p.name for p in workspace.root.iterdir()) == ["doc.txt"]


def test_private_folder_is_hidden_from_agents(workspace: Workspace) -> None:
    (workspace.private() / "snapshot.ods").write_bytes(b"x")
    workspace.write_bytes("a.txt", b"a")
    assert workspace.files() == ["a.txt"]
    assert ws_module.PRIVATE_DIR == ".asil"
