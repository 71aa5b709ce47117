"""Reading and writing draw.io's text forms safely.

* XML is parsed with expat directly and any DOCTYPE or entity declaration is refused, so
  external entities and billion-laughs documents are never expanded (nothing is fetched).
* A compressed diagram is ``base64(deflate_raw(encodeURIComponent(xml)))``; inflating stops
  at ``MAX_INFLATED`` bytes so a deflate bomb is refused instead of filling memory.
* Labels of ``html=1`` cells are HTML; ``plain_text`` strips tags for display.
"""

from __future__ import annotations

import base64
import binascii
import html
import re
import zlib
from html.parser import HTMLParser
from urllib.parse import quote, unquote
from xml.etree import ElementTree as ET
from xml.parsers import expat

MAX_INFLATED = 32 * 1024 * 1024  # a 5,000-cell page is ~3 MB URL-encoded; bombs stop here
MAX_FILE_BYTES = 64 * 1024 * 1024
_URI_SAFE = "!*'()"  # with quote's own safe set this is exactly what encodeURIComponent leaves alone
BLOCK_TAGS = frozenset({"br", "div", "p", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6"})


class UnsafeDocument(ValueError):
    """The text is not something ASIL will parse (DTDs, entities, bombs, broken encodings)."""


def parse_xml(data: str | bytes) -> ET.Element:
    """Parse XML into an ElementTree element, refusing DOCTYPE and entity declarations."""
    parser = expat.ParserCreate()
    builder = ET.TreeBuilder()

    def refuse(*_: object) -> None:
        raise UnsafeDocument("it declares a DOCTYPE or entities, which draw.io files never do")

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse  # type: ignore[assignment]
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    parser.StartElementHandler = builder.start
    parser.EndElementHandler = builder.end
    parser.CharacterDataHandler = builder.data
    try:
        parser.Parse(data, True)
    except expat.ExpatError as exc:
        raise UnsafeDocument(f"it is not well-formed XML ({expat.ErrorString(exc.code)} at line {exc.lineno})") from None
    root: ET.Element = builder.close()
    return root


def to_xml(element: ET.Element) -> str:
    return ET.tostring(element, encoding="unicode")


def inflate(text: str, limit: int = MAX_INFLATED) -> str:
    """Decode a compressed diagram's text to its XML; refuse output beyond ``limit`` bytes."""
    try:
        raw = base64.b64decode("".join(text.split()), validate=True)
    except (binascii.Error, ValueError):
        raise UnsafeDocument("its compressed diagram is not valid base64") from None
    inflater = zlib.decompressobj(-zlib.MAX_WBITS)
    try:
        out = inflater.decompress(raw, limit + 1)
    except zlib.error:
        raise UnsafeDocument("its compressed diagram is not valid deflate data") from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise UnsafeDocument(f"its compressed diagram inflates beyond {limit // (1024 * 1024)} MiB (a deflate bomb?)")
    try:
        return unquote(out.decode("ascii"), errors="strict")
    except UnicodeDecodeError:
        raise UnsafeDocument("its compressed diagram does not hold URL-encoded UTF-8 text") from None


def deflate(xml: str) -> str:
    """Compress XML the way draw.io does (encodeURIComponent, raw deflate, base64)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, -zlib.MAX_WBITS)
    data = packer.compress(quote(xml, safe=_URI_SAFE).encode("ascii")) + packer.flush()
    return base64.b64encode(data).decode("ascii")


class _TextOnly(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in BLOCK_TAGS and tag != "br":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def plain_text(value: str, is_html: bool) -> str:
    """The text a label shows: tags stripped (block tags become line breaks), blank lines dropped."""
    if is_html and ("<" in value or "&" in value):
        stripper = _TextOnly()
        stripper.feed(value)
        stripper.close()
        value = "".join(stripper.parts)
    lines = (" ".join(line.split()) for line in value.replace("\xa0", " ").splitlines())
    return "\n".join(line for line in lines if line)


def html_label(text: str) -> str:
    """Plain text as the value of an ``html=1`` cell (escaped, line breaks as <br>)."""
    return "<br>".join(html.escape(line, quote=False) for line in text.split("\n"))


def norm_label(text: str) -> str:
    """Labels compare case- and whitespace-insensitively."""
    return " ".join(text.split()).casefold()


# ---------------------------------------------------------------- styles

Style = list[tuple[str, str | None]]  # ordered; bare names (e.g. 'ellipse', 'text') have None
_STYLE_KEY = re.compile(r"^[A-Za-z_][\w.\-]*$")


def parse_style(text: str) -> Style:
    style: Style = []
    for token in text.split(";"):
        token = token.strip()
        if not token:
            continue
        key, eq, value = token.partition("=")
        style.append((key, value if eq else None))
    return style


def format_style(style: Style) -> str:
    return "".join(f"{key}={value};" if value is not None else f"{key};" for key, value in style)


def style_dict(text: str) -> dict[str, str | None]:
    return dict(parse_style(text))


def valid_style_key(key: str) -> bool:
    return bool(_STYLE_KEY.match(key))


def shape_of(style: dict[str, str | None]) -> str:
    """The shape a vertex draws: ``shape=...``, else a bare style name, else a rectangle."""
    if style.get("shape"):
        return str(style["shape"])
    for key, value in style.items():
        if value is None:
            return key
    return "rectangle"
