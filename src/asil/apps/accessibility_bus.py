"""A private AT-SPI accessibility bus for one GUI program, so its widgets can be read as a tree.

Toolkits publish their widgets on the *accessibility* bus (a second D-Bus daemon, normally started by
at-spi-bus-launcher for a desktop session). A GUI episode's program runs alone on a private Xvfb, so it gets
a bus of its own: ``dbus-daemon`` with at-spi2-core's accessibility configuration on a socket in a private
folder, and ``at-spi2-registryd`` on it (the registry whose root lists the applications). The program finds
the bus through ``AT_SPI_BUS_ADDRESS``, which libatspi (GTK 3's atk-bridge, Chromium) and Qt read before
asking any session bus; :meth:`AccessibilityBus.program_env` also turns on what each toolkit needs.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from asil.apps.display import Display, start_display
from asil.apps.process import ManagedProcess
from asil.protocol import AppUnavailable

REGISTRYD = Path("/usr/libexec/at-spi2-registryd")
INSTALL_HINT = "Install it with: apt-get install at-spi2-core dbus"
START_TIMEOUT_S = 10.0
CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>accessibility</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"""
# Variables that switch a toolkit's accessibility off (set by launchers that run without a bus).
SILENCING = ("NO_AT_BRIDGE", "GTK_A11Y")
# Qt publishes its widgets only when asked: QT_ACCESSIBILITY turns the bridge on, ..._ALWAYS_ON skips asking
# a session bus whether a screen reader runs (there is none to ask).
# Gecko (Thunderbird) likewise turns its accessibility on at start only when GNOME_ACCESSIBILITY says so.
TOOLKIT_ON = {"QT_ACCESSIBILITY": "1", "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": "1", "GNOME_ACCESSIBILITY": "1"}


class AccessibilityBus:
    """One running accessibility bus with its registry, for one program on one display."""

    def __init__(self, display_env: dict[str, str]):
        daemon = shutil.which("dbus-daemon")
        if daemon is None or not REGISTRYD.is_file():
            raise AppUnavailable("An accessibility tree needs dbus-daemon and at-spi2-registryd.", hint=INSTALL_HINT)
        self.folder = Path(tempfile.mkdtemp(prefix="asil-a11y-"))
        socket = self.folder / "bus"
        self.address = f"unix:path={socket}"
        config = self.folder / "accessibility.conf"
        config.write_text(CONFIG.format(socket=socket), encoding="utf-8")
        self.daemon: ManagedProcess | None = ManagedProcess(
            "accessibility bus", [daemon, f"--config-file={config}", "--nofork", "--nopidfile"],
            log=self.folder / "bus.log")
        self.registry: ManagedProcess | None = None
        try:
            self.daemon.wait_until(socket.exists, START_TIMEOUT_S, "opening its socket")
            self.registry = ManagedProcess("at-spi2-registryd", [str(REGISTRYD)], log=self.folder / "registryd.log",
                                           env={"PATH": "/usr/bin:/bin", **display_env, "AT_SPI_BUS_ADDRESS": self.address})
        except BaseException:
            self.stop()
            raise

    def program_env(self, env: dict[str, str]) -> dict[str, str]:
        """``env`` for a program that should publish its widgets on this bus."""
        kept = {key: value for key, value in env.items() if key not in SILENCING}
        return {**kept, **TOOLKIT_ON, "AT_SPI_BUS_ADDRESS": self.address}

    def stop(self) -> None:
        for part in (self.registry, self.daemon):
            if part is not None:
                part.stop(grace_s=1.0)
        self.registry = self.daemon = None
        shutil.rmtree(self.folder, ignore_errors=True)


class AccessibleDisplay(Display):
    """A private display whose programs publish their widgets on an accessibility bus of its own.

    For launchers whose program takes its environment from deeper layers (an adapter's session): what they
    add from ``display.env()`` then carries the bus too, and stopping the display stops the bus.
    """

    def __init__(self, display: Display):
        super().__init__(display.number, display.process)
        self.bus = AccessibilityBus(display.env())

    def env(self) -> dict[str, str]:
        return self.bus.program_env(super().env())

    def stop(self) -> None:
        self.bus.stop()
        super().stop()


def start_accessible_display(width: int, height: int) -> AccessibleDisplay:
    """A private Xvfb with its own accessibility bus."""
    display = start_display(width, height)
    try:
        return AccessibleDisplay(display)
    except BaseException:
        display.stop()
        raise


__all__ = ["AccessibilityBus", "AccessibleDisplay", "start_accessible_display"]
