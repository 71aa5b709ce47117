"""A visible GIMP 2.10 on a task's image, in a private Xvfb, for the GUI participant.

The same GIMP runs its Script-Fu server (``-b (plug-in-script-fu-server ...)``, as the headless adapter's
``gimp-console`` does) next to its window, so the GUI-to-canonical sync can have *this* GIMP write the
image a person edited with its own file procedures: ``gimp-xcf-save`` for an .xcf (what File > Save runs),
the PNG or JPEG export of a flattened copy for a .png or .jpg (what File > Overwrite runs; the open image
keeps its layers). The sync never writes the file itself. The profile is a fresh copy of ASIL's GIMP
profile with a ``gimprc`` for the single-window mode (a bare Xvfb has no window manager to arrange the
toolbox, docks and image windows), no tips, no update check and no restored session.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from asil.apps import gui_window
from asil.apps.accessibility_bus import AccessibilityBus
from asil.apps.display import Display, start_display
from asil.apps.gimp import INSTALL_HINT, GimpSession, Visible, scheme_string
from asil.protocol import AppUnavailable
from asil.workspace import Workspace

SCREEN = (1280, 800)
WINDOW_TIMEOUT_S = 60.0
SAVE_TIMEOUT_S = 60.0
WINDOW_CLASS = "gimp"  # its windows' WM_CLASS name
TITLE = r" – GIMP$"  # every image window's title ends so ("[photo] (imported)-1.0 (RGB color ...) 96x64 – GIMP")
GTK2_ACCESSIBILITY = "gail:atk-bridge"  # GTK_MODULES: GTK 2 loads its accessibility only as modules (libatk-adaptor)
GIMPRC = """(single-window-mode yes)
(show-tips no)
(check-updates no)
(restore-session no)
(save-session-info no)
(show-welcome-dialog no)
"""
# Which of GIMP's own writers the sync runs, by the document's suffix (helpers in asil_gimp.scm).
WRITERS = {".xcf": "(asil-save-xcf {image} {path})", ".png": '(asil-export {image} {path} "png" 0.9)',
           ".jpg": '(asil-export {image} {path} "jpeg" 0.9)', ".jpeg": '(asil-export {image} {path} "jpeg" 0.9)'}
HOW = {".xcf": "its XCF save, as File > Save", ".png": "its PNG export, as File > Overwrite",
       ".jpg": "its JPEG export, as File > Overwrite", ".jpeg": "its JPEG export, as File > Overwrite"}


def seed_profile(profile: Path) -> None:
    with (profile / "gimprc").open("a", encoding="utf-8") as gimprc:
        gimprc.write(GIMPRC)
    (profile / "sessionrc").unlink(missing_ok=True)


class GuiGimp:
    """One visible GIMP on one image, on its own Xvfb display and profile, with its Script-Fu server."""

    def __init__(self, document: Path, width: int = SCREEN[0], height: int = SCREEN[1], accessibility: bool = False):
        self.document = document
        self.size = (width, height)
        self.accessibility = accessibility
        self.display: Display | None = None
        self.gimp: GimpSession | None = None
        self.a11y: AccessibilityBus | None = None

    @property
    def display_name(self) -> str:
        assert self.display is not None, "the GUI GIMP is not started"
        return self.display.name

    def start(self) -> None:
        """Start Xvfb and GIMP; return once the image's window is shown and fills the screen."""
        binary = shutil.which("gimp")
        if binary is None:
            raise AppUnavailable("GIMP (gimp) is not installed.", hint=INSTALL_HINT)
        self.display = start_display(*self.size)
        env = self.display.env()
        if self.accessibility:  # GTK 2 publishes its widgets only through the gail and atk-bridge modules
            self.a11y = AccessibilityBus(env)
            env = self.a11y.program_env({**env, "GTK_MODULES": GTK2_ACCESSIBILITY})
        self.gimp = GimpSession(Visible(binary, self.document, env, seed_profile))
        self._wait_for_window()
        gui_window.fill_screen(self.display_name, WINDOW_CLASS, self.size)
        gui_window.wait_painted(self.display_name, self.size)

    def accessibility_address(self) -> str | None:
        """The accessibility bus GIMP publishes its widgets on, when started with one."""
        return self.a11y.address if self.a11y is not None else None

    def _wait_for_window(self) -> None:
        assert self.gimp is not None
        self.gimp.program.wait_until(lambda: gui_window.find_window(self.display_name, TITLE) is not None,
                                     WINDOW_TIMEOUT_S, "showing the image's window")

    def open_image(self) -> int | None:
        """The id of the open image whose file is the document, or None (the person closed it)."""
        assert self.gimp is not None
        path = scheme_string(str(self.document))
        found = self.gimp.request(
            f"(let loop ((ids (vector->list (cadr (gimp-image-list))))) (cond ((null? ids) -1) "
            f"((equal? (car (gimp-image-get-filename (car ids))) {path}) (car ids)) (else (loop (cdr ids)))))")
        number = int(re.sub(r"[^-0-9]", "", found) or -1)
        return number if number >= 0 else None

    def sync(self) -> str:
        """The GUI-to-canonical sync: this GIMP writes its open image to the document, and says so."""
        if self.gimp is None or not self.gimp.alive:
            return f"GIMP was not running any more; {self.document.name} holds what was last saved"
        image = self.open_image()
        if image is None:
            return f"{self.document.name} was not open in GIMP any more; the file holds what was last saved"
        if self.gimp.request(f"(car (gimp-image-is-dirty {image}))").strip() == "0":
            return f"GIMP had no unsaved change; {self.document.name} holds what was last saved"
        suffix = self.document.suffix.lower()
        writer = WRITERS[suffix].format(image=image, path=scheme_string(str(self.document)))
        self.gimp.request(f"(begin {writer} (gimp-image-clean-all {image}))", timeout_s=SAVE_TIMEOUT_S)
        return f"stored {self.document.name} through GIMP ({HOW[suffix]})"

    def stop(self) -> None:
        if self.gimp is not None:
            self.gimp.kill()
            self.gimp = None
        for part in (self.a11y, self.display):
            if part is not None:
                part.stop()
        self.a11y = self.display = None


def launch(workspace: Workspace, document: str | None, accessibility: bool = False) -> GuiGimp:
    """The GUI launch spec of the GIMP app (``AppPlugin.gui``): GIMP on the task's image."""
    if document is None:
        raise AppUnavailable("A GIMP GUI episode needs the task's image, and this task names none.")
    gimp = GuiGimp(workspace.resolve(document), accessibility=accessibility)
    try:
        gimp.start()
    except BaseException:  # a half-started GIMP still holds its Xvfb and profile
        gimp.stop()
        raise
    return gimp
