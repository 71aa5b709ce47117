"""Where a generated app's state lives, one store per realization pattern.

Every store answers the same three questions for the adapter: ``records(elements)`` (the state as
``(type, id, fields)`` records, read through the bundle's read paths), ``apply(op, params)`` (run one
write path, return the changed ``type/id``s) and ``save()``/``close()``. None of them runs code an
agent or a model wrote: XML writes are XPath plus escaped text, HTTP writes are declared routes with
JSON bodies, and script writes are reviewed statement templates filled only with literals.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import secrets
import shutil
import string
import subprocess
import urllib.error
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path
from typing import Any, cast
from xml.sax.saxutils import escape, quoteattr

from lxml import etree

from asil.adapters.generated.bundle import ElementSpec, FieldSpec, Operation, Store, coerce
from asil.apps.process import ManagedProcess, ProgramFailed, free_port, run_once
from asil.protocol import ActionFailed, DocumentError, InvalidAction
from asil.workspace import Workspace, atomic_write

Record = tuple[str, str, dict[str, Any]]
MARK = "@@ASIL-STATE@@"


def placeholders(template: str) -> set[str]:
    """The ``{name}`` placeholders of a template."""
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _shape(value: Any, spec: FieldSpec, workspace: Workspace) -> Any:
    if value is None:
        return spec.default
    if spec.pattern is not None:
        found = re.search(spec.pattern, str(value), re.S)
        value = found.group(1) if found else value
    if spec.workspace_path and isinstance(value, str) and os.path.isabs(value):
        try:
            value = workspace.relative(value)
        except ValueError:
            pass  # outside the workspace: shown as it is
    return coerce(value, spec.type)


# ---------------------------------------------------------------- XML documents


class XmlStore:
    """An XML document on disk (plain, gzip, or a member of a zip), read and written with XPath."""

    def __init__(self, store: Store, path: Path, workspace: Workspace):
        self.store, self.path, self.workspace = store, path, workspace
        self.ns = dict(store.namespaces)
        self.gzipped = False
        try:
            data = path.read_bytes()
            if store.member is not None:
                with zipfile.ZipFile(io.BytesIO(data)) as archive:
                    data = archive.read(store.member)
            elif data[:2] == b"\x1f\x8b":
                self.gzipped, data = True, gzip.decompress(data)
            self.tree = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
        except (OSError, KeyError, zipfile.BadZipFile, etree.XMLSyntaxError, EOFError) as exc:
            raise DocumentError(f"{path.name!r} is not a readable document of this app ({exc}).",
                                hint="Open a file the program wrote.") from None

    def _first(self, node: Any, path: str, **variables: Any) -> Any:
        found = node.xpath(path, namespaces=self.ns, **variables)
        if isinstance(found, list):
            found = found[0] if found else None
        if isinstance(found, etree._Element):
            return found.text
        return found

    def _nodes(self, spec: ElementSpec) -> list[tuple[str, Any]]:
        nodes = cast(list[Any], self.tree.xpath(spec.select, namespaces=self.ns))
        return [(str(self._first(node, spec.id)), node) for node in nodes]

    def records(self, elements: tuple[ElementSpec, ...]) -> list[Record]:
        out = []
        for spec in elements:
            for ident, node in self._nodes(spec):
                fields = {name: _shape(self._first(node, f.path, id=ident), f, self.workspace)
                          for name, f in spec.fields.items()}
                out.append((spec.type, ident, fields))
        return out

    def _element(self, spec: ElementSpec, ident: str) -> Any:
        nodes = dict(self._nodes(spec))
        if ident not in nodes:
            raise InvalidAction(f"There is no {spec.type} {ident!r}.",
                                hint=f"{spec.type} ids: {', '.join(sorted(nodes)) or 'none'}.")
        return nodes[ident]

    def _fragment(self, text: str) -> list[Any]:
        declarations = " ".join(f"xmlns:{prefix}={quoteattr(uri)}" for prefix, uri in self.ns.items())
        wrapper = etree.fromstring(f"<asil-fragment {declarations}>{text}</asil-fragment>")
        return list(wrapper)

    def apply(self, op: Operation, spec: ElementSpec | None, params: dict[str, Any]) -> list[str]:
        if spec is None:
            raise ActionFailed(f"{op.name} names no element type to act on.")
        _xml_storable(params)
        if op.kind == "set":
            node = self._element(spec, str(params["id"]))
            for write in op.nodes:
                self._set(node, write.path, write.format.format(**params), write.create)
            return [f"{spec.type}/{params['id']}"]
        if op.kind == "delete":
            node = self._element(spec, str(params["id"]))
            node.getparent().remove(node)
            return [f"{spec.type}/{params['id']}"]
        assert op.parent is not None and op.template is not None
        parents = cast(list[Any], self.tree.xpath(op.parent, namespaces=self.ns, **params))
        if not parents:
            raise InvalidAction(f"{op.name}: nothing matches the given parameters.", hint="Use names from the observation.")
        new_id = self._new_id(spec, op.new_id or "{n}")
        escaped = {k: escape(str(v), {'"': "&quot;"}) for k, v in params.items()}
        for node in self._fragment(op.template.format(**escaped, new_id=new_id)):
            parents[0].append(node)
        return [f"{spec.type}/{new_id}"]

    def _new_id(self, spec: ElementSpec, form: str) -> str:
        numbers = [int(found) for ident, _ in self._nodes(spec) if (found := re.sub(r"\D", "", ident))]
        return form.format(n=max(numbers, default=-1) + 1)

    def _set(self, node: Any, path: str, value: str, create: str | None) -> None:
        where, _, attribute = path.rpartition("/@") if "/@" in path else (path, "", "")
        targets = node.xpath(where, namespaces=self.ns)
        if not targets and create is not None:
            node.extend(self._fragment(create))
            targets = node.xpath(where, namespaces=self.ns)
        if not targets:
            raise ActionFailed(f"The document has no {where!r} here to set.")
        for target in targets:
            if attribute:
                target.set(attribute, value)
            else:
                target.text = value

    def save(self) -> None:
        data = etree.tostring(self.tree, xml_declaration=True, encoding="UTF-8")
        atomic_write(self.path, gzip.compress(data, mtime=0) if self.gzipped else data)

    def close(self) -> None:
        return None


def read_xml_records(store: Store, elements: tuple[ElementSpec, ...], location: Path, workspace: Workspace) -> list[Record]:
    """The records of an XML file (a state folder's ``store.file`` when one is named)."""
    path = location / store.file if store.file else location
    return XmlStore(store, path, workspace).records(elements)


# ---------------------------------------------------------------- HTTP services

DYING_S = 3.0  # how long a service that refuses connections is given to finish exiting


def _dig(data: Any, dotted: str) -> Any:
    for key in [k for k in dotted.split(".") if k]:
        data = data.get(key) if isinstance(data, dict) else None
    return data


def fill_argv(argv: tuple[str, ...], **values: str) -> list[str]:
    return [part.format(**values) for part in argv]


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """A minimal environment: no inherited secrets, a private HOME, and the profile's declared settings."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "LANG": "C.UTF-8", **(extra or {})}


class HttpStore:
    """A service started on a state folder of the workspace and driven through its HTTP API."""

    def __init__(self, store: Store, state: Path, workspace: Workspace):
        self.store, self.state, self.workspace = store, state, workspace
        if not (state / (store.file or "")).exists():
            raise DocumentError(f"{workspace.relative(state)!r} holds no state of this service.",
                                hint="Open a state folder a task set up.")
        self.restarts = 0
        self._start()

    def _start(self) -> None:
        store, workspace = self.store, self.workspace
        self.port, self.key = free_port(), secrets.token_hex(16)
        argv = fill_argv(store.start, state=str(self.state), port=str(self.port), apikey=self.key)
        home = workspace.private("service-home")
        home.mkdir(exist_ok=True)
        # It runs in the workspace, so the relative folder paths it is given stay inside it.
        try:
            self.process = ManagedProcess(argv[0], argv, log=workspace.private("service.log"),
                                          env=clean_env(home, store.env), cwd=workspace.root)
        except FileNotFoundError:
            raise ActionFailed(f"The program {argv[0]!r} is not installed.") from None
        self.process.wait_until(self._ready, timeout_s=store.timeout_s, what="its API answered")

    def _restart_if_gone(self) -> None:
        """A service that died (crashed, killed) is started again on its state folder, which it keeps on
        disk after every change: the restart is transparent."""
        if self.process.process.poll() is not None:
            self.process.stop()
            self.restarts += 1
            self._start()

    def _dying(self) -> bool:
        """Whether a service that refused a connection is on its way out: a killed service can still be
        exiting when the next call comes (seen with Syncthing under load: two refused calls in a row)."""
        try:
            self.process.process.wait(timeout=DYING_S)
        except subprocess.TimeoutExpired:
            return False
        return True

    def _ready(self) -> bool:
        try:
            self.call("GET", self.store.ready or "/", restart=False)
        except (ActionFailed, InvalidAction):
            return False
        return True

    def call(self, method: str, route: str, body: Any = None, restart: bool = True) -> Any:
        assert self.store.base_url is not None
        if restart:  # not while starting: the start's own wait sees an early exit
            self._restart_if_gone()
        url = self.store.base_url.format(port=self.port) + route
        headers = {"Content-Type": "application/json"}
        if self.store.auth_header:
            headers[self.store.auth_header] = self.key
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.store.timeout_s) as reply:
                text = reply.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as exc:
            detail = exc.read().decode("utf-8", "replace").strip()[:300]
            raise InvalidAction(f"The service refused {method} {route}: {exc.code} {detail}.",
                                hint="Check the parameters against the observation.") from None
        except (urllib.error.URLError, OSError) as exc:
            if isinstance(exc, TimeoutError) or isinstance(getattr(exc, "reason", None), TimeoutError):
                self.process.stop()  # hung: stopped now, so the next call starts a fresh one on the saved state
                raise ActionFailed(f"The service did not answer {method} {route} within {self.store.timeout_s:g} s "
                                   "and was stopped; the next action starts it again.") from None
            reason = getattr(exc, "reason", exc)
            # refused: never delivered; a reset read: repeats nothing. Either way asking again is safe.
            unsent = isinstance(reason, ConnectionRefusedError) or (
                method == "GET" and isinstance(reason, ConnectionResetError))
            if restart and unsent and self._dying():
                self._restart_if_gone()
                return self.call(method, route, body, restart=False)
            raise ActionFailed(f"The service did not answer {method} {route} ({exc}).") from None
        return json.loads(text) if text.strip() else None

    def records(self, elements: tuple[ElementSpec, ...]) -> list[Record]:
        out = []
        for spec in elements:
            reply = self.call("GET", spec.select)
            items = [reply] if spec.fixed_id else (_dig(reply, spec.items or "") or [])
            for item in items:
                ident = spec.fixed_id or str(item.get(spec.id))
                fields = {name: _shape(_dig(item, f.path), f, self.workspace) for name, f in spec.fields.items()}
                out.append((spec.type, ident, fields))
        return out

    def apply(self, op: Operation, spec: ElementSpec | None, params: dict[str, Any]) -> list[str]:
        assert op.method is not None and op.route is not None
        route = op.route.format(**{k: urllib.parse.quote(str(params[k]), safe="") for k in op.path_params})
        body = {k: v for k, v in params.items() if k not in op.path_params and v is not None}
        self.call(op.method, route, body if op.method in ("POST", "PUT", "PATCH") else None)
        ident = params.get("id") or (spec.fixed_id if spec else None)
        return [f"{spec.type}/{ident}"] if spec and ident else []

    def save(self) -> None:
        return None  # the service writes its own state on every change

    def close(self) -> None:
        self.process.stop()


# ---------------------------------------------------------------- scripting runtimes

_HELPERS = '''
import json as _asil_json
def _asil_plain(value):
    value = getattr(value, "Value", value)
    return value if value is None or isinstance(value, (str, int, float, bool)) else str(value)
def _asil_get(obj, path):
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return _asil_plain(obj)
'''


def literal(value: Any) -> str:
    """A validated parameter as a Python literal (str, int, float, bool): never code."""
    if not isinstance(value, (str, int, float, bool)) and value is not None:
        raise InvalidAction(f"A value of type {type(value).__name__} cannot be passed to the script runtime.")
    return repr(value)


class ScriptStore:
    """A model file changed by running reviewed statement templates in the app's own scripting runtime.

    Each write runs the runtime once on a private working copy (open, statements, save, read back);
    ``save()`` puts the working copy in place atomically.
    """

    def __init__(self, store: Store, path: Path, workspace: Workspace, elements: tuple[ElementSpec, ...]):
        self.store, self.path, self.workspace, self.elements = store, path, workspace, elements
        if not path.is_file():
            raise DocumentError(f"{path.name!r} does not exist.", hint="Open a model file a task set up.")
        self.work = workspace.private(f"working-{path.name}")
        shutil.copyfile(path, self.work)
        self.dirty = False
        self.state = self.run("")

    def run(self, statements: str, save: bool = False) -> list[Record]:
        reads = ", ".join(
            f"[[{spec.type!r}, _asil_get(o, {spec.id!r}), "
            f"{{{', '.join(f'{name!r}: _asil_get(o, {f.path!r})' for name, f in spec.fields.items())}}}] "
            f"for o in ({spec.select})]" for spec in self.elements)
        script = "\n".join([
            _HELPERS, self.store.prelude, self.store.open.format(path=literal(str(self.work))), statements,
            self.store.save.format(path=literal(str(self.work))) if save else "",
            f"print({MARK!r} + _asil_json.dumps([r for group in [{reads}] for r in group]))", ""])
        file = self.workspace.private("run.py")
        file.write_text(script, encoding="utf-8")
        home = self.workspace.private("runtime-home")
        home.mkdir(exist_ok=True)
        argv = fill_argv(self.store.runtime, script=str(file))
        try:
            done = run_once(argv, self.store.timeout_s, f"{argv[0]} ran longer than {self.store.timeout_s:g} s.",
                            env=clean_env(home, self.store.env))
        except FileNotFoundError:
            raise ActionFailed(f"The program {argv[0]!r} is not installed.") from None
        for line in done.stdout.splitlines():
            if MARK in line:
                rows = json.loads(line.split(MARK, 1)[1])
                return [(kind, str(ident), self._shaped(kind, fields)) for kind, ident, fields in rows]
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise ActionFailed(f"{argv[0]} failed: {' '.join(tail) or 'no output'}.")

    def _shaped(self, kind: str, fields: dict[str, Any]) -> dict[str, Any]:
        spec = next(s for s in self.elements if s.type == kind)
        return {name: _shape(fields.get(name), f, self.workspace) for name, f in spec.fields.items()}

    def records(self, elements: tuple[ElementSpec, ...]) -> list[Record]:
        return self.state

    def apply(self, op: Operation, spec: ElementSpec | None, params: dict[str, Any]) -> list[str]:
        assert op.code is not None
        if spec is not None and "id" in params:
            known = sorted(i for k, i, _ in self.state if k == spec.type)
            if str(params["id"]) not in known:
                raise InvalidAction(f"There is no {spec.type} {params['id']!r}.",
                                    hint=f"{spec.type} ids: {', '.join(known) or 'none'}.")
        before = {(k, i): f for k, i, f in self.state}
        statements = op.code.format(**{k: literal(v) for k, v in params.items()})
        self.state = self.run(statements, save=True)
        self.dirty = True
        after = {(k, i): f for k, i, f in self.state}
        return sorted(f"{k}/{i}" for k, i in before.keys() | after.keys() if before.get((k, i)) != after.get((k, i)))

    def save(self) -> None:
        if self.dirty:
            atomic_write(self.path, self.work.read_bytes())
            self.dirty = False

    def close(self) -> None:
        self.work.unlink(missing_ok=True)


def program_failed(exc: ProgramFailed) -> ActionFailed:
    return ActionFailed(exc.message, hint=exc.hint)


# Characters XML 1.0 cannot hold (lxml refuses them with a ValueError; found by fuzzing the Dia bundle).
_NOT_XML = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def _xml_storable(params: dict[str, Any]) -> None:
    for name, value in params.items():
        if isinstance(value, str) and _NOT_XML.search(value):
            raise InvalidAction(f"Parameter {name!r} holds a character an XML document cannot store (a control "
                                "character, NUL or a lone surrogate).", hint="Use printable text; tabs and newlines are fine.")
