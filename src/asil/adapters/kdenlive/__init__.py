"""Kdenlive (MLT XML) adapter."""
