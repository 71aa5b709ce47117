"""Hostile .drawio files and malformed actions: refused in one sentence, nothing expanded, nothing changed."""

from __future__ import annotations

import base64
import time
import urllib.parse
import zlib
from pathlib import Path

import pytest

from asil.adapters.drawio.adapter import DrawioAdapter
from asil.adapters.drawio.codec import MAX_INFLATED
from asil.adapters.drawio.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace
from tests.adapters.drawio_files import compress, flow_file, model, vertex

XXE_FILE = """<?xml version="1.0"?>
<!DOCTYPE mxfile [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<mxfile><diagram id="p" name="P"><mxGraphModel><root><mxCell id="0"/><mxCell id="1" parent="0"/>
<mxCell id="a" value="&secret;" vertex="1" parent="1"><mxGeometry width="10" height="10" as="geometry"/></mxCell>
</root></mxGraphModel></diagram></mxfile>"""
XXE_HTTP = XXE_FILE.replace("file:///etc/passwd", "http://127.0.0.1:9/leak")
LAUGHS = ("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">"
          + "".join(f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10))
          + ']>\n<mxfile><diagram id="p" name="P">&lol9;</diagram></mxfile>')
PARAMETER_ENTITY = '<!DOCTYPE x [<!ENTITY % remote SYSTEM "http://127.0.0.1:9/x.dtd"> %remote;]><mxfile/>'


def write(workspace: Workspace, text: str | bytes, name: str = "h.drawio") -> str:
    data = text.encode() if isinstance(text, str) else text
    workspace.resolve(name).write_bytes(data)
    return name


def refused(workspace: Workspace, name: str) -> str:
    started = time.perf_counter()
    with pytest.raises(DocumentError) as info:
        DrawioAdapter(workspace, name)
    assert time.perf_counter() - started < 2.0, "refusing must not expand anything first"
    message = info.value.message
    assert message.endswith(".") and "\n" not in message and message.startswith(f"'{name}' cannot be opened")
    return message


def raw_verdict(workspace: Workspace, name: str) -> bool:
    checkpoint = Checkpoint(type="drawio_page_count", app="drawio", document=name, expected=1)
    return raw_judge(checkpoint, workspace)


@pytest.mark.parametrize("text", [XXE_FILE, XXE_HTTP, LAUGHS, PARAMETER_ENTITY], ids=["xxe-file", "xxe-http",
                                                                                      "billion-laughs", "parameter-entity"])
def test_entity_tricks_are_refused_without_expansion(workspace: Workspace, text: str) -> None:
    name = write(workspace, text)
    assert "DOCTYPE" in refused(workspace, name)
    assert raw_verdict(workspace, name) is False


def test_entities_hidden_inside_a_compressed_page_are_refused(workspace: Workspace) -> None:
    inner = '<!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>' + model([vertex("a", "&x;")])
    name = write(workspace, f'<mxfile><diagram id="p" name="P">{compress(inner)}</diagram></mxfile>')
    assert "DOCTYPE" in refused(workspace, name)
    assert raw_verdict(workspace, name) is False


def test_a_deflate_bomb_is_refused_by_the_output_limit(workspace: Workspace) -> None:
    packer = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = b"A" * (1 << 20)
    body = b"".join(packer.compress(chunk) for _ in range(2 * MAX_INFLATED >> 20)) + packer.flush()
    assert len(body) < 200_000  # 64 MiB of text in a small file
    name = write(workspace, f'<mxfile><diagram id="p" name="P">{base64.b64encode(body).decode()}</diagram></mxfile>')
    assert "deflate bomb" in refused(workspace, name)
    assert raw_verdict(workspace, name) is False


@pytest.mark.parametrize(("text", "reason"), [
    (b"\x89PNG\r\n\x1a\n not xml", "not well-formed XML"),
    ("<svg/>", "not <mxfile>"),
    ("<mxfile></mxfile>", "no <diagram>"),
    ('<mxfile><diagram id="p" name="P">%%%not base64%%%</diagram></mxfile>', "not valid base64"),
    (f'<mxfile><diagram id="p" name="P">{base64.b64encode(b"not deflate").decode()}</diagram></mxfile>', "deflate"),
    (f'<mxfile><diagram id="p" name="P">{compress("<html/>")}</diagram></mxfile>', "not <mxGraphModel>"),
    ('<mxfile><diagram id="p" name="P">' + model([vertex("a", "A"), vertex("a", "B")]) + "</diagram></mxfile>", "twice"),
], ids=["binary", "svg", "no-pages", "bad-base64", "bad-deflate", "wrong-model", "duplicate-ids"])
def test_broken_files_get_one_clear_sentence(workspace: Workspace, text: str | bytes, reason: str) -> None:
    name = write(workspace, text)
    assert reason in refused(workspace, name)


def test_wrong_extension_and_missing_files(workspace: Workspace) -> None:
    write(workspace, flow_file(), "flow.xml")
    with pytest.raises(DocumentError, match="not a .drawio file"):
        DrawioAdapter(workspace, "flow.xml")
    with pytest.raises(DocumentError, match="does not exist"):
        DrawioAdapter(workspace, "missing.drawio")


BAD_ACTIONS = [
    ({"action_type": "invoke_function", "target": "explode", "params": {}}, "Unknown drawio function 'explode'"),
    ({"action_type": "invoke_function", "target": "add_vertex", "params": {"label": 5}}, "Parameter 'label'"),
    ({"action_type": "invoke_function", "target": "add_vertex", "params": {"lable": "x"}}, "does not take the parameter 'lable'"),
    ({"action_type": "invoke_function", "target": "connect", "params": {"source": "Start"}}, "needs the parameter 'target'"),
    ({"action_type": "invoke_function", "target": "connect", "params": {"source": "Start", "target": "Nope"}},
     "No vertex on page 'Flow' has the id or label 'Nope'"),
    ({"action_type": "invoke_function", "target": "connect", "params": {"source": "Start", "target": "e1"}},
     "The cell 'e1' is an edge, not a vertex"),
    ({"action_type": "invoke_function", "target": "restyle", "params": {"cells": ["a"], "set": {"fill;Color": "x"}}},
     "is not a style key"),
    ({"action_type": "invoke_function", "target": "restyle", "params": {"cells": ["a"], "set": {"fillColor": "red;x=1"}}},
     "cannot contain ';'"),
    ({"action_type": "invoke_function", "target": "move", "params": {"cell": "a", "x": 1, "dx": 1}}, "either x/y"),
    ({"action_type": "invoke_function", "target": "resize", "params": {"cell": "a", "width": -4}}, "Parameter 'width'"),
    ({"action_type": "invoke_function", "target": "add_vertex", "params": {"x": float("nan")}}, "Parameter 'x'"),
    ({"action_type": "invoke_function", "target": "add_vertex", "params": {"id": "a"}}, "already used"),
    ({"action_type": "invoke_function", "target": "rename_page", "params": {"page": "Flow", "new_name": "notes"}},
     "already exists"),
    ({"action_type": "invoke_function", "target": "relabel", "params": {"cell": "a", "label": "x", "html": True, "page": "Nope"}},
     "There is no page named 'Nope'"),
    ({"action_type": "set_value", "target": "a", "params": {"formula": "=1"}}, "needs the parameter 'value'"),
    ({"action_type": "navigate", "target": "Elsewhere"}, "There is no page named 'Elsewhere'"),
    ({"action_type": "modify_file", "target": "other.drawio", "params": {"operations": [{"op": "move"}]}},
     "modify_file changes the open document"),
    ({"action_type": "modify_file", "params": {"operations": [{"op": "move", "params": {"cell": "a", "dx": 1}},
                                                              {"op": "relabel", "params": {"cell": "zz", "label": "x"}}]}},
     "Operation 2 (relabel): "),
    ({"action_type": "batch", "params": {"actions": [{"action_type": "navigate", "target": "Notes"}]}},
     "Batch action 1: A batch cannot contain navigate"),
    ({"action_type": "batch", "params": {"actions": []}}, "Parameter 'actions'"),
]


@pytest.mark.parametrize(("raw", "expected"), BAD_ACTIONS, ids=[str(i) for i in range(len(BAD_ACTIONS))])
def test_malformed_actions_are_invalid_and_change_nothing(workspace: Workspace, raw: dict[str, object], expected: str) -> None:
    name = write(workspace, flow_file(compressed=True))
    original = workspace.resolve(name).read_bytes()
    adapter = DrawioAdapter(workspace, name)
    before = adapter.observe().model_dump(exclude={"metadata"})
    result = adapter.execute(Action.model_validate(raw))
    assert result.status == "invalid" and result.error is not None
    assert expected in result.error.message, result.error.message
    assert result.error.message.endswith(".") and "\n" not in result.error.message
    assert adapter.observe().model_dump(exclude={"metadata"}) == before
    adapter.save()
    assert workspace.resolve(name).read_bytes() == original


def test_url_encoding_round_trips_every_character(workspace: Workspace) -> None:
    label = "naïve 100% & <tags> ; 'quotes' \"double\" ~!*() ünïcödé 雪"
    name = write(workspace, flow_file(compressed=True))
    adapter = DrawioAdapter(workspace, name)
    assert adapter.execute(Action(action_type="set_value", target="c", params={"value": label})).ok
    adapter.save()
    text = Path(workspace.resolve(name)).read_text()
    packed = text.split('name="Flow">')[1].split("</diagram>")[0]
    xml = urllib.parse.unquote(zlib.decompress(base64.b64decode(packed), -15).decode("ascii"))
    assert "ünïcödé 雪" in xml
    assert DrawioAdapter(workspace, name).observe().elements[3].value == label
