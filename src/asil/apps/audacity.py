"""A warm Audacity under Xvfb, driven through mod-script-pipe.

Audacity 3.2 only talks scripting through two FIFOs with FIXED names,
``/tmp/audacity_script_pipe.to.<uid>`` and ``.from.<uid>``: two Audacity sessions of one user
(pytest -n 2, bench workers) would steal each other's pipes. So each session runs Audacity under
bubblewrap with a private folder bound over ``/tmp``: its pipes live in that folder, sessions never
meet, and nothing is serialised (a cross-process lock would make parallel episodes wait on each
other for the whole episode). The real ``/tmp/.X11-unix`` (the session's Xvfb socket), the
session folder and the workspace are bound back in, so Audacity sees the files it must read/write.

Each session also gets a private HOME whose ``.audacity-data/audacity.cfg`` enables
mod-script-pipe and turns off the first-run dialogs. Audacity's first start scans plugins in a
``audacity --host`` child that loads mod-script-pipe too and re-creates the FIFOs; the session
therefore copies a plugin registry built once per machine (cached under the cache dir), so no scan
(and no second pipe server) ever happens in a working session.

Every command has a timeout; a timed-out or dead Audacity is killed with its whole process group
and the caller gets :class:`AudacityCrashed` — the adapter decides how to recover.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import select
import shutil
import tempfile
import time
from pathlib import Path

from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable

MODULE = Path("/usr/lib/audacity/modules/mod-script-pipe.so")
START_TIMEOUT_S = 60.0
COMMAND_TIMEOUT_S = 30.0
DONE_PREFIX = "BatchCommand finished: "
SCRIPTED_SCREEN = (800, 480)  # the adapter's Audacity: a small window nobody looks at
GUI_SCREEN = (1280, 800)  # a GUI session's Audacity fills this screen
FFMPEG_LIBRARIES = [Path("/usr/lib/x86_64-linux-gnu") / name
                    for name in ("libavformat.so.59", "libavcodec.so.59", "libavutil.so.57")]
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends audacity bubblewrap xvfb"


class AudacityCrashed(ProgramFailed):
    """Audacity died or did not answer in time; the process is gone."""

    code = "audacity_crashed"


class CommandFailed(Exception):
    """Audacity answered ``BatchCommand finished: Failed!``; ``text`` is what it printed."""

    def __init__(self, command: str, text: str):
        super().__init__(f"{command}: {text}")
        self.command = command
        self.text = text


def audacity_path() -> str | None:
    return shutil.which("audacity")


def missing_parts() -> list[str]:
    """What this machine lacks to run a scripted Audacity (empty when all is there)."""
    needs = {"audacity": audacity_path(), "bwrap": shutil.which("bwrap"), "Xvfb": shutil.which("Xvfb")}
    missing = [name for name, found in needs.items() if found is None]
    if audacity_path() is not None and not MODULE.is_file():
        missing.append(str(MODULE))
    return missing


def _config(folder: Path, visible: bool = False) -> str:
    """audacity.cfg: mod-script-pipe enabled (with the module's own date, or Audacity asks), no dialogs.

    ``visible`` (a GUI session) gives the window the whole screen with Audacity's usual toolbars."""
    stamp = datetime.datetime.fromtimestamp(MODULE.stat().st_mtime).strftime("%Y-%m-%dT%H:%M:%S")
    return "\n".join([
        "PrefsVersion=1.1.1r1",
        "[Version]", "Major=3", "Minor=2", "Micro=4",
        "[Directories]", f"TempDir={folder / 'temp'}",
        "[Module]", "mod-script-pipe=1",
        "[ModulePath]", f"mod-script-pipe={MODULE}",
        "[ModuleDateTime]", f"mod-script-pipe={stamp}",
        "[GUI]", "ShowSplashScreen=0",
        "[Update]", "DefaultUpdatesChecking=0", "UpdatesChecking=0",
        "[Warnings]", "FirstProjectSave=0", "MixMono=0", "MixStereo=0", "MixUnknown=0",
        "[AudioIO]", "PlaybackDevice=", "RecordingDevice=",
        "[FFmpeg]", "Enabled=0",  # no FFmpeg import/export: its libraries load slowly and are not needed
        *(_gui_window() if visible else _scripted_window()),
        "",
    ])


def _scripted_window() -> list[str]:
    # A small window without toolbars: every command disables and re-enables the window (for its
    # progress dialog) and redraws it over X, so fewer widgets and pixels make every command cheaper.
    return ["[Window]", "X=0", "Y=0", "Width=640", "Height=200", "Maximized=0", *_hidden_toolbars()]


def _gui_window() -> list[str]:
    """The whole GUI screen, Audacity's default toolbars (what a person sees)."""
    width, height = GUI_SCREEN
    return ["[Window]", "X=0", "Y=0", f"Width={width}", f"Height={height}", "Maximized=1"]


# Audacity 3.2's toolbar sections; with a Dock entry for any of them it uses these instead of its defaults.
TOOLBARS = ("Tools", "Control", "CombinedMeter", "RecordMeter", "PlayMeter", "Edit", "Transcription", "Scrub",
            "Device", "Selection", "SpectralSelection", "Audio\\ Setup", "Time", "CutCopyPaste")


def _hidden_toolbars() -> list[str]:
    """audacity.cfg lines that keep every toolbar closed (the scripted edits need none of them)."""
    return [line for name in TOOLBARS for line in (f"[GUI/ToolBars/{name}]", "DockV2=1", "Dock=0", "Show=0")]


def _sandboxed(folder: Path, binds: list[Path], args: list[str]) -> list[str]:
    """bwrap: everything as usual except a private /tmp (the FIFOs), with the needed folders bound back."""
    command = ["bwrap", "--dev-bind", "/", "/", "--bind", str(folder / "tmp"), "/tmp",
               "--bind", "/tmp/.X11-unix", "/tmp/.X11-unix", "--die-with-parent"]
    for path in [folder, *binds]:
        command += ["--bind", str(path), str(path)]
    # Audacity 3.2 dlopens (and drops) the FFmpeg libraries whenever it refreshes its menus, that
    # is after every scripted command: about 0.2 s each. The adapter offers no FFmpeg formats, so
    # the sandbox hides those libraries behind an empty file and the load fails at once.
    empty = folder / "no-ffmpeg"
    empty.touch()
    for library in FFMPEG_LIBRARIES:
        if library.exists():
            command += ["--ro-bind", str(empty), str(library.resolve())]
    return command + args


def _environment(folder: Path, display: Display) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "WAYLAND", "DBUS_SESSION"))}
    env.update(display.env(), HOME=str(folder / "home"), TMPDIR="/tmp", NO_AT_BRIDGE="1")
    return env


def _prepare_home(folder: Path, visible: bool = False) -> None:
    data = folder / "home" / ".audacity-data"
    data.mkdir(parents=True, exist_ok=True)
    (folder / "tmp").mkdir(exist_ok=True)
    (folder / "temp").mkdir(exist_ok=True)
    (data / "audacity.cfg").write_text(_config(folder, visible), encoding="utf-8")


def plugin_registry(cache: Path) -> Path:
    """A folder holding pluginregistry.cfg/pluginsettings.cfg, made once by a plugin-scanning start."""
    key = hashlib.sha256(f"{MODULE.stat().st_mtime}-{os.path.getmtime(audacity_path() or '')}".encode())
    target = cache / "audacity" / f"plugins-{key.hexdigest()[:16]}"
    if (target / "pluginregistry.cfg").is_file():
        return target
    folder = Path(tempfile.mkdtemp(prefix="asil-audacity-scan-"))
    display = start_display()
    try:
        _prepare_home(folder)
        process = ManagedProcess("Audacity (plugin scan)", _sandboxed(folder, [], [audacity_path() or "audacity"]),
                                 log=folder / "scan.log", env=_environment(folder, display))
        registry = folder / "home" / ".audacity-data" / "pluginregistry.cfg"
        try:
            # The scan child is gone once the main window's pipe server is the only one left.
            process.wait_until(lambda: registry.is_file() and not _scanning(process.pid), START_TIMEOUT_S,
                               "its plugin scan")
            time.sleep(0.5)
        finally:
            process.stop()
        staged = target.with_name(target.name + f".{os.getpid()}")
        staged.mkdir(parents=True, exist_ok=True)
        for name in ("pluginregistry.cfg", "pluginsettings.cfg"):
            if (folder / "home" / ".audacity-data" / name).is_file():
                shutil.copy(folder / "home" / ".audacity-data" / name, staged / name)
        try:
            staged.rename(target)
        except OSError:  # another process made it first
            shutil.rmtree(staged, ignore_errors=True)
    finally:
        display.stop()
        shutil.rmtree(folder, ignore_errors=True)
    return target


def _scanning(group: int) -> bool:
    """True while a ``audacity --host`` plugin-scan child of this process group runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getpgid(int(entry.name)) != group:
                continue
            if b"--host" in (entry / "cmdline").read_bytes():
                return True
        except (OSError, ProcessLookupError):
            continue
    return False


class AudacitySession:
    """One running Audacity with an empty project; ``command`` sends one scripting command.

    ``visible`` makes it a GUI session's Audacity: the whole 1280x800 screen, toolbars shown.
    """

    def __init__(self, binds: list[Path], cache: Path, visible: bool = False):
        missing = missing_parts()
        if missing:
            raise AppUnavailable(f"Scripted Audacity needs {', '.join(missing)}, which this machine lacks.",
                                 hint=INSTALL_HINT)
        registry = plugin_registry(cache)
        self.folder = Path(tempfile.mkdtemp(prefix="asil-audacity-"))
        _prepare_home(self.folder, visible)
        for name in ("pluginregistry.cfg", "pluginsettings.cfg"):
            if (registry / name).is_file():
                shutil.copy(registry / name, self.folder / "home" / ".audacity-data" / name)
        self.display = start_display(*(GUI_SCREEN if visible else SCRIPTED_SCREEN))
        self.to_fd = self.from_fd = -1
        self.buffer = b""
        try:
            self.process = ManagedProcess(
                "Audacity", _sandboxed(self.folder, binds, [audacity_path() or "audacity"]),
                log=self.folder / "audacity.log", env=_environment(self.folder, self.display))
            self._connect()
        except BaseException:
            self.kill()
            raise

    # ------------------------------------------------------------ the pipes
    def _connect(self) -> None:
        """Open the FIFOs in the order the pipe server expects, then sync with a first echo."""
        to_pipe = self.folder / "tmp" / f"audacity_script_pipe.to.{os.getuid()}"
        from_pipe = self.folder / "tmp" / f"audacity_script_pipe.from.{os.getuid()}"
        self.process.wait_until(lambda: to_pipe.exists() and from_pipe.exists(), START_TIMEOUT_S, "its script pipes")
        self.from_fd = os.open(from_pipe, os.O_RDONLY | os.O_NONBLOCK)

        def writer_open() -> bool:
            try:
                self.to_fd = os.open(to_pipe, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: the server has not opened its end yet
                return False
            return True

        self.process.wait_until(writer_open, START_TIMEOUT_S, "its script pipe server", interval_s=0.05)
        os.set_blocking(self.to_fd, True)
        self._sync()

    def _sync(self) -> None:
        """The first commands after start-up can be dropped: echo a nonce until it comes back."""
        deadline = time.monotonic() + START_TIMEOUT_S
        attempt = 0
        while time.monotonic() < deadline:
            attempt += 1
            nonce = f"asil-ready-{attempt}"
            self._send(f"Message: Text={nonce}")
            try:
                while True:
                    text, _ok = self._reply("Message", 2.0)
                    if nonce in text:
                        return
            except TimeoutError:
                continue
        self.kill()
        raise AudacityCrashed(f"Audacity did not answer its script pipe within {START_TIMEOUT_S:g} s.")

    def _send(self, line: str) -> None:
        try:
            os.write(self.to_fd, (line + "\n").encode("utf-8"))
        except OSError as exc:
            self.kill()
            raise AudacityCrashed(f"The pipe to Audacity broke ({exc.strerror}).") from None

    def _reply(self, what: str, timeout_s: float) -> tuple[str, bool]:
        """Read up to the 'BatchCommand finished' line; raise TimeoutError, AudacityCrashed on EOF."""
        deadline = time.monotonic() + timeout_s
        while True:
            marker = self.buffer.find(DONE_PREFIX.encode())
            if marker >= 0:
                end = self.buffer.find(b"\n", marker)
                if end >= 0:
                    text = self.buffer[:marker].decode("utf-8", "replace")
                    status = self.buffer[marker + len(DONE_PREFIX):end].decode().strip()
                    self.buffer = self.buffer[end + 1:].lstrip(b"\n")
                    return text.strip("\n"), status.startswith("OK")
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(what)
            ready, _, _ = select.select([self.from_fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_fd, 1 << 16)
            if chunk:
                self.buffer += chunk
                continue
            # End of file: no writer on the FIFO. Right after start-up the server may not have opened
            # its end yet; otherwise Audacity is gone. The deadline bounds the wait either way.
            code = self.process.process.poll()
            if code is not None:
                self.kill()
                raise AudacityCrashed(f"Audacity exited (code {code}) while handling {what!r}.")
            time.sleep(0.02)

    @property
    def alive(self) -> bool:
        return self.process.alive

    def command(self, line: str, timeout_s: float | None = None) -> str:
        """Send one command line; its printed text. CommandFailed when Audacity says Failed!."""
        timeout_s = COMMAND_TIMEOUT_S if timeout_s is None else timeout_s  # read now: tests shorten it
        what = line.split(":", 1)[0]
        if not self.alive:
            raise AudacityCrashed(f"Audacity is not running (exit code {self.process.process.returncode}).")
        self._send(line)
        try:
            text, ok = self._reply(what, timeout_s)
        except TimeoutError:
            self.kill()
            raise AudacityCrashed(f"Audacity did not answer {what!r} within {timeout_s:g} s and was stopped.",
                                  hint="Make the request smaller (a shorter range or file).") from None
        if not ok:
            raise CommandFailed(what, text)
        return text

    # ------------------------------------------------------------ life
    def kill(self) -> None:
        """Stop Audacity, its sandbox and its display; remove the session folder."""
        for fd in (self.to_fd, self.from_fd):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.to_fd = self.from_fd = -1
        if hasattr(self, "process"):
            self.process.stop(grace_s=1.0)
        if hasattr(self, "display"):
            self.display.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def close(self) -> None:
        self.kill()


