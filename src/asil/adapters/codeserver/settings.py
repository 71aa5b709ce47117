"""Which settings exist and what values they take: VS Code core settings plus extension contributions.

VS Code registers its core settings in code, so a table of the common ones lives here (types and
ranges as VS Code declares them). Every bundled and installed extension declares its own settings
in ``package.json`` (``contributes.configuration``); those are read from the extension folders.
A value is checked against the subset of JSON Schema these declarations use.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from pathlib import Path
from typing import Any

from asil.protocol import InvalidAction

Schema = dict[str, Any]
KEY_PATTERN = re.compile(r"^[A-Za-z][\w-]*(\.[\w-]+)+$")
LANGUAGE_PATTERN = re.compile(r"^[a-z0-9][a-z0-9._+-]*$")
_BOOL: Schema = {"type": "boolean"}
_STR: Schema = {"type": "string"}
_OBJ: Schema = {"type": "object"}


def _enum(*values: str) -> Schema:
    return {"type": "string", "enum": list(values)}


def _num(low: float | None = None, high: float | None = None, kind: str = "number") -> Schema:
    schema: Schema = {"type": kind}
    if low is not None:
        schema["minimum"] = low
    if high is not None:
        schema["maximum"] = high
    return schema


CORE: dict[str, Schema] = {
    "editor.fontSize": _num(6, 100),
    "editor.fontFamily": _STR,
    "editor.fontWeight": {"type": ["string", "number"]},
    "editor.fontLigatures": {"type": ["boolean", "string"]},
    "editor.lineHeight": _num(0, 150),
    "editor.tabSize": _num(1, None, "integer"),
    "editor.insertSpaces": _BOOL,
    "editor.detectIndentation": _BOOL,
    "editor.wordWrap": _enum("off", "on", "wordWrapColumn", "bounded"),
    "editor.wordWrapColumn": _num(1, None, "integer"),
    "editor.lineNumbers": _enum("off", "on", "relative", "interval"),
    "editor.rulers": {"type": "array", "items": {"type": ["number", "object"]}},
    "editor.minimap.enabled": _BOOL,
    "editor.minimap.side": _enum("left", "right"),
    "editor.renderWhitespace": _enum("none", "boundary", "selection", "trailing", "all"),
    "editor.cursorStyle": _enum("line", "block", "underline", "line-thin", "block-outline", "underline-thin"),
    "editor.cursorBlinking": _enum("blink", "smooth", "phase", "expand", "solid"),
    "editor.formatOnSave": _BOOL,
    "editor.formatOnPaste": _BOOL,
    "editor.defaultFormatter": {"type": ["string", "null"]},
    "editor.codeActionsOnSave": {"type": ["object", "array"]},
    "editor.autoClosingBrackets": _enum("always", "languageDefined", "beforeWhitespace", "never"),
    "editor.bracketPairColorization.enabled": _BOOL,
    "editor.guides.bracketPairs": {"type": ["boolean", "string"], "enum": [True, "active", False]},
    "editor.stickyScroll.enabled": _BOOL,
    "editor.smoothScrolling": _BOOL,
    "editor.mouseWheelZoom": _BOOL,
    "editor.renderLineHighlight": _enum("none", "gutter", "line", "all"),
    "editor.scrollBeyondLastLine": _BOOL,
    "editor.suggestSelection": _enum("first", "recentlyUsed", "recentlyUsedByPrefix"),
    "editor.acceptSuggestionOnEnter": _enum("on", "smart", "off"),
    "editor.quickSuggestions": {"type": ["boolean", "object"]},
    "editor.trimAutoWhitespace": _BOOL,
    "files.autoSave": _enum("off", "afterDelay", "onFocusChange", "onWindowChange"),
    "files.autoSaveDelay": _num(0, None),
    "files.exclude": _OBJ,
    "files.associations": _OBJ,
    "files.trimTrailingWhitespace": _BOOL,
    "files.insertFinalNewline": _BOOL,
    "files.trimFinalNewlines": _BOOL,
    "files.eol": _enum("\n", "\r\n", "auto"),
    "files.encoding": _STR,
    "files.watcherExclude": _OBJ,
    "search.exclude": _OBJ,
    "search.useIgnoreFiles": _BOOL,
    "explorer.confirmDelete": _BOOL,
    "explorer.confirmDragAndDrop": _BOOL,
    "explorer.sortOrder": _enum("default", "mixed", "filesFirst", "type", "modified", "foldersNestsFiles"),
    "explorer.compactFolders": _BOOL,
    "workbench.colorTheme": _STR,
    "workbench.iconTheme": {"type": ["string", "null"]},
    "workbench.startupEditor": _enum("none", "welcomePage", "readme", "newUntitledFile",
                                     "welcomePageInEmptyWorkbench", "terminal"),
    "workbench.sideBar.location": _enum("left", "right"),
    "workbench.activityBar.location": _enum("default", "top", "bottom", "hidden"),
    "workbench.statusBar.visible": _BOOL,
    "workbench.tree.indent": _num(4, 40, "integer"),
    "workbench.editor.showTabs": _enum("multiple", "single", "none"),
    "workbench.editor.enablePreview": _BOOL,
    "workbench.list.smoothScrolling": _BOOL,
    "window.zoomLevel": _num(-8, 20),
    "window.title": _STR,
    "terminal.integrated.fontSize": _num(6, 100),
    "terminal.integrated.fontFamily": _STR,
    "terminal.integrated.cursorStyle": _enum("block", "line", "underline"),
    "terminal.integrated.scrollback": _num(0, None, "integer"),
    "terminal.integrated.defaultProfile.linux": {"type": ["string", "null"]},
    "terminal.integrated.env.linux": _OBJ,
    "telemetry.telemetryLevel": _enum("all", "error", "crash", "off"),
    "security.workspace.trust.enabled": _BOOL,
    "update.mode": _enum("none", "manual", "start", "default"),
    "extensions.autoUpdate": {"type": ["boolean", "string"], "enum": [True, False, "onlyEnabledExtensions"]},
    "extensions.ignoreRecommendations": _BOOL,
    "breadcrumbs.enabled": _BOOL,
    "diffEditor.ignoreTrimWhitespace": _BOOL,
    "diffEditor.renderSideBySide": _BOOL,
    "task.autoDetect": _enum("on", "off"),
    "debug.console.fontSize": _num(6, 100),
}


@functools.lru_cache(maxsize=4)
def _bundled(folder: str) -> dict[str, Schema]:
    """Settings declared by the extensions bundled with code-server (read once per process)."""
    return contributions(sorted(Path(folder).glob("*/package.json")))


def contributions(manifests: list[Path]) -> dict[str, Schema]:
    """``contributes.configuration`` properties of the extensions whose package.json files are given."""
    found: dict[str, Schema] = {}
    for manifest in manifests:
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        sections = data.get("contributes", {}).get("configuration", [])
        for section in sections if isinstance(sections, list) else [sections]:
            properties = section.get("properties", {}) if isinstance(section, dict) else {}
            found.update({k: v for k, v in properties.items() if isinstance(v, dict)})
    return found


def catalog(bundled: Path | None, installed: list[Path]) -> dict[str, Schema]:
    """Every setting known here: core table, bundled extensions, then installed extensions."""
    known = dict(CORE)
    if bundled is not None:
        known.update(_bundled(str(bundled)))
    known.update(contributions(installed))
    return known


# ---------------------------------------------------------------- values against schemas
_TYPES: dict[str, Any] = {
    "boolean": lambda v: isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
    "null": lambda v: v is None,
}


def value_problem(schema: Schema, value: Any) -> str | None:
    """Why ``value`` does not fit ``schema`` (type, enum, minimum/maximum, items, anyOf), or None."""
    options = schema.get("anyOf") or schema.get("oneOf")
    if isinstance(options, list) and options:
        problems = [value_problem(option, value) for option in options if isinstance(option, dict)]
        if problems and all(problems):
            return problems[0]
    kinds = schema.get("type")
    kinds = [kinds] if isinstance(kinds, str) else kinds
    if isinstance(kinds, list) and kinds and not any(_TYPES.get(k, lambda v: True)(value) for k in kinds):
        return f"it must be {' or '.join(kinds)}, not {_json_type(value)}"
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and not any(value == e and type(value) is type(e) for e in enum):
        return f"it must be one of {', '.join(json.dumps(e) for e in enum[:12])}"
    if _TYPES["number"](value):
        if isinstance(schema.get("minimum"), int | float) and value < schema["minimum"]:
            return f"it must be at least {schema['minimum']}"
        if isinstance(schema.get("maximum"), int | float) and value > schema["maximum"]:
            return f"it must be at most {schema['maximum']}"
    items = schema.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        for index, item in enumerate(value):
            problem = value_problem(items, item)
            if problem:
                return f"item {index}: {problem}"
    return None


def _json_type(value: Any) -> str:
    return next((name for name, test in _TYPES.items() if name != "integer" and test(value)), type(value).__name__)


def check_setting(key: str, value: Any, known: dict[str, Schema], allow_unknown: bool, where: str) -> None:
    """Raise InvalidAction when ``key`` is malformed or unknown, or ``value`` does not fit its schema."""
    if not KEY_PATTERN.match(key):
        raise InvalidAction(f"{key!r} is not a setting name.",
                            hint="Settings are dotted names such as 'editor.fontSize' or 'files.autoSave'.",
                            code="bad_setting")
    schema = known.get(key)
    if schema is None:
        if allow_unknown:
            return
        close = difflib.get_close_matches(key, list(known), n=3, cutoff=0.7)
        raise InvalidAction(f"{key!r} is not a setting that VS Code or an installed extension declares.",
                            hint=(f"Did you mean {', '.join(close)}? " if close else "") +
                            "Pass allow_unknown: true to write it anyway.", code="unknown_setting")
    problem = value_problem(schema, value)
    if problem:
        raise InvalidAction(f"The value {json.dumps(value)[:80]} does not fit {key!r} in {where}: {problem}.",
                            hint=_describe(schema), code="bad_setting_value")


def _describe(schema: Schema) -> str:
    parts = [f"{k}: {json.dumps(schema[k])[:120]}" for k in ("type", "enum", "minimum", "maximum") if k in schema]
    return "The setting takes " + ("; ".join(parts) if parts else "any JSON value") + "."


def override_language(section: str) -> str | None:
    """'python' for the language section '[python]', else None."""
    if section.startswith("[") and section.endswith("]") and LANGUAGE_PATTERN.match(section[1:-1]):
        return section[1:-1]
    return None
