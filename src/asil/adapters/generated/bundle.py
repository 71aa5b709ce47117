"""A compiled extension bundle: the data a generated adapter runs on, and the function table it implies.

A bundle is written by ``asil.onboard.compile`` from a reviewed interface profile and committed beside
this module (``bundles/<app>.json``). Nothing in it is code an agent or a model wrote: reads and writes
are XPath expressions, HTTP routes or statement templates whose placeholders are only ever filled with
literals of validated parameters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, create_model

from asil.adapters.functions import AppFunction, FunctionTable, Vocabulary
from asil.adapters.params import Params
from asil.protocol import ActionType, AsilError

BUNDLES = Path(__file__).with_name("bundles")
FieldType = Literal["string", "integer", "number", "boolean"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FieldSpec(_Strict):
    """One value of an element: where it is read from and its type."""

    path: str
    type: FieldType = "string"
    pattern: str | None = None  # a regex whose first group is the value (Dia wraps strings in '#')
    default: Any = None  # the value when the path finds nothing (a format that omits defaults)
    workspace_path: bool = False  # an absolute path shown relative to the workspace


class ElementSpec(_Strict):
    """One read path: which parts of the state become elements of one type."""

    type: str
    select: str  # xml: an XPath; http: a GET route; script: an expression giving the objects
    items: str | None = None  # http: the dotted key of the list in the reply ("" = the reply itself)
    id: str  # xml: XPath of the stable id; http/script: the key or attribute holding it
    fixed_id: str | None = None  # http: a single object (options) whose id is this name
    label: str | None = None  # the field shown as the element's label
    fields: dict[str, FieldSpec] = Field(default_factory=dict)


class NodeWrite(_Strict):
    """Set one node (text, or ``@attribute``) below an element to ``format`` filled with params."""

    path: str
    format: str
    create: str | None = None  # an XML fragment appended to the element when the path finds nothing


class Operation(_Strict):
    """One write path, compiled into an app function."""

    name: str
    description: str
    kind: Literal["set", "insert", "delete", "http", "script"]
    params: dict[str, Any]  # a JSON Schema object (types, enums, bounds, required)
    destructive: bool = False
    acts_on: str = ""
    element: str | None = None  # the element type it acts on (set, delete: the id param names one)
    nodes: tuple[NodeWrite, ...] = ()
    parent: str | None = None  # insert: XPath of the parent, params bound as $variables
    template: str | None = None  # insert: an XML fragment with {param} and {new_id} placeholders
    new_id: str | None = None  # insert: a format like "O{n}" for the new element's id
    method: str | None = None  # http
    route: str | None = None  # http: "/rest/config/folders/{id}"
    path_params: tuple[str, ...] = ()
    code: str | None = None  # script: a statement template; {param} becomes the param's literal
    example: dict[str, Any] = Field(default_factory=dict)


class Store(_Strict):
    """Where the app's state lives and how it is reached (one shape per pattern)."""

    kind: Literal["xml", "http", "script"]
    namespaces: dict[str, str] = Field(default_factory=dict)
    member: str | None = None  # a zip member holding the XML (FreeCAD's Document.xml)
    file: str | None = None  # the XML file inside a state folder (Syncthing's config.xml)
    base_url: str | None = None  # http: "http://127.0.0.1:{port}"
    auth_header: str | None = None
    start: tuple[str, ...] = ()  # http: argv of the service; {state}, {port}, {apikey}
    fresh: tuple[str, ...] = ()  # argv that creates an empty state at {state}
    ready: str | None = None  # http: a GET route that answers once the service is up
    env: dict[str, str] = Field(default_factory=dict)  # extra environment of the program (settings, not secrets)
    runtime: tuple[str, ...] = ()  # script: argv running {script} in the app's runtime
    prelude: str = ""  # script: statement templates around every run
    open: str = ""
    new: str = ""
    save: str = ""
    names: tuple[str, ...] = ()  # script: the names a statement template may use
    timeout_s: float = 60.0


class Program(_Strict):
    executable: str
    package: str = ""
    version: tuple[str, ...] = ()  # argv printing the version
    version_regex: str = r"(\d+\.\d+(?:\.\d+)?)"


class Allow(_Strict):
    """The reviewed allowlists: programs the bundle may run, hosts it may reach, files it may touch."""

    executables: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    paths: tuple[str, ...] = ()


class Probe(_Strict):
    """A round trip: ``do`` must change the state, ``undo`` must restore it."""

    do: dict[str, Any]
    undo: dict[str, Any]


class Bundle(_Strict):
    bundle_version: Literal[1] = 1
    app: str
    title: str
    pattern: Literal["file", "script", "service"]
    profile_sha256: str
    program: Program
    allow: Allow
    document: str  # the default document (file), model (script) or state folder (service)
    extensions: tuple[str, ...] = ()
    store: Store
    elements: tuple[ElementSpec, ...]
    functions: tuple[Operation, ...]
    raw: Store
    raw_elements: tuple[ElementSpec, ...]
    seed: str = ""  # file: the text of an empty document
    normalize: tuple[str, ...] = ()  # argv letting the program rewrite a built document ({in}, {out})
    render: tuple[str, ...] = ()  # argv rendering the state to a PNG ({in}, {out})
    probes: tuple[Probe, ...] = ()
    tips: tuple[str, ...] = ()
    sample_actions: tuple[dict[str, Any], ...] = ()  # applied to the sample the conformance check opens

    def element(self, type_name: str) -> ElementSpec:
        for spec in self.elements:
            if spec.type == type_name:
                return spec
        raise KeyError(type_name)


class BundleError(AsilError):
    code = "bad_bundle"


def bundle_path(app: str) -> Path:
    return BUNDLES / f"{app}.json"


_LOADED: dict[str, Bundle] = {}


def load_bundle(app: str) -> Bundle:
    """The bundle of ``app``: one given to :func:`use_bundle`, else the committed one (read once)."""
    if app not in _LOADED:
        _LOADED[app] = read_bundle(bundle_path(app))
    return _LOADED[app]


def use_bundle(bundle: Bundle) -> None:
    """Make ``bundle`` the one its app runs on in this process (a reviewed bundle not installed, tests)."""
    _LOADED[bundle.app] = bundle


def has_bundle(app: str) -> bool:
    return app in _LOADED or bundle_path(app).is_file()


def read_bundle(path: Path) -> Bundle:
    try:
        return Bundle.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        raise BundleError(f"The bundle {str(path)!r} cannot be read: {str(exc).splitlines()[0]}.") from None


_JSON_TYPES: dict[str, type] = {"string": str, "integer": int, "number": float, "boolean": bool}


def params_model(name: str, schema: dict[str, Any]) -> type[Params]:
    """A strict params model from a JSON Schema object of flat typed properties."""
    required = set(schema.get("required", ()))
    fields: dict[str, Any] = {}
    for key, prop in schema.get("properties", {}).items():
        base: Any = _JSON_TYPES[prop["type"]]
        if "enum" in prop:
            base = Literal[tuple(prop["enum"])]
        constraints = {k: prop[k] for k in ("minimum", "maximum", "minLength", "maxLength", "pattern") if k in prop}
        field = Field(
            description=prop.get("description"), ge=constraints.get("minimum"), le=constraints.get("maximum"),
            min_length=constraints.get("minLength"), max_length=constraints.get("maxLength"),
            pattern=constraints.get("pattern"))
        annotated = Annotated[base, field]
        fields[key] = (annotated, ...) if key in required else (annotated | None, None)
    model: type[Params] = create_model(f"{name.title().replace('_', '')}Params", __base__=Params, **fields)
    return model


def function_table(bundle: Bundle) -> FunctionTable[Operation]:
    table: FunctionTable[Operation] = FunctionTable(bundle.app)
    for op in bundle.functions:
        example = ({"action_type": "invoke_function", "target": op.name, "params": op.example},) if op.example else ()
        table.add(op.name, AppFunction(op.name, params_model(op.name, op.params), op.description,
                                       destructive=op.destructive, acts_on=op.acts_on, handler=op,
                                       batch=bundle.pattern == "file", examples=example))
    return table


def vocabulary(bundle: Bundle) -> Vocabulary:
    types: tuple[ActionType, ...] = ("invoke_function", "batch", "done", "infeasible") if bundle.pattern == "file" else (
        "invoke_function", "done", "infeasible")
    return Vocabulary(
        app=bundle.app, action_types=types,
        target_format="invoke_function: a function name; functions that change one element take its id "
                      "(the part after 'type/' in the element's id) as the 'id' parameter",
        batch_members=("invoke_function",), batch_hint="Put only invoke_function actions in a batch.",
        tips=bundle.tips, finish=f"in {bundle.title}")


def coerce(value: Any, kind: FieldType) -> Any:
    """A read value as its declared type (XML gives text, JSON gives typed values)."""
    if value is None:
        return None
    if kind == "boolean":
        return value if isinstance(value, bool) else str(value).strip().lower() in ("true", "1", "yes")
    if kind == "integer":
        return int(float(value))
    if kind == "number":
        return float(value)
    return str(value)
