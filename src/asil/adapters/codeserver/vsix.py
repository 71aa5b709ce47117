"""VS Code extension packages (.vsix): checking one before code-server installs it, and building small ones.

A .vsix is a zip holding ``extension.vsixmanifest``, ``[Content_Types].xml`` and the extension
under ``extension/`` with its ``package.json`` (name, publisher, version, engines.vscode). The
check refuses what VS Code would refuse — with one sentence saying what is wrong — before any
program sees the file, so a bad package never half-installs.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from asil.protocol import InvalidAction

CODE_VERSION = (1, 100)  # the VS Code that code-server 4.100 bundles
MAX_VSIX_BYTES = 50 * 1024 * 1024
NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")
SEMVER = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$")
ENGINE = re.compile(r"^\s*(?:\^|>=|~)?\s*(\d+)\.(\d+|x)(?:\.(\d+|x))?")
CONTENT_TYPES = ('<?xml version="1.0" encoding="utf-8"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/'
                 '2006/content-types"><Default Extension=".json" ContentType="application/json"/><Default '
                 'Extension=".vsixmanifest" ContentType="text/xml"/><Default Extension=".md" '
                 'ContentType="text/markdown"/></Types>\n')


@dataclass(frozen=True)
class VsixInfo:
    id: str  # publisher.name, lower case, as VS Code compares ids
    version: str
    display_name: str


def _bad(what: str, message: str) -> InvalidAction:
    return InvalidAction(f"{what} is not an installable VS Code extension: {message}.",
                         hint="A .vsix is a zip with extension/package.json declaring name, publisher, version "
                         "and engines.vscode.", code="bad_vsix")


def inspect(path: Path, what: str) -> VsixInfo:
    """The extension a .vsix holds; InvalidAction naming the first problem otherwise."""
    if not path.is_file():
        raise InvalidAction(f"There is no file {what}.", hint="Give the workspace path of a .vsix file.",
                            code="no_such_file")
    if path.suffix.lower() != ".vsix":
        raise _bad(what, "its name does not end in .vsix")
    if path.stat().st_size > MAX_VSIX_BYTES:
        raise _bad(what, f"it is larger than {MAX_VSIX_BYTES // 2**20} MB")
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            unsafe = [n for n in names if n.startswith("/") or ".." in Path(n).parts]
            if unsafe:
                raise _bad(what, f"it holds a path outside the extension ({unsafe[0]!r})")
            if "extension/package.json" not in names:
                raise _bad(what, "it has no extension/package.json")
            manifest = json.loads(archive.read("extension/package.json").decode("utf-8"))
    except (zipfile.BadZipFile, OSError, EOFError):
        raise _bad(what, "it is not a zip archive") from None
    except (ValueError, UnicodeDecodeError):
        raise _bad(what, "its extension/package.json is not JSON") from None
    return _check_manifest(manifest, what)


def _check_manifest(manifest: Any, what: str) -> VsixInfo:
    if not isinstance(manifest, dict):
        raise _bad(what, "its package.json is not an object")
    for field in ("name", "publisher", "version"):
        if not isinstance(manifest.get(field), str) or not manifest[field]:
            raise _bad(what, f"its package.json has no {field}")
    if not NAME.match(manifest["name"]) or not NAME.match(manifest["publisher"].lower()):
        raise _bad(what, "its name and publisher must be lower-case letters, digits and dashes")
    if not SEMVER.match(manifest["version"]):
        raise _bad(what, f"its version {manifest['version']!r} is not like 1.2.3")
    engine = manifest.get("engines", {}).get("vscode") if isinstance(manifest.get("engines"), dict) else None
    if not isinstance(engine, str):
        raise _bad(what, "its package.json has no engines.vscode")
    match = ENGINE.match(engine)
    if engine.strip() != "*" and not match:
        raise _bad(what, f"engines.vscode {engine!r} is not a version range")
    if match and (int(match[1]), int(match[2]) if match[2] != "x" else 0) > CODE_VERSION:
        raise _bad(what, f"it needs VS Code {engine}, and code-server here is VS Code "
                   f"{CODE_VERSION[0]}.{CODE_VERSION[1]}")
    ident = f"{manifest['publisher']}.{manifest['name']}".lower()
    return VsixInfo(ident, manifest["version"], str(manifest.get("displayName") or manifest["name"]))


# ---------------------------------------------------------------- building (task set-up, tests)
def package_json(spec: dict[str, Any]) -> dict[str, Any]:
    """The package.json of a small declarative extension from a spec (publisher, name, version, settings)."""
    data: dict[str, Any] = {
        "name": spec["name"], "publisher": spec["publisher"], "version": spec.get("version", "1.0.0"),
        "displayName": spec.get("display_name", spec["name"]), "description": spec.get("description", ""),
        "engines": {"vscode": spec.get("engine", "^1.60.0")}, "categories": ["Other"],
    }
    if spec.get("settings"):
        data["contributes"] = {"configuration": {"title": data["displayName"], "properties": spec["settings"]}}
    return data


def vsix_manifest(data: dict[str, Any]) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<PackageManifest Version="2.0.0" '
        'xmlns="http://schemas.microsoft.com/developer/vsx-schema/2011" '
        'xmlns:d="http://schemas.microsoft.com/developer/vsx-schema-design/2011">\n  <Metadata>\n'
        f'    <Identity Language="en-US" Id="{escape(data["name"])}" Version="{escape(data["version"])}" '
        f'Publisher="{escape(data["publisher"])}"/>\n'
        f'    <DisplayName>{escape(data["displayName"])}</DisplayName>\n'
        f'    <Description xml:space="preserve">{escape(data["description"])}</Description>\n'
        '    <Categories>Other</Categories>\n    <Properties>\n'
        f'      <Property Id="Microsoft.VisualStudio.Code.Engine" Value="{escape(data["engines"]["vscode"])}"/>\n'
        '    </Properties>\n  </Metadata>\n  <Installation>\n'
        '    <InstallationTarget Id="Microsoft.VisualStudio.Code"/>\n  </Installation>\n  <Dependencies/>\n'
        '  <Assets>\n    <Asset Type="Microsoft.VisualStudio.Code.Manifest" Path="extension/package.json" '
        'Addressable="true"/>\n  </Assets>\n</PackageManifest>\n')


def build_vsix(spec: dict[str, Any]) -> bytes:
    """The bytes of a valid .vsix for ``spec``; the same spec always gives the same bytes."""
    data = package_json(spec)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in (("extension.vsixmanifest", vsix_manifest(data)), ("[Content_Types].xml", CONTENT_TYPES),
                           ("extension/package.json", json.dumps(data, indent=2) + "\n"),
                           ("extension/README.md", f"# {data['displayName']}\n\n{data['description']}\n")):
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, text)
    return buffer.getvalue()
