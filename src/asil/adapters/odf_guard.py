"""Checks an OpenDocument file before any XML parser or LibreOffice sees it.

Hostile files must not hurt: a zip bomb is refused by its declared sizes, and XML that declares a
DOCTYPE (the door to external entities and billion-laughs expansion) is refused unread. ODF
producers never write a DOCTYPE, so nothing legitimate is lost.
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from asil.protocol import DocumentError

MAX_UNCOMPRESSED = 512 * 1024 * 1024  # all members together
MAX_RATIO = 200  # uncompressed / compressed, for members above RATIO_FLOOR
RATIO_FLOOR = 8 * 1024 * 1024
XML_MEMBERS = ("content.xml", "styles.xml", "meta.xml", "settings.xml")
HEAD_BYTES = 8192  # a DOCTYPE must come before the root element


def check_odf(path: Path, shown: str, mimetype: bytes, kind: str, suffix: str) -> None:
    """Refuse missing, corrupted, wrong-type, oversized or entity-declaring ODF files."""
    valid = f"Give an OpenDocument {kind} ({suffix}) saved by LibreOffice or another ODF program."
    if path.suffix.lower() != suffix:
        raise DocumentError(f"{shown!r} is not a {suffix} file.", hint=valid)
    if not path.is_file():
        raise DocumentError(f"{shown!r} does not exist in the workspace.", hint=valid)
    try:
        with zipfile.ZipFile(path) as archive:
            _check_sizes(archive, shown)
            found = archive.read("mimetype").strip()
            archive.getinfo("content.xml")
            _check_xml_heads(archive, shown)
    except (zipfile.BadZipFile, KeyError, OSError, EOFError):
        raise DocumentError(f"{shown!r} is corrupted or not an OpenDocument file.", hint=valid) from None
    if found != mimetype:
        raise DocumentError(f"{shown!r} is an OpenDocument file but not a {kind} "
                            f"({found.decode(errors='replace')}).", hint=valid)


def _check_sizes(archive: zipfile.ZipFile, shown: str) -> None:
    total = 0
    for info in archive.infolist():
        total += info.file_size
        ratio = info.file_size / max(info.compress_size, 1)
        if total > MAX_UNCOMPRESSED or (info.file_size > RATIO_FLOOR and ratio > MAX_RATIO):
            raise DocumentError(f"{shown!r} expands to more data than a document plausibly holds (a zip bomb?).",
                                hint=f"Documents up to {MAX_UNCOMPRESSED // 2**20} MiB uncompressed are accepted.")


def _check_xml_heads(archive: zipfile.ZipFile, shown: str) -> None:
    names = set(archive.namelist())
    for member in XML_MEMBERS:
        if member in names:
            with archive.open(member) as handle:
                head = handle.read(HEAD_BYTES)
            if b"<!DOCTYPE" in head or b"<!ENTITY" in head:
                raise DocumentError(f"{shown!r} declares XML entities in {member}, which ODF files never need.",
                                    hint="Re-save the document with LibreOffice; ASIL refuses DOCTYPE declarations.")
