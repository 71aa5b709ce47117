"""The Impress adapter: .odp presentations in a warm headless LibreOffice."""

from asil.plugins import AppPlugin

PLUGIN = AppPlugin(
    name="impress",
    adapter="asil.adapters.impress.adapter:ImpressAdapter",
    pattern="file",
    extensions=(".odp",),
    checkpoints=("asil.adapters.impress.checkpoints",),
    validator="asil.adapters.impress.validator:raw_judge",
    builders={
        "presentation": "asil.adapters.impress.builders:build_presentation",
    },
    warm_up="asil.apps.libreoffice:warm_up",
    stop="asil.apps.libreoffice:stop_shared",
    suite="suites/core/impress",
    render=True,
)
