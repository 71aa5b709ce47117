"""The code-server action vocabulary: parameter models, examples and tips (the functions are declared
with their handlers, in ``handlers``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from asil.adapters.functions import Vocabulary
from asil.adapters.params import Params

MAX_BATCH = 50
MAX_FILE_CHARS = 1_000_000
Scope = Literal["user", "workspace"]
SettingKey = Annotated[str, Field(min_length=3, max_length=200, description="A dotted setting name, e.g. "
                                  "'editor.fontSize'.")]
Language = Annotated[str, Field(min_length=1, max_length=60, pattern=r"^[a-z0-9][a-z0-9._+-]*$",
                                description="A language id (python, markdown ...) for a language-specific value.")]
FilePath = Annotated[str, Field(min_length=1, max_length=400, description="A workspace-relative path.")]
Key = Annotated[str, Field(min_length=1, max_length=80, description="A key chord like 'ctrl+shift+t' or "
                           "'ctrl+k ctrl+c'.")]
Command = Annotated[str, Field(min_length=1, max_length=200, pattern=r"^-?[A-Za-z0-9_.:-]+$",
                               description="A command id; a leading '-' removes a default binding.")]
Label = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\x00-\x1f]+$")]
ExtensionId = Annotated[str, Field(min_length=3, max_length=200, pattern=r"^[A-Za-z0-9][\w-]*\.[A-Za-z0-9][\w-]*$",
                                   description="publisher.name")]


class SetSetting(Params):
    key: SettingKey
    value: Any = Field(description="Any JSON value the setting accepts (null included).")
    scope: Scope = "user"
    language: Language | None = None
    allow_unknown: bool = Field(False, description="Write a key no installed part declares (it is not checked).")


class RemoveSetting(Params):
    key: SettingKey
    scope: Scope = "user"
    language: Language | None = None


class AddKeybinding(Params):
    key: Key
    command: Command
    when: Annotated[str, Field(min_length=1, max_length=400)] | None = None
    args: Any = None


class RemoveKeybinding(Params):
    key: Key
    command: Command


class InstallExtension(Params):
    vsix: FilePath = Field(description="Workspace path of a .vsix file.")


class UninstallExtension(Params):
    id: ExtensionId


class WriteFile(Params):
    path: FilePath
    content: Annotated[str, Field(max_length=MAX_FILE_CHARS)]


class ReplaceText(Params):
    path: FilePath
    old: Annotated[str, Field(min_length=1, max_length=MAX_FILE_CHARS)]
    new: Annotated[str, Field(max_length=MAX_FILE_CHARS)]
    all: bool = Field(False, description="Replace every occurrence (else old must occur exactly once).")


class PathOnly(Params):
    path: FilePath


class AddTask(Params):
    label: Label
    command: Annotated[str, Field(min_length=1, max_length=2000)]
    type: Literal["shell", "process"] = "shell"
    args: Annotated[list[Annotated[str, Field(max_length=500)]], Field(max_length=50)] = Field(default_factory=list)
    group: Literal["build", "test"] | None = None


class LabelOnly(Params):
    label: Label


class RunTask(Params):
    label: Label
    timeout_s: Annotated[float, Field(gt=0, le=120)] = 30.0


class SetValue(Params):
    value: Any


class Navigate(Params):
    view: Literal["files", "editor"] | None = None
    offset: Annotated[int, Field(ge=0)] | None = None
    limit: Annotated[int, Field(ge=1, le=500)] | None = None


VOCABULARY = Vocabulary(
    app="codeserver",
    target_format="set_value: '<user|workspace>:<setting key>' (optionally '[language].' before the key); "
    "invoke_function: a function name; navigate: a workspace file path to open, or none",
    set_value_params=SetValue,
    navigate_params=Navigate,
    batch_hint="Put only set_value and invoke_function actions in a batch, and run tasks on their own (a task's "
    "command may change any file, so it could not be undone).",
    max_batch=MAX_BATCH,
    examples=[
        {"action_type": "invoke_function", "target": "set_setting", "params": {"key": "editor.fontSize", "value": 16}},
        {"action_type": "set_value", "target": "workspace:editor.tabSize", "params": {"value": 2}},
        {"action_type": "invoke_function", "target": "set_setting",
         "params": {"key": "editor.formatOnSave", "value": True, "language": "python"}},
        {"action_type": "invoke_function", "target": "add_keybinding",
         "params": {"key": "ctrl+alt+t", "command": "workbench.action.terminal.new"}},
        {"action_type": "invoke_function", "target": "install_extension", "params": {"vsix": "hello.vsix"}},
        {"action_type": "invoke_function", "target": "create_file",
         "params": {"path": "src/hello.py", "content": "print('hello')\n"}},
        {"action_type": "invoke_function", "target": "replace_text",
         "params": {"path": "src/hello.py", "old": "hello", "new": "world"}},
        {"action_type": "invoke_function", "target": "add_task",
         "params": {"label": "greet", "command": "python3 src/hello.py", "group": "build"}},
        {"action_type": "invoke_function", "target": "run_task", "params": {"label": "greet"}},
        {"action_type": "invoke_function", "target": "uninstall_extension", "params": {"id": "asil.hello"}},
        {"action_type": "invoke_function", "target": "open_editor", "params": {"path": "README.md"}},
        {"action_type": "invoke_function", "target": "set_selection",
         "params": {"path": "src/hello.py", "line": 1, "column": 8, "end_line": 1, "end_column": 13}},
        {"action_type": "invoke_function", "target": "focus_editor", "params": {"path": "README.md"}},
        {"action_type": "invoke_function", "target": "close_editor", "params": {"path": "README.md"}},
        {"action_type": "invoke_function", "target": "rename_path",
         "params": {"path": "README.md", "new_path": "docs/README.md"}},
        {"action_type": "invoke_function", "target": "move_path", "params": {"path": "docs/README.md", "folder": "."}},
        {"action_type": "navigate", "target": "src/hello.py"},
        {"action_type": "navigate", "params": {"view": "files", "offset": 0, "limit": 50}},
        {"action_type": "batch", "params": {"actions": [
            {"action_type": "invoke_function", "target": "set_setting",
             "params": {"key": "files.autoSave", "value": "afterDelay"}},
            {"action_type": "invoke_function", "target": "set_setting",
             "params": {"key": "files.autoSaveDelay", "value": 500}}]}},
    ],
    tips=[
        "Settings are elements 'setting:<scope>:<key>' (scope user or workspace; a language-specific value is "
        "'setting:user:[python].editor.tabSize'). set_value on '<scope>:<key>' sets one, like set_setting.",
        "Values are checked against the setting's declared type, range and allowed values (VS Code core settings, "
        "bundled and installed extensions); an unknown key is refused unless allow_unknown is true.",
        "User settings and keybindings live in code-server's private profile; workspace settings are "
        ".vscode/settings.json and tasks .vscode/tasks.json (you may also edit those files directly).",
        "Extensions: install_extension takes a .vsix in the workspace; elements 'extension:<publisher.name>' show "
        "installed ones with their version.",
        "run_task runs the task's command confined to the workspace (no network, time limit); its exit code and "
        "output appear on the 'task:<label>' element.",
        "Files are listed a page at a time (view 'files'); navigate with a file path as target to read it "
        "(view 'editor', paged by lines).",
        "A batch is atomic: if one action fails, every file it touched is restored. run_task, the editor functions "
        "and rename_path/move_path cannot be in a batch.",
        "Open editors of the VS Code window are elements 'editor:<path>' ('@<group>' for groups after the first) with "
        "meta active, group, and for editors on screen cursor {line, column}, selection and selected_text (1-based, "
        "as VS Code's status bar shows them). open_editor, focus_editor, close_editor and set_selection change them; "
        "the first one opens the window (a few seconds).",
        "rename_path renames or moves a file or folder to a new workspace path (missing parent folders are created; "
        "an existing destination is refused); move_path moves one into an existing folder. Open editors follow.",
        "navigate with a file path shows the file's text in this observation (view 'editor'); it does not open a "
        "VS Code editor (open_editor does).",
    ],
)
