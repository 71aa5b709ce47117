"""A minimal Marionette client: length-prefixed JSON (``N:json``) over a loopback TCP socket.

Only what ASIL needs: open a session, switch to the chrome context and run privileged
JavaScript. Every read has a deadline; a timeout or a broken connection raises
:class:`MarionetteLost` and the caller replaces the program.
"""

from __future__ import annotations

import json
import socket
from typing import Any

from asil.protocol import ActionFailed

GREETING_TIMEOUT_S = 10.0


class MarionetteLost(ActionFailed):
    """The program behind Marionette stopped answering or closed the connection."""

    code = "program_failed"


class MarionetteError(ActionFailed):
    """Marionette answered with an error (a script threw, a command was refused)."""


class Marionette:
    """One connection to a Marionette server; commands are answered in order."""

    def __init__(self, port: int, timeout_s: float = 30.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout_s)
        self.next_id = 0
        try:  # a Marionette server greets at once with its protocol level
            greeting = self._read(min(timeout_s, GREETING_TIMEOUT_S))
        except (TimeoutError, OSError, ValueError, MarionetteLost):
            greeting = None
        if not isinstance(greeting, dict) or greeting.get("applicationType") != "gecko":
            self.close()
            raise MarionetteLost(f"Port {port} does not answer like Marionette.")

    def _read_exact(self, count: int) -> bytes:
        data = b""
        while len(data) < count:
            chunk = self.sock.recv(min(count - len(data), 1 << 20))
            if not chunk:
                raise MarionetteLost("Marionette closed the connection.")
            data += chunk
        return data

    def _read(self, timeout_s: float) -> Any:
        self.sock.settimeout(timeout_s)
        size = b""
        while not size.endswith(b":"):
            size += self._read_exact(1)
            if len(size) > 12:
                raise MarionetteLost("Marionette sent a malformed reply.")
        return json.loads(self._read_exact(int(size[:-1])))

    def command(self, name: str, params: dict[str, Any], timeout_s: float = 30.0) -> Any:
        """Send one command and return its result; MarionetteLost on timeout or a dead connection."""
        self.next_id += 1
        body = json.dumps([0, self.next_id, name, params]).encode("utf-8")
        try:
            self.sock.sendall(str(len(body)).encode() + b":" + body)
            while True:
                reply = self._read(timeout_s)
                if reply[1] == self.next_id:
                    break
        except TimeoutError:
            raise MarionetteLost(f"Thunderbird did not answer {name} within {timeout_s:g} s.") from None
        except OSError as exc:
            raise MarionetteLost(f"The Marionette connection broke during {name} ({exc}).") from None
        if reply[2]:
            raise MarionetteError(f"Marionette refused {name}: {reply[2].get('message', reply[2])}")
        return reply[3]

    def start_chrome_session(self, timeout_s: float) -> None:
        self.command("WebDriver:NewSession", {"capabilities": {"alwaysMatch": {"pageLoadStrategy": "none"}}}, timeout_s)
        self.command("Marionette:SetContext", {"value": "chrome"}, timeout_s)
        self.command("WebDriver:SetTimeouts", {"script": 300_000}, timeout_s)  # our own deadline is shorter

    def execute(self, script: str, args: list[Any], timeout_s: float) -> Any:
        """Run chrome JavaScript (a returned promise is awaited) and return its value."""
        return self.command("WebDriver:ExecuteScript", {"script": script, "args": args}, timeout_s)["value"]

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
