"""Regenerate the hard suite's photographs (src/asil/tasks/hard/assets/) and their manifest ASSETS.json.

The photos are scikit-image's bundled sample photographs whose docstrings state public domain or CC0. Each is
downscaled (the repository stays small; the tasks' pixel statistics stay fast) and written as JPEG (quality 90). The licence
recorded in the manifest is a sentence quoted from the function's docstring: the script stops when the installed
package no longer says it. Needs the ``assets`` extra: pip install 'asil[assets]' (scikit-image, Pillow).

    python scripts/hard_assets.py            # write the files and ASSETS.json
    python scripts/hard_assets.py --check    # compare freshly made files with the committed ones
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
from importlib import metadata
from pathlib import Path

ASSETS = Path(__file__).resolve().parent.parent / "src" / "asil" / "tasks" / "hard" / "assets"

# file -> (skimage.data function, size written (width, height), licence sentence quoted from the docstring)
PHOTOS = {
    "astronaut.jpg": ("astronaut", (320, 320), "No known copyright restrictions, released into the public domain."),
    "coffee.jpg": ("coffee", (360, 240), "No copyright restrictions. CC0 by the photographer (Rachel Michetti)."),
    "chelsea.jpg": ("chelsea", (360, 240), "No copyright restrictions. CC0 by the photographer (Stefan van der Walt)."),
    "rocket.jpg": ("rocket", (360, 240), "The image was captured by SpaceX and `released in the public domain"),
    "camera.jpg": ("camera", (320, 320), "No copyright restrictions. CC0 by the photographer (Lav Varshney)."),
}


def photo_bytes(function: str, size: tuple[int, int]) -> tuple[bytes, str, str]:
    """The JPEG bytes of the downscaled photo, its one-line description and the docstring it came with."""
    from PIL import Image
    from skimage import data

    loader = getattr(data, function)
    pixels = loader()
    image = Image.fromarray(pixels).convert("RGB").resize(size, Image.Resampling.LANCZOS)
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=90, optimize=True)
    doc = loader.__doc__ or ""
    return out.getvalue(), doc.strip().splitlines()[0], " ".join(doc.split())


def build() -> tuple[dict[str, bytes], dict[str, object]]:
    version = metadata.version("scikit-image")
    files: dict[str, bytes] = {}
    entries = []
    for name, (function, size, licence) in PHOTOS.items():
        payload, description, doc = photo_bytes(function, size)
        if " ".join(licence.split()) not in doc:
            raise SystemExit(f"skimage.data.{function}'s docstring no longer says {licence!r}: check its licence.")
        files[name] = payload
        entries.append({"file": name, "source": f"scikit-image {version}", "function": f"skimage.data.{function}",
                        "description": description, "licence": licence, "size": list(size),
                        "sha256": hashlib.sha256(payload).hexdigest()})
    manifest = {"about": "Photographs of the hard suite, downscaled copies made by scripts/hard_assets.py.",
                "assets": entries}
    return files, manifest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files, write nothing")
    args = parser.parse_args()
    files, manifest = build()
    if args.check:
        differ = [n for n, b in files.items() if not (ASSETS / n).is_file() or (ASSETS / n).read_bytes() != b]
        print("differ: " + ", ".join(differ) if differ else "the committed photos match")
        return 1 if differ else 0
    ASSETS.mkdir(parents=True, exist_ok=True)
    for name, payload in files.items():
        (ASSETS / name).write_bytes(payload)
    (ASSETS / "ASSETS.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {len(files)} photos and ASSETS.json to {ASSETS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
