"""The GIMP adapter: images edited through Script-Fu in a warm GIMP."""
