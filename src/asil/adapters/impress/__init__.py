"""The Impress adapter: .odp presentations in a warm headless LibreOffice."""

from asil.plugins import OFFICE, packaged_app

PLUGIN = packaged_app(__name__, "ImpressAdapter", "file", region=OFFICE, extensions=(".odp",),
                      builders={"presentation": "build_presentation"},
                      warm_up="asil.apps.libreoffice:warm_up", stop="asil.apps.libreoffice:stop_shared",
                      gui="asil.apps.libreoffice_gui:launch")
