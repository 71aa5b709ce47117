"""Thunderbird's mail server under a TMPDIR that its mail user cannot reach (found by benchmarks/long_run.py,
which points TMPDIR into a private ``mkdtemp`` folder: every IMAP listing failed)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from asil.adapters.thunderbird.adapter import ThunderbirdAdapter
from asil.apps.mailserver import reachable_temp_dir
from asil.protocol import Action
from asil.workspace import Workspace


def test_a_private_tmpdir_is_passed_over_and_the_mailbox_still_answers(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    private = Path(tempfile.mkdtemp(dir=tmp_path))  # 0700, like any mkdtemp folder
    scratch = private / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    assert reachable_temp_dir() == "/tmp"
    ws = Workspace(tmp_path / "ws")
    with ThunderbirdAdapter(ws, ThunderbirdAdapter.create_sample(ws)) as adapter:
        result = adapter.execute(Action.model_validate(
            {"action_type": "set_value", "target": "INBOX#2.read", "params": {"value": True}}))
        assert result.ok, result.error
    open_folder = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        open_folder.chmod(0o755)
        monkeypatch.setattr(tempfile, "tempdir", str(open_folder))
        assert reachable_temp_dir() == str(open_folder)  # a TMPDIR the mail user can reach is kept
    finally:
        open_folder.rmdir()
