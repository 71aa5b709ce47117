"""The Blender adapter (native scripting through bpy)."""

from asil.plugins import CREATIVE, packaged_app

PLUGIN = packaged_app(__name__, "BlenderAdapter", "script", region=CREATIVE, extensions=(".blend",),
                      builders={"blend": "build_blend_file"}, gui="asil.apps.blender_gui:launch")
