"""A warm, headless LibreOffice that ASIL starts on demand, reuses, and restarts if it dies.

Each ``Office`` owns its own user profile (a ``--convert-to`` or a second instance that
shared it would hand its work to this one), listens on a private pipe, and carries ASIL's
engine scripts in the profile so a request costs one bridge call (see lo_scripts/).
"""

from __future__ import annotations

import atexit
import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from importlib import resources
from pathlib import Path
from typing import Any

from asil.apps import SPAWN_LOCK, reaper
from asil.protocol import ActionFailed, AppUnavailable, AsilError, InvalidAction

INSTALL_HINT = (
    "Install it with: apt-get install libreoffice-calc-nogui libreoffice-script-provider-python python3-uno"
)
DEBIAN_UNO_PATH = "/usr/lib/python3/dist-packages"
START_TIMEOUT_S = 60.0
# A UNO call has no timeout of its own: a frozen LibreOffice would block the episode for ever. Past this, the
# process is killed (the blocked call then fails) and restarted like after a crash.
CALL_TIMEOUT_S = 60.0
# Engine error codes that mean "the request was wrong" (status invalid) rather than "it failed".
INPUT_ERRORS = {
    # Calc
    "invalid_formula", "invalid_number_format", "no_sheet", "sheet_exists", "last_sheet",
    # Writer and Impress
    "bad_anchor", "bad_regex", "last_block", "last_slide", "no_element", "no_match", "no_notes",
    "no_placeholder", "no_shape", "no_slide", "no_style", "no_text", "out_of_table", "shape_exists",
    "table_exists",
}
_pipe_names = itertools.count()

# Keep LibreOffice from writing lock files and recovery data into users' folders.
_REGISTRY = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Misc"><prop oor:name="UseLocking" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Save/Document">
  <prop oor:name="AutoSave" oor:op="fuse"><value>false</value></prop></item>
<item oor:path="/org.openoffice.Office.Recovery/RecoveryInfo">
  <prop oor:name="Enabled" oor:op="fuse"><value>false</value></prop></item>
</oor:items>
"""


class OfficeRestarted(ActionFailed):
    """LibreOffice died during a request; it was restarted and open documents were lost."""

    code = "app_restarted"


def import_uno() -> Any:
    """Import pyuno, falling back to Debian's location when ASIL runs in another Python."""
    try:
        import uno
    except ImportError:
        if DEBIAN_UNO_PATH not in sys.path:
            sys.path.append(DEBIAN_UNO_PATH)
        try:
            import uno
        except ImportError:
            raise AppUnavailable("Python's UNO bridge (pyuno) is not installed.", hint=INSTALL_HINT) from None
    return uno


def _office_environment(uno: Any) -> dict[str, str]:
    """The environment for soffice. Its embedded Python finds its standard library through
    PATH; under pyenv or a venv that is another Python, which then cannot import ``uno`` and
    breaks the script provider. Pointing PYTHONPATH at pyuno's folder fixes that."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONHOME", "PYTHONPATH")}
    env["PYTHONPATH"] = os.path.dirname(uno.__file__)
    return env


def soffice_path() -> str | None:
    return shutil.which("soffice") or shutil.which("libreoffice")


class Office:
    """One headless LibreOffice process with its own profile and ASIL's engine scripts."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.profile: Path | None = None
        self.generation = 0  # increases on every (re)start; adapters reopen documents when it changes
        self.pipe = ""  # the name of the pipe it listens on (the UNO channel connects there too)
        self._scripts: dict[str, Any] = {}
        self._context: Any = None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        binary = soffice_path()
        if binary is None:
            raise AppUnavailable("LibreOffice (soffice) is not installed.", hint=INSTALL_HINT)
        uno = import_uno()
        self.profile = self._make_profile()
        self._seed_profile(self.profile)
        pipe = f"asil-{os.getpid()}-{next(_pipe_names)}"
        args = [binary, "--headless", "--invisible", "--nologo", "--norestore", "--nodefault",
                "--nolockcheck", f"-env:UserInstallation={self.profile.as_uri()}",
                f"--accept=pipe,name={pipe};urp;StarOffice.ComponentContext"]
        args, env = self._launch(args, _office_environment(uno), pipe)
        with SPAWN_LOCK:
            self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                            stderr=subprocess.DEVNULL, start_new_session=True,
                                            env=reaper.tag(env))
        reaper.watch(self.process.pid)
        self.pipe = pipe
        self._context = self._connect(uno, pipe)
        self._scripts = {}
        self.generation += 1

    def _make_profile(self) -> Path:
        return Path(tempfile.mkdtemp(prefix="asil-lo-"))

    def _launch(self, args: list[str], env: dict[str, str], pipe: str) -> tuple[list[str], dict[str, str]]:
        """The command line and environment soffice starts with; a confined office wraps them."""
        return args, env

    def pipe_socket(self) -> Path:
        """The Unix socket behind the pipe: OSL puts it in /tmp (else /var/tmp, whatever TMPDIR says), named
        after the user id and the pipe."""
        self.ensure()
        name = f"OSL_PIPE_{os.getuid()}_{self.pipe}"
        return next((p for p in (Path("/tmp") / name, Path("/var/tmp") / name) if p.exists()), Path("/tmp") / name)

    def _seed_profile(self, profile: Path) -> None:
        scripts = profile / "user" / "Scripts" / "python"
        scripts.mkdir(parents=True)
        source = resources.files("asil.apps").joinpath("lo_scripts")
        # The engines, and beside them pythonpath/ (their shared module, put on sys.path by the provider).
        for folder, target in ((source, scripts), (source.joinpath("pythonpath"), scripts / "pythonpath")):
            target.mkdir(exist_ok=True)
            for entry in folder.iterdir():
                if entry.name.endswith(".py"):
                    (target / entry.name).write_text(entry.read_text(encoding="utf-8"), encoding="utf-8")
        (profile / "user" / "registrymodifications.xcu").write_text(_REGISTRY, encoding="utf-8")

    def _connect(self, uno: Any, pipe: str) -> Any:
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if not self.alive:
                raise AppUnavailable("LibreOffice exited while starting.", hint=INSTALL_HINT)
            try:
                return resolver.resolve(f"uno:pipe,name={pipe};urp;StarOffice.ComponentContext")
            except Exception:  # NoConnectException until the listener is up
                time.sleep(0.05)
        self.stop()
        raise AppUnavailable(f"LibreOffice did not start within {START_TIMEOUT_S:.0f} s.")

    def _script(self, module: str) -> Any:
        if module not in self._scripts:
            factory = self._context.ServiceManager.createInstanceWithContext(
                "com.sun.star.script.provider.MasterScriptProviderFactory", self._context)
            provider = factory.createScriptProvider("")
            self._scripts[module] = provider.getScript(
                f"vnd.sun.star.script:{module}.py$dispatch?language=Python&location=user")
        return self._scripts[module]

    def ensure(self) -> None:
        if not self.alive:
            self.stop()
            self.start()

    def call(self, module: str, op: str, **args: Any) -> Any:
        """Run one engine operation; engine errors come back as AsilError with their code."""
        self.ensure()
        hung = threading.Event()

        def stop_hung(process: subprocess.Popen[bytes] | None = self.process) -> None:
            hung.set()
            if process is not None:
                kill_group(process)

        watchdog = threading.Timer(CALL_TIMEOUT_S, stop_hung)
        watchdog.daemon = True
        watchdog.start()
        try:
            reply = json.loads(self._script(module).invoke((json.dumps({"op": op, **args}),), (), ())[0])
        except Exception as exc:
            if isinstance(exc, AsilError):
                raise
            # The bridge is gone: LibreOffice crashed, was killed, or hung and the watchdog killed it.
            self.stop()
            self.start()
            why = f"did not answer within {CALL_TIMEOUT_S:.0f} s" if hung.is_set() else "stopped unexpectedly"
            raise OfficeRestarted(
                f"LibreOffice {why} and was restarted; unsaved changes were lost.",
                hint="The document was reopened from its last saved state; repeat the action.",
            ) from None
        finally:
            watchdog.cancel()
        if reply["ok"]:
            return reply["result"]
        error = reply["error"]
        if error["code"] == "engine_error":
            raise RuntimeError(f"ASIL's LibreOffice engine failed:\n{error['message']}")
        kind = InvalidAction if error["code"] in INPUT_ERRORS else ActionFailed
        raise kind(error["message"], hint=error.get("hint"), code=error["code"])

    def stop(self) -> None:
        process = self.process
        if process is not None and process.poll() is None:
            try:
                desktop = self._context.ServiceManager.createInstanceWithContext(
                    "com.sun.star.frame.Desktop", self._context)
                desktop.terminate()
            except Exception:  # already gone, or the bridge broke: fall through to kill
                pass
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        self.kill()  # the group may still hold a soffice.bin

    def kill(self) -> None:
        """Kill LibreOffice at once without touching the bridge (safe from a signal handler)."""
        process, self.process = self.process, None
        if process is not None:
            kill_group(process)
        self._context = None
        self._scripts = {}
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill soffice's whole process group: the launcher we started and the soffice.bin it runs."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    process.wait()


_shared: Office | None = None


def kill_shared_office() -> None:
    """Kill the process's warm LibreOffice, if it was started (for signal handlers)."""
    if _shared is not None:
        _shared.kill()


def shared_office() -> Office:
    """The process's warm LibreOffice, started on first use and stopped at exit."""
    global _shared
    if _shared is None:
        _shared = Office()
        atexit.register(_shared.stop)
    return _shared


def warm_up() -> None:
    """Start the process's LibreOffice now, so that no episode pays for the start.

    If it cannot start, the episodes that need it say why (env_error with the reason).
    """
    try:
        shared_office().ensure()
    except AsilError:
        pass


def stop_shared() -> None:
    """Stop the process's warm LibreOffice, if it was started."""
    if _shared is not None:
        _shared.stop()
