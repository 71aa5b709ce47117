"""The independent raw validator for GIMP tasks: a second read path beside the checkpoints.

The checkpoints decode PNG/JPEG with Pillow, measure with ``imagemath`` and parse XCF structure
in Python. Here instead: PNG and JPEG pixels are decoded by ffmpeg and measured by this
validator's own arithmetic (``rawpixels``), sizes come from the files' headers, and XCF layers
(groups walked recursively) from a *separate* one-shot ``gimp-console`` that loads the file and
dumps it with its own Scheme (sharing nothing with the adapter's helpers). Anything unreadable is a
failed checkpoint (fail closed).
"""

from __future__ import annotations

import hashlib
import json
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.gimp.rawpixels import Pixels, RawImageError, decode, header_size, statistic, structural_similarity
from asil.adapters.gimp.xcf import LAYER_MODES
from asil.apps.gimp import one_shot, scheme_string
from asil.apps.process import ProgramFailed
from asil.evaluate.checkpoints import Checkpoint, default_compare
from asil.evaluate.compare import compare
from asil.workspace import Workspace

DUMP = """
(let* ((img (car (gimp-xcf-load 0 SOURCE SOURCE)))
       (whole (gimp-selection-none img))  ; histograms count only selected pixels: measure whole layers
       (port (open-output-file OUT))
       (put (lambda (x) (display x port)))
       (mean (lambda (l channel)
               (let ((h (gimp-drawable-histogram l channel 0 1))) (put (if (> (list-ref h 3) 0) (car h) "null")))))
       (first #t))
  (letrec ((walk
            (lambda (items parent index)
              (if (pair? items)
                  (let* ((l (car items)) (off (gimp-drawable-offsets l)) (name (car (gimp-item-get-name l))))
                    (if (not first) (put ","))
                    (set! first #f)
                    (put "{\\"name\\":") (write name port)
                    (put ",\\"width\\":") (put (car (gimp-drawable-width l)))
                    (put ",\\"height\\":") (put (car (gimp-drawable-height l)))
                    (put ",\\"offset_x\\":") (put (car off))
                    (put ",\\"offset_y\\":") (put (cadr off))
                    (put ",\\"opacity\\":") (put (car (gimp-layer-get-opacity l)))
                    (put ",\\"visible\\":") (put (if (= 1 (car (gimp-item-get-visible l))) "true" "false"))
                    (put ",\\"mode\\":") (put (car (gimp-layer-get-mode l)))
                    (if (= 1 (car (gimp-item-is-text-layer l)))
                        (let ((size (gimp-text-layer-get-font-size l)) (rgb (car (gimp-text-layer-get-color l))))
                          (put ",\\"text\\":") (write (car (gimp-text-layer-get-text l)) port)
                          (put ",\\"font\\":") (write (car (gimp-text-layer-get-font l)) port)
                          (put ",\\"font_size\\":") (put (car size))
                          (put ",\\"color\\":[") (put (car rgb)) (put ",") (put (cadr rgb)) (put ",")
                          (put (caddr rgb)) (put "]"))
                        (put ",\\"text\\":null,\\"font\\":null,\\"font_size\\":null,\\"color\\":null"))
                    (if (= 0 (car (gimp-item-is-group l)))
                        (begin (put ",\\"fill\\":[") (mean l 1) (put ",") (mean l 2) (put ",") (mean l 3) (put "]")))
                    (put ",\\"parent\\":") (if parent (write parent port) (put "null"))
                    (put ",\\"position\\":") (put index)
                    (put "}")
                    (if (= 1 (car (gimp-item-is-group l)))
                        (walk (vector->list (cadr (gimp-item-get-children l))) name 0))
                    (walk (cdr items) parent (+ index 1)))))))
    (put "{\\"width\\":") (put (car (gimp-image-width img)))
    (put ",\\"height\\":") (put (car (gimp-image-height img)))
    (put ",\\"layers\\":[")
    (walk (vector->list (cadr (gimp-image-get-layers img))) #f 0)
    (put "]}"))
  (close-output-port port))
"""
# GIMP's own projection of the visible layers, written as a PNG that ffmpeg then decodes.
PROJECTION = """
(let* ((img (car (gimp-xcf-load 0 SOURCE SOURCE)))
       (flat (car (gimp-image-merge-visible-layers img CLIP-TO-IMAGE))))
  (gimp-layer-resize-to-image-size flat)
  (file-png-save2 RUN-NONINTERACTIVE img flat OUT OUT 0 9 0 0 0 0 0 0 0))
"""
_DUMPS: dict[str, dict[str, Any]] = {}
_PROJECTIONS: dict[str, Pixels] = {}


def raw_judge(cp: Checkpoint, workspace: Workspace, outcome: str | None = None, answer: str | None = None) -> bool:
    """The verdict of one checkpoint read from the saved files; False when in doubt."""
    try:
        actual = _read(cp, workspace)
    except (RawImageError, KeyError, ValueError, TypeError, IndexError, OSError, struct.error, ProgramFailed,
            subprocess.SubprocessError):
        return False
    return compare(default_compare(cp), actual, cp.expected, cp.tolerance)


def _read(cp: Checkpoint, workspace: Workspace) -> Any:
    def path(relative: str | None) -> Path:
        if not relative:
            raise RawImageError("no path")
        return Path(workspace.root, relative)

    if cp.type == "gimp_file_format":
        return sniff(path(cp.target))
    if cp.type == "gimp_image_size":
        return image_size(path(cp.target))
    if cp.type == "gimp_pixel_stats":
        return statistic(pixels(path(cp.document)), str(cp.target))
    if cp.type == "gimp_similarity":
        return structural_similarity(pixels(path(cp.document)), pixels(path(cp.target)))
    layers = dump_xcf(path(cp.document))["layers"]
    if cp.type == "gimp_layer_names":
        return [layer["name"] for layer in layers]
    if cp.type == "gimp_layer_value":
        name, _, prop = str(cp.target).rpartition(".")
        (layer,) = [layer for layer in layers if layer["name"] == name]
        return layer_field(layer, prop)
    raise RawImageError(f"unknown checkpoint type {cp.type!r}")


def layer_field(layer: dict[str, Any], prop: str) -> Any:
    """One field of a dumped layer, in the units the checkpoints use."""
    value = layer[prop]
    if prop == "mode":
        return LAYER_MODES.get(value, str(value))  # GIMP's enum number as its name
    if prop == "fill" and value is not None and None in value:
        return None  # a layer with no opaque pixel has no color
    return round(value, 4) if prop in ("opacity", "font_size") and value is not None else value


def pixels(path: Path) -> Pixels:
    """PNG/JPEG pixels as ffmpeg decodes them; for an .xcf, those of GIMP's projection of its visible layers."""
    if not is_xcf(path):
        return decode(path)
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if key not in _PROJECTIONS:
        with tempfile.TemporaryDirectory(prefix="asil-gimp-raw-") as scratch:
            out = Path(scratch) / "projection.png"
            script = PROJECTION.replace("SOURCE", scheme_string(str(path))).replace("OUT", scheme_string(str(out)))
            one_shot(script, timeout_s=60)
            if not out.is_file():
                raise RawImageError("GIMP did not flatten the file")
            _PROJECTIONS[key] = decode(out)
    return _PROJECTIONS[key]


def is_xcf(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(9) == b"gimp xcf "


def sniff(path: Path) -> str:
    """The format the file really is: its pixels must decode too."""
    if is_xcf(path):
        dump_xcf(path)
        return "XCF"
    kind, _, _ = header_size(path)
    decode(path)
    return kind


def image_size(path: Path) -> list[int]:
    if is_xcf(path):
        data = dump_xcf(path)
        return [data["width"], data["height"]]
    _, width, height = header_size(path)
    return [width, height]


def dump_xcf(path: Path) -> dict[str, Any]:
    """The XCF's canvas and layers as loaded by a fresh GIMP (cached by file content)."""
    key = hashlib.sha256(path.read_bytes()).hexdigest()
    if key not in _DUMPS:
        with tempfile.TemporaryDirectory(prefix="asil-gimp-raw-") as scratch:
            out = Path(scratch) / "dump.json"
            script = DUMP.replace("SOURCE", scheme_string(str(path))).replace("OUT", scheme_string(str(out)))
            one_shot(script, timeout_s=60)
            if not out.is_file():
                raise RawImageError("GIMP did not load the file")
            _DUMPS[key] = json.loads(out.read_text(encoding="utf-8"))
    return _DUMPS[key]
