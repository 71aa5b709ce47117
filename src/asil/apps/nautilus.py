"""A private Nautilus: its own Xvfb, its own D-Bus session, its own HOME, driven over D-Bus.

``DISPLAY`` must be set before ``dbus-run-session`` starts, because services the bus activates
later (gvfsd, portals) inherit the bus's environment. A tiny shell wrapper under
``dbus-run-session`` writes ``$DBUS_SESSION_BUS_ADDRESS`` to a file and then becomes Nautilus, so
this side can connect to exactly that bus. HOME and the XDG folders point into a private folder
of the workspace: the GIO trash, ``gtk-3.0/bookmarks`` and metadata never touch the user's.

Every D-Bus call has a timeout. A session that dies or stops answering is
stopped (whole process group) and :class:`NautilusLost` is raised; the adapter starts a new one.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess, ProgramFailed
from asil.protocol import AppUnavailable

START_TIMEOUT_S = 30.0
SCREEN = (1024, 700)  # the adapter's display; the GUI participant asks for 1280x800
START_ATTEMPTS = 3
CALL_TIMEOUT_S = 10.0
INSTALL_HINT = ("Install it with: sudo apt-get install -y --no-install-recommends nautilus dbus gvfs xvfb "
                "at-spi2-core")
NAUTILUS = "org.gnome.Nautilus"
# D-Bus objects as (bus name, object path, interface); jeepney is imported only when a session starts.
Target = tuple[str, str, str]
FILE_OPS: Target = (NAUTILUS, "/org/gnome/Nautilus/FileOperations2", "org.gnome.Nautilus.FileOperations2")
FILE_MANAGER: Target = (NAUTILUS, "/org/freedesktop/FileManager1", "org.freedesktop.FileManager1")
BUS: Target = ("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus")
A11Y_BUS: Target = ("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus")
# The only services the private bus may start: GVfs (the trash:// backend Nautilus empties the trash
# through) and its metadata daemon, and the accessibility bus (AT-SPI), through which the adapter reads and sets
# the selection of a window's file view. Leaving out the portals matters: xdg-document-portal mounts a FUSE file
# system in XDG_RUNTIME_DIR that outlives a killed session and pins the workspace.
ACTIVATABLE = ("org.gtk.vfs.Daemon.service", "org.gtk.vfs.Metadata.service", "org.a11y.Bus.service")
SYSTEM_SERVICES = Path("/usr/share/dbus-1/services")
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <keep_umask/>
  <listen>unix:dir={folder}</listen>
  <auth>EXTERNAL</auth>
  <servicedir>{services}</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
# Runs under dbus-run-session: publish the bus address, then become Nautilus (same pid, same group).
WRAPPER = 'printf %s "$DBUS_SESSION_BUS_ADDRESS" > "$0.tmp" && mv "$0.tmp" "$0" && exec nautilus --gapplication-service'


class NautilusLost(ProgramFailed):
    """Nautilus or its bus died or did not answer in time; the session was stopped."""

    code = "nautilus_lost"


def missing_programs() -> list[str]:
    missing = [p for p in ("nautilus", "dbus-run-session", "Xvfb") if shutil.which(p) is None]
    if not (SYSTEM_SERVICES / ACTIVATABLE[0]).is_file():
        missing.append("gvfs")  # Nautilus empties the trash through GVfs's trash:// backend
    if not (SYSTEM_SERVICES / ACTIVATABLE[2]).is_file():
        missing.append("at-spi2-core")  # the accessibility bus that shows a window's selection
    return missing


def private_env(folder: Path, display: Display) -> dict[str, str]:
    """The environment of everything in the session: a private HOME and XDG tree under ``folder``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DBUS_", "XDG_", "WAYLAND"))}
    runtime = folder / "runtime"
    runtime.mkdir(parents=True, exist_ok=True)
    runtime.chmod(0o700)
    # GSK_RENDERER=cairo: GTK 4's GL renderer on Xvfb's software GL leaves Nautilus's file view undrawn.
    env.update(display.env(), HOME=str(folder / "home"), XDG_CONFIG_HOME=str(folder / "config"),
               XDG_DATA_HOME=str(folder / "data"), XDG_CACHE_HOME=str(folder / "cache"),
               XDG_RUNTIME_DIR=str(runtime), GSETTINGS_BACKEND="memory",
               GIO_USE_VOLUME_MONITOR="unix", GSK_RENDERER="cairo")
    for name in ("home", "config", "data", "cache"):
        (folder / name).mkdir(parents=True, exist_ok=True)
    return env


class NautilusSession:
    """One running Nautilus service on a private bus and display; ``call`` sends one D-Bus method call."""

    def __init__(self, folder: Path, call_timeout_s: float = CALL_TIMEOUT_S, size: tuple[int, int] = SCREEN):
        missing = missing_programs()
        if missing:
            raise AppUnavailable(f"Nautilus needs {', '.join(missing)}, which is not installed.", hint=INSTALL_HINT)
        self.call_timeout_s = call_timeout_s
        self.display: Display | None = None
        self.process: ManagedProcess | None = None
        self.connection: Any = None  # a jeepney blocking DBusConnection
        failure: ProgramFailed | None = None
        for _attempt in range(START_ATTEMPTS):
            try:
                self.display = start_display(*size)
                self.env = private_env(folder, self.display)
                self._start(folder)
                if self.alive:
                    return
                failure = NautilusLost("Nautilus or its display exited right after starting.",
                                       hint=self.process.log_tail() if self.process else None)
            except ProgramFailed as exc:  # e.g. another program took the display number at the same moment
                failure = exc
            except BaseException:
                self.stop()
                raise
            self.stop()
        assert failure is not None
        raise failure

    def _start(self, folder: Path) -> None:
        scratch = Path(tempfile.mkdtemp(prefix="asil-nautilus-"))
        address_file = scratch / "bus-address"
        self.scratch = scratch
        config = self._bus_config(scratch)
        self.process = ManagedProcess("nautilus", ["dbus-run-session", f"--config-file={config}", "--", "sh", "-c",
                                                   WRAPPER, str(address_file)],
                                      log=scratch / "nautilus.log", env=self.env, cwd=folder)
        self.process.wait_until(address_file.exists, START_TIMEOUT_S, "its D-Bus session")
        self.address = address_file.read_text().strip()
        self.env["DBUS_SESSION_BUS_ADDRESS"] = self.address
        from jeepney.io.blocking import open_dbus_connection

        self.connection = open_dbus_connection(self.address, auth_timeout=5.0)
        self.process.wait_until(self._nautilus_on_bus, START_TIMEOUT_S, "Nautilus on its D-Bus session", 0.05)
        # A property read is answered by Nautilus's main loop: once it answers, file operations are served.
        try:
            self._send(FILE_OPS, "Get", "ss", (FILE_OPS[2], "UndoStatus"), START_TIMEOUT_S,
                       interface="org.freedesktop.DBus.Properties")
        except TimeoutError:
            raise NautilusLost(f"Nautilus did not serve D-Bus calls within {START_TIMEOUT_S:g} s of starting.",
                               hint=self.process.log_tail() or None) from None

    @staticmethod
    def _bus_config(scratch: Path) -> Path:
        services = scratch / "services"
        services.mkdir()
        for name in ACTIVATABLE:
            if (SYSTEM_SERVICES / name).is_file():
                (services / name).symlink_to(SYSTEM_SERVICES / name)
        config = scratch / "session.conf"
        config.write_text(BUS_CONFIG.format(folder=scratch, services=services), encoding="utf-8")
        return config

    def _nautilus_on_bus(self) -> bool:
        return bool(self._send(BUS, "NameHasOwner", "s", (NAUTILUS,), 2.0)[0])

    @property
    def alive(self) -> bool:
        return (self.process is not None and self.process.alive and self.display is not None
                and self.display.alive)

    def healthy(self) -> bool:
        """Alive and answering a ping on its bus within a second."""
        if not self.alive:
            return False
        try:
            self._send(FILE_OPS, "Ping", "", (), 1.0, interface="org.freedesktop.DBus.Peer")
        except (NautilusLost, TimeoutError, OSError):
            return False
        return True

    def call(self, address: Target, method: str, signature: str = "", body: tuple[Any, ...] = (),
             timeout_s: float | None = None, interface: str | None = None) -> tuple[Any, ...]:
        """One D-Bus method call; NautilusLost (session stopped) when it fails or times out."""
        if not self.alive:
            tail = self.process.log_tail(300) if self.process else ""
            self.stop()
            raise NautilusLost("Nautilus is not running (it exited or was killed); it restarts on the next action.",
                               hint=tail or None)
        timeout = timeout_s or self.call_timeout_s
        try:
            return self._send(address, method, signature, body, timeout, interface)
        except TimeoutError:
            self.stop()
            raise NautilusLost(f"Nautilus did not answer {method} within {timeout:g} s and was stopped.",
                               hint="The next action starts a fresh Nautilus.") from None
        except OSError as exc:
            self.stop()
            raise NautilusLost(f"The D-Bus connection to Nautilus broke during {method} ({exc}).",
                               hint="The next action starts a fresh Nautilus.") from None

    def _send(self, address: Target, method: str, signature: str, body: tuple[Any, ...], timeout_s: float,
              interface: str | None = None) -> tuple[Any, ...]:
        from jeepney import DBusAddress, MessageType, new_method_call

        if self.connection is None:
            raise NautilusLost("Nautilus has no D-Bus connection.")
        bus_name, path, default_interface = address
        target = DBusAddress(path, bus_name=bus_name, interface=interface or default_interface)
        message = new_method_call(target, method, signature or None, body)
        reply = self.connection.send_and_get_reply(message, timeout=timeout_s)
        if reply.header.message_type == MessageType.error:
            raise NautilusLost(f"Nautilus refused {method}: {reply.body[0] if reply.body else 'D-Bus error'}.")
        return tuple(reply.body)

    def get_property(self, address: Target, name: str, timeout_s: float | None = None) -> Any:
        (value,) = self.call(address, "Get", "ss", (address[2], name), timeout_s=timeout_s,
                             interface="org.freedesktop.DBus.Properties")
        return value[1]  # a variant: (signature, value)

    def accessibility_address(self) -> str:
        """The address of the session's accessibility (AT-SPI) bus, on which Nautilus publishes its widgets."""
        (address,) = self.call(A11Y_BUS, "GetAddress")
        return str(address)

    def stop(self) -> None:
        """Stop Nautilus, its bus and everything they started, and the display; always returns."""
        if self.connection is not None:
            try:
                self.connection.close()
            except OSError:
                pass
            self.connection = None
        if self.process is not None:
            self.process.stop(grace_s=2.0)
            shutil.rmtree(self.scratch, ignore_errors=True)
            self.process = None
        if self.display is not None:
            self.display.stop()
            self.display = None

    @property
    def pid(self) -> int | None:
        """The Nautilus process (the wrapper's exec target, a child of dbus-run-session)."""
        if self.process is None:
            return None
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children")
        try:
            for pid in children.read_text().split():
                if Path(f"/proc/{pid}/comm").read_text().strip() == "nautilus":
                    return int(pid)
        except OSError:
            return None
        return None
