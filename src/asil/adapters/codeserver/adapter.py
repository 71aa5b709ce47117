"""The code-server adapter: VS Code's settings, keybindings, extensions, tasks and files in a live code-server.

One code-server per adapter starts on first use (``asil.apps.codeserver``) with a private profile in
the workspace's ASIL folder, serving the workspace on a free loopback port. VS Code keeps its state
in files — settings.json, keybindings.json (both JSON with comments), tasks.json, the extensions
registry — so actions are planned as exact edits of those files (``plan``), checked, then
committed atomically; extensions are installed and removed by code-server's own CLI. A stopped or
hung server is replaced on the next observation, which says so; if it cannot start, the
observation says why and the file-backed state stays usable. Everything persists in the workspace,
so the evaluator reads it after ``close()``.

Open editors, the active editor and the cursor live only in a VS Code window, so the editor
functions open one (``workbench``: headless chromium on the session's URL) and change it through
ASIL's bridge extension (``bridge``), which records the window's editors in the profile; a new
window brings back the editors the last one recorded.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from asil.adapters.api import ApiRequest, response_text, with_api
from asil.adapters.base import Adapter, Readiness, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.codeserver import actions as act
from asil.adapters.codeserver import bridge, state, taskrun
from asil.adapters.codeserver import editors as _editors  # noqa: F401  (declares the editor and rename functions)
from asil.adapters.codeserver.api import CLI, CODE_API, CONFIG, SCOPE
from asil.adapters.codeserver.bridge import BRIDGE_ID
from asil.adapters.codeserver.editor_view import window_answer
from asil.adapters.codeserver.handlers import FUNCTIONS, Context, Handler
from asil.adapters.codeserver.plan import Plan
from asil.adapters.codeserver.view import DEFAULT_FILE_LIMIT, DEFAULT_LINE_LIMIT, Window, build_observation
from asil.adapters.codeserver.workbench import Workbench, move_on_disk, read_snapshot
from asil.adapters.params import parse_params
from asil.apps.codeserver import VERSION, CodeServerSession, code_server_path, health, run_cli
from asil.apps.process import ProgramFailed
from asil.protocol import (
    Action,
    ActionFailed,
    AppUnavailable,
    DocumentError,
    InvalidAction,
    Observation,
)
from asil.workspace import Workspace

RETRY_AFTER_S = 30.0  # after a failed start, observations report it without trying again for this long
# What VS Code's server logs when a workbench has loaded and started its extension host.
WORKBENCH_CONNECTED = "[ExtensionHostConnection] New connection established"


def _log_text(log: Path) -> str:
    try:
        return log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""


API_EXAMPLES = [
    {"action_type": "api_call", "target": f"{CONFIG}.update",
     "params": {"request": f"{CONFIG}.update", "data": {"section": "editor.wordWrap", "value": "on",
                                                        "configurationTarget": "Workspace"}}},
    {"action_type": "api_call", "target": f"{CONFIG}.get",
     "params": {"request": f"{CONFIG}.get", "data": {"section": "editor.wordWrap", "configurationTarget": "Workspace"}}},
    {"action_type": "api_call", "target": f"{CLI} --list-extensions", "params": {"request": f"{CLI} --list-extensions"}},
    {"action_type": "api_call", "target": "window.tabGroups.all", "params": {"request": "window.tabGroups.all"}},
]
API_TIPS = [
    f"api_call makes one request from the schema's api_calls in code-server's own terms: VS Code's {CONFIG}.get/"
    "update (configurationTarget Global = user settings, Workspace = .vscode/settings.json; update without a value "
    f"removes the setting), the {CLI} CLI's extension commands, GET /healthz, and the VS Code window's editors "
    "(window.tabGroups.all, window.activeTextEditor, window.showTextDocument, WorkspaceEdit.renameFile). The answer "
    "comes back in the result's output. --uninstall-extension needs \"destructive\": true.",
]


class CodeServerAdapter(Adapter):
    """A workspace folder open in code-server, with its user profile."""

    vocabulary = with_api(act.VOCABULARY, CODE_API.specs(), examples=API_EXAMPLES, tips=API_TIPS)
    functions = FUNCTIONS
    doomed_api_call = {"request": f"{CLI} --uninstall-extension", "data": {"id": "nobody.nothing"}, "destructive": True}

    def __init__(self, workspace: Workspace, document: str | None = None, *, port: int | None = None,
                 **options: Any):
        super().__init__(workspace, document)
        self.places = state.Places(workspace.root, state.profile_of(workspace.root))
        self.places.profile.create()
        self.ctx = Context(workspace, self.places, self.editor_state)
        self.window = Window("files", 0, DEFAULT_FILE_LIMIT)
        if document is not None:
            path = workspace.resolve(document)
            if not path.is_file():
                raise DocumentError(f"There is no file {document!r} to open in code-server.",
                                    hint="Open an existing workspace file, or none.")
            self.window = Window("editor", 0, DEFAULT_LINE_LIMIT, document)
        self.port = port
        self.session: CodeServerSession | None = None
        self.restarts = 0
        self.server_note: str | None = None
        self.down: tuple[float, dict[str, Any]] | None = None  # (retry after, status) once a start failed
        self.workbench: Workbench | None = None  # the VS Code window, open once editors are asked for

    # ------------------------------------------------------------ the server
    def server_status(self) -> dict[str, Any]:
        """Make sure code-server runs (starting or replacing it) and describe it for the observation."""
        session = self.session
        if session is not None and not session.healthy():
            what = (f"exited (code {session.process.process.returncode})" if not session.alive
                    else "stopped answering /healthz")
            session.stop()
            self._close_window()  # it showed the old server
            self.session, self.restarts = None, self.restarts + 1
            self.server_note = f"code-server {what}; a new one was started."
        if self.session is None:
            if self.down is not None and time.monotonic() < self.down[0]:
                return self.down[1]  # it failed moments ago: do not make every observation wait again
            try:
                self.session = CodeServerSession(self.workspace.root, self.places.profile, self.port)
            except (ProgramFailed, AppUnavailable) as exc:
                status = {"state": "down", "error": exc.message, "hint": exc.hint, "restarts": self.restarts,
                          "version": VERSION, "retry_after_s": RETRY_AFTER_S}
                self.down = (time.monotonic() + RETRY_AFTER_S, status)
                return status
            self.down = None
        # No port or URL here: they change with every start, and an observation must not (gui_launch_spec has the URL).
        status = {"state": "running", "restarts": self.restarts, "version": VERSION}
        if self.server_note:
            status["note"] = self.server_note
        return status

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view not in (None, "files", "editor"):
            raise InvalidAction(f"There is no view {view!r}.", hint="Views: files, editor.")
        if view is not None and view != self.window.view:
            self._switch(view)
        self.window.offset, self.window.limit = turn_page(offset, limit, (self.window.offset, self.window.limit), 500)
        server = self.server_status()
        return build_observation(self.workspace, self.places, self.window, step=self.step, server=server,
                                 editors=self._observed_editors())

    def _switch(self, view: str) -> None:
        if view == "editor" and self.window.file is None:
            raise InvalidAction("No file is open.", hint="Navigate with a file path as target to open one.")
        self.window = Window(view, 0, DEFAULT_LINE_LIMIT if view == "editor" else DEFAULT_FILE_LIMIT,
                             self.window.file)

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self.vocabulary.require_type(action)
        if action.action_type == "navigate":
            self._navigation(action)
        elif action.action_type != "api_call" or not CODE_API.check(action)[0].reads:
            self._plan(action)

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            self.window = self._navigation(action)
            return []
        if action.action_type == "api_call":
            request, data = CODE_API.check(action)
            if request.reads:
                self.output = response_text(self._read(request, data))
                return []
        plan, changed = self._plan(action)
        try:
            plan.commit()
        except AppUnavailable as exc:
            raise ActionFailed(exc.message, hint=exc.hint, code=exc.code) from None
        except OSError as exc:
            raise ActionFailed(f"Writing the change failed ({exc.strerror}); nothing was changed.") from None
        for run in plan.task_runs:
            taskrun.run(self.workspace, self.places, run.task, run.timeout_s)
        for move in plan.moves:
            self._move(move.old, move.new)
        for op in plan.editor_ops:
            self._open_window().request(op.op, **op.data)
        return changed

    # ------------------------------------------------------------ the VS Code window (editors)
    def _open_window(self) -> Workbench:
        """The live VS Code window, opened (bringing back the last recorded editors) when there is none."""
        if self.workbench is not None and self.workbench.alive:
            return self.workbench
        self._close_window()
        status = self.server_status()
        if self.session is None:
            raise ActionFailed(f"code-server is not running: {status.get('error')}", hint=status.get("hint"))
        last = read_snapshot(self.places.profile)
        try:
            self.workbench = Workbench(self.session, self.places.profile)
        except (ProgramFailed, AppUnavailable) as exc:
            raise ActionFailed(f"The VS Code window did not open: {exc.message}", hint=exc.hint) from None
        if last and last.get("editors"):
            self.workbench.restore(last)
        return self.workbench

    def _close_window(self) -> None:
        if self.workbench is not None:
            self.workbench.stop()
            self.workbench = None

    def editor_state(self) -> dict[str, Any]:
        """The window's editors now: asked of the live window, else as the last window left them."""
        if self.workbench is not None and self.workbench.alive:
            return self.workbench.request("state")
        return read_snapshot(self.places.profile) or {}

    def _observed_editors(self) -> dict[str, Any]:
        """Editor state for the observation; a window is reopened when the last one left editors open."""
        last = read_snapshot(self.places.profile)
        live = self.workbench is not None and self.workbench.alive
        if not live and last and last.get("editors") and self.session is not None:
            try:
                self._open_window()
                live = True
            except ActionFailed as exc:
                return {**last, "window": "closed", "problem": exc.message}
        if not live:
            return {**(last or {}), "window": "closed"}
        return {**self.editor_state(), "window": "open"}

    def _move(self, old: str, new: str) -> None:
        """Rename through VS Code when a window is open (its editors follow), else on disk."""
        if self.workbench is not None and self.workbench.alive:
            (self.workspace.root / new).parent.mkdir(parents=True, exist_ok=True)
            self.workbench.request("rename", **{"from": old, "to": new})
            if (self.workspace.root / new).exists():
                return
            raise ActionFailed(f"VS Code did not move {old!r} to {new!r}.")
        move_on_disk(self.workspace.root, self.places.profile, old, new)

    def _navigation(self, action: Action) -> Window:
        params = self.vocabulary.parse_navigate(action)
        window = Window(self.window.view, self.window.offset, self.window.limit, self.window.file)
        if action.target:
            path = self.workspace.resolve(action.target)
            if not path.is_file():
                raise InvalidAction(f"There is no file {action.target!r} to open.",
                                    hint="Targets are workspace file paths from the 'files' view.",
                                    code="no_such_file")
            window = Window("editor", 0, DEFAULT_LINE_LIMIT, self.workspace.relative(path))
        elif params.view and params.view != window.view:
            if params.view == "editor" and window.file is None:
                raise InvalidAction("No file is open.", hint="Navigate with a file path as target to open one.")
            window = Window(params.view, 0, DEFAULT_LINE_LIMIT if params.view == "editor" else DEFAULT_FILE_LIMIT,
                            window.file)
        window.offset = params.offset if params.offset is not None else window.offset
        window.limit = params.limit or window.limit
        return window

    def _function(self, action: Action) -> tuple[Handler, Any]:
        """The planner and parsed params of a set_value or invoke_function action."""
        if action.action_type == "set_value":
            function, params = self.functions["set_setting"], self._setting_target(action)
        else:
            function, params = self.functions.parse(action.target or "", action.params)
        return function.require_handler(), params

    def _setting_target(self, action: Action) -> act.SetSetting:
        scope, _, key = (action.target or "").partition(":")
        language = None
        if key.startswith("[") and "]." in key:
            language, _, key = key[1:].partition("].")
        if scope not in state.SCOPES or not key:
            raise InvalidAction(f"set_value needs a target like 'user:editor.fontSize', not {action.target!r}.",
                                hint="Targets: '<user|workspace>:<setting key>' or "
                                "'<user|workspace>:[language].<setting key>'.")
        value = self.vocabulary.parse_set_value(action).value
        params = {"key": key, "value": value, "scope": scope} | ({"language": language} if language else {})
        parsed: act.SetSetting = parse_params(act.SetSetting, params, "set_value")
        return parsed

    def _plan(self, action: Action) -> tuple[Plan, list[str]]:
        """Work out the whole change (every batch member in order) without touching anything."""
        plan = Plan(self.places.profile)
        batch = action.action_type == "batch"
        changed: list[str] = []
        members = self.vocabulary.batch(action, self.functions) if batch else [action]
        if action.action_type == "api_call":  # a write request is the function call that makes it
            request, data = CODE_API.check(action)
            members = [Action(action_type="invoke_function", target=name, params=params)
                       for name, params in request.require_handler()(data)]
        for index, member in enumerate(members, start=1):
            try:
                planner, params = self._function(member)
                changed += [c for c in planner(plan, self.ctx, params) if c not in changed]
            except InvalidAction as exc:
                if not batch:
                    raise
                raise in_batch(exc, index, "Nothing was changed.") from None
        return plan, changed

    def _read(self, request: ApiRequest[Any], data: Any) -> Any:
        """The answer to a reading request, from code-server's files, CLI or HTTP endpoint."""
        if request.name == f"{CONFIG}.get":
            found = state.settings(self.places, SCOPE[data.configurationTarget])
            if data.languageId is not None:
                found = found.get(f"[{data.languageId}]") or {}
            return found.get(data.section)
        if request.name == f"{CLI} --list-extensions":
            done = run_cli(self.places.profile, ["--list-extensions", "--show-versions"])
            if done.returncode != 0:
                raise ActionFailed(f"code-server --list-extensions failed: {done.stderr.strip()[-300:]}")
            return [e for e in done.stdout.split() if not e.lower().startswith(BRIDGE_ID + "@")]
        if request.name.startswith("window."):
            return window_answer(request.name, self.editor_state())
        status = self.server_status()  # GET /healthz
        if self.session is None:
            raise ActionFailed(f"code-server is not running: {status.get('error')}", hint=status.get("hint"))
        return health(self.session.port)

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Nothing is pending: every action is committed to VS Code's files when it is applied."""
        return None

    def render(self, path: Path) -> Path:
        from asil.adapters.codeserver.render import screenshot

        status = self.server_status()
        if self.session is None:
            raise AppUnavailable(f"code-server is not running: {status.get('error')}", hint=status.get("hint"))
        log = self.places.profile.log
        seen = _log_text(log).count(WORKBENCH_CONNECTED)
        # The screenshot's window shows the recorded editors once its bridge has opened them: wait for that too.
        shown = self.places.profile.root / bridge.SHOWN
        shown.unlink(missing_ok=True)
        editors = bool((read_snapshot(self.places.profile) or {}).get("editors")) \
            and state.bridge_version(self.places.profile) == bridge.BRIDGE_VERSION  # no bridge: nothing to wait for
        return screenshot(self.session.url, path, self.places.profile.root / "browser",
                          lambda: _log_text(log).count(WORKBENCH_CONNECTED) > seen and (shown.exists() or not editors))

    def gui_launch_spec(self) -> dict[str, Any] | None:
        self.server_status()
        return {"kind": "url", "url": self.session.url} if self.session is not None else None

    def close(self) -> None:
        """Close the VS Code window and stop code-server (its whole process group); the profile stays."""
        self._close_window()
        if self.session is not None:
            self.session.stop()
            self.session = None

    @classmethod
    def readiness(cls) -> Readiness:
        binary = code_server_path()
        if binary is None:
            return Readiness(False, "code-server is not installed (run scripts/install-code-server.sh)")
        return Readiness(True, f"code-server {VERSION} at {binary}, driven through VS Code's settings files and CLI")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str | None:
        from asil.adapters.codeserver.vsix import build_vsix

        workspace.write_bytes("hello.vsix", build_vsix({"publisher": "asil", "name": "hello", "version": "1.0.0",
                                                         "display_name": "Hello"}))
        workspace.write_bytes("README.md", b"# Sample\n\nA small workspace for code-server.\n")
        workspace.write_bytes(".vscode/settings.json", b'{\n    // workspace settings\n    "editor.tabSize": 4\n}\n')
        return None


__all__ = ["CodeServerAdapter"]
