"""A loopback OpenAI-compatible test server: the LLM client's real network path, scripted replies."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatServer:
    """A loopback server that answers /v1/chat/completions from a queue of scripted behaviours."""

    def __init__(self) -> None:
        self.behaviours: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        self.streamed: list[int] = []  # events sent per streamed reply, until the client stopped reading
        self.pages: dict[str, Any] = {}  # GET answers by path, e.g. "/v1/models" (others: 404)
        self.answers: dict[str, Any] = {}  # POST answers by path besides chat completions, e.g. "/tokenize"
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                page = server.pages.get(self.path)
                data = json.dumps(page).encode()
                self.send_response(200 if page is not None else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                if self.path in server.answers:
                    self._answer(json.dumps(server.answers[self.path]).encode())
                    return
                plan = server.behaviours.pop(0) if server.behaviours else {"text": "{}"}
                time.sleep(plan.get("delay", 0))
                status = plan.get("status", 200)
                if status == 200 and body.get("stream") and not plan.get("ignore_stream"):
                    self._stream(plan)
                    return
                choice = {"message": {"role": "assistant", "content": plan.get("text", "")},
                          "finish_reason": plan.get("finish_reason", "stop")}
                payload: dict[str, Any] = {"choices": [choice]}
                if "usage" in plan:
                    payload["usage"] = plan["usage"]
                data = json.dumps(payload if status == 200 else plan.get("error", {"error": "boom"})).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
                    pass

            def _answer(self, data: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, plan: dict[str, Any]) -> None:
                """Server-sent events, one word a chunk (a chunk stands for a token); ``chunk_delay`` paces
                them, and the server notes how many chunks it sent before the client hung up."""
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                pieces = [w for w in plan.get("text", "").split(" ")]
                events = [{"choices": [{"delta": {"content": p if i == 0 else " " + p}, "finish_reason": None}]}
                          for i, p in enumerate(pieces)]
                events.append({"choices": [{"delta": {}, "finish_reason": plan.get("finish_reason", "stop")}]})
                if "usage" in plan:
                    events.append({"choices": [], "usage": plan["usage"]})
                sent = 0
                try:
                    for event in events:
                        self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                        self.wfile.flush()
                        sent += 1
                        time.sleep(plan.get("chunk_delay", 0))
                    self.wfile.write(b"data: [DONE]\n\n")
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    pass
                server.streamed.append(sent)

            def log_message(self, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


