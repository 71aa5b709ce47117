"""ASIL's small listener inside a visible Blender (bpy + stdlib only; shipped as package data).

Started as ``blender --factory-startup FILE --python THIS -- SOCKET``. It turns off what could cover
the window (the splash), then a timer on Blender's main thread polls a Unix socket this script listens
on. The one request it serves is ``save``: Blender itself writes the open .blend with
``bpy.ops.wm.save_mainfile`` — what Ctrl+S does, and it first ends an edit-mode session as Ctrl+S
would — and answers one JSON line. No request can run code; nothing else is served.
"""

import json
import os
import socket
import sys

import bpy

POLL_S = 0.1


def _address():
    return sys.argv[sys.argv.index("--") + 1]


def _listen(address):
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(address)
    listener.listen(1)
    listener.setblocking(False)
    return listener


def _save():
    path = bpy.data.filepath
    if not path:
        return {"ok": False, "message": "The open scene has no file to save to."}
    # The timer's context has no window; give the operator the first one, as a key press in it would.
    window = bpy.context.window_manager.windows[0]
    with bpy.context.temp_override(window=window):
        result = bpy.ops.wm.save_mainfile(filepath=path)
    return {"ok": "FINISHED" in result, "file": os.path.basename(path)}


def _serve(listener):
    try:
        conn, _ = listener.accept()
    except BlockingIOError:
        return POLL_S
    with conn:
        conn.settimeout(10)
        request = conn.makefile("r", encoding="utf-8").readline().strip()
        try:
            reply = _save() if request == "save" else {"ok": False, "message": f"Unknown request {request!r}."}
        except Exception as exc:  # a refused save is an answer, not the end of the listener
            reply = {"ok": False, "message": str(exc)}
        conn.sendall((json.dumps(reply) + "\n").encode("utf-8"))
    return POLL_S


def _open_when_drawn():
    """Listen once the window has been drawn: the socket's existence is the launcher's "shown" signal,
    and before the first redraw the window is only its gray background."""
    handles = []

    def first_draw():
        bpy.types.SpaceView3D.draw_handler_remove(handles[0], "WINDOW")
        bpy.app.timers.register(lambda: _start(), first_interval=POLL_S)

    handles.append(bpy.types.SpaceView3D.draw_handler_add(first_draw, (), "WINDOW", "POST_PIXEL"))


def _start():
    listener = _listen(_address())
    bpy.app.timers.register(lambda: _serve(listener), first_interval=POLL_S, persistent=True)


def main():
    preferences = bpy.context.preferences
    preferences.view.show_splash = False
    preferences.filepaths.use_auto_save_temporary_files = False
    preferences.use_preferences_save = False
    _open_when_drawn()


main()
