"""The OBS Studio adapter (service pattern): scenes, inputs, filters and outputs through obs-websocket 5."""

from asil.plugins import CREATIVE, packaged_app

PLUGIN = packaged_app(__name__, "ObsAdapter", "service", region=CREATIVE,
                      builders={"obs_collection": "build_collection_file", "obs_media": "build_media_file",
                                "obs_video": "build_video_file", "obs_config": "build_config_file"},
                      gui="asil.adapters.obs.gui:launch")
