"""Nautilus and the file system: a private Nautilus driven over D-Bus, the workspace as its world."""
