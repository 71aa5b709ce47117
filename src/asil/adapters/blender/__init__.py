"""The Blender adapter (native scripting through bpy)."""

from asil.plugins import packaged_app

PLUGIN = packaged_app(__name__, "BlenderAdapter", "script", extensions=(".blend",), builders={"blend": "build_blend_file"})
