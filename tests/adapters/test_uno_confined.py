"""The UNO arm's LibreOffice is confined: hostile UNO code that asks LibreOffice itself to store, load or start
something outside the workspace, or to reach the network, fails (one sentence back, the document as it was) or is
contained, and nothing outside the workspace changes. The ASIL arm's shared LibreOffice is not touched."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from asil.apps.libreoffice import shared_office
from asil.apps.libreoffice_confined import ConfinedOffice
from asil.env import Env
from asil.protocol import Action, ActionResult
from asil.tasks import get_task

pytestmark = [pytest.mark.native_baseline, pytest.mark.slow]

UNDONE = "; the document was left as it was before this step."
HIDDEN = 'from com.sun.star.beans import PropertyValue\nhidden = PropertyValue(Name="Hidden", Value=True)\n'


def uno(env: Env, code: str) -> ActionResult:
    return env.dispatch("uno", Action(action_type="invoke_function", target="uno",
                                      params={"code": code, "timeout_s": 20})).result


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def sales() -> Iterator[Env]:
    env = Env(get_task("calc-total-column"))
    env.reset()
    yield env
    env.close()


def document(env: Env) -> Path:
    assert env.workspace is not None
    return env.workspace.root / "sales.ods"


def refused(result: ActionResult, exception: str) -> str:
    assert result.status == "error" and result.error is not None
    message = result.error.message
    assert message.startswith(f"The code raised {exception}") and message.endswith(UNDONE), message
    return message


def test_the_uno_step_runs_on_a_confined_office_and_the_asil_arm_keeps_the_shared_one(sales: Env) -> None:
    assert sales.primary.office is shared_office()
    assert uno(sales, "print(doc.getURL())").ok
    office = sales.adapters["calc"].office
    assert isinstance(office, ConfinedOffice) and office is not shared_office() and office.alive


def test_store_to_url_in_home_fails(sales: Env) -> None:
    target = Path.home() / "asil-uno-escaped.ods"
    before = digest(document(sales))
    result = uno(sales, f'doc.storeToURL({target.as_uri()!r}, ())')
    assert f"SfxBaseModel::impl_store <{target.as_uri()}> failed" in refused(result, "com.sun.star.io.IOException")
    assert not target.exists() and digest(document(sales)) == before


def test_store_to_url_in_tmp_lands_in_the_office_s_private_tmp(sales: Env, tmp_path: Path) -> None:
    """/tmp exists inside (LibreOffice needs one), but it is the office's own, removed with it: the machine's
    /tmp does not change."""
    target = tmp_path / "asil-uno-escaped.ods"
    result = uno(sales, f'doc.storeToURL({target.as_uri()!r}, ())')
    office = sales.adapters["calc"].office
    assert isinstance(office, ConfinedOffice) and office.root is not None
    assert result.ok and not target.exists()
    assert (office.root / "tmp" / target.relative_to("/tmp")).is_file()


def test_store_to_url_inside_the_workspace_still_works(sales: Env) -> None:
    copy = document(sales).with_name("copy.ods")
    assert uno(sales, f'doc.storeToURL({copy.as_uri()!r}, ())').ok and copy.stat().st_size > 0


def test_a_program_started_through_system_shell_execute_is_confined_too(sales: Env) -> None:
    """LibreOffice does not refuse SystemShellExecute and does not wait for the program, so nothing comes back:
    the program runs in the office's confinement, where only the workspace can be written."""
    outside = Path.home() / "asil-uno-shell-escaped"
    inside = document(sales).with_name("shell-ran")
    result = uno(sales, 'import time\n'
                        'shell = ctx.ServiceManager.createInstanceWithContext("com.sun.star.system.SystemShellExecute",'
                        ' ctx)\n'
                        f'shell.execute("/usr/bin/touch", "{outside}", 0)\n'
                        f'shell.execute("/usr/bin/touch", "{inside}", 0)\n'
                        f'while not __import__("os").path.exists({str(inside)!r}):\n    time.sleep(0.1)\n'
                        'time.sleep(0.5)')
    assert result.ok and inside.exists()  # it ran: it made the file it may make
    assert not outside.exists()


def test_reading_a_file_outside_the_workspace_through_libreoffice_fails(sales: Env) -> None:
    secret = Path.home() / "asil-uno-probe.csv"
    secret.write_text("secret,42\n")
    try:
        result = uno(sales, HIDDEN + f'desktop.loadComponentFromURL({secret.as_uri()!r}, "_blank", 0, (hidden,))')
        assert f"Unsupported URL <{secret.as_uri()}>" in refused(result, "com.sun.star.lang.IllegalArgumentException")
    finally:
        secret.unlink()


def test_the_office_sees_a_stub_user_list_not_the_machine_s(sales: Env) -> None:
    machine = Path("/etc/passwd").read_text().splitlines()[0]
    result = uno(sales, HIDDEN + 'text = desktop.loadComponentFromURL("file:///etc/passwd", "_blank", 0, (hidden,))\n'
                                 'print(text.Text.String)\ntext.close(True)')
    assert result.ok and result.output.startswith("office:x:") and machine not in result.output


class Recorder(http.server.BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
        Recorder.requests.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"a,b\n1,2\n")


def test_libreoffice_cannot_reach_the_network(sales: Env) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/data.csv"
    try:
        result = uno(sales, HIDDEN + f'desktop.loadComponentFromURL({url!r}, "_blank", 0, (hidden,))')
    finally:
        server.shutdown()
        server.server_close()
    assert f"Unsupported URL <{url}>" in refused(result, "com.sun.star.lang.IllegalArgumentException")
    assert Recorder.requests == []


def test_the_office_sees_no_secret_of_the_asil_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASIL_TEST_SECRET", "sk-do-not-leak")
    env = Env(get_task("calc-total-column"))
    env.reset()
    try:
        result = uno(env, 'expander = ctx.getValueByName("/singletons/com.sun.star.util.theMacroExpander")\n'
                          'print(repr(expander.expandMacros("${ASIL_TEST_SECRET}")), '
                          'repr(expander.expandMacros("${HOME}")))')
    finally:
        env.close()
    assert result.ok and "sk-do-not-leak" not in result.output and "profile" in result.output, result.output
