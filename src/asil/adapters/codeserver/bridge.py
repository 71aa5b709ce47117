"""ASIL's bridge into the live VS Code window: a tiny extension that answers editor requests.

Open editors, the active editor and the cursor exist only in a VS Code window (the workbench a
browser runs), and only VS Code's extension API reaches them from outside. The bridge runs in the
window's extension host on code-server's side: a loopback HTTP server that answers
``{"op": ...}`` requests with ``vscode.window.tabGroups``, ``activeTextEditor``,
``visibleTextEditors`` and ``WorkspaceEdit.renameFile``, and writes the window's editor state to
``editors.json`` in the profile on every change, so the evaluator can read it after the window
is gone.

Only the window ASIL started answers: it leaves a claim file before opening the window, and the
first bridge to take the claim serves. Another window (the screenshot renderer's, or a person's at
the session URL) finds no claim: it opens the recorded editors so it shows what the agent left,
and records nothing, so it can never overwrite the state.
"""

from __future__ import annotations

import io
import json
import zipfile

from asil.adapters.codeserver.vsix import CONTENT_TYPES, vsix_manifest

BRIDGE_ID = "asil.editor-bridge"
BRIDGE_VERSION = "1.1.0"
CLAIM = "bridge-claim"  # the profile file a bridge takes to become the one that serves
ENDPOINT = "bridge.json"  # where the serving bridge writes its port
SNAPSHOT = "editors.json"  # the window's editor state, rewritten on every change
SHOWN = "bridge-shown"  # written by another window once it shows the recorded editors (a screenshot waits for it)

EXTENSION_JS = r"""
const vscode = require('vscode');
const http = require('http');
const fs = require('fs');
const path = require('path');

const dir = process.env.ASIL_CODESERVER_PROFILE;
let serving = true;

function rel(uri) {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const p = uri.fsPath;
  if (folder && (p + '/').startsWith(folder.uri.fsPath + '/')) return path.relative(folder.uri.fsPath, p);
  return p;
}
function abs(p) { return vscode.Uri.file(path.join(vscode.workspace.workspaceFolders[0].uri.fsPath, p)); }
function pos(p) { return [p.line, p.character]; }

function state() {
  const editors = [], others = [];
  for (const group of vscode.window.tabGroups.all) {
    for (const tab of group.tabs) {
      if (tab.input instanceof vscode.TabInputText) {
        editors.push({path: rel(tab.input.uri), group: group.viewColumn, active: tab.isActive,
                      preview: tab.isPreview, dirty: tab.isDirty});
      } else {
        others.push({label: tab.label, group: group.viewColumn, active: tab.isActive});
      }
    }
  }
  const visible = vscode.window.visibleTextEditors.filter(e => e.document.uri.scheme === 'file').map(e => ({
    path: rel(e.document.uri), group: e.viewColumn || null,
    selections: e.selections.map(s => ({anchor: pos(s.anchor), active: pos(s.active),
                                        text: e.document.getText(s).slice(0, 2000)}))}));
  const active = vscode.window.activeTextEditor;
  const activeGroup = vscode.window.tabGroups.activeTabGroup;
  return {editors, others, visible, active_group: activeGroup ? activeGroup.viewColumn : null,
          active: active && active.document.uri.scheme === 'file' ? rel(active.document.uri) : null};
}

function snapshot() {
  if (!serving) return;
  const file = path.join(dir, 'editors.json');
  fs.writeFileSync(file + '.tmp', JSON.stringify(state()));
  fs.renameSync(file + '.tmp', file);
}
let timer = null;
function later() { if (timer) clearTimeout(timer); timer = setTimeout(() => { timer = null; snapshot(); }, 50); }

function tabsOf(p) {
  const found = [];
  for (const group of vscode.window.tabGroups.all)
    for (const tab of group.tabs)
      if (tab.input instanceof vscode.TabInputText && rel(tab.input.uri) === p) found.push(tab);
  return found;
}

async function show(p, group) {
  const tab = tabsOf(p).find(t => group == null || t.group.viewColumn === group);
  const column = group != null ? group : (tab ? tab.group.viewColumn : undefined);
  const doc = await vscode.workspace.openTextDocument(abs(p));
  return vscode.window.showTextDocument(doc, {viewColumn: column, preview: false, preserveFocus: false});
}

const ops = {
  state: async () => null,
  open: async m => { await show(m.path, m.group); },
  focus: async m => { await show(m.path, m.group); },
  close: async m => {
    const tabs = tabsOf(m.path).filter(t => m.group == null || t.group.viewColumn === m.group);
    await vscode.window.tabGroups.close(tabs);
  },
  select: async m => {
    const editor = await show(m.path, m.group);
    const anchor = new vscode.Position(m.anchor[0], m.anchor[1]);
    const active = new vscode.Position(m.active[0], m.active[1]);
    editor.selection = new vscode.Selection(anchor, active);
    editor.revealRange(new vscode.Range(active, active), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  },
  rename: async m => {
    const edit = new vscode.WorkspaceEdit();
    edit.renameFile(abs(m.from), abs(m.to), {overwrite: false});
    if (!await vscode.workspace.applyEdit(edit)) throw new Error('VS Code did not apply the rename');
  },
  restore: async m => {
    for (const e of m.editors) {
      if (tabsOf(e.path).some(t => t.group.viewColumn === e.group)) continue;
      try { await show(e.path, e.group); } catch (err) { /* a file that is gone stays closed */ }
    }
    for (const v of m.visible || []) {
      const s = v.selections && v.selections[0];
      if (!s || !tabsOf(v.path).length) continue;
      const editor = await show(v.path, v.group);
      editor.selection = new vscode.Selection(new vscode.Position(s.anchor[0], s.anchor[1]),
                                              new vscode.Position(s.active[0], s.active[1]));
    }
    if (m.active && tabsOf(m.active).length) await show(m.active, m.active_group);
  },
  detach: async () => { serving = false; },
};

function serve() {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', chunk => { body += chunk; });
    req.on('end', async () => {
      let reply;
      try {
        const m = JSON.parse(body || '{}');
        if (!ops[m.op]) throw new Error('unknown request ' + m.op);
        await ops[m.op](m);
        snapshot();
        reply = {ok: true, state: state()};
      } catch (err) {
        reply = {ok: false, error: String(err && err.message || err)};
      }
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(reply));
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const file = path.join(dir, 'bridge.json');
    fs.writeFileSync(file + '.tmp', JSON.stringify({port: server.address().port, pid: process.pid}));
    fs.renameSync(file + '.tmp', file);
  });
  return server;
}

function showRecorded() {
  // Another window (a screenshot, a person at the URL) shows the recorded editors but records nothing.
  serving = false;
  let last;
  try { last = JSON.parse(fs.readFileSync(path.join(dir, 'editors.json'), 'utf8')); } catch (err) { return; }
  const shown = () => { try { fs.writeFileSync(path.join(dir, 'bridge-shown'), String(Date.now())); } catch (err) {} };
  setTimeout(() => { ops.restore({editors: last.editors || [], visible: last.visible || [], active: last.active,
                                  active_group: last.active_group}).catch(() => {}).then(shown); }, 500);
}

exports.activate = function (context) {
  if (!dir) return;
  try { fs.unlinkSync(path.join(dir, 'bridge-claim')); } catch (err) { showRecorded(); return; }  // not ours
  const server = serve();
  context.subscriptions.push({dispose: () => server.close()},
    vscode.window.tabGroups.onDidChangeTabs(later), vscode.window.tabGroups.onDidChangeTabGroups(later),
    vscode.window.onDidChangeActiveTextEditor(later), vscode.window.onDidChangeTextEditorSelection(later),
    vscode.window.onDidChangeVisibleTextEditors(later));
};
exports.deactivate = function () {};
"""


def package() -> dict[str, object]:
    publisher, name = BRIDGE_ID.split(".")
    return {"name": name, "publisher": publisher, "version": BRIDGE_VERSION, "displayName": "ASIL editor bridge",
            "description": "Lets ASIL see and change the open editors of this window.",
            "engines": {"vscode": "^1.80.0"}, "main": "./extension.js", "activationEvents": ["*"],
            "extensionKind": ["workspace"], "categories": ["Other"]}


def build_bridge_vsix() -> bytes:
    """The bridge's .vsix (the same bytes every time)."""
    data = package()
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, text in (("extension.vsixmanifest", vsix_manifest(data)), ("[Content_Types].xml", CONTENT_TYPES),
                           ("extension/package.json", json.dumps(data, indent=2) + "\n"),
                           ("extension/extension.js", EXTENSION_JS)):
            archive.writestr(zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0)), text,
                             compress_type=zipfile.ZIP_DEFLATED)
    return buffer.getvalue()
