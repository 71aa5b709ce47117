"""Confinement for untrusted code: model-written shell, notebook kernels, workspace tasks.

bubblewrap builds a new, otherwise empty root holding only:

* the system's program and library folders, read-only (``/usr``, ``/bin``, ``/sbin``, ``/lib*``);
* the few files of ``/etc`` that programs need to run (the loader cache, fonts, alternatives,
  ``passwd``/``group`` for names) — never ``/etc/shadow`` or anything else there;
* the workspace, read-write, and whatever read-only folders the caller names (a venv's Python);
* a private ``/tmp``, ``/dev`` and ``/proc``.

``/root``, ``/home``, ``/opt``, ``/srv``, ``/mnt``, ``/var``, ``/run``, ``/work`` and the rest do not
exist inside. The environment is cleared and rebuilt from an explicit list, so no variable of the
ASIL process (API keys, tokens) reaches the code. The code has no capabilities, no network (its own
network namespace) and its own PID namespace: whatever it leaves running dies with it. Where the
machine allows, the number of processes is capped too (a pids cgroup, else ``RLIMIT_NPROC``), so a
fork bomb stalls instead of filling the process table; the callers' time limits end it.
"""

from __future__ import annotations

import itertools
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from asil.protocol import AppUnavailable

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What programs read from /etc: the dynamic loader, fonts, alternatives (python3, editor links),
# user and group names, locale and time zone, MIME types, certificates. Nothing secret.
ETC_ENTRIES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "fonts", "passwd", "group",
               "nsswitch.conf", "localtime", "timezone", "mime.types", "magic", "ssl", "ca-certificates",
               "bash.bashrc", "profile", "inputrc", "os-release", "chromium", "chromium.d", "ImageMagick-6")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
PROCESS_LIMIT = 256  # processes and threads at once inside one sandbox
PIDS_CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))  # cgroup v1, then v2
_names = itertools.count()


def clean_env(home: str, **extra: str) -> dict[str, str]:
    """The whole environment confined code gets: a system PATH, its HOME, a UTF-8 locale, and ``extra``."""
    return {"PATH": SYSTEM_PATH, "HOME": home, "LANG": "C.UTF-8", "TMPDIR": "/tmp", "TERM": "dumb", **extra}


def program_env(home: str, **extra: str) -> dict[str, str]:
    """The whole environment of a program that runs model-written code in-process (Blender's
    ``run_python``), or Script-Fu built from model text (GIMP), and cannot be confined per call:
    like :func:`clean_env`, but with this process's temporary folder. No API key or token reaches it.
    """
    return clean_env(home, TMPDIR=tempfile.gettempdir(), **extra)


def require_bwrap(purpose: str) -> str:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise AppUnavailable(f"{purpose} needs bubblewrap to confine it.",
                             hint="Install it with: apt-get install bubblewrap")
    return bwrap


def python_roots() -> list[str]:
    """Folders ASIL's own Python lives in outside the system folders (a venv, pyenv): to run it confined."""
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(os.path.realpath(sys.executable)).parent.parent)}
    return sorted(r for r in roots if not any(r == s or r.startswith(s + "/") for s in SYSTEM_DIRS))


def sandbox_argv(workspace: Path, command: Sequence[str], *, env: Mapping[str, str], cwd: Path | None = None,
                 writable: Sequence[Path] = (), read_only: Sequence[Path] = (), hidden: Sequence[Path] = (),
                 purpose: str = "Running untrusted code") -> list[str]:
    """The bwrap command line that runs ``command`` confined (see the module's docstring).

    ``writable`` folders are bound read-write beside the workspace; ``hidden`` folders are then covered
    by an empty tmpfs, and ``read_only`` ones bound read-only last (so they may sit inside either).
    """
    argv = [require_bwrap(purpose), "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    for system in SYSTEM_DIRS:
        if os.path.islink(system):  # merged /usr: /bin -> usr/bin
            argv += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            argv += ["--ro-bind", system, system]
    for entry in ETC_ENTRIES:
        argv += ["--ro-bind-try", f"/etc/{entry}", f"/etc/{entry}"]
    argv += ["--tmpfs", "/tmp", "--dev", "/dev", "--proc", "/proc"]
    for folder in (workspace, *writable):
        argv += ["--bind", str(folder), str(folder)]
    for folder in hidden:
        argv += ["--tmpfs", str(folder)]
    for folder in read_only:
        argv += ["--ro-bind", str(folder), str(folder)]
    argv += ["--remount-ro", "/", "--chdir", str(cwd or workspace), "--clearenv"]
    for name, value in env.items():
        argv += ["--setenv", name, value]
    return argv + ["--", *command]


def _pids_cgroup_root() -> Path | None:
    for root in PIDS_CGROUP_ROOTS:
        if (root / "cgroup.procs").is_file() and os.access(root, os.W_OK) and (
                root.name == "pids" or "pids" in _read(root / "cgroup.subtree_control")):
            return root
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


class ProcessLimit:
    """A cap on how many processes a confined command and everything it starts may have at once.

    A pids cgroup made for it (removed by :meth:`release`) when this machine lets us make one; else
    ``prlimit --nproc``, which the kernel enforces for every user but root; else nothing (root
    without cgroups: the PID namespace and the time limit still end a fork bomb). :attr:`kind` says which.
    """

    def __init__(self, limit: int = PROCESS_LIMIT):
        self.limit = limit
        self.group: Path | None = None
        root = _pids_cgroup_root()
        if root is not None:
            _remove_stale_groups(root)
            group = root / f"asil-sandbox-{os.getpid()}-{next(_names)}"
            try:
                group.mkdir()
                (group / "pids.max").write_text(str(limit))
                self.group = group
            except OSError:
                _remove_group(group)
        prlimit = shutil.which("prlimit")
        self._prlimit = prlimit if self.group is None and os.geteuid() != 0 else None
        self.kind = "cgroup" if self.group else "rlimit" if self._prlimit else "none"

    def wrap(self, argv: Sequence[str]) -> list[str]:
        if self.group is not None:  # the shell joins the group, then becomes the command
            # best effort: a cgroup that refuses the process must not stop the command from running
            return ["/bin/sh", "-c", '{ echo $$ > "$0"; } 2>/dev/null; exec "$@"', str(self.group / "cgroup.procs"),
                    *argv]
        if self._prlimit is not None:
            return [self._prlimit, f"--nproc={self.limit}", "--", *argv]
        return list(argv)

    def release(self) -> None:
        if self.group is not None:
            _remove_group(self.group)
            self.group = None


def process_cap() -> str:
    """How confined processes are capped on this machine: "cgroup", "rlimit" or "none" (see :class:`ProcessLimit`)."""
    cap = ProcessLimit()
    cap.release()
    return cap.kind


@contextmanager
def process_limit(argv: Sequence[str], limit: int = PROCESS_LIMIT) -> Iterator[list[str]]:
    """``argv`` wrapped in a :class:`ProcessLimit` for the length of the ``with`` block."""
    cap = ProcessLimit(limit)
    try:
        yield cap.wrap(argv)
    finally:
        cap.release()


def _remove_stale_groups(root: Path) -> None:
    """Remove the empty cgroups of ASIL processes that died (SIGKILL) before removing their own."""
    for group in root.glob("asil-sandbox-*-*"):
        owner = group.name.split("-")[2]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            try:
                group.rmdir()
            except OSError:
                pass


def _remove_group(group: Path) -> None:
    """rmdir the cgroup once it is empty; the PID namespace ends with bwrap, so that is almost at once."""
    for _ in range(100):
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)
