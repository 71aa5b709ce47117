"""Rendering a notebook with real programs: nbconvert to HTML, then headless Chromium to PNG."""
