"""JSON with comments — VS Code's settings.json, keybindings.json and tasks.json — read and edited surgically.

VS Code's files carry the user's comments and layout. An edit here changes only the bytes of the
member it touches: a new member is appended after the last one (after its trailing comment, in the
file's own indentation), a changed value replaces just the old value's text, a removed member takes
its line with it. Everything else stays byte for byte. Callers re-parse the result and compare it
with the intended data, so a wrong edit can never be written.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_LITERAL = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')
_SPACE = re.compile(r"(?:\s+|//[^\n]*|/\*.*?\*/)+", re.S)
DEFAULT_INDENT = "    "


class JsoncError(ValueError):
    """The text is not JSON with comments; the message names the line and column."""


@dataclass
class Node:
    """A value in the text: ``start``/``end`` span its characters (``end`` exclusive)."""

    kind: str  # object | array | scalar
    start: int
    end: int
    entries: list[Entry] = field(default_factory=list)


@dataclass
class Entry:
    """An object member (with ``key``) or an array item; ``comma`` is the position of the comma after it."""

    start: int
    value: Node
    key: str | None = None
    comma: int | None = None


def where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line}, column {pos - (text.rfind(chr(10), 0, pos) + 1) + 1}"


class _Parser:
    def __init__(self, text: str):
        self.text, self.pos = text, 0

    def fail(self, what: str) -> JsoncError:
        return JsoncError(f"{what} at {where(self.text, self.pos)}")

    def skip(self) -> None:
        match = _SPACE.match(self.text, self.pos)
        if match:
            self.pos = match.end()
        if self.text.startswith("/*", self.pos):
            raise self.fail("an unclosed /* comment")

    def peek(self) -> str:
        self.skip()
        return self.text[self.pos:self.pos + 1]

    def value(self) -> Node:
        char = self.peek()
        if char == "{":
            return self.container("object", "}")
        if char == "[":
            return self.container("array", "]")
        match = (_STRING if char == '"' else _LITERAL).match(self.text, self.pos)
        if not match:
            raise self.fail("expected a value" if char else "unexpected end of text")
        self.pos = match.end()
        return Node("scalar", match.start(), match.end())

    def container(self, kind: str, close: str) -> Node:
        node = Node(kind, self.pos, -1)
        self.pos += 1
        while self.peek() != close:
            if not self.peek():
                raise self.fail(f"missing {close!r}")
            start, key = self.pos, None
            if kind == "object":
                match = _STRING.match(self.text, self.pos)
                if not match:
                    raise self.fail("expected a quoted key")
                key, self.pos = json.loads(match.group()), match.end()
                if self.peek() != ":":
                    raise self.fail("expected ':'")
                self.pos += 1
            entry = Entry(start, self.value(), key)
            node.entries.append(entry)
            if self.peek() == ",":
                entry.comma, self.pos = self.pos, self.pos + 1
            elif self.peek() != close:
                raise self.fail(f"expected ',' or {close!r}")
        self.pos += 1
        node.end = self.pos
        return node


def parse_tree(text: str) -> Node:
    """The syntax tree of ``text``; an empty (or comment-only) text is an empty object."""
    parser = _Parser(text)
    if not parser.peek():
        return Node("object", -1, -1)
    root = parser.value()
    if parser.peek():
        raise parser.fail("unexpected text after the end")
    return root


def to_data(text: str, node: Node) -> Any:
    if node.start < 0:
        return {}
    if node.kind == "scalar":
        return json.loads(text[node.start:node.end])
    if node.kind == "array":
        return [to_data(text, e.value) for e in node.entries]
    return {e.key: to_data(text, e.value) for e in node.entries}  # a repeated key: the last wins, as in VS Code


def loads(text: str) -> Any:
    """The data of a JSON-with-comments text (trailing commas allowed)."""
    return to_data(text, parse_tree(text))


# ---------------------------------------------------------------- editing
def _line_start(text: str, pos: int) -> int:
    return text.rfind("\n", 0, pos) + 1


def _indent_of(text: str, pos: int) -> str:
    start = _line_start(text, pos)
    return text[start:start + len(text[start:pos]) - len(text[start:pos].lstrip(" \t"))]


def indent_unit(text: str, root: Node) -> str:
    """One indentation step as the file uses it (its first member's indent), four spaces by default."""
    if root.start >= 0 and root.entries:
        unit = _indent_of(text, root.entries[0].start)
        if unit and text[_line_start(text, root.entries[0].start):root.entries[0].start].strip() == "":
            return unit
    return DEFAULT_INDENT


def format_value(value: Any, indent: str, unit: str) -> str:
    if isinstance(value, dict | list) and value:
        body = json.dumps(value, ensure_ascii=False, indent=unit)
        return body.replace("\n", "\n" + indent)
    return json.dumps(value, ensure_ascii=False)


def _format_entry(key: str | None, value: Any, indent: str, unit: str) -> str:
    text = format_value(value, indent, unit)
    return text if key is None else f"{json.dumps(key, ensure_ascii=False)}: {text}"


def replace_value(text: str, node: Node, value: Any, unit: str) -> str:
    return text[:node.start] + format_value(value, _indent_of(text, node.start), unit) + text[node.end:]


def append_entry(text: str, container: Node, key: str | None, value: Any, unit: str) -> str:
    """Add a member (or array item) after the container's last one, in the file's indentation."""
    close = container.end - 1
    outer = _indent_of(text, container.start)
    indent = _indent_of(text, container.entries[0].start) if container.entries else outer + unit
    if container.entries and not indent:
        indent = outer + unit
    insert_at = len(text[:close].rstrip())  # after the last value, comma or comment before the bracket
    tail = "" if "\n" in text[insert_at:close] else "\n" + outer
    text = text[:insert_at] + "\n" + indent + _format_entry(key, value, indent, unit) + tail + text[insert_at:]
    last = container.entries[-1] if container.entries else None
    if last is not None and last.comma is None:
        text = text[:last.value.end] + "," + text[last.value.end:]
    return text


def remove_entry(text: str, container: Node, index: int) -> str:
    """Remove one member or item with its comma, its line (when it had the line alone) and its line comment."""
    entry = container.entries[index]
    start, end = entry.start, entry.value.end if entry.comma is None else entry.comma + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    rest = text[end:line_end].strip()
    if rest.startswith("//") or not rest:
        end = line_end
        if text[_line_start(text, start):start].strip() == "":
            start = _line_start(text, start)
            end = min(len(text), line_end + 1)
    text = text[:start] + text[end:]
    previous = container.entries[index - 1] if index > 0 else None
    if entry.comma is None and previous is not None and previous.comma is not None:
        text = text[:previous.comma] + text[previous.comma + 1:]  # the new last member keeps no comma
    return text


# ---------------------------------------------------------------- path edits on objects
def set_path(text: str, path: list[str], value: Any) -> str:
    """``text`` with the member at ``path`` (object keys) set to ``value``, creating missing objects."""
    root = parse_tree(text)
    unit = indent_unit(text, root)
    if root.start < 0:
        nested = _nest(path[1:], value)
        return text.rstrip() + ("\n" if text.strip() else "") + "{\n" + unit + \
            _format_entry(path[0], nested, unit, unit) + "\n}\n"
    if root.kind != "object":
        raise JsoncError("the file's top level is not an object")
    node = root
    for depth, key in enumerate(path):
        found = [e for e in node.entries if e.key == key]
        if not found:
            return append_entry(text, node, key, _nest(path[depth + 1:], value), unit)
        entry = found[-1]
        if depth == len(path) - 1 or entry.value.kind != "object":
            return replace_value(text, entry.value, _nest(path[depth + 1:], value), unit)
        node = entry.value
    raise AssertionError("unreachable: the path is not empty")


def remove_path(text: str, path: list[str]) -> str:
    """``text`` without the member at ``path`` (every repeat of it); unchanged when it is absent."""
    node = parse_tree(text)
    for key in path[:-1]:
        found = [e for e in node.entries if e.key == key and e.value.kind == "object"]
        if not found:
            return text
        node = found[-1].value
    for index in reversed([i for i, e in enumerate(node.entries) if e.key == path[-1]]):
        text = remove_entry(text, node, index)
        node = _refind(text, path[:-1])
    return text


def _refind(text: str, path: list[str]) -> Node:
    node = parse_tree(text)
    for key in path:
        node = [e for e in node.entries if e.key == key][-1].value
    return node


def _nest(path: list[str], value: Any) -> Any:
    for key in reversed(path):
        value = {key: value}
    return value
