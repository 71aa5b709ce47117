"""The ``uno`` execution channel: model-written Python-UNO run against the task's open document.

A step carries Python source. It runs in the system's ``/usr/bin/python3`` (where pyuno imports) under
the same confinement as the bash channel (``asil.apps.sandbox``: an empty root with the system folders
read-only, the workspace read-write, the adapters' private folder hidden, a private /tmp, no network,
a clean environment, a process cap, a time limit). The one thing added inside is LibreOffice's pipe
socket, so the code reaches the LibreOffice the task's adapter already runs, with ``doc`` bound to the
task's document (an XComponent), ``desktop``, ``ctx`` and ``uno`` beside it; what it prints is the
step's output.

Before the step every document is saved, so the code starts from the state on disk. After a step that
ran to its end the document is stored through LibreOffice and the adapter re-reads it, so the evaluator
judges exactly what the code did. It is stored even when LibreOffice's modified flag is clear: text set
on an Impress shape over UNO does not raise that flag, so the flag cannot tell code that only looked.
A step that failed (an exception, the time limit) is undone: the document is reopened from its state
before the step, and the agent gets one sentence with the traceback's last line.

LibreOffice is confined too: on its first uno step an episode's LibreOffice documents move from ASIL's
shared office to a LibreOffice of their own under the same bubblewrap (``asil.apps.libreoffice_confined``:
the workspace and its private profile writable, nothing else of the machine, no network, a clean
environment), so a UNO call that asks LibreOffice to store, load or start something outside the
workspace fails like the code's own attempt would. The ASIL arm's shared office is untouched.
"""

from __future__ import annotations

import subprocess
import time
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

from asil.apps import reaper
from asil.apps.sandbox import clean_env, process_limit, sandbox_argv
from asil.plugins import adapter_class
from asil.protocol import Action, ActionError, ActionResult, AsilError, InvalidAction
from asil.workspace import Workspace

if TYPE_CHECKING:
    from asil.adapters.lo_document import OfficeAdapter
    from asil.env import Env, StepOutcome

SYSTEM_PYTHON = "/usr/bin/python3"  # Debian's python3-uno is built for it
DEFAULT_TIMEOUT_S = 30.0
MAX_TIMEOUT_S = 300.0
MAX_OUTPUT = 4000  # characters of printed output kept for the agent
FILE_LIMIT = 512 * 2**20  # largest file the code itself may write
FAILURE_MARK = "ASIL-UNO-FAILURE: "  # the runner's failure line (asil/native/uno_runner.py)
CODE_FAILED = 3


@dataclass
class UnoRun:
    """How one UNO step's code ended: ``error`` is None when it ran to its end."""

    output: str
    error: str | None
    seconds: float


def runner_source() -> str:
    return resources.files("asil.native").joinpath("uno_runner.py").read_text(encoding="utf-8")


def run_code(code: str, adapter: OfficeAdapter, workspace: Workspace, timeout_s: float) -> UnoRun:
    """Run ``code`` confined, connected to ``adapter``'s LibreOffice with ``doc`` bound to its document."""
    office = adapter.office
    socket = office.pipe_socket()
    root = workspace.root
    command = ["/usr/bin/prlimit", f"--fsize={FILE_LIMIT}", SYSTEM_PYTHON, "-I", "-c", runner_source(),
               office.pipe, adapter.path.as_uri()]
    argv = sandbox_argv(root, command, env=clean_env(str(root)), hidden=[workspace.private()],
                        read_only=[socket], purpose="The uno channel")
    started = time.perf_counter()
    with process_limit(argv) as limited:
        try:
            done = subprocess.run(limited, input=code, capture_output=True, text=True, errors="replace",
                                  timeout=timeout_s, env=reaper.tag(clean_env(str(root))))
        except subprocess.TimeoutExpired as exc:
            return UnoRun(_clip(exc.stdout), f"The code did not finish within {timeout_s:g} s and was stopped; "
                          "the document was left as it was before this step (end the code sooner or raise timeout_s).",
                          time.perf_counter() - started)
    seconds = time.perf_counter() - started
    return UnoRun(_clip(done.stdout), _failure(done.returncode, done.stderr), seconds)


def _failure(exit_code: int, stderr: str) -> str | None:
    if exit_code == 0:
        return None
    marked = [line[len(FAILURE_MARK):] for line in stderr.splitlines() if line.startswith(FAILURE_MARK)]
    if exit_code == CODE_FAILED and marked:
        return f"The code raised {marked[-1]}; the document was left as it was before this step."
    last = stderr.strip().splitlines()[-1] if stderr.strip() else "no error output"
    return (f"The code's Python process exited with code {exit_code} ({last}); "
            "the document was left as it was before this step.")


def _clip(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = text or ""
    return text if len(text) <= MAX_OUTPUT else text[: MAX_OUTPUT // 2] + "\n...\n" + text[-MAX_OUTPUT // 2:]


def step_code(action: Action) -> tuple[str, float]:
    """The step's code and time limit, or InvalidAction naming what is wrong and what is valid."""
    code = action.params.get("code")
    if not isinstance(code, str) or not code.strip():
        raise InvalidAction("A uno step needs params.code, the Python-UNO source to run (a non-empty string).",
                            hint='e.g. {"code": "print(doc.getURL())"}')
    timeout = action.params.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or not 0 < timeout <= MAX_TIMEOUT_S:
        raise InvalidAction(f"A uno step's timeout_s is a number of seconds above 0 and at most {MAX_TIMEOUT_S:g}.")
    return code, float(timeout)


def uno_step(env: Env, action: Action) -> StepOutcome:
    """The ``uno`` channel of :class:`asil.env.Env`: one confined Python-UNO step on the task's document."""
    from asil.adapters.lo_document import OfficeAdapter  # here: importing Env must not import LibreOffice's side

    app = action.app or env.task.apps[0]
    adapter = env.adapters.get(app)
    if not isinstance(adapter, OfficeAdapter):
        return env.reject(InvalidAction(f"The uno channel runs on LibreOffice documents, and {app!r} is not one.",
                                        hint="Use it on a calc, writer or impress task."))
    try:
        code, timeout_s = step_code(action)
    except InvalidAction as exc:
        return env.reject(exc)
    assert env.workspace is not None
    started = time.perf_counter()
    env.steps += 1
    env.active_app = app
    for each in env.adapters.values():  # the code starts from the state on disk, to which a failure returns
        each.save()
    _confine(env, app)
    adapter = env.adapters[app]
    assert isinstance(adapter, OfficeAdapter)
    ran = run_code(code, adapter, env.workspace, timeout_s)
    error = ran.error or _store(adapter)
    _reread(env, app)
    result = ActionResult(ok=error is None, status="ok" if error is None else "error", output=ran.output,
                          error=ActionError(code="uno_failed", message=error) if error else None,
                          changed=[adapter.document] if error is None and adapter.document else [],
                          observation=env.observe(app),
                          latency_ms=(time.perf_counter() - started) * 1000)  # save, code, store, re-read
    return env._outcome(result, terminated=False)  # the channel is part of Env's step machinery


def _store(adapter: OfficeAdapter) -> str | None:
    """Write what the code did to the document file; the message of why it could not, else None."""
    try:
        adapter.store()
    except AsilError as exc:  # e.g. the code closed the document: LibreOffice no longer has it
        return f"The document could not be stored after the code ran ({exc.message}); it was reopened as saved."
    return None


def _reread(env: Env, app: str) -> None:
    """Reopen the app's document from disk: after a store it holds the code's work, after a failure the
    state before the step (the live document may hold half of a failed step)."""
    from asil.apps.libreoffice_confined import confined_office  # only a UNO episode starts LibreOffice

    assert env.workspace is not None
    adapter = env.adapters[app]
    adapter.close()
    env.adapters[app] = adapter_class(app)(env.workspace, adapter.document, **env.task.options_for(app),
                                           office=confined_office(env.workspace.root))


def _confine(env: Env, app: str) -> None:
    """Move the app's document to the episode's confined LibreOffice (once; it was just saved)."""
    from asil.apps.libreoffice_confined import confined_office

    assert env.workspace is not None
    office = confined_office(env.workspace.root)
    if getattr(env.adapters[app], "office", None) is not office:  # an OfficeAdapter (uno_step checked)
        _reread(env, app)


__all__ = ["UnoRun", "run_code", "step_code", "uno_step"]

