"""The Blender adapter (native scripting through bpy)."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="blender",
    adapter="asil.adapters.blender.adapter:BlenderAdapter",
    pattern="script",
    extensions=(".blend",),
    checkpoints=("asil.adapters.blender.checkpoints",),
    validator="asil.adapters.blender.validator:raw_judge",
    builders={
        "blend": "asil.adapters.blender.builders:build_blend_file",
    },
    suite="suites/core/blender",
    render=True,
)
