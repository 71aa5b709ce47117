"""The obs app."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="obs",
    adapter="asil.adapters.obs.adapter:ObsAdapter",
    pattern="service",
    checkpoints=("asil.adapters.obs.checkpoints",),
    validator="asil.adapters.obs.validator:raw_judge",
    builders={
        "obs_collection": "asil.adapters.obs.builders:build_collection_file",
        "obs_media": "asil.adapters.obs.builders:build_media_file",
        "obs_video": "asil.adapters.obs.builders:build_video_file",
    },
    suite="suites/core/obs",
    render=True,
)
