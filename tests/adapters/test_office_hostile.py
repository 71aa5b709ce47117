"""Hostile and broken ODF files are refused before LibreOffice or any XML parser expands them."""

from __future__ import annotations

from pathlib import Path

import pytest

from asil.adapters.impress.adapter import ImpressAdapter
from asil.adapters.odf.safety import MAX_TOTAL_BYTES, UnsafeDocument
from asil.adapters.odf.xml import Package, RawReadError
from asil.adapters.writer.adapter import WriterAdapter
from asil.adapters.writer.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import DocumentError
from asil.workspace import Workspace
from tests.adapters.office_helpers import LAUGHS, STYLES, XXE, write_package

ODT = b"application/vnd.oasis.opendocument.text"
ODP = b"application/vnd.oasis.opendocument.presentation"


@pytest.mark.parametrize("payload", [XXE, LAUGHS], ids=["xxe", "billion-laughs"])
def test_entities_are_refused_by_the_adapter_and_the_raw_reader(workspace: Workspace, payload: bytes) -> None:
    path = workspace.resolve("evil.odt")
    write_package(path, ODT, {"content.xml": payload, "styles.xml": STYLES})
    before = path.read_bytes()
    with pytest.raises(UnsafeDocument, match="DTD or entities"):
        WriterAdapter(workspace, "evil.odt")
    with pytest.raises(RawReadError, match="DTD or entities"):
        Package.load(path)
    checkpoint = Checkpoint(type="document_text", app="writer", document="evil.odt", expected=".*")
    assert raw_judge(checkpoint, workspace) is False  # fail closed, nothing expanded
    assert path.read_bytes() == before


def test_a_zip_bomb_is_refused_from_its_directory(workspace: Workspace) -> None:
    path = workspace.resolve("bomb.odp")
    write_package(path, ODP, {"content.xml": b"<a/>", "styles.xml": STYLES, "Pictures/zeros.bin": bytes(8 * 1024 * 1024)})
    with pytest.raises(UnsafeDocument, match="compresses"):
        ImpressAdapter(workspace, "bomb.odp")
    with pytest.raises(RawReadError):
        Package.load(path)


def test_a_package_too_large_when_unpacked_is_refused(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    path = workspace.resolve("big.odt")
    write_package(path, ODT, {"content.xml": b"<a/>", "styles.xml": STYLES, "a.bin": b"x" * 4096})
    monkeypatch.setattr("asil.adapters.odf.safety.MAX_TOTAL_BYTES", 1024)
    with pytest.raises(UnsafeDocument, match="would unpack to"):
        WriterAdapter(workspace, "big.odt")
    assert MAX_TOTAL_BYTES > 1024


@pytest.mark.parametrize(("name", "data", "message"), [
    ("notzip.odt", b"plain text", "corrupted"),
    ("missing.odt", None, "does not exist"),
    ("wrong.txt", b"x", "not a .odt"),
])
def test_broken_files_get_one_clear_sentence(workspace: Workspace, name: str, data: bytes | None, message: str) -> None:
    if data is not None:
        Path(workspace.resolve(name)).write_bytes(data)
    with pytest.raises(DocumentError, match=message) as caught:
        WriterAdapter(workspace, name)
    assert caught.value.hint and caught.value.message.count(".") >= 1


def test_a_presentation_is_not_accepted_as_a_text_document(workspace: Workspace) -> None:
    write_package(workspace.resolve("deck.odt"), ODP, {"content.xml": b"<a/>", "styles.xml": STYLES})
    with pytest.raises(DocumentError, match="not a text document"):
        WriterAdapter(workspace, "deck.odt")
