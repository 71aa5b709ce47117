"""The GIMP adapter: images edited through Script-Fu in a warm GIMP."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="gimp",
    adapter="asil.adapters.gimp.adapter:GimpAdapter",
    pattern="script",
    extensions=(".xcf", ".png", ".jpg", ".jpeg"),
    checkpoints=("asil.adapters.gimp.checkpoints",),
    validator="asil.adapters.gimp.validator:raw_judge",
    builders={
        "image": "asil.adapters.gimp.builders:build_image_file",
    },
    suite="suites/core/gimp",
    render=True,
)
