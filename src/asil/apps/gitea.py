"""A Gitea server's v1 REST API over stdlib ``urllib``: request plans, one sender, clear errors.

Gitea runs elsewhere (no Gitea or Forgejo package exists for these machines), so there is no
process to start here: the "session" is a base URL and an access token, from adapter options or
``ASIL_GITEA_URL`` / ``ASIL_GITEA_TOKEN``. Planning a request (:class:`RequestPlan`) is pure data
and is tested without a server; :class:`GiteaClient` only sends plans, with a timeout on every call.
"""

from __future__ import annotations

import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from asil.protocol import ActionFailed, AppUnavailable

URL_ENV = "ASIL_GITEA_URL"
TOKEN_ENV = "ASIL_GITEA_TOKEN"
API_PREFIX = "/api/v1"
DEFAULT_TIMEOUT_S = 10.0
PAGE_LIMIT = 50  # Gitea's default MAX_RESPONSE_ITEMS is 50: larger pages are silently cut
MAX_PAGES = 200
NOT_VERIFIED = ("the Gitea adapter was built against Gitea's documented v1 REST API and was NOT verified "
                "against a live Gitea server on this machine (none can be installed here)")


@dataclass(frozen=True)
class RequestPlan:
    """One HTTP request to the v1 API, as data: ``path`` is relative to ``/api/v1``."""

    method: str
    path: str
    query: Mapping[str, str | int] = field(default_factory=dict)
    body: Any = None

    def url(self, base_url: str) -> str:
        query = f"?{urllib.parse.urlencode(sorted(self.query.items()))}" if self.query else ""
        return f"{base_url.rstrip('/')}{API_PREFIX}{self.path}{query}"

    def with_query(self, **extra: str | int) -> RequestPlan:
        return RequestPlan(self.method, self.path, {**self.query, **extra}, self.body)

    def describe(self) -> str:
        return f"{self.method} {API_PREFIX}{self.path}"


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]
    body: Any


@dataclass(frozen=True)
class GiteaConfig:
    url: str
    token: str
    timeout_s: float = DEFAULT_TIMEOUT_S


def config_from(options: Mapping[str, Any] | None = None) -> GiteaConfig | None:
    """URL and token from adapter options first, then the environment; None when either is missing."""
    options = options or {}
    url = str(options.get("url") or os.environ.get(URL_ENV) or "").strip()
    token = str(options.get("token") or os.environ.get(TOKEN_ENV) or "").strip()
    if not url or not token:
        return None
    timeout = float(options.get("timeout_s") or DEFAULT_TIMEOUT_S)
    return GiteaConfig(url.rstrip("/"), token, timeout)


class GiteaError(ActionFailed):
    """Gitea refused a request or could not be reached; ``status`` is the HTTP status (0: no answer)."""

    code = "gitea_error"

    def __init__(self, message: str, hint: str | None = None, status: int = 0):
        super().__init__(message, hint=hint, code=f"gitea_http_{status}" if status else "gitea_unreachable")
        self.status = status


# What each refusal means for the person fixing it; 404 and 422 quote Gitea's own message too.
STATUS_MEANING = {
    401: ("the access token was refused", f"Set {TOKEN_ENV} (or the adapter option 'token') to a valid Gitea "
          "access token."),
    403: ("the token lacks the permission for this", "Use a token with the repository and issue scopes "
          "(write:repository, write:issue) of a user who may change this repository."),
    404: ("it does not exist", "Check the owner, repository, issue/PR number, label or branch in the observation."),
    405: ("Gitea does not allow this now (a pull request that is not mergeable yet, or a method the "
          "route does not take)", "Wait a moment and try again, or check the pull request's state."),
    409: ("it conflicts with what exists (for example a branch or label of that name)",
          "Choose a name that is not taken, or act on the existing one."),
    422: ("Gitea rejected the values as invalid", "Check the parameter values against the action schema."),
}


def http_error(plan: RequestPlan, status: int, server_message: str) -> GiteaError:
    meaning, hint = STATUS_MEANING.get(status, ("the server failed", "Try again; if it repeats, check the Gitea log."))
    said = f" The server said: {server_message.strip()[:200]}" if server_message.strip() else ""
    return GiteaError(f"{plan.describe()} failed with HTTP {status}: {meaning}.{said}", hint=hint, status=status)


def _server_message(raw: bytes) -> str:
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return raw.decode("utf-8", errors="replace")[:200]
    if isinstance(data, dict):
        return str(data.get("message") or data.get("errors") or "")
    return ""


def total_count(headers: Mapping[str, str]) -> int | None:
    """Gitea's ``X-Total-Count`` header (lists), or None."""
    for key, value in headers.items():
        if key.lower() == "x-total-count" and re.fullmatch(r"\d+", value.strip()):
            return int(value)
    return None


class GiteaClient:
    """Sends request plans to one Gitea server with a token and a timeout on every call."""

    def __init__(self, config: GiteaConfig):
        self.config = config

    def send(self, plan: RequestPlan) -> Response:
        data = None if plan.body is None else json.dumps(plan.body).encode("utf-8")
        request = urllib.request.Request(plan.url(self.config.url), data=data, method=plan.method)
        request.add_header("Authorization", f"token {self.config.token}")
        request.add_header("Accept", "application/json")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=self.config.timeout_s) as answer:  # noqa: S310 (http(s) only)
                raw = answer.read()
                headers = dict(answer.headers.items())
                status = answer.status
        except urllib.error.HTTPError as exc:
            raise http_error(plan, exc.code, _server_message(exc.read())) from None
        except TimeoutError:
            raise self._timeout(plan) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            if isinstance(reason, TimeoutError):  # a connect timeout arrives wrapped in URLError
                raise self._timeout(plan) from None
            raise GiteaError(f"Could not reach Gitea at {self.config.url} ({reason}).",
                             hint=f"Set {URL_ENV} to the server's base URL, e.g. http://127.0.0.1:3000.") from None
        return Response(status, headers, _decode(raw, plan))

    def _timeout(self, plan: RequestPlan) -> GiteaError:
        return GiteaError(f"{plan.describe()} got no answer within {self.config.timeout_s:g} s.",
                          hint="Check that the Gitea server is up and not overloaded.")

    def json(self, plan: RequestPlan) -> Any:
        return self.send(plan).body

    def list_all(self, plan: RequestPlan, *, limit: int = PAGE_LIMIT, max_items: int | None = None) -> list[Any]:
        """Every item of a paged list endpoint (``page``/``limit``), up to ``max_items``."""
        items: list[Any] = []
        for page in range(1, MAX_PAGES + 1):
            chunk = self.send(plan.with_query(page=page, limit=limit)).body
            if not isinstance(chunk, list):
                raise GiteaError(f"{plan.describe()} did not return a list.", hint="Is this a Gitea v1 API?")
            items.extend(chunk)
            if len(chunk) < limit or (max_items is not None and len(items) >= max_items):
                break
        return items[:max_items] if max_items is not None else items

    def version(self) -> str:
        """The server's version (``GET /version``): the health check."""
        body = self.json(RequestPlan("GET", "/version"))
        if not isinstance(body, dict) or "version" not in body:
            raise GiteaError(f"{self.config.url} answered /api/v1/version without a version; it is not Gitea.",
                             hint=f"Set {URL_ENV} to a Gitea server's base URL.")
        return str(body["version"])


def _decode(raw: bytes, plan: RequestPlan) -> Any:
    if not raw.strip():
        return None
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise GiteaError(f"{plan.describe()} answered with something that is not JSON.",
                         hint="Check that the URL points at a Gitea server.") from None


def connect(options: Mapping[str, Any] | None = None) -> GiteaClient:
    """A client for the configured server, or AppUnavailable naming what is missing."""
    config = config_from(options)
    if config is None:
        raise AppUnavailable(f"No Gitea server is configured: set {URL_ENV} and {TOKEN_ENV} "
                             "(or the adapter options 'url' and 'token').",
                             hint=f"Point them at a running Gitea; {NOT_VERIFIED}.")
    return GiteaClient(config)
