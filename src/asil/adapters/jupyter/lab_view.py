"""The ``lab`` view: what a person sees around the notebook in JupyterLab, as elements.

Open documents (tab order, the active one marked), running kernels with the notebook each belongs to,
and the workspace's files, non-notebook ones with their size and the start of their text.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.jupyter.lab import MAX_FILES, PREVIEW_CHARS, Lab
from asil.protocol import AppState, Element, Metadata, Navigation, Observation

TEXT_SUFFIXES = (".py", ".csv", ".md", ".txt", ".json", ".tsv", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".r", ".sql")


def lab_elements(lab: Lab) -> tuple[list[Element], dict[str, Any]]:
    docs, active = lab.layout()
    kernels = lab.kernels()
    elements = [Element(id=f"doc:{p}", type="document", label=p, value="active" if p == active else "open",
                        actions=["activate_document", "close_document"]) for p in docs]
    elements += [Element(id=f"kernel:{k['id']}", type="kernel", label=k["document"] or "(no document)",
                         value=k["execution_state"], editable=False,
                         meta={"name": k["name"], "document": k["document"]},
                         actions=["restart_kernel", "interrupt_kernel", "stop_kernel"]) for k in kernels]
    files = lab.files()
    elements += [_file_element(lab, model) for model in files]
    details = {"open_documents": docs, "active_document": active,
               "kernels": [{"document": k["document"], "execution_state": k["execution_state"]} for k in kernels],
               "files": len(files)}
    if len(files) >= MAX_FILES:  # said, not hidden: the listing stops at MAX_FILES
        details["files_note"] = f"only the first {MAX_FILES} files (in path order) are listed"
    return elements, details


def _file_element(lab: Lab, model: dict[str, Any]) -> Element:
    path = model["path"]
    meta: dict[str, Any] = {"size": model.get("size"), "last_modified": model.get("last_modified")}
    if model["type"] == "notebook":
        return Element(id=f"file:{path}", type="notebook", label=path, editable=False, meta=meta,
                       actions=["open_document", "start_kernel"])
    preview = None
    if path.lower().endswith(TEXT_SUFFIXES):
        text = lab.text(path)
        preview = text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + f"… ({len(text)} characters)"
    return Element(id=f"file:{path}", type="file", label=path, value=preview, data_type="text", meta=meta,
                   actions=["open_document", "write_file", "rename_file", "delete_file"])


def build_lab_observation(lab: Lab, *, step: int, notebook: str) -> Observation:
    elements, details = lab_elements(lab)
    docs, active = details["open_documents"], details["active_document"]
    running = [k for k in details["kernels"] if k["document"]]
    summary = (f"JupyterLab: {len(docs)} open document(s) ({', '.join(docs) or 'none'}), active: {active or 'none'}; "
               f"{len(details['kernels'])} kernel(s) running"
               f"{' (' + ', '.join(k['document'] + ': ' + k['execution_state'] for k in running) + ')' if running else ''}"
               f"; {details['files']} file(s) in the workspace. The notebook {notebook} is in view 'notebook'.")
    environment = {"server": "jupyter_server + JupyterLab on 127.0.0.1 (token), root = the workspace",
                   "kernels": "confined like run_cell's kernel (bubblewrap, no network); they end with the server",
                   "layout": "open documents are JupyterLab's saved workspace 'default'; they survive a restart"}
    if lab.ended:  # said plainly: a restart keeps files and tabs, not kernels
        environment["kernels_ended_by_restart"] = (f"the previous server's kernels ({', '.join(lab.ended)}) ended with "
                                                   "it; start_kernel starts a new one (variables are gone)")
    return Observation(
        metadata=Metadata(app="jupyter", source="file", step=step),  # a file-backed adapter
        app_state=AppState(view="lab", active_document=active, document_path=notebook, details=details),
        elements=elements,
        environment=environment,
        navigation=Navigation(views=["notebook", "lab"]),
        summary=summary,
    )
