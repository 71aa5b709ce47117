"""Shared plumbing of the LibreOffice document adapters (Calc, Writer, Impress).

Each adapter plans an action into engine steps (validation, no side effects), then runs
them in the warm LibreOffice: one step directly, a batch atomically against a snapshot.
Files are checked for hostile content before LibreOffice sees them, and every write
(save, export, render) lands atomically.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field

from asil.adapters.base import Adapter, Readiness, turn_page
from asil.adapters.batch import in_batch
from asil.adapters.functions import AppFunction
from asil.adapters.odf.safety import check_package
from asil.adapters.params import NoParams, Params
from asil.apps.libreoffice import Office, OfficeRestarted, import_uno, shared_office, soffice_path
from asil.protocol import Action, ActionFailed, AppUnavailable, AsilError, Observation
from asil.workspace import Workspace, commit_file

Step = dict[str, Any]
Plan = tuple[list[Step], list[str]]
_ENGINE_STEP = re.compile(r"^Batch step (\d+) failed and the batch was undone: ")


def save_function(what: str) -> AppFunction[Any]:
    """The ``save`` function of a LibreOffice app (``what``: "document"); a batch cannot hold it."""
    return AppFunction("save", NoParams, f"Write the {what} to disk now (it is also saved when the episode ends).",
                       acts_on="file", batch=False, handler=_plan_save)


def export_pdf_function(what: str, params: type[Params]) -> AppFunction[Any]:
    """The ``export_pdf`` function (``params`` has the workspace-relative ``path``); a batch cannot hold it."""
    return AppFunction("export_pdf", params, f"Export the {what} as PDF through LibreOffice.", acts_on="file",
                       batch=False, handler=_plan_export_pdf)


def _plan_save(doc: OfficeAdapter, p: NoParams, *state: Any) -> Plan:
    return [{"op": "save"}], []


def _plan_export_pdf(doc: OfficeAdapter, p: Any) -> Plan:
    doc.workspace.resolve(p.path)
    return [{"op": "export_pdf", "path": p.path}], []


def navigate_window(max_limit: int, first: str, count: str) -> type[Params]:
    """The navigate params of a windowed document: ``offset`` (described by ``first``) and ``limit`` up to
    ``max_limit`` (described by ``count``); ``navigate_page`` with descriptions of what is paged."""

    class Navigate(Params):
        offset: Annotated[int, Field(ge=0)] | None = Field(None, description=first)
        limit: Annotated[int, Field(ge=1, le=max_limit)] | None = Field(None, description=count)

    return Navigate


class OfficeAdapter(Adapter):
    """A document open in the shared headless LibreOffice through one engine script: opening it, engine
    calls that survive a LibreOffice restart, engine steps run one by one or as an atomic batch, atomic
    writes (save, export), closing it."""

    ENGINE: ClassVar[str] = ""
    KIND: ClassVar[str] = ""  # "spreadsheet", "text document", "presentation"
    MIMETYPE: ClassVar[bytes] = b""

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 **options: Any):
        super().__init__(workspace, document)
        extension = self.extensions[0]
        self.path, document = self._open_document(f"a {extension} document")
        check_package(self.path, document, self.MIMETYPE, extension, self.KIND)
        self.office = office or shared_office()
        self._doc = ""
        self._generation = -1
        self._step_members: list[int] = []
        self._open()

    def _open(self) -> None:
        self._doc = self.office.call(self.ENGINE, "open", url=self.path.as_uri())
        self._generation = self.office.generation
        self._forget()

    def _forget(self) -> None:
        """Drop what is cached about the document; it was (re)opened, saved or is about to change."""

    def _call(self, op: str, **args: Any) -> Any:
        self.office.ensure()
        if self.office.generation != self._generation:
            self._open()  # LibreOffice was restarted: back to the last saved file
            raise OfficeRestarted("LibreOffice had stopped and was restarted; unsaved changes were lost.",
                                  hint="The document was reopened from its last saved state; repeat the action.")
        try:
            return self.office.call(self.ENGINE, op, doc=self._doc, **args)
        except OfficeRestarted:
            self._open()
            raise
        except ActionFailed as exc:
            if exc.code != "no_document":
                raise
            # LibreOffice lost the document without a restart this adapter saw (it was killed and restarted
            # between two calls of the shared office): the same recovery as after a restart
            self._open()
            raise OfficeRestarted("LibreOffice no longer had the document open; unsaved changes were lost.",
                                  hint="The document was reopened from its last saved state; repeat the action.") from None

    def _write(self, op: str, target: Path, tag: str, **args: Any) -> Path:
        """Have the engine write ``target`` through a hidden temporary beside it, then swap it in."""
        tmp = target.with_name(f".{target.name}.asil-{tag}")
        try:
            self._call(op, url=tmp.as_uri(), **args)
            commit_file(tmp, target)
        finally:
            tmp.unlink(missing_ok=True)
        return target

    @property
    def dirty(self) -> bool:
        raise NotImplementedError

    def save(self) -> None:
        """Write the document atomically if it has unsaved changes."""
        if self.dirty:
            self._write("save", self.path, "saving")
            self._forget()

    def store(self) -> None:
        """Write the document atomically now, changed or not: code on the UNO channel edits it behind the
        adapter's back, and a Calc adapter's own change tracking would not see that."""
        self._write("save", self.path, "saving")
        self._forget()

    def close(self) -> None:
        if self._doc and self.office.alive and self.office.generation == self._generation:
            try:
                self.office.call(self.ENGINE, "close", doc=self._doc)
            except Exception:  # closing a document that LibreOffice already dropped is fine
                pass
        self._doc = ""

    def _run(self, steps: list[Step], atomic: bool) -> Any:
        """Run engine steps; a batch is undone as a whole when any step fails."""
        if atomic:
            # The snapshot lives outside the user's folder so a batch leaves no debris beside the document.
            with tempfile.TemporaryDirectory(prefix="asil-batch-") as scratch:
                snapshot = (Path(scratch) / f"snapshot{self.extensions[0]}").as_uri()
                try:
                    return self._call("batch", steps=steps, snapshot_url=snapshot)
                except AsilError as exc:
                    raise self._member_failed(exc) from None
        result = None
        for step in steps:
            request = dict(step)
            result = self._call(request.pop("op"), **request)
        return result

    def _member_failed(self, exc: AsilError) -> AsilError:
        """The engine names the failed engine step; the agent is told which batch member it belongs to."""
        found = _ENGINE_STEP.match(exc.message)
        if found is None or not 0 < int(found.group(1)) <= len(self._step_members):
            return exc
        member = self._step_members[int(found.group(1)) - 1]
        exc.message = exc.message[found.end():]
        return in_batch(exc, member, "The batch was undone.")

    def _plan_batch(self, action: Action, plan: Callable[[Action], Plan]) -> Plan:
        """Plan the members of a batch in order with ``plan``; a member's refusal names its place."""
        steps: list[Step] = []
        changed: list[str] = []
        members: list[int] = []  # the batch member (from 1) each engine step comes from
        for number, (sub_steps, sub_changed) in enumerate(self.vocabulary.members(action, self.functions, plan), 1):
            steps += sub_steps
            members += [number] * len(sub_steps)
            changed += [c for c in sub_changed if c not in changed]
        self._step_members = members
        return steps, changed

    @classmethod
    def readiness(cls) -> Readiness:
        if soffice_path() is None:
            return Readiness(False, "LibreOffice (soffice) is not installed")
        try:
            import_uno()
        except AppUnavailable as exc:
            return Readiness(False, exc.message)
        if not Path("/usr/lib/libreoffice/program/pythonscript.py").exists():
            return Readiness(False, "libreoffice-script-provider-python is not installed")
        return Readiness(True, "LibreOffice headless with Python scripting")


class OfficeDocumentAdapter(OfficeAdapter):
    """A Writer or Impress document: a window over its blocks or slides; actions planned into engine steps
    by the function table's planners, run one by one or as an atomic batch."""

    CREATING: ClassVar[tuple[str, ...]] = ()  # functions whose engine result is the id of what they made
    DEFAULT_LIMIT: ClassVar[int]  # the observation window over blocks or slides: its default and largest size
    MAX_LIMIT: ClassVar[int]
    SAVE_FILTER: ClassVar[str] = ""
    PDF_FILTER: ClassVar[str] = ""

    def __init__(self, workspace: Workspace, document: str | None = None, *, office: Office | None = None,
                 limit: int | None = None, **options: Any):
        super().__init__(workspace, document, office=office)
        self.offset, self.limit = 0, limit or self.DEFAULT_LIMIT

    @property
    def dirty(self) -> bool:
        return bool(self._call("dirty"))

    # ------------------------------------------------------------ observe
    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        if view is not None:
            self._goto(view)
        self.offset, self.limit = turn_page(offset, limit, (self.offset, self.limit), self.MAX_LIMIT)
        data = self._call("observe", offset=self.offset, limit=self.limit)
        if self.offset >= data["total"] > 0:
            self.offset = max(0, data["total"] - self.limit)
            data = self._call("observe", offset=self.offset, limit=self.limit)
        return self._observation(data)

    def _observation(self, data: dict[str, Any]) -> Observation:
        raise NotImplementedError

    # ------------------------------------------------------------ actions
    def _check(self, action: Action) -> None:
        self._plan(action)

    def _apply(self, action: Action) -> list[str]:
        steps, changed = self._plan(action)
        if action.action_type == "navigate":
            self._navigate(action)
            return []
        if steps and steps[0]["op"] == "save":
            self.save()
            return []
        if steps and steps[0]["op"] == "export_pdf":
            self.export_pdf(steps[0]["path"])
            return [steps[0]["path"]]
        if not self._keeps_ids(steps):
            self._forget()
        result = self._run(steps, atomic=action.action_type == "batch")
        if action.action_type == "invoke_function" and action.target in self.CREATING:
            changed = [str(result)]
        return changed

    def _plan(self, action: Action) -> Plan:
        """Check an action against the state and turn it into engine steps and changed ids."""
        self.vocabulary.require_type(action)
        kind = action.action_type
        if kind == "set_value":
            return self._plan_set_value(action)
        if kind == "invoke_function":
            function, params = self.functions.parse(action.target, action.params)
            plan: Plan = function.require_handler()(self, params)
            return plan
        if kind == "navigate":
            self._navigate(action, dry=True)
            return [], []
        return self._plan_batch(action, self._plan)

    def _keeps_ids(self, steps: list[Step]) -> bool:
        """Whether these engine steps leave every block/slide id where it was (then cached ids stay valid)."""
        return False

    def _plan_set_value(self, action: Action) -> Plan:
        raise NotImplementedError

    def _navigate(self, action: Action, dry: bool = False) -> None:
        """Check (dry) or move the observation window: to ``target``'s id, then to params offset/limit."""
        window = self.vocabulary.parse_navigate(action)
        if dry:
            if action.target:
                self._find(action.target)
            return
        if action.target:
            self._goto(action.target)
        if window.offset is not None:
            self.offset = window.offset
        self.limit = window.limit or self.limit

    def _find(self, ident: str) -> None:
        """Raise InvalidAction unless ``ident`` names something navigation can go to."""
        raise NotImplementedError

    def _goto(self, ident: str) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------ writing
    def export_pdf(self, relative: str) -> Path:
        """Export the document as PDF through LibreOffice into the workspace (atomic)."""
        target = self.workspace.resolve(relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        return self._write("export", target, "export", filter_name=self.PDF_FILTER)

    def current_page(self) -> int:
        """The 1-based page (Writer) or slide (Impress) a render shows."""
        return 1

    def render(self, path: Path) -> Path:
        """A PNG of the current page/slide: LibreOffice exports it as PDF, poppler rasterizes it."""
        pdftoppm = shutil.which("pdftoppm")
        if pdftoppm is None:
            raise AppUnavailable("pdftoppm is not installed.", hint="Install it with: apt-get install poppler-utils")
        path = Path(path)
        with tempfile.TemporaryDirectory(prefix="asil-render-") as scratch:
            pdf = Path(scratch) / "page.pdf"
            self._call("export", url=pdf.as_uri(), filter_name=self.PDF_FILTER, page=self.current_page())
            done = subprocess.run([pdftoppm, "-png", "-r", "60", "-singlefile", "-f", "1", "-l", "1", str(pdf),
                                   str(Path(scratch) / "page")], capture_output=True, timeout=60)
            image = Path(scratch) / "page.png"
            if done.returncode != 0 or not image.is_file():
                raise ActionFailed("Rendering the page failed.", hint=done.stderr.decode(errors="replace")[-200:])
            path.parent.mkdir(parents=True, exist_ok=True)
            staged = path.with_name(f".{path.name}.asil-render")
            shutil.copyfile(image, staged)
            commit_file(staged, path)
        return path


def create_with_engine(engine: str, path: Path, office: Office | None = None, **spec: Any) -> None:
    """Build a document with LibreOffice from a JSON spec (the engine's ``create`` arguments), written atomically."""
    office = office or shared_office()
    tmp = path.with_name(f".{path.name}.asil-create")
    try:
        office.call(engine, "create", url=tmp.as_uri(), **spec)
        commit_file(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
