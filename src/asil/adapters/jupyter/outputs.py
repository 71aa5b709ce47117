"""Cell outputs: kernel messages to nbformat outputs, and short text summaries for agents.

Images and other binary data are described (type, size, pixel size), never dumped; long
text is clipped in the middle so the start and the end (where errors are) both show.
"""

from __future__ import annotations

import base64
import re
import struct
from typing import Any

from asil.adapters.jupyter.notebook import join_source

MAX_STORED_TEXT = 100_000  # characters of stream text a cell keeps in the file
MAX_OUTPUTS = 200  # outputs a cell keeps in the file
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
Output = dict[str, Any]


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = max(1, limit // 2 - 10)
    return f"{text[:half]}\n…[{len(text) - 2 * half} characters clipped]…\n{text[-half:]}"


def output_from_message(msg_type: str, content: dict[str, Any]) -> Output | None:
    """The nbformat output for one iopub message, or None for messages that are not outputs."""
    if msg_type == "stream":
        return {"output_type": "stream", "name": content.get("name", "stdout"), "text": content.get("text", "")}
    if msg_type in ("execute_result", "display_data"):
        output: Output = {"output_type": msg_type, "data": content.get("data", {}),
                          "metadata": content.get("metadata", {})}
        if msg_type == "execute_result":
            output["execution_count"] = content.get("execution_count")
        return output
    if msg_type == "error":
        return {"output_type": "error", "ename": content.get("ename", "Error"),
                "evalue": content.get("evalue", ""), "traceback": list(content.get("traceback", []))}
    return None


def append_output(outputs: list[Output], output: Output) -> None:
    """Add an output the way JupyterLab does: consecutive streams of one name merge; sizes stay bounded."""
    if output["output_type"] == "stream" and outputs and outputs[-1]["output_type"] == "stream" \
            and outputs[-1]["name"] == output["name"]:
        outputs[-1]["text"] = clip(join_source(outputs[-1]["text"]) + output["text"], MAX_STORED_TEXT)
        return
    if output["output_type"] == "stream":
        output["text"] = clip(output["text"], MAX_STORED_TEXT)
    if len(outputs) < MAX_OUTPUTS:
        outputs.append(output)


def for_file(outputs: list[Output]) -> list[Output]:
    """Stream text stored as lines, as nbformat writes it."""
    stored = []
    for output in outputs:
        if output["output_type"] == "stream":
            output = {**output, "text": join_source(output["text"]).splitlines(keepends=True)}
        stored.append(output)
    return stored


def error_line(output: Output) -> str:
    return f"{output.get('ename', 'Error')}: {strip_ansi(str(output.get('evalue', '')))}".rstrip(": ")


def summarize(output: Output, limit: int = 600) -> str:
    """One short line (or a few) saying what an output shows."""
    kind = output.get("output_type")
    if kind == "stream":
        return f"[{output.get('name', 'stdout')}] " + clip(strip_ansi(join_source(output.get("text", ""))), limit)
    if kind == "error":
        return "[error] " + clip(error_line(output), limit)
    data = output.get("data", {})
    if not isinstance(data, dict):
        return f"[{kind}]"
    if "text/plain" in data:
        text = clip(strip_ansi(join_source(data["text/plain"])), limit)
        extras = [describe_data(mime, value) for mime, value in data.items() if mime != "text/plain"]
        return text + (f" (+ {'; '.join(extras)})" if extras else "")
    return "; ".join(describe_data(mime, value) for mime, value in data.items()) or f"[{kind}]"


def describe_data(mime: str, value: Any) -> str:
    """A rich output described, not shown: images get their pixel size, others their length."""
    text = join_source(value) if isinstance(value, str | list) else ""
    if mime == "image/png":
        size = png_size(text)
        return f"[image/png {size[0]}x{size[1]}, {len(text) * 3 // 4 // 1024} KB]" if size else "[image/png]"
    if mime.startswith("image/"):
        return f"[{mime}, {len(text) * 3 // 4 // 1024} KB]"
    return f"[{mime}, {len(text)} characters]"


def png_size(encoded: str) -> tuple[int, int] | None:
    try:
        head = base64.b64decode(encoded[:44].strip() + "==="[: (4 - len(encoded[:44].strip()) % 4) % 4])
    except ValueError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return width, height


def output_text(outputs: list[Output]) -> str:
    """All the text a cell's outputs show (streams, plain-text results, error lines), for checkpoints."""
    parts = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(join_source(output.get("text", "")))
        elif kind == "error":
            parts.append(error_line(output))
        elif isinstance(output.get("data"), dict) and "text/plain" in output["data"]:
            parts.append(join_source(output["data"]["text/plain"]))
    return strip_ansi("\n".join(parts))
