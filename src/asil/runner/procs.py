"""Killing a worker together with the programs it started.

Applications run in their own sessions (LibreOffice is started with ``start_new_session`` so a
Ctrl-C in a terminal does not reach it), so killing a worker process alone would leave its
LibreOffice running. These helpers find a process's descendants through ``/proc`` while it is
still alive and kill their process groups first.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path


def _parent_of(stat: str) -> int:
    # /proc/PID/stat is "pid (comm) state ppid ..."; comm may hold spaces and parentheses.
    return int(stat[stat.rindex(")") + 2 :].split()[1])


def descendants(pid: int) -> list[int]:
    """Every living process below ``pid`` (children, grandchildren, ...), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = _parent_of((entry / "stat").read_text())
        except (OSError, ValueError, IndexError):
            continue  # the process ended while we looked
        children.setdefault(parent, []).append(int(entry.name))
    found: list[int] = []
    frontier = [pid]
    while frontier:
        current = frontier.pop()
        for child in children.get(current, []):
            found.append(child)
            frontier.append(child)
    return found


def kill_tree(pid: int, include_self: bool = True) -> None:
    """SIGKILL ``pid``'s descendants, their process groups (other than ours), and ``pid`` itself."""
    ours = os.getpgrp()
    below = descendants(pid)
    groups = set()
    for child in below:
        try:
            groups.add(os.getpgid(child))
        except ProcessLookupError:
            pass
    if include_self:
        try:
            groups.add(os.getpgid(pid))
        except ProcessLookupError:
            pass
    for group in groups - {ours}:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    for target in below + ([pid] if include_self else []):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
