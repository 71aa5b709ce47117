"""The Audacity adapter (scripted Audacity through mod-script-pipe)."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="audacity",
    adapter="asil.adapters.audacity.adapter:AudacityAdapter",
    pattern="script",
    extensions=(".wav",),
    checkpoints=("asil.adapters.audacity.checkpoints",),
    validator="asil.adapters.audacity.validator:raw_judge",
    builders={
        "audio": "asil.adapters.audacity.builders:build_audio",
        "labels": "asil.adapters.audacity.builders:build_labels",
    },
    suite="suites/core/audacity",
    render=True,
)
