"""Helpers for the Writer/Impress tests: PNG pixel statistics and hostile ODF packages."""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path


def png_stats(path: Path) -> tuple[int, int, float]:
    """(width, height, share of non-white bytes) of an 8-bit PNG, read with the standard library."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    idat, pos = b"", 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    row = len(raw) // height
    pixels = b"".join(raw[r * row + 1:(r + 1) * row] for r in range(height))  # drop filter bytes
    # Filtered rows mix in deltas, so count bytes far from white in unfiltered (type 0) rows only.
    plain = [raw[r * row + 1:(r + 1) * row] for r in range(height) if raw[r * row] == 0]
    sample = b"".join(plain) or pixels
    dark = sum(1 for b in sample if b < 200)
    return width, height, dark / max(len(sample), 1)


def write_package(path: Path, mimetype: bytes, members: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", mimetype, compress_type=zipfile.ZIP_STORED)
        for name, data in members.items():
            archive.writestr(name, data, compress_type=zipfile.ZIP_DEFLATED)


OFFICE_NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
             'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"')
XXE = (b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>'
       b'<office:document-content ' + OFFICE_NS.encode() + b'><office:body><office:text><text:p>&secret;</text:p>'
       b'</office:text></office:body></office:document-content>')
LAUGHS = (b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
          + b"".join(b'<!ENTITY lol%d "%s">' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * 10) for i in range(1, 10))
          + b']><office:document-content ' + OFFICE_NS.encode() + b'><office:body><office:text><text:p>&lol9;</text:p>'
          b'</office:text></office:body></office:document-content>')
STYLES = b'<?xml version="1.0"?><office:document-styles ' + OFFICE_NS.encode() + b'/>'
