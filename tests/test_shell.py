"""The Bash channel: confined to the workspace, time-limited, documents kept in sync."""

from __future__ import annotations

from pathlib import Path

from asil.env import Env
from asil.protocol import bash_action
from asil.shell import run_shell
from asil.tasks import get_task
from asil.workspace import Workspace


def test_shell_writes_only_inside_the_workspace(workspace: Workspace, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    done = run_shell(f"echo hi > inside.txt; echo no > {outside}; cat /root/.bashrc; ls $HOME", workspace)
    assert (workspace.root / "inside.txt").read_text() == "hi\n"
    assert not outside.exists()
    assert "/root/.bashrc: No such file or directory" in done.stderr  # home folders are hidden
    assert done.stdout.split() == ["inside.txt"]


def test_shell_cannot_see_or_change_the_private_area(workspace: Workspace) -> None:
    kept = workspace.private("profile") / "settings.json"
    kept.parent.mkdir(parents=True, exist_ok=True)
    kept.write_text("{}")
    done = run_shell("ls -A .asil; echo hacked > .asil/profile/settings.json; rm -rf .asil/profile; echo ok",
                     workspace)
    assert done.stdout.split() == ["ok"]  # the area looks empty and writes land in a throwaway folder
    assert kept.read_text() == "{}"


def test_shell_has_no_network_and_a_time_limit(workspace: Workspace) -> None:
    net = run_shell("python3 -c \"import socket; socket.create_connection(('1.1.1.1', 53), timeout=2)\"", workspace)
    assert net.exit_code != 0 and "unreachable" in net.stderr.lower()
    slow = run_shell("sleep 10", workspace, timeout_s=0.5)
    assert slow.timed_out and slow.exit_code == 124


def test_env_saves_before_and_reopens_after_a_shell_step() -> None:
    env = Env(get_task("calc-total-column"))
    env.reset()
    try:
        assert env.step(_set("Orders!E1", "fresh")).result.ok
        listed = env.dispatch("bash", bash_action("unzip -p sales.ods content.xml | grep -o fresh | head -1"))
        assert listed.result.ok and listed.result.output.strip() == "fresh"  # the shell saw the unsaved edit
        replaced = env.dispatch("bash", bash_action("cp sales.ods copy.ods && rm sales.ods && mv copy.ods sales.ods"))
        assert replaced.result.ok
        assert any(e.id == "Orders!E1" and e.value == "fresh" for e in env.observe().elements)
        bad = env.dispatch("bash", bash_action(""))
        assert bad.result.status == "invalid" and "non-empty" in bad.result.error.message
    finally:
        env.close()


def _set(target: str, value: object):  # type: ignore[no-untyped-def]
    from asil.protocol import Action

    return Action(action_type="set_value", target=target, params={"value": value})
