"""Faults under every app whose program runs here: the program killed or frozen, the workspace read-only or
full, the document changed on disk behind the adapter's back.

Each fault must end, within ``BOUND_S``, in a transparent restart (the action succeeds) or a clear error (a
sentence that is not the "program failed" safety net); a failed action leaves the document byte for byte as
it was and no temporary file behind; the adapter answers again once the fault is gone. One warm adapter per
app, on a small tmpfs workspace of its own, serves every case but the read-only start. The apps come from the
plugin registry (all but Gitea, which needs a server this machine lacks).
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from asil.adapters import app_names
from asil.adapters.base import UNFORESEEN, Adapter
from asil.adapters.gimp import adapter as gimp_adapter
from asil.apps import audacity, blender, libreoffice, thunderbird
from asil.plugins import adapter_class
from asil.protocol import Action, ActionResult, AsilError
from asil.runner.procs import descendants
from asil.workspace import Workspace

pytestmark = pytest.mark.slow

APPS = [name for name in app_names() if name != "gitea"]
BOUND_S = 90.0  # longer than any adapter's own call timeout, so a hang here is the adapter's, not the test's
WORKSPACE_SIZE = "64m"  # room for every sample and its program's scratch files; small enough to fill at once


def mount(*args: str) -> None:
    subprocess.run(["mount", *args], check=True, capture_output=True, timeout=30)


def unmount(path: Path) -> None:
    subprocess.run(["umount", "-l", str(path)], check=False, capture_output=True, timeout=30)


@dataclass
class Warm:
    """One app's adapter on its own tmpfs workspace, and the published examples it cycles through."""

    adapter: Adapter
    examples: list[Action]
    used: int = 0
    stopped: set[int] = field(default_factory=set)

    def next_example(self) -> Action:
        """The next published example: cycling, so a repeat (an already made scene) is rarely the first try."""
        action = self.examples[self.used % len(self.examples)]
        self.used += 1
        return action

    def document(self) -> bytes | None:
        return document_bytes(self.adapter)


def document_bytes(adapter: Adapter) -> bytes | None:
    if adapter.document is None:
        return None
    path = adapter.workspace.resolve(adapter.document)
    return path.read_bytes() if path.is_file() else None


# Not programs of the app: ASIL's reaper, which is there to clean up after exactly these faults, and Python's
# multiprocessing helpers of this test process (a killed resource tracker makes a later test of the same
# worker fail with "resource_tracker: process died unexpectedly").
SPARED = (b"reaper.py", b"multiprocessing.resource_tracker", b"multiprocessing.forkserver")


def programs() -> list[int]:
    """Every process below this test process: the app's program and its helpers (display, bus, server)."""
    return [pid for pid in descendants(os.getpid()) if not any(mark in cmdline(pid) for mark in SPARED)]


def cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def signal_all(pids: list[int], sig: signal.Signals) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


# One worker thread for every bounded call: some clients (jupyter_client) keep an event loop per thread, and
# a thread per call would leave one unclosed loop behind each time.
WORKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="fault-action")


def bounded(call: Callable[[], ActionResult], on_timeout: Callable[[], None]) -> tuple[ActionResult, float]:
    """Run ``call`` on the worker; if it outlives BOUND_S, run ``on_timeout`` (which unfreezes) and fail."""
    started = time.monotonic()
    future = WORKER.submit(call)
    try:
        outcome = future.result(timeout=BOUND_S)
    except FutureTimeout:
        on_timeout()
        future.exception(timeout=BOUND_S)  # let it finish, so the next case finds the worker free
        pytest.fail(f"the action hung for more than {BOUND_S:.0f} s")
    except Exception as exc:  # execute must never raise
        raise AssertionError(f"execute raised {type(exc).__name__}: {exc}") from exc
    return outcome, time.monotonic() - started


def assert_clear(result: ActionResult, before: bytes | None, warm: Warm, fault: str) -> None:
    """A transparent success, or a clear sentence with the document unchanged."""
    if result.ok:
        return
    assert result.error is not None and result.error.message.strip(), f"{fault}: {result.status} without a reason"
    assert result.error.code != UNFORESEEN, f"{fault}: only the safety net caught it: {result.error.message}"
    assert warm.document() == before, f"{fault}: a failed action changed the document on disk"


def leftovers(workspace: Workspace) -> list[Path]:
    """Temporary files an interrupted write left in the workspace."""
    return [p for p in workspace.root.rglob(".*.tmp")]


def recovered(warm: Warm) -> None:
    """With the fault gone, the adapter answers again (a fresh observation of this app). The first call may
    instead say in a sentence what broke (the program was lost and is restarted from the last saved state)."""
    try:
        observation = warm.adapter.observe()
    except AsilError as told:
        assert told.message and told.code != UNFORESEEN, told.message
        observation = warm.adapter.observe()
    assert observation.metadata.app == warm.adapter.name


@pytest.fixture(scope="module", params=APPS)
def warm(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Warm]:
    cls = adapter_class(request.param)
    readiness = cls.readiness()
    if not readiness.ready:
        pytest.skip(f"{request.param} is not ready here: {readiness.detail}")
    root = tmp_path_factory.mktemp(f"faults-{request.param}")
    mount("-t", "tmpfs", "-o", f"size={WORKSPACE_SIZE}", "tmpfs", str(root))
    adapter: Adapter | None = None
    try:
        workspace = Workspace(root / "ws")
        adapter = cls(workspace, cls.create_sample(workspace))
        adapter.observe()
        examples = [e for e in cls.action_schema().examples if not e.is_control]
        warm = Warm(adapter, examples)
        yield warm
    finally:
        if adapter is not None:
            signal_all(programs(), signal.SIGCONT)  # a failed case may have left something frozen
            adapter.close()
        unmount(root)


def test_program_killed_between_actions(warm: Warm) -> None:
    warm.adapter.execute(warm.next_example(), observe=False)  # the program is up and has work in it
    signal_all(programs(), signal.SIGKILL)
    time.sleep(0.2)
    before = warm.document()
    result, _ = bounded(lambda: warm.adapter.execute(warm.next_example()), lambda: None)
    assert_clear(result, before, warm, "program killed between actions")
    recovered(warm)


def test_program_killed_during_an_action(warm: Warm) -> None:
    before = warm.document()
    killer = threading.Timer(0.3, lambda: signal_all(programs(), signal.SIGKILL))
    killer.start()
    result, _ = bounded(lambda: warm.adapter.execute(warm.next_example()), lambda: None)
    killer.join()
    assert_clear(result, before, warm, "program killed during an action")
    assert not leftovers(warm.adapter.workspace)
    recovered(warm)


def test_program_frozen_between_actions(warm: Warm, monkeypatch: pytest.MonkeyPatch) -> None:
    # Limits read at each call, shortened so the wait for the configured timeout is short here: LibreOffice's
    # watchdog (60 s), GIMP's limit for slow requests such as reading the state (120 s), Blender's (60 s),
    # Audacity's and Thunderbird's (30 s) request limits.
    for module, limit in ((libreoffice, "CALL_TIMEOUT_S"), (gimp_adapter, "SLOW_TIMEOUT_S"),
                          (blender, "REQUEST_TIMEOUT_S"), (audacity, "COMMAND_TIMEOUT_S"),
                          (thunderbird, "REQUEST_TIMEOUT_S")):
        monkeypatch.setattr(module, limit, 15.0)
    warm.adapter.observe()
    frozen = programs()
    signal_all(frozen, signal.SIGSTOP)
    before = warm.document()
    try:
        result, _ = bounded(lambda: warm.adapter.execute(warm.next_example()),
                            lambda: signal_all(frozen, signal.SIGCONT))
    finally:
        signal_all(frozen, signal.SIGCONT)  # whatever the adapter did not replace goes on
    assert_clear(result, before, warm, "program frozen (SIGSTOP) between actions")
    recovered(warm)


def test_workspace_full(warm: Warm) -> None:
    filler = warm.adapter.workspace.root.parent / "filler"
    handle = os.open(filler, os.O_WRONLY | os.O_CREAT)
    for size in (1 << 20, 1 << 12, 1):  # every free byte of the tmpfs, unbuffered: nothing to flush on close
        try:
            while os.write(handle, b"\0" * size):
                pass
        except OSError:
            pass
    os.close(handle)
    try:
        before = warm.document()
        result, _ = bounded(lambda: warm.adapter.execute(warm.next_example()), lambda: None)
        assert_clear(result, before, warm, "full disk")
        assert not leftovers(warm.adapter.workspace), "a write that ran out of space left its temporary file"
    finally:
        filler.unlink()
    recovered(warm)
    after = warm.adapter.execute(warm.next_example())
    assert after.error is None or after.error.code not in ("workspace_full", UNFORESEEN), after.error


def test_document_changed_behind_the_adapters_back(warm: Warm) -> None:
    path = warm.adapter.workspace.resolve(warm.adapter.document or ".")
    if warm.adapter.document is None or not path.is_file():
        pytest.skip(f"{warm.adapter.name} keeps no document file (its state is a service's or a folder's)")
    outside = path.read_bytes() + b"\n"  # what another program saved: different bytes, written in place
    path.write_bytes(outside)
    result, _ = bounded(lambda: warm.adapter.execute(warm.next_example()), lambda: None)
    assert not result.ok and result.error is not None, "an action overwrote a change made on disk by someone else"
    assert "changed on disk" in result.error.message
    assert path.read_bytes() == outside, "the other program's change was lost"


def test_read_only_workspace_at_start(request: pytest.FixtureRequest, tmp_path: Path, warm: Warm) -> None:
    cls = type(warm.adapter)
    workspace = Workspace(tmp_path / "ws")
    document = cls.create_sample(workspace)
    mount("--bind", str(workspace.root), str(workspace.root))
    try:
        mount("-o", "remount,bind,ro", str(workspace.root))
        before = document_bytes_at(workspace, document)
        try:
            with cls(workspace, document) as adapter:
                result, _ = bounded(lambda: adapter.execute(warm.examples[0]), lambda: None)
        except AsilError as refused:  # refused at start: fine when it says what is wrong
            assert "read-only" in str(refused)
            return
        if not result.ok:
            assert result.error is not None and result.error.code != UNFORESEEN, result.error
            assert "read-only" in result.error.message or "write" in result.error.message, result.error.message
        assert document_bytes_at(workspace, document) == before
    finally:
        unmount(workspace.root)


def document_bytes_at(workspace: Workspace, document: str | None) -> bytes | None:
    if document is None:
        return None
    path = workspace.resolve(document)
    return path.read_bytes() if path.is_file() else None
