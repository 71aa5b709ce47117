"""The package layers hold: import-linter's contracts in pyproject.toml are kept, and a broken one is caught.

The contracts ([tool.importlinter]) put the packages in layers, high to low (annotate, report, runner, agents, llm, env,
adapters, tasks, evaluate, apps, plugins, registry/workspace, protocol), so no import cycle can form
between them; ``make check`` runs the same check.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import asil

pytest.importorskip("importlinter", reason="import-linter is in the dev extra: pip install -e '.[dev]'")

SRC = Path(asil.__file__).resolve().parents[1]  # the source tree under test
CONFIG = SRC.parent / "pyproject.toml"


def lint_imports(src: Path, config: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter on the ``asil`` package found in ``src`` (no cache: nothing is written)."""
    code = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    env = {**os.environ, "PYTHONPATH": str(src)}
    return subprocess.run([sys.executable, "-c", code, str(config), "--no-cache", "--no-logo"], capture_output=True,
                          text=True, env=env, cwd=config.parent, timeout=120)


def test_the_package_layers_and_contracts_are_kept() -> None:
    ran = lint_imports(SRC, CONFIG)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert "0 broken" in ran.stdout


BAD_IMPORTS = {  # module -> an import against the contracts, and import-linter's complaint
    "agents/base.py": ("from asil.runner import trace", "asil.agents is not allowed to import asil.runner"),
    "tasks/model.py": ("import asil.env", "asil.tasks is not allowed to import asil.env"),
    "llm/scripted.py": ("import asil.agents.lstc.scripted", "asil.llm is not allowed to import asil.agents"),
    "agents/oracle.py": ("import asil.adapters.base", "asil.agents is not allowed to import asil.adapters"),
    "plugins.py": ("import asil.apps.libreoffice", "asil.plugins is not allowed to import asil.apps"),
}


def test_imports_against_the_layers_are_caught(tmp_path: Path) -> None:
    """A copy of the sources with imports added against the contracts breaks them, each one named."""
    copy = tmp_path / "src"
    shutil.copytree(SRC / "asil", copy / "asil", ignore=lambda folder, names: [
        n for n in names if n == "__pycache__" or not n.endswith(".py") and not (Path(folder) / n).is_dir()])
    for module, (bad_import, _) in BAD_IMPORTS.items():
        target = copy / "asil" / module
        target.write_text(target.read_text(encoding="utf-8") + f"\n{bad_import}  # noqa\n", encoding="utf-8")
    config = tmp_path / "pyproject.toml"
    config.write_text(CONFIG.read_text(encoding="utf-8"), encoding="utf-8")
    ran = lint_imports(copy, config)
    assert ran.returncode == 1, ran.stdout + ran.stderr
    for _, complaint in BAD_IMPORTS.values():
        assert complaint in ran.stdout, ran.stdout
