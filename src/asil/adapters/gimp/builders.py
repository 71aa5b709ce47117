"""Building task images from JSON specs with a one-shot GIMP, cached by content (task set-up, samples).

A spec: ``{"width", "height", "background": [r, g, b] or null (transparent), "gradient": [r, g, b]
(optional: the background fades left to right into this color), "layers": [...]}``. Layers are
listed bottom to top above the "Background" layer, each ``{"name", "x", "y", "width", "height",
"color": [r, g, b], "shape": "rect" | "ellipse", "opacity", "visible"}`` or a text layer
``{"name", "text", "x", "y", "size", "color"}`` or a layer group ``{"name", "group": [child layers, bottom to
top], "opacity", "visible"}``. The file type follows the target's suffix
(.xcf keeps the layers; .png and .jpg are flattened).

``"photo": "<path>"`` (relative to the task file, see ``asset_source``) makes the "Background" layer that
photograph, scaled to width x height, instead of a color: real-photo tasks get a layered .xcf to work on.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from asil.adapters.gimp.operations import num, rgb
from asil.apps.gimp import helpers_script, one_shot, scheme_string
from asil.protocol import AsilError
from asil.tasks.model import SetupFile, Task
from asil.tasks.setup import asset_source
from asil.workspace import cache_dir, commit_file

SAVERS = {".xcf": '(asil-save-xcf img {path})', ".png": '(asil-export img {path} "png" 0.9)',
          ".jpg": '(asil-export img {path} "jpeg" 0.9)', ".jpeg": '(asil-export img {path} "jpeg" 0.9)'}


class ImageBuildError(AsilError):
    code = "bad_setup"


def _layer_call(layer: dict[str, Any], spec: dict[str, Any], parent: str = "0") -> str:
    """Scheme that adds ``layer`` on top of ``parent``'s children (``g``, the enclosing group, or 0)."""
    name = scheme_string(str(layer["name"]))
    x, y = int(layer.get("x", 0)), int(layer.get("y", 0))
    color = rgb(layer.get("color", [0, 0, 0]))
    opacity = num(float(layer.get("opacity", 100)))
    if "group" in layer:
        children = " ".join(_layer_call(child, spec, "g") for child in layer["group"])
        call = f"(let ((g (asil-add-group img {name} {parent} 0))) {children} g)"
    elif "text" in layer:
        call = (f"(asil-text-layer img {scheme_string(str(layer['text']))} {x} {y} {num(float(layer.get('size', 24)))} "
                f"\"Sans-serif\" {color} {name} {parent} 0)")
    else:
        width, height = int(layer.get("width", spec["width"])), int(layer.get("height", spec["height"]))
        shape = "asil-ellipse-layer img" if layer.get("shape") == "ellipse" else "asil-add-layer img"
        tail = f"{opacity} {color} {parent}" if layer.get("shape") == "ellipse" else f"{opacity} \"color\" {color} {parent} 0"
        call = f"({shape} {name} {width} {height} {x} {y} {tail})"
    extra = f" (gimp-layer-set-opacity l {opacity})" if "text" in layer or "group" in layer else ""
    if layer.get("visible") is False:
        extra += " (gimp-item-set-visible l 0)"
    return f"(let ((l {call})){extra} l)"


def build_script(spec: dict[str, Any], out: Path, photo: Path | None = None) -> str:
    width, height = int(spec["width"]), int(spec["height"])
    calls = [f"(set! img (car (gimp-image-new {width} {height} RGB)))", "(gimp-image-undo-disable img)"]
    background = spec.get("background")
    fill = f'"color" {rgb(background)}' if background else '"transparent" (list 0 0 0)'
    if photo is not None:
        calls += [f"(set! bg (car (gimp-file-load-layer RUN-NONINTERACTIVE img {scheme_string(str(photo))})))",
                  "(gimp-image-insert-layer img bg 0 0)", '(gimp-item-set-name bg "Background")',
                  f"(gimp-layer-scale bg {width} {height} FALSE)", "(gimp-layer-set-offsets bg 0 0)"]
    else:
        calls.append(f'(set! bg (asil-add-layer img "Background" {width} {height} 0 0 100 {fill} 0 0))')
    if spec.get("gradient") and background and photo is None:
        calls.append(f"(asil-gradient bg {rgb(background)} {rgb(spec['gradient'])} {width})")
    calls += [_layer_call(layer, spec) for layer in spec.get("layers", [])]
    calls.append(SAVERS[out.suffix.lower()].format(path=scheme_string(str(out))))
    return (f"(begin (load {scheme_string(str(helpers_script()))}) (define img 0) (define bg 0) "
            + " ".join(calls) + ")")


def build_image(target: Path, spec: dict[str, Any], photo: Path | None = None) -> None:
    """Write ``target`` (atomically) holding the image ``spec`` describes (on ``photo``, when given)."""
    if target.suffix.lower() not in SAVERS:
        raise ImageBuildError(f"Cannot build {target.name}: the gimp builder writes .xcf, .png and .jpg files.")
    with tempfile.TemporaryDirectory(prefix="asil-gimp-build-") as scratch:
        out = Path(scratch) / f"image{target.suffix.lower()}"
        done = one_shot(build_script(spec, out, photo), timeout_s=120)
        if not out.is_file():
            tail = "; ".join(done.output.strip().splitlines()[-3:])
            raise ImageBuildError(f"GIMP could not build the image: {tail}")
        target.parent.mkdir(parents=True, exist_ok=True)
        staged = target.with_name(f".{target.name}.asil-build")
        shutil.copyfile(out, staged)
        commit_file(staged, target)


def cached_image(spec: dict[str, Any], suffix: str, cache: Path, photo: Path | None = None) -> Path:
    """The image for ``spec`` (of type ``suffix``, on ``photo``), built once per content hash under ``cache``."""
    hasher = hashlib.sha256(json.dumps(spec, sort_keys=True).encode() + suffix.lower().encode())
    hasher.update(helpers_script().read_bytes())  # a changed helper builds afresh
    if photo is not None:
        hasher.update(photo.read_bytes())  # the photo's bytes, not its name
    cached = cache / "gimp" / "images" / f"{hasher.hexdigest()[:24]}{suffix.lower()}"
    if not cached.is_file():
        build_image(cached, spec, photo)
    return cached


def build_image_file(item: SetupFile, task: Task, target: Path) -> None:
    """Built once by a one-shot GIMP from the image spec, then copied from the cache."""
    if not isinstance(item.content, dict) or "width" not in item.content or "height" not in item.content:
        raise ImageBuildError(f"Task {task.id}: image {item.path!r} needs content: a spec with width and height.")
    photo = asset_source(task, str(item.content["photo"]), f"photo of {item.path!r}") if "photo" in item.content else None
    shutil.copyfile(cached_image(item.content, target.suffix, cache_dir(), photo), target)
