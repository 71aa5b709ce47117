"""The VS Code window's editors as observation elements: one 'editor' element per open text editor tab.

The bridge reports positions 0-based (VS Code's API); agents see them 1-based, as VS Code's status
bar shows them ("Ln 3, Col 5"). Cursor and selection are known for the editors on screen (one per
group); a tab in the background keeps its cursor in VS Code but the API does not report it.
"""

from __future__ import annotations

from typing import Any

from asil.adapters.codeserver.editors import editor_id
from asil.protocol import Element

MAX_EDITORS = 50
SELECTED_TEXT_CHARS = 200


def _place(position: list[int]) -> dict[str, int]:
    return {"line": position[0] + 1, "column": position[1] + 1}


def cursor_of(visible: dict[str, Any]) -> dict[str, Any] | None:
    """The primary cursor and selection of an on-screen editor, 1-based; None when it has none."""
    selections = visible.get("selections") or []
    if not selections:
        return None
    first = selections[0]
    start, end = sorted([first["anchor"], first["active"]])
    return {"cursor": _place(first["active"]), "selection": {"start": _place(start), "end": _place(end)},
            "selected_text": str(first.get("text", ""))[:SELECTED_TEXT_CHARS], "selections": len(selections)}


def editor_elements(editors: dict[str, Any]) -> list[Element]:
    on_screen = {(v["path"], v.get("group")): v for v in editors.get("visible", [])}
    active, active_group = editors.get("active"), editors.get("active_group")
    elements = []
    for tab in editors.get("editors", [])[:MAX_EDITORS]:
        path, group = tab["path"], tab["group"]
        meta: dict[str, Any] = {"group": group, "active": path == active and group == active_group,
                                "visible": (path, group) in on_screen, "preview": tab["preview"], "dirty": tab["dirty"]}
        cursor = cursor_of(on_screen.get((path, group), {}))
        meta.update(cursor or {})
        elements.append(Element(id=editor_id(path, group), type="editor", label=path, value=path, editable=False,
                                meta=meta))
    return elements


def window_environment(editors: dict[str, Any]) -> dict[str, Any]:
    """What the observation says about the window itself: open or closed, and its non-file tabs."""
    found: dict[str, Any] = {"state": editors["window"], "other_tabs": [t["label"] for t in editors.get("others", [])]}
    if editors["window"] == "closed":
        found["note"] = ("No VS Code window is open; open_editor or set_selection opens one (the editors listed "
                         "are those the last window left open, and they come back with it).")
    if editors.get("problem"):
        found["problem"] = editors["problem"]
    return found


def editors_summary(editors: dict[str, Any], elements: list[Element]) -> str:
    if not elements:
        return "No editors open." if editors["window"] == "open" else "No VS Code window is open (no editors)."
    active = next((e for e in elements if e.meta.get("active")), None)
    text = f"{len(elements)} editors open"
    if active is not None:
        cursor = active.meta.get("cursor")
        text += f"; active {active.value}" + (f" (Ln {cursor['line']}, Col {cursor['column']})" if cursor else "")
    return text + "."


def window_answer(request: str, editors: dict[str, Any]) -> Any:
    """The answer to an api_call read of the window, in the extension API's shape (0-based positions)."""
    if request == "window.activeTextEditor":
        active = editors.get("active")
        shown = [v for v in editors.get("visible", []) if v["path"] == active]
        if active is None:
            return None
        selections = shown[0]["selections"] if shown else []
        return {"document": {"path": active}, "viewColumn": editors.get("active_group"),
                "selections": [{"anchor": {"line": s["anchor"][0], "character": s["anchor"][1]},
                                "active": {"line": s["active"][0], "character": s["active"][1]}} for s in selections]}
    groups: dict[int, list[dict[str, Any]]] = {}
    for tab in editors.get("editors", []):
        groups.setdefault(tab["group"], []).append({"path": tab["path"], "isActive": tab["active"],
                                                    "isPreview": tab["preview"], "isDirty": tab["dirty"]})
    return [{"viewColumn": column, "isActive": column == editors.get("active_group"), "tabs": tabs}
            for column, tabs in sorted(groups.items())]
