"""Generated adapters: apps onboarded from an interface profile, with no hand-written adapter module.

An interface profile (``asil.onboard``) is compiled into a *bundle*, a JSON file in ``bundles/``: data
plus small declared mappings (XPath reads and writes, HTTP routes, script statement templates that take
their values only as literals). This package interprets a bundle: ``bundle.py`` reads it into a
:class:`~asil.adapters.generated.bundle.Bundle` and derives its function table and vocabulary;
``stores.py`` holds one store per realization pattern (an XML document, an HTTP service, a scripting
runtime); ``adapter.py`` is the one adapter class; ``records.py`` turns each bundle into an
:class:`~asil.plugins.AppPlugin`; ``checkpoints.py`` and ``validator.py`` give the evaluator's three
generic checkpoint types and their independent raw read.
"""
