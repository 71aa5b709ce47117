"""Nautilus and the file system: a private Nautilus driven over D-Bus, the workspace as its world."""

from asil.plugins import FILES, packaged_app

PLUGIN = packaged_app(__name__, "NautilusAdapter", "service", region=FILES, builders={"file_tree": "build_file_tree"},
                      gui="asil.adapters.nautilus.gui:launch")
