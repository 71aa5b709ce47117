"""Kdenlive (MLT XML) adapter."""

from asil.plugins import CREATIVE, packaged_app

PLUGIN = packaged_app(__name__, "KdenliveAdapter", "script", region=CREATIVE, extensions=(".kdenlive", ".mlt"),
                      builders={"media_clip": "build_media_clip", "mlt_project": "build_mlt_project"},
                      checkpoints=(f"{__name__}.checkpoints", f"{__name__}.bin_checkpoints"),
                      gui="asil.apps.kdenlive_gui:launch")
