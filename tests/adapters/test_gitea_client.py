"""The Gitea client's network path and the adapter's behaviour when no Gitea answers.

``ClientProbeServer`` below is a tiny local HTTP endpoint that is NOT Gitea and does not imitate
it: it answers each path with a status and body the test chooses, so the client's headers,
timeouts, error statuses and paging can be checked. Nothing here claims a task works on Gitea;
that is tests/adapters/test_gitea_live.py, against a real server.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.gitea.adapter import GiteaAdapter
from asil.apps.gitea import GiteaClient, GiteaConfig, GiteaError, RequestPlan, config_from, total_count
from asil.apps.process import free_port
from asil.evaluate.checkpoints import Checkpoint, EvalContext
from asil.evaluate.evaluator import evaluate_paths
from asil.evaluate.raw import raw_verdict
from asil.protocol import Action, DocumentError
from asil.workspace import Workspace
from tests.conftest import run_cli


class ClientProbeServer:
    """A local HTTP endpoint (NOT Gitea) with canned answers per path, recording what it received."""

    def __init__(self) -> None:
        self.answers: dict[str, tuple[int, Any, dict[str, str]]] = {}
        self.delay_s = 0.0
        self.received: list[dict[str, Any]] = []
        probe = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                probe.received.append({"method": self.command, "path": self.path, "headers": dict(self.headers),
                                       "body": self.rfile.read(length).decode() if length else None})
                time.sleep(probe.delay_s)
                status, body, headers = probe.answers.get(self.path.split("?")[0], (404, {"message": "no"}, {}))
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                for key, value in headers.items():
                    self.send_header(key, value)
                self.send_header("Content-Length", str(len(raw)))
                try:
                    self.end_headers()
                    self.wfile.write(raw)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the timeout test's client has given up: expected, not worth a traceback

            do_GET = do_POST = do_PATCH = do_DELETE = _answer

            def log_message(self, *args: object) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def probe() -> Iterator[ClientProbeServer]:
    server = ClientProbeServer()
    yield server
    server.close()


def client(url: str, timeout_s: float = 2.0) -> GiteaClient:
    return GiteaClient(GiteaConfig(url, "s3cret", timeout_s))


def test_requests_carry_the_token_and_json(probe: ClientProbeServer) -> None:
    probe.answers["/api/v1/repos/a/b/labels"] = (201, {"id": 1}, {})
    answer = client(probe.url).send(RequestPlan("POST", "/repos/a/b/labels", body={"name": "x", "color": "#aaaaaa"}))
    assert answer.status == 201 and answer.body == {"id": 1}
    (seen,) = probe.received
    assert seen["method"] == "POST" and seen["headers"]["Authorization"] == "token s3cret"
    assert seen["headers"]["Content-Type"] == "application/json"
    assert json.loads(seen["body"]) == {"name": "x", "color": "#aaaaaa"}


@pytest.mark.parametrize(("status", "meaning"), [
    (401, "the access token was refused"), (403, "lacks the permission"), (404, "does not exist"),
    (409, "conflicts with what exists"), (422, "rejected the values as invalid"), (500, "the server failed")])
def test_error_statuses_become_one_clear_sentence(probe: ClientProbeServer, status: int, meaning: str) -> None:
    probe.answers["/api/v1/repos/a/b/issues/7"] = (status, {"message": "said by the server"}, {})
    with pytest.raises(GiteaError) as caught:
        client(probe.url).send(RequestPlan("GET", "/repos/a/b/issues/7"))
    error = caught.value
    assert error.status == status and error.code == f"gitea_http_{status}"
    assert error.message.startswith(f"GET /api/v1/repos/a/b/issues/7 failed with HTTP {status}: ")
    assert meaning in error.message and "The server said: said by the server" in error.message and error.hint


def test_a_slow_server_times_out_instead_of_hanging(probe: ClientProbeServer) -> None:
    probe.answers["/api/v1/version"] = (200, {"version": "x"}, {})
    probe.delay_s = 2.0
    started = time.monotonic()
    with pytest.raises(GiteaError, match=r"got no answer within 0.3 s"):
        client(probe.url, timeout_s=0.3).send(RequestPlan("GET", "/version"))
    assert time.monotonic() - started < 1.5


def test_an_unreachable_server_is_named() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(GiteaError) as caught:
        client(url).send(RequestPlan("GET", "/version"))
    assert caught.value.message.startswith(f"Could not reach Gitea at {url}")
    assert "ASIL_GITEA_URL" in (caught.value.hint or "") and caught.value.code == "gitea_unreachable"


def test_answers_that_are_not_json_or_not_gitea_are_refused(probe: ClientProbeServer) -> None:
    probe.answers["/api/v1/version"] = (200, b"<html>hello</html>", {})
    with pytest.raises(GiteaError, match="not JSON"):
        client(probe.url).version()
    probe.answers["/api/v1/version"] = (200, {"name": "something else"}, {})
    with pytest.raises(GiteaError, match="it is not Gitea"):
        client(probe.url).version()


def test_lists_are_read_page_by_page(probe: ClientProbeServer) -> None:
    items = [{"n": i} for i in range(120)]
    pages = {1: items[:50], 2: items[50:100], 3: items[100:]}
    # the probe has one answer per path, so each page is set before it is asked for
    found: list[Any] = []
    for page in (1, 2, 3):
        probe.answers["/api/v1/repos/a/b/labels"] = (200, pages[page], {"X-Total-Count": "120"})
        answer = client(probe.url).send(RequestPlan("GET", "/repos/a/b/labels").with_query(page=page, limit=50))
        found += answer.body
        assert total_count(answer.headers) == 120
    assert found == items
    probe.answers["/api/v1/repos/a/b/labels"] = (200, items[:7], {})
    assert client(probe.url).list_all(RequestPlan("GET", "/repos/a/b/labels")) == items[:7]
    assert "page=1" in probe.received[-1]["path"] and "limit=50" in probe.received[-1]["path"]


def test_configuration_comes_from_options_then_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ASIL_GITEA_URL", raising=False)
    monkeypatch.delenv("ASIL_GITEA_TOKEN", raising=False)
    assert config_from(None) is None
    assert config_from({"url": "http://x:3000/", "token": "t"}) == GiteaConfig("http://x:3000", "t", 10.0)
    monkeypatch.setenv("ASIL_GITEA_URL", "http://env:3000")
    monkeypatch.setenv("ASIL_GITEA_TOKEN", "e")
    assert config_from(None) == GiteaConfig("http://env:3000", "e", 10.0)
    assert config_from({"token": "o"}) == GiteaConfig("http://env:3000", "o", 10.0)


# ---------------------------------------------------------------- the adapter with no Gitea answering
@pytest.fixture
def nowhere(monkeypatch: pytest.MonkeyPatch) -> str:
    """Configure a URL where nothing listens (so every call fails fast)."""
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("ASIL_GITEA_URL", url)
    monkeypatch.setenv("ASIL_GITEA_TOKEN", "t")
    return url


def test_readiness_and_doctor_say_it_was_not_verified_live(monkeypatch: pytest.MonkeyPatch, nowhere: str,
                                                           probe: ClientProbeServer) -> None:
    ready = GiteaAdapter.readiness()
    assert not ready.ready and "does not answer as Gitea" in ready.detail
    assert "NOT verified against a live Gitea server" in ready.detail
    monkeypatch.setenv("ASIL_GITEA_URL", probe.url)  # answers 404 to /api/v1/version: not Gitea
    assert not GiteaAdapter.readiness().ready
    monkeypatch.delenv("ASIL_GITEA_URL")
    unconfigured = GiteaAdapter.readiness()
    assert not unconfigured.ready and unconfigured.external and "NOT verified" in unconfigured.detail


def test_doctor_reports_gitea_plainly() -> None:
    done = run_cli("doctor")
    (line,) = [line for line in done.stdout.splitlines() if " gitea: " in line]
    assert "NOT verified against a live Gitea server" in line


def _seeded(workspace: Workspace) -> str:
    workspace.write_bytes("repo.gitea", json.dumps({"repository": {"name": "tracker"}, "calls": [
        {"function": "create_issue", "params": {"title": "First"}}]}).encode())
    return "repo.gitea"


def test_no_server_gives_an_error_observation_not_a_hang(nowhere: str, workspace: Workspace) -> None:
    adapter = GiteaAdapter(workspace, _seeded(workspace), timeout_s=1.0)
    started = time.monotonic()
    observation = adapter.observe()
    assert "cannot be read right now" in observation.summary
    assert observation.environment["error"]["code"] == "gitea_unreachable"
    result = adapter.execute(Action(action_type="invoke_function", target="close_issue", params={"number": 1}))
    assert result.status == "error" and result.error is not None and "Could not reach Gitea" in result.error.message
    assert time.monotonic() - started < 10


def test_invalid_actions_are_invalid_without_any_request(nowhere: str, workspace: Workspace) -> None:
    adapter = GiteaAdapter(workspace, _seeded(workspace))
    bad = [
        Action(action_type="invoke_function", target="drop_database", params={}),
        Action(action_type="invoke_function", target="create_label", params={"name": "x", "color": "blue"}),
        Action(action_type="api_call", params={"method": "GET", "path": "/admin/users"}),
        Action(action_type="batch", params={"actions": [{"action_type": "invoke_function",
                                                         "target": "merge_pull_request", "params": {"number": 1}}]}),
        Action(action_type="set_value", target="x", params={"value": 1}),
        Action(action_type="navigate", target="nowhere"),
        Action(action_type="navigate", params={"view": "repositories"}),  # a seeded episode stays in its repo
        Action(action_type="navigate", params={"limit": 500}),
    ]
    for action in bad:
        result = adapter.execute(action, observe=False)
        assert result.status == "invalid" and result.error is not None, action
        assert result.error.message.endswith(".") and result.error.hint
    assert "cannot be undone" in (adapter.validate_action(bad[3]) or pytest.fail()).message


def test_a_bad_seed_file_is_a_clear_error_and_stays_unchanged(workspace: Workspace) -> None:
    raw = b'{"repository": {"name": "t"}, "calls": [{"function": "nuke"}]}'
    path = workspace.write_bytes("bad.gitea", raw)
    with pytest.raises(DocumentError, match="unknown function 'nuke'"):
        GiteaAdapter(workspace, "bad.gitea")
    assert path.read_bytes() == raw
    workspace.write_bytes("junk.gitea", b"\x00\x01 not json")
    with pytest.raises(DocumentError, match="not valid JSON"):
        GiteaAdapter(workspace, "junk.gitea")
    with pytest.raises(DocumentError, match="does not exist"):
        GiteaAdapter(workspace, "missing.gitea")


def test_checkpoints_and_the_raw_validator_fail_closed_without_a_server(nowhere: str, workspace: Workspace) -> None:
    checkpoint = Checkpoint(type="gitea_issue_state", app="gitea", target="#1", expected="closed")
    assert evaluate_paths([[checkpoint]], workspace).success is False
    assert raw_verdict(checkpoint, workspace, None, None) is False
    # even with an episode recorded, no answering server means failure, never a pass
    Path(workspace.private("gitea-episode.json")).write_text(json.dumps({"repo": "alice/t", "url": nowhere}))
    verdict = evaluate_paths([[checkpoint]], workspace).paths[0].checkpoints[0]
    assert verdict.passed is False and "Could not reach" in (verdict.detail or "")
    assert raw_verdict(checkpoint, workspace, None, None) is False
    EvalContext(workspace).close()


def test_an_unconfigured_adapter_reports_errors_as_data(monkeypatch: pytest.MonkeyPatch, workspace: Workspace) -> None:
    monkeypatch.delenv("ASIL_GITEA_URL", raising=False)
    monkeypatch.delenv("ASIL_GITEA_TOKEN", raising=False)
    adapter = GiteaAdapter(workspace, _seeded(workspace))
    result = adapter.execute(Action(action_type="invoke_function", target="create_label",
                                    params={"name": "x", "color": "#aaaaaa"}))
    assert result.status == "error" and result.error is not None and result.error.code == "app_unavailable"
    assert "set ASIL_GITEA_URL and ASIL_GITEA_TOKEN" in result.error.message
    assert result.observation is not None and "cannot be read right now" in result.observation.summary


def test_a_batch_that_cannot_reach_the_server_is_an_error_result(nowhere: str, workspace: Workspace) -> None:
    adapter = GiteaAdapter(workspace, _seeded(workspace), timeout_s=1.0)
    result = adapter.execute(Action(action_type="batch", params={"actions": [
        {"action_type": "invoke_function", "target": "create_label", "params": {"name": "x", "color": "#aaaaaa"}},
        {"action_type": "invoke_function", "target": "close_issue", "params": {"number": 1}}]}), observe=False)
    assert result.status == "error" and result.error is not None
    assert result.error.message.startswith("Batch action 1: Could not reach Gitea")
    assert result.error.message.endswith("Nothing in the repository was changed.")
