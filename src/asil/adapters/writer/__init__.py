"""The Writer adapter: .odt text documents in a warm headless LibreOffice."""

from asil.plugins import OFFICE, packaged_app

PLUGIN = packaged_app(__name__, "WriterAdapter", "file", region=OFFICE, extensions=(".odt",),
                      builders={"document": "build_document"},
                      warm_up="asil.apps.libreoffice:warm_up", stop="asil.apps.libreoffice:stop_shared",
                      gui="asil.apps.libreoffice_gui:launch")
