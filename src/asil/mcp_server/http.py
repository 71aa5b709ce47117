"""Streamable HTTP transport: loopback by default, an optional bearer token, the SDK's DNS-rebinding guard."""

from __future__ import annotations

import hmac
import ipaddress
import socket
import sys

from mcp.server.transport_security import TransportSecuritySettings
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from asil.mcp_server.tools import WorkspaceMCP

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
UNSPECIFIED = ("0.0.0.0", "::", "")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def transport_security(host: str, extra_hosts: list[str]) -> TransportSecuritySettings:
    """Host/Origin checks stay on: only the bound name, loopback and names the user allowed are accepted."""
    names = list(LOOPBACK_NAMES) + ([] if host in UNSPECIFIED else [url_host(host)]) + extra_hosts
    names = list(dict.fromkeys(names))
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=names + [f"{name}:*" for name in names],
        allowed_origins=[f"{scheme}://{name}{port}" for name in names for scheme in ("http", "https")
                         for port in ("", ":*")],
    )


class BearerToken:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: ASGIApp, token: str):
        self.app = app
        self._token = token.encode("utf-8")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._authorized(scope):
            response = JSONResponse(
                {"error": "invalid_token", "error_description": "This server needs 'Authorization: Bearer <token>' "
                 "with the token it was started with (--token or ASIL_MCP_TOKEN)."},
                status_code=401, headers={"WWW-Authenticate": 'Bearer realm="asil"'})
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _authorized(self, scope: Scope) -> bool:
        for name, value in scope.get("headers", []):
            if name == b"authorization":
                scheme, _, credential = value.partition(b" ")
                return scheme.lower() == b"bearer" and hmac.compare_digest(credential.strip(), self._token)
        return False


def listen(host: str, port: int) -> socket.socket:
    """Bind before serving so port 0 works and the real port can be announced."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    return sock


def run_http(server: WorkspaceMCP, host: str, port: int, token: str | None) -> None:
    import uvicorn

    app: ASGIApp = server.streamable_http_app()
    if token:
        app = BearerToken(app, token)
    sock = listen(host, port)
    bound = sock.getsockname()[1]
    access = "bearer token required" if token else "no token: any local process can use it"
    print(f"asil mcp: serving http://{url_host(host)}:{bound}{server.settings.streamable_http_path} ({access})",
          file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    uvicorn.Server(config).run(sockets=[sock])
