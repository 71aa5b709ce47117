"""A warm headless Thunderbird driven over Marionette, with a private profile.

The profile's ``user.js`` (rewritten before every start) holds the Marionette port and the one
IMAP account (to ASIL's Dovecot) with its SMTP server (ASIL's sink). After start the session
installs ``thunderbird_scripts/asil_mail.js`` into the main window; every request then runs one
of its operations with a deadline. A request that times out or finds Thunderbird dead stops the
whole process group and raises :class:`ThunderbirdLost`; the adapter restarts it.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import weakref
from importlib import resources
from pathlib import Path
from typing import Any

from asil.apps.display import Display
from asil.apps.mailserver import stop_if_alive
from asil.apps.marionette import Marionette, MarionetteLost
from asil.apps.process import ManagedProcess, ProgramFailed, free_port, port_open
from asil.protocol import ActionFailed, AppUnavailable, InvalidAction

START_TIMEOUT_S = 90.0
REQUEST_TIMEOUT_S = 30.0
START_ATTEMPTS = 3
INSTALL_HINT = "Install it with: sudo apt-get install -y --no-install-recommends thunderbird"
IDENTITY = ("ASIL User", "user@example.com")


class PortTaken(Exception):
    """The Marionette port was taken by another program before Thunderbird could listen on it."""


class ThunderbirdLost(MarionetteLost):
    """Thunderbird died or did not answer in time; it has been stopped."""


def thunderbird_path() -> str | None:
    return shutil.which("thunderbird")


SCRIPTS = ("asil_mail.js", "asil_compose.js")  # in this order: the compose operations extend the mail ones


def mail_scripts() -> list[str]:
    folder = resources.files("asil.apps") / "thunderbird_scripts"
    return [(folder / name).read_text(encoding="utf-8") for name in SCRIPTS]


def _pref(name: str, value: object) -> str:
    return f"user_pref({json.dumps(name)}, {json.dumps(value)});"


def profile_prefs(marionette_port: int, imap_port: int, smtp_port: int, user: str) -> str:
    """user.js: quiet start-up, one IMAP account with its identity and SMTP server, no network probing."""
    name, email = IDENTITY
    imap = f"imap://{user}@127.0.0.1"
    prefs: dict[str, object] = {
        "marionette.port": marionette_port,
        "mail.shell.checkDefaultClient": False, "mail.provider.enabled": False, "mail.rights.override": True,
        "app.update.enabled": False, "app.update.auto": False, "datareporting.policy.dataSubmissionEnabled": False,
        "toolkit.telemetry.enabled": False, "toolkit.startup.max_resumed_crashes": -1,
        "mail.startup.enabledMailCheckOnce": True, "mailnews.start_page.enabled": False,
        "network.proxy.type": 0, "extensions.update.enabled": False, "browser.dom.window.dump.enabled": False,
        "mail.accountmanager.accounts": "account1,account2", "mail.accountmanager.defaultaccount": "account1",
        "mail.accountmanager.localfoldersserver": "server2",
        "mail.account.account1.identities": "id1", "mail.account.account1.server": "server1",
        "mail.account.account2.server": "server2",
        "mail.server.server2.type": "none", "mail.server.server2.hostname": "Local Folders",
        "mail.server.server2.userName": "nobody", "mail.server.server2.name": "Local Folders",
        "mail.identity.id1.fullName": name, "mail.identity.id1.useremail": email,
        "mail.identity.id1.smtpServer": "smtp1", "mail.identity.id1.valid": True,
        "mail.identity.id1.draft_folder": f"{imap}/Drafts", "mail.identity.id1.fcc_folder": f"{imap}/Sent",
        "mail.identity.id1.fcc": True, "mail.identity.id1.compose_html": False,
        "mail.server.server1.type": "imap", "mail.server.server1.hostname": "127.0.0.1",
        "mail.server.server1.port": imap_port, "mail.server.server1.userName": user,
        "mail.server.server1.name": email, "mail.server.server1.socketType": 0,
        "mail.server.server1.authMethod": 3, "mail.server.server1.login_at_startup": False,
        "mail.server.server1.check_new_mail": False, "mail.server.server1.using_subscription": False,
        "mail.server.server1.trash_folder_name": "Trash", "mail.server.server1.delete_model": 1,
        "mail.server.server1.offline_download": False, "mail.server.server1.autosync_offline_stores": False,
        "mail.server.default.autosync_offline_stores": False, "mail.server.server1.max_cached_connections": 3,
        "mail.smtpservers": "smtp1", "mail.smtp.defaultserver": "smtp1",
        "mail.smtpserver.smtp1.hostname": "127.0.0.1", "mail.smtpserver.smtp1.port": smtp_port,
        "mail.smtpserver.smtp1.authMethod": 1, "mail.smtpserver.smtp1.try_ssl": 0,
        "mail.smtpserver.smtp1.username": "",
        # Compose windows: no timed autosave (a draft appears only when asked for) and no attachment
        # reminder (a modal question on send that nobody could answer in a headless Thunderbird).
        "mail.compose.autosave": False, "mail.compose.attachment_reminder": False,
        # A visible Thunderbird (the GUI participant) asks "Are you sure you are ready to send?" on the first
        # Ctrl+Enter, a one-time question with "Do not show me this again"; a seasoned profile has answered it.
        "mail.warn_on_send_accel_key": False,
    }
    return "\n".join(_pref(k, v) for k, v in prefs.items()) + "\n"


def thunderbird_env(display: Display | None = None) -> dict[str, str]:
    """Headless, or (with ``display``) visible on that private X display only."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "MOZ_HEADLESS")}
    env.update(MOZ_CRASHREPORTER_DISABLE="1", MOZ_DISABLE_AUTO_SAFE_MODE="1", MOZ_DISABLE_CONTENT_SANDBOX="1")
    env.update(display.env() if display is not None else {"MOZ_HEADLESS": "1"})
    return env


class ThunderbirdSession:
    """One running Thunderbird on ``profile``, its Marionette connection, and ASIL's script inside it."""

    def __init__(self, profile: Path, *, imap_port: int, smtp_port: int, user: str, password: str,
                 display: Display | None = None):
        self.display = display  # None: headless (the adapter); a private Xvfb: visible (the GUI participant)
        binary = thunderbird_path()
        if binary is None:
            raise AppUnavailable("Thunderbird is not installed.", hint=INSTALL_HINT)
        profile.mkdir(parents=True, exist_ok=True)
        for lock in ("lock", ".parentlock"):  # left behind by a killed Thunderbird
            (profile / lock).unlink(missing_ok=True)
        self.marionette: Marionette | None = None
        for attempt in range(START_ATTEMPTS):  # another program may take the Marionette port meanwhile
            try:
                self._start(binary, profile, imap_port=imap_port, smtp_port=smtp_port, user=user, password=password)
                return
            except PortTaken:
                if attempt == START_ATTEMPTS - 1:
                    raise ProgramFailed(f"Thunderbird could not get a free Marionette port in {START_ATTEMPTS} "
                                        "attempts.") from None

    def _start(self, binary: str, profile: Path, *, imap_port: int, smtp_port: int, user: str, password: str) -> None:
        self.port = free_port()
        (profile / "user.js").write_text(profile_prefs(self.port, imap_port, smtp_port, user), encoding="utf-8")
        self.process = ManagedProcess(
            "Thunderbird", [binary, *(["--headless"] if self.display is None else []), "--marionette",
                            "-remote-allow-system-access", "-no-remote", "-profile", str(profile)],
            log=profile.parent / "thunderbird.log", env=thunderbird_env(self.display), cwd=profile)
        # If Python exits without close() (a crash, Ctrl-C), stop Thunderbird anyway: it runs in its own
        # process group and would outlive us.
        weakref.finalize(self, stop_if_alive, self.process)
        try:
            self.process.wait_until(lambda: port_open(self.port), START_TIMEOUT_S, "Marionette listening")
            try:
                self.marionette = Marionette(self.port, timeout_s=START_TIMEOUT_S)
            except MarionetteLost as exc:  # something else answers on the port
                raise PortTaken(exc.message) from None
            self.marionette.start_chrome_session(START_TIMEOUT_S)
            for script in mail_scripts():
                self.marionette.execute(script, [], START_TIMEOUT_S)
            self.call("setup", {"password": password, "imap_port": imap_port, "smtp_port": smtp_port},
                      timeout_s=START_TIMEOUT_S)
        except PortTaken:
            self.stop()
            raise
        except (MarionetteLost, ActionFailed, OSError) as exc:
            tail = self.process.log_tail()
            self.stop()
            if isinstance(exc, ProgramFailed):
                raise
            message = exc.message if isinstance(exc, ActionFailed) else str(exc)
            raise ProgramFailed(f"Thunderbird did not start: {message}", hint=tail or None) from None

    @property
    def alive(self) -> bool:
        return self.process.alive and self.marionette is not None

    def call(self, op: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> Any:
        """Run one operation of asil_mail.js; InvalidAction/ActionFailed for refusals, ThunderbirdLost if lost."""
        timeout_s = REQUEST_TIMEOUT_S if timeout_s is None else timeout_s  # read now: tests shorten it
        if self.marionette is None or not self.process.alive:
            raise ThunderbirdLost("Thunderbird is not running.")
        try:
            reply = self.marionette.execute("return window.ASIL_MAIL.run(arguments[0], arguments[1]);",
                                            [op, params or {}], timeout_s)
        except MarionetteLost as exc:
            self.stop()
            raise ThunderbirdLost(f"{exc.message} Thunderbird was stopped.",
                                  hint="It is restarted on the next action.") from None
        if reply["ok"]:
            return reply["result"]
        error = InvalidAction if reply["kind"] == "invalid" else ActionFailed
        raise error(reply["message"], hint=reply.get("hint"))

    def screenshot(self) -> bytes:
        """The main window as PNG bytes (Marionette renders it even when headless)."""
        if self.marionette is None or not self.process.alive:
            raise ThunderbirdLost("Thunderbird is not running.")
        try:
            data = self.marionette.command("WebDriver:TakeScreenshot", {"full": False, "hash": False}, REQUEST_TIMEOUT_S)
        except MarionetteLost as exc:
            self.stop()
            raise ThunderbirdLost(f"{exc.message} Thunderbird was stopped.") from None
        return base64.b64decode(data["value"])

    def quit(self) -> None:
        """Ask Thunderbird to quit (it writes its databases), then make sure it is gone."""
        if self.alive and self.marionette is not None:
            try:
                self.marionette.command("Marionette:Quit", {"flags": ["eForceQuit"]}, timeout_s=15)
                self.process.process.wait(timeout=15)
            except (MarionetteLost, ActionFailed, OSError, Exception):  # noqa: BLE001  (stop() below always works)
                pass
        self.stop()

    def stop(self) -> None:
        if self.marionette is not None:
            self.marionette.close()
            self.marionette = None
        self.process.stop()
