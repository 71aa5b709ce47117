"""LibreOffice Calc adapter (file-backed, .ods), computed by a warm headless LibreOffice."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="calc",
    adapter="asil.adapters.calc.adapter:CalcAdapter",
    pattern="file",
    extensions=(".ods",),
    checkpoints=("asil.adapters.calc.checkpoints",),
    validator="asil.adapters.calc.validator:raw_judge",
    builders={
        "spreadsheet": "asil.adapters.calc.builders:build_spreadsheet",
    },
    warm_up="asil.apps.libreoffice:warm_up",
    stop="asil.apps.libreoffice:stop_shared",
    suite="suites/core/calc",
    render=True,
)
