"""The Nautilus adapter: the workspace's folder tree, managed by a private Nautilus over D-Bus.

The state *is* the file system: the workspace tree, plus the episode's trash and GTK bookmarks
in the private area (``.asil/nautilus``), so nothing needs saving and everything outlives
``close()`` for the evaluator. Nautilus (with its own Xvfb and D-Bus session) starts on the first
action that needs it and restarts after a crash. Every change first snapshots the paths it may
touch; a failed action or batch puts them back.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

from asil.adapters.api import response_text, with_api
from asil.adapters.base import Adapter, Readiness, only_view, turn_page
from asil.adapters.nautilus import actions as act
from asil.adapters.nautilus import navigation
from asil.adapters.nautilus import state as st
from asil.adapters.nautilus import tabs as tabs  # registers the tab and window functions
from asil.adapters.nautilus.api import FILE_MANAGER, FILE_OPS, NAUTILUS_API
from asil.adapters.nautilus.layout import ensure_layout
from asil.adapters.nautilus.operations import FUNCTIONS, Operation, open_locations, show_folder
from asil.adapters.nautilus.paths import PathGuard
from asil.adapters.nautilus.snapshot import Snapshot
from asil.adapters.nautilus.view import DEFAULT_LIMIT, build_observation
from asil.adapters.nautilus.windows import WindowKeeper, load_record, write_record
from asil.apps.nautilus import CALL_TIMEOUT_S, SCREEN, NautilusLost, NautilusSession, missing_programs
from asil.protocol import (
    Action,
    ActionFailed,
    AppUnavailable,
    DocumentError,
    InvalidAction,
    Observation,
)
from asil.workspace import Workspace

UNDO_DIR = "nautilus-undo"
RENDER_SETTLE_S = 0.5
OBSERVE_TIMEOUT_S = 2.0  # an observation waits at most this long for Nautilus's window list


API_EXAMPLES = [
    {"action_type": "api_call", "target": f"{FILE_OPS}.CreateFolder",
     "params": {"request": f"{FILE_OPS}.CreateFolder", "data": {"parent_uri": ".", "new_folder_name": "inbox"}}},
    {"action_type": "api_call", "target": f"{FILE_MANAGER}.OpenWindowsWithLocations",
     "params": {"request": f"{FILE_MANAGER}.OpenWindowsWithLocations"}},
]
API_TIPS = [
    f"api_call calls one D-Bus method of Nautilus from the schema's api_calls ({FILE_OPS}.*, {FILE_MANAGER}.*) "
    "with its arguments as the interface names them; URIs are file:// URIs inside the workspace (or "
    "workspace-relative paths), e.g. {\"request\": \"" + FILE_OPS + ".TrashURIs\", \"data\": {\"uris\": "
    "[\"notes/old.txt\"]}}. It waits until Nautilus has finished; if the job fails, the files are put back. "
    "EmptyTrash needs \"destructive\": true.",
]


class NautilusAdapter(Adapter):
    """The workspace tree (ids = relative paths), trash items ('trash:<name>') and bookmarks ('bookmark:<path>')."""

    vocabulary = with_api(act.VOCABULARY, NAUTILUS_API.specs(), examples=API_EXAMPLES, tips=API_TIPS)
    functions = FUNCTIONS
    doomed_api_call = {"request": f"{FILE_OPS}.MoveURIs", "data": {"sources": ["no-such-file"], "destination": "."}}

    def __init__(self, workspace: Workspace, document: str | None = None, *, limit: int = DEFAULT_LIMIT,
                 call_timeout_s: float = CALL_TIMEOUT_S, op_timeout_s: float = 15.0,
                 screen: tuple[int, int] = SCREEN, **options: Any):
        super().__init__(workspace, document)
        self.guard = PathGuard(workspace)
        self.session_dir = ensure_layout(workspace)
        self.call_timeout_s, self.op_timeout_s = call_timeout_s, op_timeout_s
        self.screen = screen  # the private display's size (the GUI participant looks at it: 1280x800)
        self.session: NautilusSession | None = None
        self.restarts = 0
        self.lost: str | None = None  # why the last session ended, shown until a new one runs
        self.folder, self.offset, self.limit = ".", 0, limit
        self.windows = WindowKeeper(self.guard.root)
        self.unrestored: list[str] = []  # recorded windows a restarted Nautilus could not reopen, as sentences
        if document:  # a service has no document; a folder given here is where the tree view starts
            try:
                self.folder = self.guard.relative(self.guard.existing(document, root_ok=True, kind="folder"))
            except InvalidAction as exc:
                raise DocumentError(f"The nautilus adapter opens a folder: {exc.message}",
                                    hint="Give a workspace folder, or no document for the whole workspace.") from None

    # ------------------------------------------------------------ the Nautilus session
    def nautilus(self) -> NautilusSession:
        """The running Nautilus, started on first use or after it died."""
        if self.session is not None and self.session.alive:
            return self.session
        if self.session is not None:
            self.session.stop()
            self.restarts += 1
        self.session = None
        try:
            self.session = NautilusSession(self.session_dir, self.call_timeout_s, self.screen)
        except AppUnavailable as exc:  # an action result, not an exception out of execute()
            raise ActionFailed(f"Nautilus cannot run here: {exc.message}", hint=exc.hint, code=exc.code) from None
        self.lost = None
        self.windows.attach(self.session)
        # Nautilus itself reopens no windows when it starts; a person who had folders open expects them back
        # (as after a crash), so the recorded windows are reopened with their history and selection.
        self.unrestored = navigation.restore_windows(self, load_record(self.guard.root))
        return self.session

    def _nautilus_state(self) -> dict[str, Any]:
        info: dict[str, Any] = {"restarts": self.restarts}
        if self.session is None or not self.session.alive:
            info["state"] = "not running (starts on the next action that needs it)"
            if self.session is not None or self.lost:
                info["error"] = self.lost or "Nautilus exited or was killed; it restarts on the next action."
            return info
        try:
            windows = self.windows.windows(OBSERVE_TIMEOUT_S)
            info["windows"] = [w.location for w in windows]
            info["window_details"] = windows
            info["state"] = "running"
        except NautilusLost as exc:
            self.lost = exc.message
            info.update(state="not running (restarts on the next action)", error=exc.message)
        if self.unrestored:
            info["not_reopened"] = self.unrestored
        return info

    def _start_quietly(self) -> None:
        try:
            self.nautilus()
        except (ActionFailed, NautilusLost) as exc:
            self.lost = exc.message

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        only_view(view, "tree")
        if self.session is None and self.restarts == 0 and load_record(self.guard.root):
            self._start_quietly()  # a task that starts with windows open shows them from the first observation
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), act.MAX_LIMIT)
        root = self.guard.root
        if self.folder != "." and not (root / self.folder).is_dir():
            self.folder, self.offset = ".", 0  # the folder was moved or trashed: fall back to the root
        paths = st.walk(root, "" if self.folder == "." else self.folder)
        self.offset = min(self.offset, max(0, len(paths) - 1))
        page = [e for e in (st.entry(root, p) for p in paths[self.offset:self.offset + self.limit]) if e is not None]
        return build_observation(step=self.step, folder=self.folder, paths=paths, entries=page, offset=self.offset,
                                 limit=self.limit, trash=st.trash_items(root), bookmarks=st.bookmarks(root),
                                 nautilus=self._nautilus_state())

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self.vocabulary.require_type(action)
        if action.action_type == "api_call":
            request, _ = NAUTILUS_API.check(action)
            if not request.reads:
                _, operation, params = self._steps(action)[0]  # later calls are checked as they run
                operation.check(self, params)
            return
        if action.action_type == "navigate":
            params = self.vocabulary.parse_navigate(action)
            if params.folder is not None:
                self.guard.existing(params.folder, root_ok=True, kind="folder")
            return
        steps = self._steps(action)  # a batch's members are checked against the state as they run
        if action.action_type == "invoke_function":
            _, operation, params = steps[0]
            operation.check(self, params)

    def _apply(self, action: Action) -> list[str]:
        if action.action_type == "navigate":
            params = self.vocabulary.parse_navigate(action)
            if params.folder is not None:
                self.folder = self.guard.relative(self.guard.existing(params.folder, root_ok=True, kind="folder"))
                self.offset = 0
            self.offset = params.offset if params.offset is not None else self.offset
            self.limit = params.limit or self.limit
            return []
        if action.action_type == "api_call" and NAUTILUS_API.check(action)[0].reads:
            root = self.guard.root
            self.output = response_text([st.relative_to(root, st.uri_path(u)) or u
                                         for u in open_locations(self.nautilus(), OBSERVE_TIMEOUT_S)])
            return []
        batch = action.action_type == "batch"
        snapshot = Snapshot(self.workspace.private(UNDO_DIR))
        changed: list[str] = []
        try:
            for index, (name, operation, params) in enumerate(self._steps(action), start=1):
                try:
                    snapshot.add(operation.check(self, params))
                    changed += [c for c in operation.apply(self, params) if c not in changed]
                except (InvalidAction, ActionFailed) as exc:
                    if not batch and isinstance(exc, InvalidAction):
                        raise  # refused before anything was done
                    where = f"Batch action {index} ({name}): " if batch else ""
                    raise type(exc)(f"{where}{exc.message} Nothing was changed.", hint=exc.hint,
                                    code=exc.code) from None
                except OSError as exc:
                    where = f"Batch action {index} ({name})" if batch else name
                    raise ActionFailed(f"{where} failed: {exc.strerror or exc}. Nothing was changed.") from None
        except BaseException as exc:  # whatever went wrong, the touched paths go back as they were
            if isinstance(exc, NautilusLost):
                self.lost = exc.message
            snapshot.restore()
            raise
        snapshot.discard()
        return changed

    def _steps(self, action: Action) -> list[tuple[str, Operation, Any]]:
        """The functions an invoke_function, batch or api_call action calls: name, operation and parsed params."""
        if action.action_type == "api_call":
            request, data = NAUTILUS_API.check(action)
            calls = [self.functions.parse(name, params) for name, params in request.require_handler()(self.guard.root, data)]
            return [(function.name, function.require_handler(), params) for function, params in calls]
        return [(function.name, function.require_handler(), params)
                for function, params in self.vocabulary.invocations(action, self.functions)]

    # ------------------------------------------------------------ persistence and life
    def save(self) -> None:
        """Write the open windows (location, history, selection) to their record; files are on disk already."""
        if self.session is not None and self.session.alive:
            try:
                write_record(self.guard.root, self.windows.windows())
            except (NautilusLost, ActionFailed) as exc:
                self.lost = exc.message  # the record keeps the windows of the last window action

    def render(self, path: Path) -> Path:
        """A screenshot of the private display; opens the current folder first if no window is open."""
        try:
            from PIL import ImageGrab
        except ImportError:
            raise ActionFailed("Rendering Nautilus needs Pillow.", hint="pip install 'asil[nautilus]'") from None
        session = self.nautilus()
        if not open_locations(session):
            show_folder(self, act.PathOnly(path=self.folder))
            time.sleep(RENDER_SETTLE_S)  # the new window lists the folder asynchronously
        if session.display is None or not session.alive:
            raise ActionFailed("Nautilus stopped while it was being rendered.", hint="Try again: it restarts.")
        ImageGrab.grab(xdisplay=session.display.name).save(path, "PNG")
        return path

    def close(self) -> None:
        self.windows.close()
        if self.session is not None:
            self.session.stop()
            self.session = None
        shutil.rmtree(self.workspace.root / ".asil" / UNDO_DIR, ignore_errors=True)

    @classmethod
    def readiness(cls) -> Readiness:
        missing = missing_programs()
        if missing:
            return Readiness(False, f"{', '.join(missing)} not installed (apt-get install nautilus dbus gvfs xvfb at-spi2-core)")
        try:
            import jeepney  # noqa: F401
        except ImportError:
            return Readiness(False, "the jeepney D-Bus library is missing (pip install 'asil[nautilus]')")
        return Readiness(True, "a private Nautilus on Xvfb, driven over its own D-Bus session")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str | None:
        workspace.write_bytes("notes.txt", b"meeting notes\n")
        workspace.write_bytes("docs/readme.md", b"# Readme\n")
        workspace.write_bytes("docs/guide.txt", b"step one\n")
        return None


__all__ = ["NautilusAdapter"]
