"""Shared fixtures. Tests drive the real LibreOffice; each test process starts its own."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from asil.adapters.calc.adapter import create_spreadsheet
from asil.workspace import Workspace

SALES = [
    {"name": "Sales", "bold_rows": [0], "rows": [
        ["Region", "Units", "Price"],
        ["North", 10, 2.5],
        ["South", 4, 3],
        ["East", 7, 1.25],
        ["Total", "=SUM(B2:B4)", None],
    ]},
    {"name": "Notes", "rows": [["checked", True]]},
]


@pytest.fixture(scope="session", autouse=True)
def _programs_stop_with_the_session() -> Iterator[None]:
    """pytest-xdist workers end with os._exit, which skips atexit: stop what this process started here."""
    yield
    from asil.apps.libreoffice import kill_shared_office
    from asil.apps.process import stop_all_programs

    kill_shared_office()
    stop_all_programs()


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASIL_CACHE_DIR", str(tmp_path_factory.getbasetemp() / "asil-cache"))


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path / "ws")


@pytest.fixture
def sales(workspace: Workspace) -> Path:
    """A small two-sheet spreadsheet written by LibreOffice."""
    path = workspace.resolve("sales.ods")
    create_spreadsheet(path, SALES)
    return path


def lo_convert(source: Path, target_format: str, outdir: Path) -> Path:
    """Convert a file with a separate, one-shot LibreOffice (its own profile), as a user would."""
    profile = outdir / f".lo-profile-{os.getpid()}"
    subprocess.run(["soffice", "--headless", f"-env:UserInstallation={profile.as_uri()}", "--convert-to",
                    target_format, "--outdir", str(outdir), str(source)],
                   check=True, capture_output=True, timeout=120)
    extension = target_format.split(":")[0]
    return outdir / f"{source.stem}.{extension}"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "asil.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)
