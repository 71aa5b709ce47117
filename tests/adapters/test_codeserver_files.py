"""The code-server adapter's file formats without the program: JSON with comments edited surgically,
setting values checked against declared schemas, .vsix packages checked and built."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from asil.adapters.codeserver import jsonc
from asil.adapters.codeserver.settings import CORE, check_setting, value_problem
from asil.adapters.codeserver.validator import load_jsonc
from asil.adapters.codeserver.vsix import build_vsix, inspect
from asil.protocol import InvalidAction

SETTINGS = """// My settings: keep this comment
{
    /* appearance */
    "editor.fontSize": 14, // I like it big
    "workbench.colorTheme": "Default Dark Modern",

    "[python]": {
        "editor.tabSize": 4 // PEP 8
    },
    // the last one
    "files.autoSave": "off",
}
"""


def test_set_existing_value_changes_only_that_value() -> None:
    edited = jsonc.set_path(SETTINGS, ["editor.fontSize"], 18)
    assert edited == SETTINGS.replace('"editor.fontSize": 14', '"editor.fontSize": 18')


def test_set_new_key_appends_after_trailing_comma_and_keeps_comments() -> None:
    edited = jsonc.set_path(SETTINGS, ["editor.wordWrap"], "on")
    assert edited.startswith(SETTINGS.rstrip().removesuffix("}").rstrip())
    assert jsonc.loads(edited) == {**jsonc.loads(SETTINGS), "editor.wordWrap": "on"}
    for comment in ("// My settings: keep this comment", "/* appearance */", "// I like it big", "// PEP 8",
                    "// the last one"):
        assert comment in edited


def test_set_inside_language_section_and_new_section() -> None:
    inner = jsonc.set_path(SETTINGS, ["[python]", "editor.insertSpaces"], True)
    assert jsonc.loads(inner)["[python]"] == {"editor.tabSize": 4, "editor.insertSpaces": True}
    assert "// PEP 8" in inner
    fresh = jsonc.set_path(SETTINGS, ["[go]", "editor.tabSize"], 8)
    assert jsonc.loads(fresh)["[go]"] == {"editor.tabSize": 8}


def test_remove_member_takes_its_line_and_line_comment() -> None:
    edited = jsonc.remove_path(SETTINGS, ["editor.fontSize"])
    assert "I like it big" not in edited and "editor.fontSize" not in edited
    assert "/* appearance */" in edited
    assert jsonc.loads(edited) == {k: v for k, v in jsonc.loads(SETTINGS).items() if k != "editor.fontSize"}


def test_remove_last_member_drops_the_comma_before_it() -> None:
    text = '{\n    "a": 1,\n    "b": 2\n}\n'
    assert jsonc.remove_path(text, ["b"]) == '{\n    "a": 1\n}\n'


def test_empty_and_comment_only_files_get_an_object() -> None:
    assert jsonc.loads(jsonc.set_path("", ["a.b"], 1)) == {"a.b": 1}
    edited = jsonc.set_path("// nothing yet\n", ["a.b"], [1, 2])
    assert edited.startswith("// nothing yet\n") and jsonc.loads(edited) == {"a.b": [1, 2]}


def test_tab_indented_file_keeps_tabs() -> None:
    edited = jsonc.set_path('{\n\t"a": 1\n}\n', ["b"], {"c": 2})
    assert edited == '{\n\t"a": 1,\n\t"b": {\n\t\t"c": 2\n\t}\n}\n'


@pytest.mark.parametrize("bad", ['{"a": 1,, }', '{"a" 1}', '{"a": 1', '[1, 2', '{"a": tru}', "{} {}",
                                 '{"a": 1 /* open', "{'a': 1}"])
def test_broken_text_names_line_and_column(bad: str) -> None:
    with pytest.raises(jsonc.JsoncError, match=r"line \d+, column \d+"):
        jsonc.loads(bad)


KEYS = st.text(st.sampled_from("abc.xyz[]"), min_size=1, max_size=6)
VALUES = st.recursive(st.none() | st.booleans() | st.integers(-99, 99) | st.text(max_size=5),
                      lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
                      max_leaves=6)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["set", "remove"]), st.lists(KEYS, min_size=1, max_size=2), VALUES),
                max_size=8))
def test_edits_agree_with_the_data_and_with_the_raw_reader(edits: list[tuple[str, list[str], Any]]) -> None:
    text, data = SETTINGS, jsonc.loads(SETTINGS)
    for op, path, value in edits:
        if op == "set":
            text = jsonc.set_path(text, path, value)
            holder = data
            for key in path[:-1]:
                if not isinstance(holder.get(key), dict):
                    holder[key] = {}
                holder = holder[key]
            holder[path[-1]] = value
        else:
            text = jsonc.remove_path(text, path)
            holder = data
            for key in path[:-1]:
                holder = holder.get(key) if isinstance(holder.get(key), dict) else {}
            holder.pop(path[-1], None)
        assert jsonc.loads(text) == data
    assert "// My settings: keep this comment" in text


def test_raw_reader_agrees_on_comments_and_trailing_commas(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(SETTINGS)
    assert load_jsonc(path, {}) == jsonc.loads(SETTINGS)


# ---------------------------------------------------------------- setting values
@pytest.mark.parametrize(("key", "value", "problem"), [
    ("editor.fontSize", "14", "must be number"),
    ("editor.fontSize", 500, "at most 100"),
    ("editor.tabSize", 2.5, "must be integer"),
    ("editor.wordWrap", "sometimes", "must be one of"),
    ("editor.rulers", [80, "x"], "item 1"),
    ("files.autoSave", True, "must be string"),
])
def test_values_that_do_not_fit_are_named(key: str, value: Any, problem: str) -> None:
    found = value_problem(CORE[key], value)
    assert found is not None and problem in found


def test_unknown_and_malformed_keys_are_refused_with_suggestions() -> None:
    with pytest.raises(InvalidAction, match="not a setting that") as caught:
        check_setting("editor.fontsize", 12, CORE, False, "the user settings")
    assert "editor.fontSize" in str(caught.value.hint)
    with pytest.raises(InvalidAction, match="is not a setting name"):
        check_setting("fontSize", 12, CORE, True, "the user settings")
    check_setting("my.own.setting", {"x": 1}, CORE, True, "the user settings")  # allowed when asked


# ---------------------------------------------------------------- .vsix
SPEC = {"publisher": "asil", "name": "demo", "version": "1.2.3", "display_name": "Demo",
        "settings": {"demo.greeting": {"type": "string", "default": "hi"}}}


def _zip(files: dict[str, str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return buffer.getvalue()


def test_built_vsix_is_complete_and_deterministic(tmp_path: Path) -> None:
    data = build_vsix(SPEC)
    assert data == build_vsix(SPEC)
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    assert {"extension.vsixmanifest", "[Content_Types].xml", "extension/package.json"} <= set(names)
    path = tmp_path / "demo.vsix"
    path.write_bytes(data)
    info = inspect(path, "demo.vsix")
    assert (info.id, info.version, info.display_name) == ("asil.demo", "1.2.3", "Demo")


GOOD = {"name": "x", "publisher": "p", "version": "1.0.0", "engines": {"vscode": "^1.60.0"}}


@pytest.mark.parametrize(("content", "problem"), [
    (b"not a zip at all", "not a zip archive"),
    (_zip({"extension.vsixmanifest": "<x/>"}), "no extension/package.json"),
    (_zip({"extension/package.json": "{oops"}), "not JSON"),
    (_zip({"extension/package.json": json.dumps({**GOOD, "version": "one"})}), "not like 1.2.3"),
    (_zip({"extension/package.json": json.dumps({k: v for k, v in GOOD.items() if k != "engines"})}),
     "no engines.vscode"),
    (_zip({"extension/package.json": json.dumps({**GOOD, "engines": {"vscode": "^1.999.0"}})}), "needs VS Code"),
    (_zip({"extension/package.json": json.dumps(GOOD), "../evil": "x"}), "outside the extension"),
])
def test_malformed_vsix_is_refused_in_one_sentence(tmp_path: Path, content: bytes, problem: str) -> None:
    path = tmp_path / "bad.vsix"
    path.write_bytes(content)
    with pytest.raises(InvalidAction, match=problem) as caught:
        inspect(path, "bad.vsix")
    assert caught.value.code == "bad_vsix"
