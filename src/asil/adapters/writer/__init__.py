"""The Writer adapter: .odt text documents in a warm headless LibreOffice."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="writer",
    adapter="asil.adapters.writer.adapter:WriterAdapter",
    pattern="file",
    extensions=(".odt",),
    checkpoints=("asil.adapters.writer.checkpoints",),
    validator="asil.adapters.writer.validator:raw_judge",
    builders={
        "document": "asil.adapters.writer.builders:build_document",
    },
    warm_up="asil.apps.libreoffice:warm_up",
    stop="asil.apps.libreoffice:stop_shared",
    suite="suites/core/writer",
    render=True,
)
