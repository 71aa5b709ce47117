import subprocess
import sys

import pytest

from asil.adapters import UnknownApp, adapter_class, app_for_path, app_names
from asil.adapters.base import Adapter


def test_importing_asil_imports_no_application() -> None:
    code = ("import sys, asil, asil.adapters, asil.tasks, asil.evaluate, asil.env, asil.cli; "
            "bad = [m for m in ('uno', 'pyuno', 'asil.adapters.calc.adapter', 'asil.apps.libreoffice') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    procs = subprocess.run(["pgrep", "-f", "soffice.bin.*asil-" + str(12345678)], capture_output=True)
    assert procs.returncode == 1


def test_calc_is_registered_lazily_with_its_metadata() -> None:
    assert "calc" in app_names()
    cls = adapter_class("calc")
    assert issubclass(cls, Adapter)
    assert (cls.name, cls.pattern, cls.extensions) == ("calc", "file", (".ods",))
    assert app_for_path("budget.ODS") == "calc"


def test_unknown_apps_and_file_types_name_what_is_valid() -> None:
    with pytest.raises(UnknownApp) as caught:
        adapter_class("photoshop")
    assert "calc" in (caught.value.hint or "")
    with pytest.raises(UnknownApp) as caught:
        app_for_path("notes.xyz")
    assert ".ods" in (caught.value.hint or "")
