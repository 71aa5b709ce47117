"""Throughput of the rollout service: rollouts per minute at 1, 2 and 4 concurrent rollouts, and the service's
own overhead per turn.

Starts ``asil rollout serve --workers 4`` as a user does (a subprocess on a free port) and, per concurrency
level, that many clients; each client has its own loopback OpenAI-compatible policy (``tests/chat_server.py``)
that replies with the task's reference actions, and runs rollouts of the generated draw.io train tasks one
after another. The service's overhead of a rollout is the client's wall time for the request minus the
episode's own time (``seconds`` in the answer: app, agent, policy calls, evaluation), divided by its turns.

    .venv/bin/python benchmarks/rollout_service.py [--rollouts 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the tests package holds the policy stand-in

from asil.agents.react import reply_text  # noqa: E402
from asil.apps.process import free_port  # noqa: E402
from asil.tasks import load_tasks  # noqa: E402
from asil.tasks.model import Task  # noqa: E402
from tests.chat_server import ChatServer  # noqa: E402

TARGET_OVERHEAD_MS = 50.0


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=300) as answer:
        return dict(json.loads(answer.read()))


def wait_healthy(base: str, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/health", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the rollout service did not come up")


def client_loop(base: str, tasks: list[Task]) -> list[tuple[float, dict[str, Any]]]:
    policy = ChatServer()
    results = []
    try:
        for task in tasks:
            policy.behaviours[:] = [{"text": reply_text("Next.", a)} for a in task.reference_steps()]
            started = time.monotonic()
            answer = post(f"{base}/rollout", {"task_id": task.id, "base_url": policy.url, "model": "policy"})
            results.append((time.monotonic() - started, answer))
    finally:
        policy.close()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rollouts", type=int, default=8, help="rollouts per concurrency level")
    args = parser.parse_args()
    tasks = [t for t in load_tasks(suite="train") if t.apps == ["drawio"]]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    service = subprocess.Popen([sys.executable, "-m", "asil.cli", "rollout", "serve", "--port", str(port),
                                "--workers", "4"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_healthy(base)
        print(f"{'concurrent':>10} {'rollouts':>9} {'reward 1.0':>10} {'wall s':>8} {'rollouts/min':>13} "
              f"{'overhead ms/turn':>17}")
        for concurrency in (1, 2, 4):
            chosen = [tasks[i % len(tasks)] for i in range(args.rollouts)]
            shares = [chosen[i::concurrency] for i in range(concurrency)]
            started = time.monotonic()
            with ThreadPoolExecutor(concurrency) as pool:
                done = [r for share in pool.map(lambda s: client_loop(base, s), shares) for r in share]
            wall = time.monotonic() - started
            overheads = [(seconds - answer["seconds"]) / max(answer["steps"], 1) * 1000 for seconds, answer in done]
            perfect = sum(answer["reward"] == 1.0 for _, answer in done)
            print(f"{concurrency:>10} {len(done):>9} {perfect:>10} {wall:>8.1f} {len(done) / wall * 60:>13.1f} "
                  f"{statistics.median(overheads):>17.1f}")
        print(f"\ntarget: overhead <= {TARGET_OVERHEAD_MS:.0f} ms per turn (median over the rollouts)")
    finally:
        service.terminate()
        service.wait(timeout=30)


if __name__ == "__main__":
    main()
