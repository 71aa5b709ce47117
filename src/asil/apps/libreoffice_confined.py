"""A LibreOffice confined like the bash channel, for the UNO native baseline (``--agent uno``).

Model-written UNO code can ask LibreOffice itself to write files (``storeToURL``), read them
(``loadComponentFromURL``), start programs (``SystemShellExecute``) or open URLs. So the office that
code talks to runs under bubblewrap (``asil.apps.sandbox``): the system folders and LibreOffice's
``/etc/libreoffice`` read-only, the task's workspace and the office's private profile read-write,
nothing else of the machine (no ``/root``, ``/home``, ``/work``), no network, a clean environment.

Its ``/tmp`` is a private folder of the host, because LibreOffice puts its pipe socket in ``/tmp``
(OSL's fixed place, whatever TMPDIR says): a link from the host's ``/tmp`` to that socket lets ASIL
and the confined runner connect to it by the pipe's name as usual. ASIL's renders and batch
snapshots, which ask LibreOffice to write into ASIL's own temporary folder, do not reach it; the UNO
arm uses neither.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from asil.apps.libreoffice import Office
from asil.apps.sandbox import clean_env, sandbox_argv

# Read by soffice at start (bootstrap rc files point there) and the font cache (else rebuilt each start).
FILE_LIMIT = 512 * 2**20  # largest file the office may write, as for the uno channel's Python
READ_ONLY = (Path("/etc/libreoffice"), Path("/var/cache/fontconfig"))


class ConfinedOffice(Office):
    """A headless LibreOffice in bubblewrap that can write only ``workspace`` and its own profile."""

    def __init__(self, workspace: Path) -> None:
        super().__init__()
        self.workspace = workspace
        self.root: Path | None = None  # host folder holding the profile and the office's /tmp
        self.link: Path | None = None  # the host's /tmp link to the pipe socket

    def _make_profile(self) -> Path:
        self.root = Path(tempfile.mkdtemp(prefix="asil-lo-uno-"))
        (self.root / "tmp").mkdir()
        return self.root / "profile"

    def _launch(self, args: list[str], env: dict[str, str], pipe: str) -> tuple[list[str], dict[str, str]]:
        assert self.root is not None and self.profile is not None
        inner_tmp = self.root / "tmp"
        name = f"OSL_PIPE_{os.getuid()}_{pipe}"
        self.link = Path("/tmp") / name
        self.link.unlink(missing_ok=True)
        self.link.symlink_to(inner_tmp / name)
        # HOME is the profile: nothing else is writable; PYTHONPATH lets the script provider import uno
        inner_env = clean_env(str(self.profile), PYTHONPATH=env["PYTHONPATH"], SAL_USE_VCLPLUGIN="svp")
        capped = ["/usr/bin/prlimit", f"--fsize={FILE_LIMIT}", *args]  # a runaway store cannot fill the disk
        argv = sandbox_argv(self.workspace, capped, env=inner_env, writable=[self.profile],
                            read_only=[p for p in READ_ONLY if p.exists()], purpose="The UNO arm's LibreOffice")
        tmpfs = argv.index("--tmpfs")  # the first tmpfs is /tmp: make it the host folder the socket is seen in
        argv[tmpfs:tmpfs + 2] = ["--bind", str(inner_tmp), "/tmp"]
        # the machine's user list is not the office's to read (loadComponentFromURL would show it): a stub
        stub = self.root / "passwd"
        stub.write_text(f"office:x:{os.getuid()}:{os.getgid()}:office:{self.profile}:/usr/sbin/nologin\n")
        sealed = argv.index("--remount-ro")
        argv[sealed:sealed] = ["--ro-bind", str(stub), "/etc/passwd"]
        return argv, env  # bwrap's own environment: it clears it for soffice (--clearenv)

    def kill(self) -> None:
        super().kill()
        if self.link is not None:
            self.link.unlink(missing_ok=True)
            self.link = None
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None


_current: ConfinedOffice | None = None


def confined_office(workspace: Path) -> ConfinedOffice:
    """The UNO arm's confined LibreOffice for ``workspace``: one at a time, the previous episode's is stopped."""
    global _current
    if _current is not None and _current.workspace != workspace:
        _current.stop()
        _current = None
    if _current is None:
        _current = ConfinedOffice(workspace)
        atexit.register(_current.stop)
    _current.ensure()
    return _current
