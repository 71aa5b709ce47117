"""LibreOffice Calc adapter (file-backed, .ods), computed by a warm headless LibreOffice."""

from asil.plugins import OFFICE, packaged_app

PLUGIN = packaged_app(__name__, "CalcAdapter", "file", region=OFFICE, extensions=(".ods",),
                      builders={"spreadsheet": "build_spreadsheet"},
                      warm_up="asil.apps.libreoffice:warm_up", stop="asil.apps.libreoffice:stop_shared",
                      gui="asil.apps.libreoffice_gui:launch")
