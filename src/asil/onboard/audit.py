"""The static audit of a profile and its bundle, before anything runs.

It refuses (one finding per problem, each a sentence naming what is wrong):

* a profile that breaks the schema;
* element ids that are not stable (positions, counters, or values that change with edits);
* a program, host or file the reviewed allowlists do not name, a route to another host, an argument
  or path that leads out of the workspace, XPath that reads other documents, XML that declares entities;
* a write path with no mapping, a delete (or HTTP DELETE, or a statement that removes) not marked
  destructive, a statement template that imports, uses dunders or names the runtime did not declare;
* write paths drafted by a model that carry code or templates (a model may only choose declared forms);
* a write path no probe exercises, or a probe naming an unknown function.
"""

from __future__ import annotations

import ast
import fnmatch
import re
import urllib.parse
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from asil.adapters.generated.bundle import Bundle, ElementSpec
from asil.adapters.generated.stores import placeholders
from asil.onboard.profile import schema_errors

ARGV_PLACEHOLDERS = {"state", "port", "apikey", "in", "out", "script"}
UNSTABLE_ID = re.compile(r"position\(|last\(|count\(|\[\s*\d+\s*\]|generate-id\(|text\(\)")
OTHER_DOCUMENT = re.compile(r"\b(document|doc|unparsed-text|collection)\s*\(")
REMOVES = re.compile(r"\b(remove\w*|delete\w*|unlink|rmtree|clear)\s*\(", re.I)
PROTECTED_ENV = {"PATH", "HOME", "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "BASH_ENV", "ENV", "IFS"}
FORBIDDEN_NAMES = {"open", "exec", "eval", "compile", "__import__", "globals", "locals", "getattr", "setattr",
                   "delattr", "vars", "input", "breakpoint", "os", "sys", "subprocess", "shutil"}


@dataclass(frozen=True)
class Finding:
    where: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.problem}"


def _escapes(text: str) -> bool:
    """A path or argument that names a place outside the workspace."""
    parts = re.split(r"[=:,]", text)
    return any(p.startswith("/") or p.startswith("~") or ".." in PurePosixPath(p).parts for p in parts)


def _check_argv(where: str, argv: tuple[str, ...], allow: tuple[str, ...]) -> list[Finding]:
    if not argv:
        return []
    findings = []
    if argv[0] not in allow:
        listed = ", ".join(allow) or "none"
        findings.append(Finding(where, f"runs {argv[0]!r}, which resources.executables does not list ({listed})"))
    for part in argv:
        unknown = placeholders(part) - ARGV_PLACEHOLDERS
        if unknown:
            findings.append(Finding(where, f"argument {part!r} has placeholders {sorted(unknown)}; "
                                           f"allowed: {sorted(ARGV_PLACEHOLDERS)}"))
        if _escapes(part.replace("{", "").replace("}", "")):
            findings.append(Finding(where, f"argument {part!r} names a path outside the workspace"))
    return findings


def _check_ids(where: str, specs: tuple[ElementSpec, ...]) -> list[Finding]:
    findings = []
    for spec in specs:
        if not spec.fixed_id and UNSTABLE_ID.search(spec.id):
            findings.append(Finding(f"{where} {spec.type}", f"id {spec.id!r} depends on position or content, so it would "
                                                             "change with edits elsewhere; use the format's own identifier"))
        for path in (spec.select, spec.id, *(f.path for f in spec.fields.values())):
            if OTHER_DOCUMENT.search(path):
                findings.append(Finding(f"{where} {spec.type}", f"{path!r} reads another document"))
    return findings


def _check_code(where: str, code: str, params: set[str], names: tuple[str, ...]) -> list[Finding]:
    findings = [Finding(where, f"template uses {sorted(placeholders(code) - params)}, which are not its parameters")] \
        if placeholders(code) - params else []
    try:
        tree = ast.parse(code.format(**dict.fromkeys(placeholders(code), "None")))
    except (SyntaxError, KeyError, ValueError, IndexError) as exc:
        return [*findings, Finding(where, f"template is not a Python statement ({exc})")]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            findings.append(Finding(where, "template imports a module"))
        elif isinstance(node, ast.Attribute) and node.attr.startswith("__"):
            findings.append(Finding(where, f"template reaches the dunder attribute {node.attr!r}"))
        elif isinstance(node, ast.Name) and (node.id in FORBIDDEN_NAMES or node.id.startswith("__")):
            findings.append(Finding(where, f"template uses {node.id!r}, which could escape the runtime's model"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in names and node.id != "None":
            bound = {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
            if node.id not in bound:
                findings.append(Finding(where, f"template uses {node.id!r}; the runtime declares only {', '.join(names)}"))
    return findings


def _check_function(bundle: Bundle, index: int) -> list[Finding]:
    op = bundle.functions[index]
    where = f"write path {op.name!r}"
    props = set(op.params.get("properties", {}))
    findings: list[Finding] = []
    mapped = {"set": bool(op.nodes), "insert": bool(op.template and op.parent), "delete": bool(op.element),
              "http": bool(op.method and op.route), "script": bool(op.code)}[op.kind]
    if not mapped:
        findings.append(Finding(where, f"has no {op.kind} mapping, so it would do nothing"))
    if op.element and op.element not in {e.type for e in bundle.elements}:
        findings.append(Finding(where, f"acts on {op.element!r}, which no read path shows"))
    if (op.kind == "delete" or op.method == "DELETE" or (op.code and REMOVES.search(op.code))) and not op.destructive:
        findings.append(Finding(where, "removes data but is not marked destructive"))
    for write in op.nodes:
        if placeholders(write.format) - props:
            findings.append(Finding(where, f"writes {sorted(placeholders(write.format) - props)}, which are not its parameters"))
    for text in (op.template or "", *(w.create or "" for w in op.nodes)):
        if re.search(r"<!(DOCTYPE|ENTITY)|SYSTEM\s", text):
            findings.append(Finding(where, "its XML declares entities or a DTD"))
    if op.template and placeholders(op.template) - props - {"new_id"}:
        findings.append(Finding(where, f"template uses {sorted(placeholders(op.template) - props - {'new_id'})}, not parameters"))
    if op.route is not None:
        parsed = urllib.parse.urlsplit(op.route)
        if parsed.scheme or parsed.netloc or not op.route.startswith("/") or ".." in op.route:
            findings.append(Finding(where, f"route {op.route!r} leaves the service's base URL"))
        if placeholders(op.route) - set(op.path_params):
            findings.append(Finding(where, f"route {op.route!r} has placeholders that are not path parameters"))
    if op.code is not None:
        findings += _check_code(where, op.code, props, bundle.store.names)
    return findings


def audit_bundle(bundle: Bundle, profile: dict[str, Any] | None = None) -> list[Finding]:
    """Every problem found in ``bundle`` (and the profile it came from, when given); empty means it passes."""
    findings = [Finding("profile", e) for e in schema_errors(profile)] if profile is not None else []
    allow = bundle.allow.executables
    if bundle.program.executable not in allow:
        findings.append(Finding("program", f"{bundle.program.executable!r} is not in resources.executables"))
    for where, argv in (("program.version", bundle.program.version), ("service start", bundle.store.start),
                        ("service fresh", bundle.store.fresh), ("runtime", bundle.store.runtime),
                        ("normalize", bundle.normalize), ("render", bundle.render)):
        findings += _check_argv(where, argv, allow)
    for key, value in bundle.store.env.items():
        if key in PROTECTED_ENV or key.startswith("LD_") or _escapes(value):
            findings.append(Finding("environment", f"{key}={value!r} may not be set (it changes what runs or where)"))
    if bundle.store.base_url is not None:
        host = urllib.parse.urlsplit(bundle.store.base_url.format(port=0)).hostname or ""
        if host not in bundle.allow.hosts:
            findings.append(Finding("service", f"base URL host {host!r} is not in resources.hosts"))
    for where, relative in (("evidence.document", bundle.document), ("raw_file", bundle.raw.file or ""),
                            ("raw_member", bundle.raw.member or "")):
        if relative and _escapes(relative):
            findings.append(Finding(where, f"{relative!r} leads outside the workspace"))
    if bundle.pattern == "file" and not any(fnmatch.fnmatch(bundle.document, p) for p in bundle.allow.paths):
        findings.append(Finding("evidence.document", f"{bundle.document!r} matches no pattern of resources.paths"))
    findings += _check_ids("read path", bundle.elements) + _check_ids("raw path", bundle.raw_elements)
    for index in range(len(bundle.functions)):
        findings += _check_function(bundle, index)
    names = {op.name for op in bundle.functions}
    probed = set()
    for number, probe in enumerate(bundle.probes, start=1):
        for call in (probe.do, probe.undo):
            if call.get("function") not in names:
                findings.append(Finding(f"probe {number}", f"names the unknown function {call.get('function')!r}"))
            probed.add(call.get("function"))
    for name in sorted(names - probed):
        findings.append(Finding(f"write path {name!r}", "no probe exercises it (add a round trip to probes)"))
    if profile is not None:
        for write in profile.get("write_paths", []):
            if write.get("origin") == "model" and any(k in write for k in ("code", "template", "writes", "parent")):
                findings.append(Finding(f"write path {write.get('name')!r}", "was drafted by a model and carries code "
                                        "or templates; a model may only choose the format's declared attributes and operations"))
    return findings
