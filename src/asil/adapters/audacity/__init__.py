"""The Audacity adapter (scripted Audacity through mod-script-pipe)."""

from asil.plugins import packaged_app

PLUGIN = packaged_app(__name__, "AudacityAdapter", "script", extensions=(".wav",),
                      builders={"audio": "build_audio", "labels": "build_labels"})
