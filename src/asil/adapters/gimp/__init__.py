"""The GIMP adapter: images edited through Script-Fu in a warm GIMP."""

from asil.plugins import CREATIVE, packaged_app

PLUGIN = packaged_app(__name__, "GimpAdapter", "script", region=CREATIVE, extensions=(".xcf", ".png", ".jpg", ".jpeg"),
                      builders={"image": "build_image_file"}, gui="asil.apps.gimp_gui:launch")
