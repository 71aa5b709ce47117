"""Several MCP clients, on two ``asil mcp serve`` processes, acting on one Calc document at once.

Each server keeps its own LibreOffice copy of the document; without turns (``document_lock``) one server
would save over the other's update from its stale copy. Every client writes cells of its own, many times,
interleaved; at the end the file holds every client's last write. A client that disconnects in the middle
of a large batch leaves the document whole: the batch is on disk entirely or not at all, and a fresh
client observes what the file holds.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import anyio
import pytest

from asil.adapters.calc.adapter import create_spreadsheet
from asil.adapters.calc.validator import raw_judge
from asil.evaluate.checkpoints import Checkpoint
from asil.workspace import Workspace
from tests.conftest import SALES
from tests.mcp_support import data_of, http_server, http_session, serve_args

pytestmark = pytest.mark.slow

CLIENTS_PER_SERVER = 2
WRITES = 4  # per client: each rewrites its own cell, so the last value must survive every other save
BATCH = 40  # cells in the batch a client abandons mid-way
TOKEN = secrets.token_urlsafe(24)


def cell_holds(root: Path, target: str, expected: object) -> bool:
    checkpoint = Checkpoint(type="cell_value", app="calc", document="book.ods", target=target, expected=expected)
    return raw_judge(checkpoint, Workspace(root))


@pytest.fixture
def served(tmp_path: Path) -> Path:
    root = tmp_path / "served"
    root.mkdir()
    create_spreadsheet(root / "book.ods", SALES)
    return root


def test_clients_on_two_servers_lose_no_update(served: Path) -> None:
    args = [*serve_args(served), "--transport", "http", "--port", "0"]
    with http_server(args, env={"ASIL_MCP_TOKEN": TOKEN}) as first, http_server(args, env={"ASIL_MCP_TOKEN": TOKEN}) as second:
        clients = [(url, f"{column}") for url, columns in ((first, "HI"), (second, "JK")) for column in columns]
        assert len(clients) == 2 * CLIENTS_PER_SERVER

        async def client(url: str, column: str) -> None:
            async with http_session(url, TOKEN) as session:
                for write in range(1, WRITES + 1):
                    for row in (2, 3):
                        action = {"action_type": "set_value", "target": f"Sales!{column}{row}",
                                  "params": {"value": write * 10 + row}}
                        result = await session.call_tool("act", {"document": "book.ods", "action": action})
                        assert not result.isError, result

        async def everyone() -> None:
            async with anyio.create_task_group() as group:
                for url, column in clients:
                    group.start_soon(client, url, column)

        anyio.run(everyone)
    lost = [f"{column}{row}" for _, column in clients for row in (2, 3)
            if not cell_holds(served, f"Sales!{column}{row}", WRITES * 10 + row)]
    assert lost == [], f"updates lost: {lost}"


def test_a_client_that_disconnects_mid_batch_leaves_a_whole_document(served: Path) -> None:
    batch = [{"action_type": "set_value", "target": f"Sales!M{row}", "params": {"value": row}}
             for row in range(1, BATCH + 1)]
    with http_server([*serve_args(served), "--transport", "http", "--port", "0"], env={"ASIL_MCP_TOKEN": TOKEN}) as url:

        async def abandon() -> None:
            async with http_session(url, TOKEN) as session:
                with anyio.move_on_after(0.5):  # leaves while the server is still applying the batch
                    await session.call_tool("act", {"document": "book.ods", "action": batch})

        async def look() -> dict[str, object]:
            async with http_session(url, TOKEN) as session:  # waits its turn behind the abandoned batch
                return data_of(await session.call_tool("observe", {"document": "book.ods", "view": "Sales"}))

        anyio.run(abandon)
        observed = anyio.run(look)
    first, last = cell_holds(served, "Sales!M1", 1), cell_holds(served, f"Sales!M{BATCH}", BATCH)
    assert first == last, "the file holds part of the batch"
    assert observed["summary"].startswith("Sheet Sales")
