"""Refuse hostile OpenDocument packages before LibreOffice or any XML parser sees them.

Zip bombs are caught from the central directory (entry count, total uncompressed size,
compression ratio); XML external entities and entity expansion ("billion laughs") are
caught by refusing any DTD in the package's XML members. Nothing is ever expanded.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.etree import ElementTree

from asil.protocol import DocumentError

MAX_ENTRIES = 2_000
MAX_TOTAL_BYTES = 256 * 1024 * 1024
MAX_MEMBER_BYTES = 128 * 1024 * 1024
MAX_RATIO = 200  # uncompressed / compressed, for members above RATIO_FLOOR
RATIO_FLOOR = 1024 * 1024
_DTD = re.compile(rb"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


class UnsafeDocument(DocumentError):
    code = "unsafe_document"


def check_package(path: Path, shown: str, mimetype: bytes, extension: str, kind: str) -> None:
    """Refuse a missing, non-ODF, wrong-kind, oversized or entity-laden package (one clear sentence)."""
    valid = f"Give an OpenDocument {kind} ({extension}) saved by LibreOffice or another ODF program."
    if path.suffix.lower() != extension:
        raise DocumentError(f"{shown!r} is not a {extension} file.", hint=valid)
    if not path.is_file():
        raise DocumentError(f"{shown!r} does not exist in the workspace.", hint=valid)
    try:
        with zipfile.ZipFile(path) as archive:
            check_sizes(archive, shown)
            found = archive.read("mimetype").strip()
            for name in archive.namelist():
                if name.endswith(".xml") or name.endswith(".rdf"):
                    check_xml(archive.read(name), f"{shown}:{name}")
            archive.getinfo("content.xml")
    except (zipfile.BadZipFile, KeyError, OSError, EOFError, RuntimeError, NotImplementedError):
        raise DocumentError(f"{shown!r} is corrupted or not an OpenDocument file.", hint=valid) from None
    if not is_variant(found, mimetype):
        raise DocumentError(f"{shown!r} is an OpenDocument file but not a {kind} ({found.decode(errors='replace')}).",
                            hint=valid)


def is_variant(found: bytes, mimetype: bytes) -> bool:
    """Whether a package's ``found`` mimetype is ``mimetype`` or one of its ODF variants, which the same
    LibreOffice application opens: templates (``text-template``), master documents (``text-master``) and
    HTML-derived text (``text-web``, what ``soffice --convert-to odt`` writes from an HTML page)."""
    return found == mimetype or found.startswith(mimetype + b"-")


def check_sizes(archive: zipfile.ZipFile, shown: str) -> None:
    """Judge the archive by its directory alone, before decompressing anything."""
    hint = "Open only genuine documents; this one looks like a zip bomb."
    entries = archive.infolist()
    if len(entries) > MAX_ENTRIES:
        raise UnsafeDocument(f"{shown!r} holds {len(entries)} files; at most {MAX_ENTRIES} are accepted.", hint=hint)
    total = sum(e.file_size for e in entries)
    if total > MAX_TOTAL_BYTES:
        raise UnsafeDocument(f"{shown!r} would unpack to {total} bytes; at most {MAX_TOTAL_BYTES} are accepted.",
                             hint=hint)
    for entry in entries:
        if entry.file_size > MAX_MEMBER_BYTES:
            raise UnsafeDocument(f"{shown!r}: {entry.filename} would unpack to {entry.file_size} bytes; at most "
                                 f"{MAX_MEMBER_BYTES} per file.", hint=hint)
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > RATIO_FLOOR and ratio > MAX_RATIO:
            raise UnsafeDocument(f"{shown!r}: {entry.filename} compresses {ratio:.0f}:1; at most {MAX_RATIO}:1 is accepted.",
                                 hint=hint)


def check_xml(data: bytes, shown: str) -> None:
    """Refuse XML that declares a DTD (the carrier of external and recursive entities)."""
    if _DTD.search(data):
        raise UnsafeDocument(f"{shown} declares a DTD or entities, which ODF documents never need; it was refused "
                             "without expanding anything.", hint="Save the document again from an office program.")
    if data[:2] in (b"\xff\xfe", b"\xfe\xff") or b"\x00" in data[:64]:
        raise UnsafeDocument(f"{shown} is not UTF-8 XML.", hint="ODF XML is UTF-8.")


def parse_member(archive: zipfile.ZipFile, name: str, shown: str) -> ElementTree.Element:
    """Parse one XML member after the DTD check, so entities can never be expanded."""
    data = archive.read(name)
    check_xml(data, f"{shown}:{name}")
    return ElementTree.fromstring(data)
