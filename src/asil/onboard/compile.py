"""Compiling a reviewed interface profile into an extension bundle, deterministically.

* ``xml-format``: read and write paths name the format description's kinds and attributes; their
  XPaths, value patterns and write formats come from the description.
* ``openapi``: read paths name GET operations and write paths name operations of the OpenAPI
  document; routes, methods, path parameters and typed body parameters come from it, and a DELETE
  is destructive.
* ``script-runtime``: read paths and statement templates are taken as reviewed.
* ``prose``: ``asil.onboard.draft`` first asks a model for write paths in this same declarative form.

The same profile always gives the same bundle bytes (``bundle_text``); a test holds the committed
bundles to that.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from asil.adapters.generated.bundle import Bundle
from asil.onboard.profile import ProfileError, profile_digest

ID_PARAM = {"id": {"type": "string", "description": "the element's id (the part after 'type/')"}}


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": [r for r in props if r in required]}


def _field(spec: dict[str, Any]) -> dict[str, Any]:
    return {k: spec[k] for k in ("path", "type", "pattern", "default", "workspace_path") if k in spec}


class _OpenApi:
    def __init__(self, path: Path):
        try:
            self.doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        except (OSError, yaml.YAMLError) as exc:
            raise ProfileError(f"The OpenAPI document {str(path)!r} cannot be read ({exc}).") from None
        self.ops: dict[str, tuple[str, str, dict[str, Any]]] = {}
        for route, methods in self.doc.get("paths", {}).items():
            for method, op in methods.items():
                if isinstance(op, dict) and "operationId" in op:
                    self.ops[op["operationId"]] = (method.upper(), route, op)

    def op(self, name: str) -> tuple[str, str, dict[str, Any]]:
        if name not in self.ops:
            raise ProfileError(f"The OpenAPI document has no operation {name!r}.",
                               hint=f"Operations: {', '.join(sorted(self.ops))}.")
        return self.ops[name]

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            node: Any = self.doc
            for part in schema["$ref"].removeprefix("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def reply_properties(self, name: str) -> dict[str, Any]:
        _, _, op = self.op(name)
        content = op.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {})
        schema = self.resolve(content.get("schema", {}))
        if schema.get("type") == "array":
            schema = self.resolve(schema.get("items", {}))
        return {k: self.resolve(v) for k, v in schema.get("properties", {}).items()}


def _param(schema: dict[str, Any]) -> dict[str, Any]:
    keep = ("type", "description", "enum", "minimum", "maximum", "minLength", "maxLength", "pattern", "x-workspace-path")
    return {k: schema[k] for k in keep if k in schema}


def _elements(profile: dict[str, Any], api: _OpenApi | None) -> list[dict[str, Any]]:
    evidence = profile["evidence"]
    out = []
    for read in profile["read_paths"]:
        kind = read["kind"]
        if evidence["kind"] == "xml-format":
            described = evidence["format"]["kinds"].get(kind)
            if described is None:
                raise ProfileError(f"Read path {kind!r} names no kind of the format description.",
                                   hint=f"Kinds: {', '.join(evidence['format']['kinds'])}.")
            attributes = described["attributes"]
            unknown = [f for f in read.get("fields", []) if f not in attributes]
            if unknown:
                raise ProfileError(f"Read path {kind!r} names unknown attributes {unknown}.",
                                   hint=f"Attributes: {', '.join(attributes)}.")
            fields = {name: _field(attributes[name]) for name in read.get("fields", [])}
            out.append({"type": kind, "select": described["select"], "id": described["id"],
                        "label": read.get("label"), "fields": fields})
        elif evidence["kind"] == "openapi":
            assert api is not None
            method, route, _ = api.op(read["operation"])
            if method != "GET":
                raise ProfileError(f"Read path {kind!r} names {read['operation']!r}, a {method}, not a GET.")
            props = api.reply_properties(read["operation"])
            fields = {}
            for name in read.get("fields", []):
                if name not in props:
                    raise ProfileError(f"The reply of {read['operation']!r} has no property {name!r}.",
                                       hint=f"Properties: {', '.join(props)}.")
                fields[name] = {"path": name, "type": props[name].get("type", "string"),
                                **({"workspace_path": True} if props[name].get("x-workspace-path") else {})}
            out.append({"type": kind, "select": route, "items": read.get("items", ""), "id": read.get("id", "id"),
                        "fixed_id": read.get("fixed_id"), "label": read.get("label"), "fields": fields})
        else:
            out.append({"type": kind, "select": read["select"], "id": read["id"], "label": read.get("label"),
                        "fields": {n: _field(f) for n, f in read.get("fields", {}).items()}})
    return out


def _xml_function(write: dict[str, Any], profile: dict[str, Any]) -> dict[str, Any]:
    kinds = profile["evidence"]["format"]["kinds"]
    kind = write.get("kind", "set")
    element = write.get("element")
    op: dict[str, Any] = {"kind": kind, "element": element}
    if kind == "set":
        attributes = kinds[element]["attributes"] if element in kinds else {}
        nodes = [dict(w) for w in write.get("writes", [])]
        for name in write.get("sets", {}):
            attribute = attributes.get(name)
            if attribute is None or "format" not in attribute:
                raise ProfileError(f"Write path {write['name']!r} sets {name!r}, which the format does not describe as writable.")
            node = {"path": attribute["path"], "format": attribute["format"].replace("{value}", "{" + name + "}")}
            if "create" in attribute:
                node["create"] = attribute["create"]
            nodes.append(node)
        op["nodes"] = nodes
        props = {**ID_PARAM, **write.get("params", {}), **write.get("sets", {})}
        op["params"] = _object(props, list(props))
    elif kind == "insert":
        op.update(parent=write.get("parent"), template=write.get("template"), new_id=write.get("new_id"))
        props = write.get("params", {})
        op["params"] = _object(props, write.get("required", list(props)))
    else:
        op["params"] = _object(dict(ID_PARAM), ["id"])
    op["destructive"] = write.get("destructive", kind == "delete")
    return op


def _http_function(write: dict[str, Any], api: _OpenApi) -> dict[str, Any]:
    method, route, spec = api.op(write["operation"])
    path_params = [p["name"] for p in spec.get("parameters", []) if p.get("in") == "path"]
    props: dict[str, Any] = {}
    required: list[str] = list(path_params)
    for p in spec.get("parameters", []):
        if p.get("in") == "path":
            props[p["name"]] = _param(api.resolve(p.get("schema", {"type": "string"})))
    body = api.resolve(spec.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema", {}))
    for name, schema in body.get("properties", {}).items():
        props[name] = _param(api.resolve(schema))
    required += body.get("required", [])
    if "params" in write:  # the profile narrows the operation to the parameters it reviewed
        props = {k: {**props.get(k, {}), **v} for k, v in write["params"].items()}
    return {"kind": "http", "element": write.get("element"), "method": method, "route": route,
            "path_params": path_params, "params": _object(props, required),
            "destructive": write.get("destructive", method == "DELETE")}


def _script_function(write: dict[str, Any]) -> dict[str, Any]:
    props = write.get("params", {})
    return {"kind": "script", "element": write.get("element"), "code": write.get("code"),
            "params": _object(props, write.get("required", list(props))),
            "destructive": write.get("destructive", False)}


def compile_profile(profile: dict[str, Any], base: Path) -> Bundle:
    """The bundle of a validated profile; ``base`` is the folder relative paths in it start from."""
    evidence = profile["evidence"]
    api = _OpenApi(base / evidence["openapi"]) if evidence["kind"] == "openapi" else None
    fmt = evidence.get("format", {})
    namespaces = fmt.get("namespaces", {})
    if evidence["kind"] == "xml-format":
        store: dict[str, Any] = {"kind": "xml", "namespaces": namespaces, "member": fmt.get("member")}
    elif evidence["kind"] == "openapi":
        service = evidence["service"]
        store = {"kind": "http", "base_url": service["base_url"], "auth_header": service.get("auth_header"),
                 "start": service["start"], "fresh": service["fresh"], "ready": service["ready"],
                 "file": profile.get("raw_file"), "timeout_s": service.get("timeout_s", 60.0), "env": service.get("env", {})}
    elif evidence["kind"] == "script-runtime":
        runtime = evidence["runtime"]
        store = {"kind": "script", "runtime": runtime["argv"], "prelude": runtime.get("prelude", ""),
                 "open": runtime["open"], "new": runtime["new"], "save": runtime["save"], "names": runtime["names"],
                 "timeout_s": runtime.get("timeout_s", 60.0), "env": runtime.get("env", {})}
    else:
        raise ProfileError("A prose profile must first be drafted into a declarative one (asil onboard --model ...).")
    functions = []
    for write in profile["write_paths"]:
        if evidence["kind"] == "xml-format":
            op = _xml_function(write, profile)
        elif evidence["kind"] == "openapi":
            assert api is not None
            op = _http_function(write, api)
        else:
            op = _script_function(write)
        functions.append({"name": write["name"], "description": write["description"], "acts_on": write.get("element") or "",
                          "example": write.get("example", {}), **op})
    raw = {"kind": "xml", "namespaces": namespaces, "member": profile.get("raw_member"), "file": profile.get("raw_file")}
    raw_elements = [{"type": r["kind"], "select": r["select"], "id": r["id"],
                     "fields": {n: _field(f) for n, f in r["fields"].items()}} for r in profile["raw_paths"]]
    probes = [{"do": p["do"], "undo": p["undo"]} for p in profile["probes"]]
    return Bundle.model_validate({
        "app": profile["app"], "title": profile["title"], "pattern": profile["pattern"],
        "profile_sha256": profile_digest(profile), "program": profile["program"],
        "allow": profile["resources"], "document": evidence["document"], "extensions": evidence.get("extensions", []),
        "store": store, "elements": _elements(profile, api), "functions": functions, "raw": raw,
        "raw_elements": raw_elements, "seed": profile.get("seed", ""), "normalize": profile.get("normalize", []),
        "render": profile.get("render", []), "probes": probes, "tips": profile.get("tips", []),
        "sample_actions": profile.get("sample_actions", [])})


def bundle_text(bundle: Bundle) -> str:
    """The bundle as committed: sorted keys, so compiling twice gives the same bytes."""
    return json.dumps(bundle.model_dump(mode="json", exclude_defaults=True), indent=1, sort_keys=True) + "\n"
