"""The observation: a page of the workspace tree (depth first), the trash, bookmarks and Nautilus's windows."""

from __future__ import annotations

from typing import Any

from asil.adapters.nautilus import state as st
from asil.adapters.nautilus.windows import Window
from asil.protocol import AppState, Element, Metadata, Navigation, Observation, Paging

DEFAULT_LIMIT = 100
MAX_TRASH_SHOWN = 30
MAX_BOOKMARKS_SHOWN = 30
ENTRY_ACTIONS = ["copy", "move", "rename", "trash", "delete_permanently", "compress", "set_permissions",
                 "show_items"]
FOLDER_ACTIONS = ["create_file", "create_folder", "bookmark", "show_folder", "extract"]


def entry_element(entry: st.Entry) -> Element:
    meta: dict[str, Any] = {"mode": entry.mode, "mtime": entry.mtime}
    return Element(id=entry.path, type=entry.kind, value=entry.size if entry.kind == "file" else None,
                   data_type="bytes" if entry.kind == "file" else None, meta=meta)


def trash_element(item: st.TrashItem) -> Element:
    return Element(id=f"trash:{item.name}", type="trash_item", label=item.kind, value=item.original or None,
                   editable=False, actions=["restore"], meta={"deleted": item.deleted})


def bookmark_element(mark: st.Bookmark) -> Element:
    return Element(id=f"bookmark:{mark.path or mark.uri}", type="bookmark", label=mark.label,
                   value=mark.path or mark.uri, actions=["remove_bookmark"])


WINDOW_ACTIONS = ["go_to", "go_back", "go_forward", "go_up", "select_items", "select_all", "clear_selection",
                  "new_tab", "switch_tab", "close_tab", "close_window"]


def window_element(window: Window) -> Element:
    """A Nautilus window: value = the folder it shows; history and selection in meta (see the schema's tips)."""
    meta: dict[str, Any] = {
        "can_go_back": window.can_go_back, "can_go_forward": window.can_go_forward,
        "back": window.back, "forward": window.forward, "history_complete": window.history_complete,
        "selection": window.selection}
    if len(window.tabs) > 1:  # value is the shown tab's folder; the others are listed with their index
        meta["tabs"] = window.tabs
        meta["active_tab"] = window.active_tab
    label = "workspace" if window.location == "." else window.location.rsplit("/", 1)[-1]
    return Element(id=f"window:{window.window}", type="window", label=label, value=window.location,
                   actions=WINDOW_ACTIONS, meta=meta)


def build_observation(*, step: int, folder: str, paths: list[str], entries: list[st.Entry], offset: int, limit: int,
                      trash: list[st.TrashItem], bookmarks: list[st.Bookmark], nautilus: dict[str, Any]) -> Observation:
    total = len(paths)
    windows: list[Window] = nautilus.pop("window_details", [])
    elements = [window_element(w) for w in windows]
    elements += [entry_element(e) for e in entries]
    elements += [trash_element(i) for i in trash[:MAX_TRASH_SHOWN]]
    elements += [bookmark_element(b) for b in bookmarks[:MAX_BOOKMARKS_SHOWN]]
    files = sum(1 for e in entries if e.kind == "file")
    shown = f"entries {offset + 1}-{offset + len(entries)} of {total}" if total > len(entries) else f"{total} entries"
    where = "the workspace" if folder == "." else f"folder {folder!r}"
    summary = (f"{where}: {shown} ({files} files shown); trash: {len(trash)} item(s); "
               f"bookmarks: {len(bookmarks)}; Nautilus {nautilus['state']}"
               f"{'; ' + '; '.join(_window_summary(w) for w in windows) if windows else ''}.")
    return Observation(
        metadata=Metadata(app="nautilus", source="service", step=step),
        app_state=AppState(view="tree", active_document=None, document_path=None, dirty=False,
                           details={"folder": folder}),
        elements=elements,
        environment={"nautilus": nautilus, "trash_total": len(trash), "bookmarks_total": len(bookmarks),
                     "entry_actions": ENTRY_ACTIONS, "folder_actions": FOLDER_ACTIONS,
                     "units": "size in bytes; mode octal; mtime UTC"},
        navigation=Navigation(views=["tree"], paging=Paging(offset=offset, limit=limit, total=total),
                              meta={"folder": folder}),
        summary=summary,
    )


def _window_summary(window: Window) -> str:
    selected = ("selection unknown" if window.selection is None else
                f"{len(window.selection)} selected" if window.selection else "nothing selected")
    return f"window:{window.window} shows {window.location!r} ({selected})"
