"""Helpers for driving a real ``asil mcp serve`` process with the official MCP client."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

VENV_BIN = Path(sys.executable).parent
ASIL = str(VENV_BIN / "asil")


def path_with_asil() -> str:
    """PATH as a user who installed asil has it: the asil command is found by name."""
    return f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"


def serve_args(workspace: Path, *extra: str) -> list[str]:
    return ["mcp", "serve", "--app", "calc", "--workspace", str(workspace), *extra]


@asynccontextmanager
async def stdio_session(args: list[str], errlog: Path, command: str = ASIL,
                        env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """A client session with a server started as ``command args`` over stdio."""
    params = StdioServerParameters(command=command, args=args, env=env or {"PATH": path_with_asil()})
    with errlog.open("a") as log:
        async with stdio_client(params, errlog=log) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            yield session


@asynccontextmanager
async def http_session(url: str, token: str | None) -> AsyncIterator[ClientSession]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=60) as client, \
            streamable_http_client(url, http_client=client) as (read, write, _), \
            ClientSession(read, write) as session:
        await session.initialize()
        yield session


@contextmanager
def http_server(args: list[str], env: dict[str, str] | None = None) -> Iterator[str]:
    """Start ``asil`` with ``args`` (an http server on port 0) and yield its URL; stop it afterwards."""
    process = subprocess.Popen([ASIL, *args], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})})
    offices: list[int] = []
    try:
        yield _announced_url(process)
        offices = children(process.pid)  # LibreOffice launchers, each leading its own process group
    finally:
        process.terminate()  # the server kills its own LibreOffice on SIGTERM
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()
    assert not [group for group in offices if group_alive(group)], "LibreOffice outlived its MCP server"


def children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(line) for line in found.stdout.split()]


def group_alive(group: int, grace: float = 5.0) -> bool:
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        time.sleep(0.1)
    return True


def _announced_url(process: subprocess.Popen[str], timeout: float = 30) -> str:
    assert process.stderr is not None
    deadline = time.monotonic() + timeout
    seen = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stderr], [], [], 0.2)
        if ready:
            line = process.stderr.readline()
            seen.append(line)
            if "serving http://" in line:
                return line.split("serving ", 1)[1].split(" ", 1)[0]
        if process.poll() is not None:
            break
    raise AssertionError(f"the server did not announce its URL: {''.join(seen)}")


def text_of(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if block.type == "text")


def data_of(result: CallToolResult) -> dict[str, Any]:
    assert result.structuredContent is not None, text_of(result)
    return result.structuredContent


def audit_lines(workspace: Path) -> list[dict[str, Any]]:
    log = workspace / ".asil-audit.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
