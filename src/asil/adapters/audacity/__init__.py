"""The Audacity adapter (scripted Audacity through mod-script-pipe)."""

from asil.plugins import CREATIVE, packaged_app

PLUGIN = packaged_app(__name__, "AudacityAdapter", "script", region=CREATIVE, extensions=(".wav", ".aup3"),
                      builders={"audio": "build_audio", "labels": "build_labels",
                                "audacity_project": "build_project"},
                      gui="asil.adapters.audacity.gui:launch")
