"""Faults around the real OBS: killed, hung, and a websocket port already taken."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import time
from pathlib import Path
from typing import Any

import pytest

from asil.adapters.obs.adapter import ObsAdapter
from asil.protocol import Action, ActionFailed
from asil.workspace import Workspace

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("obs") is None or shutil.which("Xvfb") is None,
                                 reason="needs obs-studio and xvfb (scripts/install-system.sh)")]


def fn(function: str, **params: Any) -> Action:
    return Action(action_type="invoke_function", target=function, params=params)


def obs_pid(adapter: ObsAdapter) -> int:
    assert adapter.session is not None and adapter.session.process is not None
    return adapter.session.process.pid


def test_killed_obs_is_restarted_from_the_last_state(tmp_path: Path) -> None:
    with ObsAdapter(Workspace(tmp_path)) as adapter:
        assert adapter.execute(fn("create_scene", name="Kept"), observe=False).ok
        assert adapter.execute(fn("add_input", scene="Kept", name="Note", kind="text", text="still here"),
                               observe=False).ok
        os.killpg(obs_pid(adapter), signal.SIGKILL)
        started = time.monotonic()
        observation = adapter.observe()
        assert time.monotonic() - started < 30
        assert adapter.restarts == 1 and observation.environment["obs"]["restarts"] == 1
        state = adapter.live_state()
        assert "Kept" in [s["name"] for s in state["scenes"]]
        assert state["inputs"]["Note"]["settings"]["text"] == "still here"
        # An action right after a crash also finds a fresh OBS.
        os.killpg(obs_pid(adapter), signal.SIGKILL)
        assert adapter.execute(fn("switch_scene", scene="Kept"), observe=False).ok
        assert adapter.live_state()["current_scene"] == "Kept"


def test_hung_obs_is_replaced_within_bounded_time_and_never_half_applies(tmp_path: Path) -> None:
    from asil.adapters.obs.actions import CreateScene

    with ObsAdapter(Workspace(tmp_path), request_timeout_s=5.0) as adapter:
        assert adapter.execute(fn("create_scene", name="Before"), observe=False).ok
        hung = obs_pid(adapter)
        os.killpg(hung, signal.SIGSTOP)  # OBS stops answering; its socket stays open
        started = time.monotonic()
        result = adapter.execute(fn("create_scene", name="After"), observe=False)
        assert time.monotonic() - started < 60
        # Either the check's read timed out, OBS was replaced from the last state and the action ran, or
        # the action itself met the hung OBS and was undone by the restart: never a hang, never half done.
        assert result.ok or (result.error is not None and "nothing was changed" in result.error.message), result
        assert adapter.restarts >= 1 and obs_pid(adapter) != hung
        with pytest.raises(ProcessLookupError):  # the hung OBS was stopped, not left behind
            os.kill(hung, 0)
        names = {s["name"] for s in adapter.live_state()["scenes"]}
        assert "Before" in names and ("After" in names) == result.ok

        os.killpg(obs_pid(adapter), signal.SIGSTOP)  # now it hangs after the action was checked
        with pytest.raises(ActionFailed) as caught:
            adapter._run([("create_scene", CreateScene(name="During"))], batch=False)
        message = caught.value.message
        assert "did not answer" in message and "restarted from the state before this action" in message
        names = [s["name"] for s in adapter.live_state()["scenes"]]
        assert "Before" in names and "During" not in names


def test_a_taken_port_makes_obs_use_another_free_port(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(1)
        taken = squatter.getsockname()[1]
        with ObsAdapter(Workspace(tmp_path), port=taken) as adapter:
            observation = adapter.observe()
            assert adapter.session is not None and adapter.session.port != taken
            assert observation.summary.startswith("OBS Studio")


def test_close_leaves_no_obs_or_display_behind(tmp_path: Path) -> None:
    adapter = ObsAdapter(Workspace(tmp_path))
    adapter.observe()
    assert adapter.session is not None and adapter.session.display is not None
    pid, display_pid = obs_pid(adapter), adapter.session.display.process.pid
    root = adapter.root
    adapter.close()
    for gone in (pid, display_pid):
        with pytest.raises(ProcessLookupError):
            os.kill(gone, 0)
    assert root is not None and not root.exists()
    leftovers = []
    for proc in Path("/proc").iterdir():
        try:
            if f"HOME={root}".encode() in (proc / "environ").read_bytes().split(b"\0"):
                leftovers.append(proc.name)
        except OSError:
            continue
    assert leftovers == []  # nothing OBS started (D-Bus, portals) outlived it
