"""The integrations page (docs/integrations.md, linked from the README) is run as written, so it cannot rot."""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from asil.adapters.calc.adapter import create_spreadsheet
from tests.mcp_support import data_of, http_server, http_session, path_with_asil, stdio_session

pytestmark = pytest.mark.slow

INTEGRATIONS = Path(__file__).resolve().parents[1] / "docs" / "integrations.md"
PLACEHOLDER = "/path/to/your/folder"


def section() -> str:
    return INTEGRATIONS.read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", section(), flags=re.DOTALL)


def server_configs() -> list[dict[str, Any]]:
    return [next(iter(json.loads(block)["mcpServers"].values())) for block in blocks("json")]


def budget(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "budget.ods"
    create_spreadsheet(path, [{"name": "Sheet1", "rows": [["Item", "Cost"], ["Pens", 3]]}])
    return path


def test_the_stdio_config_starts_a_working_server(tmp_path: Path) -> None:
    config = next(c for c in server_configs() if "command" in c)
    folder = tmp_path / "my folder"  # a space in the path, as users have
    budget(folder)
    args = [str(folder) if arg == PLACEHOLDER else arg for arg in config["args"]]
    assert args != config["args"], "the integrations page config no longer shows the placeholder folder"

    async def scenario() -> None:
        async with stdio_session(args, tmp_path / "server.log", command=config["command"],
                                 env={"PATH": path_with_asil()}) as session:
            listed = data_of(await session.call_tool("documents", {}))
            assert listed["documents"] == [{"path": "budget.ods", "app": "calc"}]

    anyio.run(scenario)


def test_the_http_command_and_config_work_together(tmp_path: Path) -> None:
    line = next(line for block in blocks("sh") for line in block.splitlines() if line.startswith("asil mcp serve"))
    config = next(c for c in server_configs() if "url" in c)
    folder = tmp_path / "ws"
    budget(folder)
    argv = [str(folder) if arg == PLACEHOLDER else arg for arg in shlex.split(line)[1:]]
    argv[argv.index("--port") + 1] = "0"  # a free port instead of the documented 8765, for parallel runs
    token = secrets.token_urlsafe(24)
    with http_server(argv, env={"ASIL_MCP_TOKEN": token}) as url:
        documented = config["url"].replace(":8765/", f":{url.rsplit(':', 1)[1].split('/')[0]}/")
        assert documented == url
        header = config["headers"]["Authorization"].replace("${ASIL_MCP_TOKEN}", token)
        assert header == f"Bearer {token}"

        async def scenario() -> None:
            async with http_session(documented, token) as session:
                assert {t.name for t in (await session.list_tools()).tools} >= {"observe", "act"}

        anyio.run(scenario)


def test_the_python_examples_run(tmp_path: Path) -> None:
    budget(tmp_path)
    printed = []
    for code in blocks("python"):
        out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PATH": path_with_asil()})
        assert out.returncode == 0, out.stderr
        printed.append(out.stdout)
    assert len(printed) == 2
    assert "ok ['Sheet1!B3']" in printed[0] and "1.0 True" in printed[0]  # the edit, then the oracle episode
    assert "sales.ods" in printed[1] and printed[1].strip().endswith("True False")  # done at once: not solved
    assert (tmp_path / "results" / "calc-total-column" / "result.json").is_file()
