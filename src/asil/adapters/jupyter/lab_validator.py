"""The raw validator's reading of JupyterLab state: the saved workspace files and the kernel record, with ``json``.

Independent of the adapter's reader: it walks jupyterlab_server's workspace files itself, takes the one
whose ``metadata.id`` is ``default``, and reads ``layout-restorer:data`` (main dock widgets, ``current``).
Anything unreadable raises, and the caller fails the checkpoint.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from asil.workspace import PRIVATE_DIR, Workspace

LAB_TYPES = ("lab_open_documents", "lab_active_document", "lab_kernel_running")


def _folder(workspace: Workspace) -> Path:
    return Path(workspace.root, PRIVATE_DIR, "jupyterlab")


def _main_area(workspace: Workspace, notebook: str) -> dict[str, Any]:
    for path in (_folder(workspace) / "workspaces").glob("*.jupyterlab-workspace"):
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved["metadata"]["id"] in ("default", "/default"):
            main: dict[str, Any] = saved["data"].get("layout-restorer:data", {}).get("main", {})
            return main
    # no saved layout: JupyterLab has not run here yet and would open with the task's notebook
    return {"dock": {"widgets": [f"notebook:{notebook}"]}, "current": f"notebook:{notebook}"}


def _doc(widget: str) -> str:
    namespace, _, path = widget.partition(":")
    if not namespace or not path:
        raise ValueError(f"not a document widget: {widget!r}")
    return path


def read_lab(kind: str, target: str | None, notebook: str, workspace: Workspace) -> Any:
    """The value of one JupyterLab checkpoint, read from the files."""
    if kind == "lab_kernel_running":
        try:
            record = json.loads((_folder(workspace) / "lab-record.json").read_text(encoding="utf-8"))
        except FileNotFoundError:
            return False  # no server was ever saved here: no kernel ran
        return any(kernel["document"] == target for kernel in record["kernels"])
    main = _main_area(workspace, notebook)
    if kind == "lab_open_documents":
        return [_doc(w) for w in main.get("dock", {}).get("widgets", [])]
    current = main.get("current")
    return _doc(current) if current else None
