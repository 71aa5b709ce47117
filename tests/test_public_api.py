"""The public surface of ``import asil``: exactly the documented names, light to import, examples that run."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import asil
import asil.api
from asil.plugins import UnknownApp
from asil.protocol import DocumentError

DOCUMENTED = [
    "PROTOCOL_VERSION", "Action", "ActionResult", "ActionSchema", "Element", "Observation", "__version__",
    "evaluate", "get_task", "load_tasks", "open", "parse_action", "run_episode",
]


def test_all_is_exactly_the_documented_list_and_every_name_resolves() -> None:
    assert asil.__all__ == DOCUMENTED
    for name in asil.__all__:
        assert getattr(asil, name) is not None
    for name in ("evaluate", "get_task", "load_tasks", "open", "run_episode"):
        assert callable(getattr(asil, name)) and getattr(asil, name).__doc__


def test_asil_evaluate_stays_the_function_after_its_namesake_subpackage_is_imported() -> None:
    import asil.evaluate.evaluator  # noqa: F401  (binds the subpackage as an attribute, unless guarded)

    assert asil.evaluate is asil.api.evaluate
    assert sys.modules["asil.evaluate"].__name__ == "asil.evaluate"


def test_importing_asil_imports_no_app_and_no_optional_extra() -> None:
    code = ("import sys, asil; print(sorted(m for m in ('uno', 'gymnasium', 'mcp', 'starlette', "
            "'asil.adapters.calc.adapter', 'asil.mcp_server', 'asil.gym') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
@pytest.mark.parametrize("module", [asil, asil.api], ids=lambda m: m.__name__)
def test_docstring_examples_run(module: object) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_open_names_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="does not exist"):
        asil.open(tmp_path / "missing.ods")
    notes = tmp_path / "notes.xyz"
    notes.write_text("hi")
    with pytest.raises(UnknownApp) as caught:
        asil.open(notes)
    assert ".ods" in (caught.value.hint or "")
    with pytest.raises(DocumentError, match="not an existing folder"):
        asil.evaluate("calc-total-column", tmp_path / "nowhere")


def test_missing_extras_name_the_pip_extra_to_install(tmp_path: Path) -> None:
    # sys.modules[name] = None makes that import fail, as on a machine without the extra.
    code = ("import sys; sys.modules['mcp'] = None; sys.modules['gymnasium'] = None\n"
            "from asil.cli import main\n"
            "try:\n    import asil.gym\nexcept Exception as exc:\n    print(type(exc).__name__, exc.hint)\n"
            f"sys.exit(main(['mcp', 'serve', '--app', 'calc', '--workspace', {str(tmp_path)!r}]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.strip() == "MissingExtra Install it with: pip install 'asil[gym]'"
    assert out.returncode == 2 and "pip install 'asil[mcp]'" in out.stderr and "Traceback" not in out.stderr
