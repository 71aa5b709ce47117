"""Kdenlive (MLT XML) adapter."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="kdenlive",
    adapter="asil.adapters.kdenlive.adapter:KdenliveAdapter",
    pattern="script",
    extensions=(".kdenlive", ".mlt"),
    checkpoints=("asil.adapters.kdenlive.checkpoints",),
    validator="asil.adapters.kdenlive.validator:raw_judge",
    builders={
        "media_clip": "asil.adapters.kdenlive.builders:build_media_clip",
        "mlt_project": "asil.adapters.kdenlive.builders:build_mlt_project",
    },
    suite="suites/core/kdenlive",
    render=True,
)
