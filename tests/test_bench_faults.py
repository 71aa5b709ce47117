"""A killed bench resumes without loss or double counting; a hung episode is stopped and recorded."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.bench_helpers import asil, command_line, marked_processes, outcomes, task_dir

RESUME_TASKS = ("calc-delete-column", "calc-fix-sum-range", "calc-growth-div0", "calc-if-commission",
                "calc-infeasible-macro", "calc-total-column")


def _wait_for(condition: Any, timeout: float, step: float = 0.05) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return False


@pytest.mark.slow
def test_a_sigkilled_bench_resumes_without_loss_or_double_counting(tmp_path: Path) -> None:
    tasks_dir = task_dir(tmp_path, *RESUME_TASKS)
    out = tmp_path / "run"
    args = [sys.executable, "-m", "asil.cli", "bench", "--tasks-dir", str(tasks_dir), "--workers", "1", "--out", str(out)]
    with subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as first:
        try:
            assert _wait_for(lambda: len(outcomes(out)) >= 2, 120), "no task finished"
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=30)
        finally:
            if first.poll() is None:
                first.kill()
    before = outcomes(out)
    assert 2 <= len(before) < len(RESUME_TASKS), "the kill did not land mid-run"
    # the orphaned worker notices its parent is gone and takes its LibreOffice with it
    assert _wait_for(lambda: not marked_processes(out), 15), [command_line(p) for p in marked_processes(out)]
    stamps = {task: (out / task / "result.json").stat().st_mtime_ns for task in before}
    # a half-written folder of an unfinished task (as an older writer could leave one) must be rerun
    unfinished = next(task for task in RESUME_TASKS if task not in before)
    (out / unfinished).mkdir(exist_ok=True)
    (out / unfinished / "traj.jsonl").write_text('{"step": 1, "observation_dig')
    (out / unfinished / "result.json").write_text('{"task_id": "' + unfinished + '", "sco')

    second = asil("bench", "--tasks-dir", str(tasks_dir), "--workers", "1", "--out", str(out))
    assert second.returncode == 0, second.stderr
    assert f"resuming: {len(before)}/{len(RESUME_TASKS)} tasks already finished" in second.stdout
    after = outcomes(out)
    assert sorted(after) == sorted(RESUME_TASKS) and all(success for success, *_ in after.values())
    assert {task: after[task] for task in before} == before
    assert {task: (out / task / "result.json").stat().st_mtime_ns for task in before} == stamps  # not rerun
    assert second.stdout.count(" ok   ") == len(RESUME_TASKS) - len(before)  # each remaining task ran once
    summary = json.loads((out / "summary.json").read_text())
    assert summary["total"]["tasks"] == len(RESUME_TASKS) and summary["total"]["success"] == len(RESUME_TASKS)
    assert not (out / ".asil" / "staging" / unfinished).exists()


class _HangingModel:
    """A loopback OpenAI-compatible server: answers 'done' at once, except for prompts about one task,
    which it never answers (the request just hangs, as a stuck model server's would)."""

    def __init__(self, hang_on: str):
        self.release = threading.Event()
        self.hung = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = self.rfile.read(int(self.headers["Content-Length"])).decode()
                if hang_on in body:
                    owner.hung.set()
                    owner.release.wait(120)
                    return
                reply = json.dumps({"thought": "finished", "action": {"action_type": "done"}})
                data = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                return None

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hanging_model() -> Iterator[_HangingModel]:
    # calc-fix-sum-range works on timesheet.ods; the other task never mentions it
    model = _HangingModel(hang_on="timesheet.ods")
    yield model
    model.close()


@pytest.mark.slow
def test_a_hung_episode_times_out_is_recorded_and_the_run_goes_on(tmp_path: Path,
                                                                  hanging_model: _HangingModel) -> None:
    tasks_dir = task_dir(tmp_path, "calc-fix-sum-range", "calc-total-column")
    instruction = json.loads((tasks_dir / "calc-fix-sum-range.json").read_text())["instruction"]
    assert "timesheet.ods" in instruction and "timesheet.ods" not in (tasks_dir / "calc-total-column.json").read_text()
    out = tmp_path / "run"
    seen_office: list[str] = []

    def watch() -> None:  # LibreOffice of the hung worker, seen while the episode hangs
        while not hanging_model.release.is_set():
            seen_office.extend(c for c in map(command_line, marked_processes(out)) if "soffice" in c)
            time.sleep(0.2)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    started = time.monotonic()
    # one worker: the second task runs only after the first was stopped, on a fresh worker
    ran = asil("bench", "--tasks-dir", str(tasks_dir), "--agent", "react", "--model", "test-model",
               "--base-url", hanging_model.url, "--workers", "1", "--episode-timeout", "4", "--out", str(out))
    elapsed = time.monotonic() - started
    hanging_model.release.set()
    assert ran.returncode == 0, ran.stderr
    assert hanging_model.hung.is_set() and seen_office, "the episode never reached its hang with LibreOffice open"
    assert elapsed < 60
    hung = json.loads((out / "calc-fix-sum-range" / "result.json").read_text())
    assert hung["termination"] == "timeout" and not hung["success"] and hung["score"] == 0
    assert "did not finish within 4 s" in hung["error"] and hung["time_s"] >= 4
    other = json.loads((out / "calc-total-column" / "result.json").read_text())
    assert other["termination"] == "done" and other["steps"] == 1  # the model said done; the run went on
    assert "TIMEOUT calc-fix-sum-range" in ran.stdout and "endings: done 1, timeout 1" in ran.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["terminations"] == {"done": 1, "timeout": 1}
    assert not marked_processes(out), [command_line(p) for p in marked_processes(out)]
    assert os.path.isfile(out / "calc-fix-sum-range" / "traj.jsonl")
