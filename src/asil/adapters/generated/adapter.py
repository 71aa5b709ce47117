"""The one adapter class of every generated app; a bundle says what it reads and writes."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, ClassVar

from asil.adapters.base import Adapter, Readiness, only_view
from asil.adapters.generated.bundle import Bundle, ElementSpec, Operation
from asil.adapters.generated.stores import HttpStore, ScriptStore, XmlStore, clean_env, fill_argv, program_failed
from asil.apps.process import ProgramFailed, run_once
from asil.protocol import Action, ActionFailed, AppState, Element, Metadata, Observation
from asil.workspace import Workspace

Store = XmlStore | HttpStore | ScriptStore


def program_version(bundle: Bundle) -> str | None:
    """The installed program's version as its own --version prints it; None when it is not installed."""
    if shutil.which(bundle.program.executable) is None:
        return None
    if not bundle.program.version:
        return "unknown"
    try:
        done = subprocess.run(list(bundle.program.version), capture_output=True, text=True, timeout=30,
                              errors="replace", stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.search(bundle.program.version_regex, done.stdout + done.stderr)
    return found.group(1) if found else None


class GeneratedAdapter(Adapter):
    """An app onboarded from an interface profile: its bundle is its whole description."""

    bundle: ClassVar[Bundle]

    def __init__(self, workspace: Workspace, document: str | None = None, **options: Any):
        super().__init__(workspace, document or self.bundle.document)
        path, self.document_name = self._open_document(f"a {self.bundle.document!r}-like document")
        self.store: Store = self.open_store(self.bundle, path, workspace)

    @staticmethod
    def open_store(bundle: Bundle, path: Path, workspace: Workspace) -> Store:
        try:
            if bundle.store.kind == "xml":
                return XmlStore(bundle.store, path, workspace)
            if bundle.store.kind == "http":
                return HttpStore(bundle.store, path, workspace)
            return ScriptStore(bundle.store, path, workspace, bundle.elements)
        except ProgramFailed as exc:
            raise program_failed(exc) from None

    @classmethod
    def readiness(cls) -> Readiness:
        version = program_version(cls.bundle)
        if version is None:
            return Readiness(False, f"{cls.bundle.program.executable} is not installed "
                                    f"(Debian package {cls.bundle.program.package or '?'})")
        return Readiness(True, f"{cls.bundle.program.executable} {version}")

    @classmethod
    def create_sample(cls, workspace: Workspace) -> str | None:
        from asil.adapters.generated.builders import build_state

        target = workspace.resolve(cls.bundle.document)
        build_state(cls, target, workspace, list(cls.bundle.sample_actions))
        return cls.bundle.document

    def observe(self, view: str | None = None, offset: int | None = None, limit: int | None = None) -> Observation:
        only_view(view, "state")
        records = self.store.records(self.bundle.elements)
        elements = [self._element(kind, ident, fields) for kind, ident, fields in records]
        counts: dict[str, int] = {}
        for kind, _, _ in records:
            counts[kind] = counts.get(kind, 0) + 1
        listing = ", ".join(f"{n} {kind}{'s' if n != 1 else ''}" for kind, n in counts.items()) or "nothing yet"
        return Observation(
            metadata=Metadata(app=self.name, source=self.pattern, step=self.step),
            app_state=AppState(view="state", active_document=self.document_name, document_path=self.document_name,
                               dirty=bool(getattr(self.store, "dirty", False))),
            elements=elements, summary=f"{self.bundle.title} {self.document_name!r}: {listing}.")

    def _element(self, kind: str, ident: str, fields: dict[str, Any]) -> Element:
        spec = self.bundle.element(kind)
        actions = [op.name for op in self.bundle.functions if op.element == kind]
        return Element(id=f"{kind}/{ident}", type=kind, label=str(fields.get(spec.label)) if spec.label else None,
                       value=fields, actions=actions)

    def _check(self, action: Action) -> None:
        self.vocabulary.invocations(action, self.functions)  # the type, each function and its params (ids: at apply)

    def _apply(self, action: Action) -> list[str]:
        changed: list[str] = []
        for function, params in self.vocabulary.invocations(action, self.functions):
            op: Operation = function.require_handler()
            values = self._resolve_paths(op, params.model_dump())
            spec: ElementSpec | None = self.bundle.element(op.element) if op.element else None
            try:
                changed += self.store.apply(op, spec, values)
            except ProgramFailed as exc:
                raise program_failed(exc) from None
        return changed

    def _resolve_paths(self, op: Operation, values: dict[str, Any]) -> dict[str, Any]:
        """Parameters declared as workspace paths are checked to stay inside it and passed relative to it
        (the program runs in the workspace), so no absolute path ends up in the app's state."""
        for name, prop in op.params.get("properties", {}).items():
            if prop.get("x-workspace-path") and values.get(name) is not None:
                values[name] = self.workspace.relative(self.workspace.resolve(values[name]))
        return values

    def save(self) -> None:
        self.store.save()

    def render(self, path: Path) -> Path:
        if not self.bundle.render:
            raise NotImplementedError(f"The {self.name} adapter does not render its state.")
        self.store.save()
        source = self.workspace.resolve(self.document_name)
        home = self.workspace.private("render-home")
        home.mkdir(exist_ok=True)
        argv = fill_argv(self.bundle.render, out=str(path), **{"in": str(source)})
        try:
            run_once(argv, 120, f"{argv[0]} did not finish rendering in 120 s.", env=clean_env(home))
        except ProgramFailed as exc:
            raise program_failed(exc) from None
        except FileNotFoundError:
            raise ActionFailed(f"The program {argv[0]!r} is not installed.") from None
        if not path.is_file() or path.stat().st_size == 0:
            raise ActionFailed(f"{argv[0]} wrote no image.")
        return path

    def close(self) -> None:
        self.store.close()


