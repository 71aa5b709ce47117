"""The official MCP client drives ``asil mcp serve`` over stdio on a real Calc document."""

from __future__ import annotations

import base64
import io
import json
import shutil
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession
from PIL import Image

from asil.adapters.calc.actions import VOCABULARY
from asil.adapters.calc.adapter import create_spreadsheet
from asil.adapters.calc.raw import RawWorkbook
from asil.adapters.calc.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.protocol import Action
from asil.workspace import Workspace
from tests.conftest import SALES
from tests.mcp_support import audit_lines, data_of, serve_args, stdio_session, text_of

pytestmark = pytest.mark.slow

TOOLS = {"documents", "observe", "act", "validate", "schema", "render"}


def set_value(target: str, **params: object) -> dict[str, object]:
    return {"action_type": "set_value", "target": target, "params": params}


def delete_sheet(name: str) -> dict[str, object]:
    return {"action_type": "invoke_function", "target": "delete_sheet", "params": {"sheet": name}}


@pytest.fixture
def served(tmp_path: Path) -> Path:
    """A workspace with two documents, a hidden one, and a symlink that leads out of it."""
    root = tmp_path / "served"
    (root / "sub").mkdir(parents=True)
    create_spreadsheet(root / "sales.ods", SALES)
    shutil.copyfile(root / "sales.ods", root / "sub" / "copy.ods")
    shutil.copyfile(root / "sales.ods", root / ".hidden.ods")
    outside = tmp_path / "outside.ods"
    shutil.copyfile(root / "sales.ods", outside)
    (root / "escape.ods").symlink_to(outside)
    (root / "notes.txt").write_text("not a spreadsheet")
    return root


def cell(workspace: Path, target: str, expected: object, document: str = "sales.ods") -> bool:
    checkpoint = Checkpoint(type="cell_value", app="calc", document=document, target=target, expected=expected)
    return raw_judge(checkpoint, Workspace(workspace))


def test_a_client_lists_reads_observes_acts_and_renders(served: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_session(serve_args(served), tmp_path / "server.log") as session:
            await _discover(session)
            await _observe_and_act(session, served)
            await _render(session)

    anyio.run(scenario)
    assert cell(served, "Sales!D2", 25) and cell(served, "Sales!E1", "x") and cell(served, "Sales!E2", 2)
    log = audit_lines(served)
    assert [line["status"] for line in log] == ["ok", "ok"]
    assert log[0]["client"] == "mcp/0.1.0@stdio"  # the SDK client's name/version, as it introduced itself
    assert log[0]["changed"] == ["Sales!D2"] and log[0]["saved"] is True


async def _discover(session: ClientSession) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    act = tools["act"].description or ""
    shown = [json.dumps(Action.model_validate(e).model_dump(mode="json", exclude_defaults=True)) for e in VOCABULARY.examples]
    assert all(example in act for example in shown)
    assert all(tip in act for tip in VOCABULARY.tips) and "delete_sheet(sheet) [destructive]" in act
    schema = data_of(await session.call_tool("schema", {}))
    assert schema["functions"]["delete_sheet"]["destructive"] is True
    resource = await session.read_resource("asil://schema/calc")  # type: ignore[arg-type]
    assert json.loads(resource.contents[0].text) == schema  # type: ignore[union-attr]
    listed = data_of(await session.call_tool("documents", {}))["documents"]
    assert listed == [{"path": "sales.ods", "app": "calc"}, {"path": "sub/copy.ods", "app": "calc"}]
    uris = {str(r.uri) for r in (await session.list_resources()).resources}
    assert {"asil://schema/calc", "asil://documents/sales.ods", "asil://documents/sub%2Fcopy.ods"} == uris
    copy = await session.read_resource("asil://documents/sub%2Fcopy.ods")  # type: ignore[arg-type]
    assert json.loads(copy.contents[0].text)["app_state"]["document_path"] == "sub/copy.ods"  # type: ignore[union-attr]


async def _observe_and_act(session: ClientSession, served: Path) -> None:
    observed = data_of(await session.call_tool("observe", {"document": "sales.ods", "view": "Sales", "limit": 5}))
    cells = {e["id"]: e for e in observed["elements"]}
    assert cells["Sales!B5"]["value"] == 21 and observed["navigation"]["paging"]["limit"] == 5
    valid = data_of(await session.call_tool("validate", {"document": "sales.ods", "action": set_value("D2", value=1)}))
    assert valid == {"valid": True}
    done = await session.call_tool("act", {"document": "sales.ods", "action": set_value("Sales!D2", formula="=B2*C2")})
    assert not done.isError and data_of(done)["changed"] == ["Sales!D2"]
    assert cell(served, "Sales!D2", 25)  # saved at once: the file on disk is the server's state
    batch = [set_value("Sales!E1", value="x"), set_value("Sales!E2", formula="=1+1")]
    assert not (await session.call_tool("act", {"document": "sales.ods", "action": batch})).isError


async def _render(session: ClientSession) -> None:
    shot = await session.call_tool("render", {"document": "sales.ods"})
    assert not shot.isError and shot.content[0].type == "image" and shot.content[0].mimeType == "image/png"
    with Image.open(io.BytesIO(base64.b64decode(shot.content[0].data))) as image:
        rgba = image.convert("RGBA")
    page = Image.alpha_composite(Image.new("RGBA", rgba.size, "white"), rgba).convert("L")
    assert 300 <= page.width <= 4000 and sum(page.histogram()[:128]) > 2000  # cells drawn, not blank
    assert "Sales" in text_of(shot)


REFUSALS = [
    ({"document": "../outside.ods", "action": set_value("Sales!A1", value=1)}, "climbs out of the workspace"),
    ({"document": "/etc/passwd", "action": set_value("Sales!A1", value=1)}, "absolute path"),
    ({"document": "escape.ods", "action": set_value("Sales!A1", value=1)}, "outside the workspace through a symlink"),
    ({"document": ".asil-audit.jsonl", "action": set_value("Sales!A1", value=1)}, "hidden file"),
    ({"document": "sales.ods", "action": delete_sheet("Notes")}, "without --allow-destructive"),
    ({"document": "sales.ods", "action": [set_value("Sales!A1", value=1),
      {"action_type": "invoke_function", "target": "delete_rows", "params": {"row": 2}}]}, "delete_rows is a destructive"),
    ({"document": "sales.ods", "action": "{not json"}, "not valid JSON"),
    ({"document": "sales.ods", "action": 5}, "must be a JSON object"),
    ({"document": "sales.ods", "action": {"action_type": "teleport"}}, "Unknown action_type"),
    ({"document": "sales.ods", "action": set_value("Sales!B2", formula="=SUMM(B3)")}, "unknown function"),
    ({"document": "sales.ods", "action": {"action_type": "invoke_function", "target": "explode"}}, "Unknown calc function"),
    ({"document": "sales.ods"}, "Argument 'action' of act is missing"),
    ({"document": "nope.ods", "action": set_value("Sales!A1", value=1)}, "does not exist"),
    ({"document": "notes.txt", "action": set_value("Sales!A1", value=1)}, "No served app opens '.txt' files"),
    ({"document": "sales.ods", "action": set_value("Sales!A1", value=1), "app": "writer"}, "does not serve the app"),
]


def test_refusals_are_clear_tool_errors_and_leave_files_alone(served: Path, tmp_path: Path) -> None:
    before = {p: p.read_bytes() for p in [*served.rglob("*.ods"), tmp_path / "outside.ods"] if p.is_file()}

    async def scenario() -> None:
        async with stdio_session(serve_args(served), tmp_path / "server.log") as session:
            for arguments, fragment in REFUSALS:
                result = await session.call_tool("act", arguments)
                assert result.isError, arguments
                assert fragment in text_of(result), (arguments, text_of(result))
                assert "Traceback" not in text_of(result)
            verdict = data_of(await session.call_tool("validate", {"document": "sales.ods", "action": delete_sheet("Notes")}))
            assert verdict["valid"] is False and verdict["error"]["code"] == "destructive_refused"
            still = await session.call_tool("observe", {"document": "sales.ods"})  # the server survived all of it
            assert not still.isError

    anyio.run(scenario)
    assert {p: p.read_bytes() for p in before} == before  # byte-for-byte
    statuses = [line["status"] for line in audit_lines(served)]
    assert statuses.count("refused") >= 9 and "ok" not in statuses


def test_read_only_server_changes_and_writes_nothing(served: Path, tmp_path: Path) -> None:
    listing = sorted(str(p) for p in served.rglob("*"))
    original = (served / "sales.ods").read_bytes()

    async def scenario() -> None:
        async with stdio_session(serve_args(served, "--read-only"), tmp_path / "server.log") as session:
            refused = await session.call_tool("act", {"document": "sales.ods", "action": set_value("A1", value=1)})
            assert refused.isError and "read-only" in text_of(refused)
            moved = await session.call_tool("act", {"document": "sales.ods",
                                                    "action": {"action_type": "navigate", "target": "Notes"}})
            assert not moved.isError and data_of(moved)["observation"]["app_state"]["view"] == "Notes"
            assert not (await session.call_tool("render", {"document": "sales.ods"})).isError

    anyio.run(scenario)
    assert (served / "sales.ods").read_bytes() == original
    assert sorted(str(p) for p in served.rglob("*")) == listing  # not even an audit log


def test_destructive_actions_run_with_the_flag_and_external_edits_are_respected(served: Path, tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_session(serve_args(served, "--allow-destructive"), tmp_path / "server.log") as session:
            batch = [set_value("Notes!C1", value="gone soon"), delete_sheet("Notes")]
            assert not (await session.call_tool("act", {"document": "sales.ods", "action": batch})).isError
            assert RawWorkbook.load(served / "sales.ods").sheet_names() == ["Sales"]
            # Someone edits the file behind the server's back; the server reloads instead of overwriting it.
            create_spreadsheet(served / "sales.ods", [{"name": "Fresh", "rows": [["edited outside"]]}])
            observed = data_of(await session.call_tool("observe", {"document": "sales.ods"}))
            assert observed["navigation"]["views"] == ["Fresh"]
            assert not (await session.call_tool("act", {"document": "sales.ods",
                                                        "action": set_value("Fresh!B1", value=2)})).isError

    anyio.run(scenario)
    assert cell(served, "Fresh!A1", "edited outside") and cell(served, "Fresh!B1", 2)
    log = audit_lines(served)  # every act call is audited, the destructive batch with its delete_sheet first
    assert [line["status"] for line in log] == ["ok", "ok"]
    assert log[0]["action"]["action_type"] == "batch" and "delete_sheet" in json.dumps(log[0]["action"])
