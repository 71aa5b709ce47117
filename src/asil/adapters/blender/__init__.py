"""The Blender adapter (native scripting through bpy)."""
