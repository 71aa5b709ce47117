"""Nautilus and the file system: a private Nautilus driven over D-Bus, the workspace as its world."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="nautilus",
    adapter="asil.adapters.nautilus.adapter:NautilusAdapter",
    pattern="service",
    checkpoints=("asil.adapters.nautilus.checkpoints",),
    validator="asil.adapters.nautilus.validator:raw_judge",
    builders={
        "file_tree": "asil.adapters.nautilus.builders:build_file_tree",
    },
    suite="suites/core/nautilus",
    render=True,
)
