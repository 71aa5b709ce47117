"""``asil mcp serve --transport http``: loopback, bearer token, DNS-rebinding protection, real Calc."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest

from asil.adapters.calc.adapter import create_spreadsheet
from asil.adapters.calc.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.workspace import Workspace
from tests.conftest import SALES
from tests.mcp_support import audit_lines, data_of, http_server, http_session, serve_args

pytestmark = pytest.mark.slow

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def served(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    root.mkdir()
    create_spreadsheet(root / "sales.ods", SALES)
    return root


def test_http_with_a_token_drives_calc_and_refuses_strangers(served: Path) -> None:
    token = secrets.token_urlsafe(24)
    original = (served / "sales.ods").read_bytes()
    with http_server([*serve_args(served), "--transport", "http", "--port", "0"], env={"ASIL_MCP_TOKEN": token}) as url:
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
        statuses = {
            "no token": httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS).status_code,
            "wrong token": httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": "Bearer nope"}).status_code,
            "rebinding": httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "Authorization": f"Bearer {token}",
                                                                   "Host": "attacker.example:80"}).status_code,
        }
        assert statuses == {"no token": 401, "wrong token": 401, "rebinding": 421}
        assert (served / "sales.ods").read_bytes() == original and not audit_lines(served)

        async def scenario() -> None:
            async with http_session(url, token) as session:
                assert {tool.name for tool in (await session.list_tools()).tools} >= {"act", "observe", "render"}
                observed = data_of(await session.call_tool("observe", {"document": "sales.ods"}))
                assert observed["summary"].startswith("Sheet Sales")
                action = {"action_type": "set_value", "target": "Sales!D5", "params": {"formula": "=B5*2"}}
                assert not (await session.call_tool("act", {"document": "sales.ods", "action": action})).isError
                shot = await session.call_tool("render", {"document": "sales.ods"})
                assert shot.content[0].type == "image"

        anyio.run(scenario)
    checkpoint = Checkpoint(type="cell_value", app="calc", document="sales.ods", target="Sales!D5", expected=42)
    assert raw_judge(checkpoint, Workspace(served))
    log = audit_lines(served)
    assert [line["status"] for line in log] == ["ok"] and log[0]["client"].endswith("@127.0.0.1")


def asil_without_token(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ASIL_MCP_TOKEN"}
    return subprocess.run([sys.executable, "-m", "asil.cli", *args], capture_output=True, text=True, timeout=60, env=env)


def test_http_refuses_to_expose_the_workspace_without_a_token(served: Path) -> None:
    out = asil_without_token(*serve_args(served), "--transport", "http", "--host", "0.0.0.0", "--port", "0")
    assert out.returncode == 2 and "without a token" in out.stderr and "Traceback" not in out.stderr
    short = asil_without_token(*serve_args(served), "--transport", "http", "--token", "abc")
    assert short.returncode == 2 and "shorter than 8 characters" in short.stderr
    assert sorted(p.name for p in served.iterdir()) == ["sales.ods"]
